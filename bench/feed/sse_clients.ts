/**
 * A process holding many Server-Sent Events streams open on raw loopback sockets (cheaper than
 * fetch, so the client costs the shared cores as little as possible):
 * `sse_clients.ts <port> <token> <streams> <after> [query]`. It prints `open` once every stream
 * has its headers, reads them all, and on the end of stdin prints one JSON line: the
 * commit-to-delivery latencies (ms, from each event's `time`) seen on a sample of the streams and
 * how many streams ended early. Every stream is read; only every SAMPLE-th is parsed, as soon as
 * bytes arrive; the others drain their sockets every DRAIN_MS (the server writes every chunk to
 * every socket either way), so the client's own reads take less of the cores it shares. The
 * draining streams are split into DRAIN_GROUPS drained in turn, so the client never reads 950
 * sockets in one burst while a sampled frame waits behind them. At 1,000 streams, every tenth
 * stream sampled and 50 ms between drains took the client about a quarter more CPU (beside the
 * server's, on the cores they share) than every twentieth and 100 ms; 100 ms of frames (about
 * 20 KB) still fit a socket's receive buffer several times over, so the server never waits for a
 * drain.
 */
const [port, token, streams, after, query = ""] = Deno.args;
const SAMPLE = 20;
const DRAIN_MS = 100;
const DRAIN_GROUPS = 10;
/** Per group, resolves at its next turn of one timer shared by all the streams that drain. */
const ticks: (() => void)[] = [];
const drained: Promise<void>[] = [];
for (let group = 0; group < DRAIN_GROUPS; group++) {
  drained.push(new Promise<void>((resolve) => ticks[group] = resolve));
}
let turn = 0;
setInterval(() => {
  const group = turn++ % DRAIN_GROUPS;
  const release = ticks[group];
  drained[group] = new Promise<void>((resolve) => ticks[group] = resolve);
  release();
}, DRAIN_MS / DRAIN_GROUPS);
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const latencies: number[] = [];
let ended = 0;
/** The last `time` text parsed and its value: writes decided in one millisecond share it. */
let lastText = "";
let lastTime = NaN;
function parseTime(text: string): number {
  if (text !== lastText) [lastText, lastTime] = [text, Date.parse(text)];
  return lastTime;
}

async function follow(n: number): Promise<void> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
  await conn.write(encoder.encode(
    `GET /api/events?after=${after}${query} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
      `Authorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`,
  ));
  const buffer = new Uint8Array(64 * 1024);
  let text = "";
  let read = await conn.read(buffer);
  text = decoder.decode(buffer.subarray(0, read ?? 0));
  if (!text.startsWith("HTTP/1.1 200")) throw new Error(`Stream ${n}: ${text.slice(0, 200)}`);
  opened();
  const sampled = n % SAMPLE === 0;
  while ((read = await conn.read(buffer)) !== null) {
    if (!sampled) {
      // Every SAMPLE-th stream is sampled: the group spreads the others over the turns.
      await drained[Math.floor(n / SAMPLE) % DRAIN_GROUPS];
      continue;
    }
    const now = Date.now();
    text = decoder.decode(buffer.subarray(0, read));
    // A frame's time: `"time":"<ISO 8601>"`; chunk boundaries carry whole frames.
    for (let at = text.indexOf('"time":"'); at !== -1; at = text.indexOf('"time":"', at + 8)) {
      const time = parseTime(text.slice(at + 8, text.indexOf('"', at + 8)));
      // A frame cut by the socket read has no whole time: it is skipped.
      if (!Number.isNaN(time)) latencies.push(now - time);
    }
  }
  ended++;
}

let open = 0;
let allOpen: () => void;
const ready = new Promise<void>((resolve) => allOpen = resolve);
function opened(): void {
  if (++open === Number(streams)) allOpen();
}

for (let n = 0; n < Number(streams); n++) {
  follow(n).catch((error) => {
    console.error(String(error));
    Deno.exit(1);
  });
  // Opening a thousand at once would look like a connection flood to the accept loop.
  if (n % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 20));
}
await ready;
console.log("open");
for await (const _ of Deno.stdin.readable) {
  // Until the bench closes stdin.
}
console.log(JSON.stringify({ latencies, ended }));
Deno.exit(0);
