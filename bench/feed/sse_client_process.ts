/** The benchmark's Server-Sent Events client process (bench/feed/sse_clients.ts). */

/** What the client process reports when it is finished. */
export interface StreamResults {
  /** Commit-to-delivery latencies (ms) seen on the sampled streams. */
  latencies: number[];
  /** Streams that the server ended before the client did. */
  ended: number;
}

/** The stream client process, once every stream is open. */
export async function openStreams(url: string, token: string, streams: number, query: string) {
  // The list's Log-Seq is the head of the log: the streams start there, with nothing to replay.
  const head = await fetch(`${url}/api/customers?limit=1`, {
    headers: { authorization: `Bearer ${token}` },
  });
  await head.body?.cancel();
  const after = head.headers.get("log-seq")!;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      new URL("./sse_clients.ts", import.meta.url).pathname,
      new URL(url).port,
      token,
      String(streams),
      after,
      query,
    ],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).values();
  let text = "";
  const nextLine = async () => {
    while (!text.includes("\n")) {
      const { value, done } = await lines.next();
      if (done) throw new Error("The stream client ended early");
      text += value;
    }
    const at = text.indexOf("\n");
    const line = text.slice(0, at);
    text = text.slice(at + 1);
    return line;
  };
  if (await nextLine() !== "open") throw new Error("The stream client could not open its streams");
  return {
    pid: child.pid,
    finish: async (): Promise<StreamResults> => {
      await child.stdin.close();
      const result = JSON.parse(await nextLine());
      await child.status;
      return result;
    },
  };
}
