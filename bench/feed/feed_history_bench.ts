/**
 * What keeping history costs, on a log written by bench/support/event_log_fixture.ts (80 % creates, 15 %
 * updates, 5 % deletes, spread over the 30 days before now):
 * - paging the whole feed over HTTP in pages of 1,000, in events/s, once the server is quiet
 *   after its startup: with a client that only reads each page's bytes and its `last_seq` and
 *   `has_more` at the end (the server's rate), and with one that parses every page (what a real
 *   consumer adds: JSON.parse of 1,000 events costs the client about as much as the server's
 *   answer), in alternating passes; also the server's CPU time per event;
 * - the server's settled RSS with every event retained, against the same live customers with no
 *   history: the same data directory after one write and a compaction with EVENT_RETENTION=1s
 *   (a snapshot of the customers and an almost empty log). Both are measured started from a
 *   snapshot, after the feed index is built (the first feed request waits for it) and a pause.
 */
import { writeEventLog } from "../support/event_log_fixture.ts";
import { mintToken } from "../support/service_token.ts";
import { cpuSeconds } from "../support/child_processes.ts";
import { waitForQuiet } from "../support/quiet_process.ts";
import { SECRET, spawnServer } from "../support/server_process.ts";

/** What the history benchmark may be told. */
export interface FeedHistoryBenchOptions {
  quick?: boolean;
  /** Events in the log; default 1,000,000 (100,000 with quick). */
  events?: number;
}

const SETTLE_MS = 3_000;
const KEEP_ALL = "3650d";

/** Runs the benchmark and prints its figures. */
export async function runFeedHistoryBench(options: FeedHistoryBenchOptions = {}): Promise<void> {
  const events = options.events ?? (options.quick ? 100_000 : 1_000_000);
  const token = await mintToken(SECRET);
  const dataDir = await Deno.makeTempDir({ prefix: "feed-history-bench-" });
  try {
    const fixture = await writeEventLog(dataDir, events, { segmentMaxBytes: 64 << 20 });
    // The first start replays the log and compacts (erasing deleted customers); later ones load
    // the snapshot, as a long-running service restarts.
    await run(dataDir, KEEP_ALL, async () => {});
    const paging: Record<PageClient, Paging[]> = { bytes: [], parse: [] };
    const retained = await run(dataDir, KEEP_ALL, async (url, pid) => {
      for (let pass = 0; pass < (options.quick ? 1 : 2); pass++) {
        for (const client of ["bytes", "parse"] as const) {
          paging[client].push(await pageAll(url, token, client, pid));
        }
      }
    });
    // One write, so the compaction at shutdown runs, with nothing retained.
    await run(dataDir, "1s", async (url) => {
      const res = await fetch(`${url}/api/customers`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Bench", email: `bench-${Date.now()}@example.com` }),
      });
      await res.body?.cancel();
    });
    const bare = await run(dataDir, "1s", async () => {});
    const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
    console.log(
      `\nFeed and history: ${fixture.events.toLocaleString("en")} events, ` +
        `${fixture.live.toLocaleString("en")} live customers`,
    );
    const rates = (passes: Paging[]) => passes.map((pass) => pass.rate.toFixed(0)).join(", ");
    const perEvent = (passes: Paging[]) =>
      passes.map((pass) => (pass.serverCpu / pass.read * 1e6).toFixed(2)).join(", ");
    console.log(
      `  paging the whole feed (${paging.bytes[0].read.toLocaleString("en")} events, pages of ` +
        `1,000; target ≥ 100,000/s): client reading the bytes ${rates(paging.bytes)} events/s, ` +
        `client parsing every page ${rates(paging.parse)} events/s; server CPU per event ` +
        `${perEvent(paging.bytes)} µs (bytes), ${perEvent(paging.parse)} µs (parse)`,
    );
    console.log(
      `  settled RSS: every event retained ${mib(retained.rss)} MiB, ` +
        `no history (the snapshot and an empty log) ${mib(bare.rss)} MiB: ` +
        `${(retained.rss / bare.rss).toFixed(2)}× (target ≤ 1.5×)`,
    );
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
}

/**
 * Starts the server on dataDir with EVENT_RETENTION `retention`, waits for the replay, its
 * compaction and the feed index, reads the settled RSS, runs `body` and stops it.
 */
async function run(
  dataDir: string,
  retention: string,
  body: (url: string, pid: number) => Promise<void>,
): Promise<{ rss: number; events: number }> {
  const server = spawnServer(dataDir, [], { EVENT_RETENTION: retention, LOG_LEVEL: "info" });
  try {
    const replay = (await server.waitFor("replay done")).fields;
    const url = (await server.waitFor("ready")).fields.url as string;
    if ((replay.events as number) > 0) await server.waitFor("compaction done");
    const token = await mintToken(SECRET);
    // The first feed answer waits for the index to be built.
    const first = await fetch(`${url}/api/events?limit=1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await first.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const rss = (await server.memory()).rss;
    const pid = (await server.waitFor("listening")).fields.pid as number;
    // After the startup's background work (the feed index, the read model's own texts), which
    // would otherwise run during the first pass.
    await waitForQuiet(pid);
    await body(url, pid);
    return { rss, events: replay.events as number };
  } finally {
    await server.stop("SIGTERM");
  }
}

/** How a paging client reads each page: its bytes only, or parsed as a consumer would. */
type PageClient = "bytes" | "parse";

/** One pass over the feed: events read, per second, and the server's CPU seconds meanwhile. */
interface Paging {
  rate: number;
  read: number;
  serverCpu: number;
}

/** The end of a page: `"last_seq":n,"has_more":b}`. */
const PAGE_END = /"last_seq":(\d+),"has_more":(true|false)\}$/;

/** Reads the whole feed in pages of 1,000. */
async function pageAll(
  url: string,
  token: string,
  client: PageClient,
  pid: number,
): Promise<Paging> {
  const cpuBefore = await cpuSeconds(pid);
  const started = performance.now();
  let after = 0;
  let read = 0;
  for (let more = true; more;) {
    const res = await fetch(`${url}/api/events?after=${after}&limit=1000`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (res.status !== 200) throw new Error(`Paging answered ${res.status}: ${await res.text()}`);
    if (client === "parse") {
      const page = await res.json();
      read += page.data.length;
      after = page.last_seq;
      more = page.has_more;
      continue;
    }
    // Every event of a page starts with its seq (the fixture's customers have no "seq" member).
    const text = await res.text();
    for (let at = text.indexOf('{"seq":'); at !== -1; at = text.indexOf('{"seq":', at + 7)) read++;
    const [, lastSeq, hasMore] = PAGE_END.exec(text.slice(-100))!;
    after = Number(lastSeq);
    more = hasMore === "true";
  }
  const seconds = (performance.now() - started) / 1000;
  return { rate: read / seconds, read, serverCpu: await cpuSeconds(pid) - cpuBefore };
}
