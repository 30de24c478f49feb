/**
 * The benchmark's webhook receiver, a process of its own so that the load generator does not slow
 * it: prints its port, then for every delivery records its commit-to-arrival latency (ms), by
 * group of paths (`/hook/p2-0` … `/hook/p2-9` are group `/p2`), and, per path (one per
 * endpoint), whether its seq came in order. When its stdin closes it prints
 * `{"latencies":{"<group>":[…]},"paths":{"<path>":{"count","distinct","outOfOrder"}}}`.
 */
/** Latencies by group: a path's part before its last `-` (`/r3-7` → `/r3`), all of it without. */
const latencies: Record<string, number[]> = {};
const paths = new Map<
  string,
  { count: number; last: number; distinct: number; outOfOrder: number }
>();
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
  const event = JSON.parse(await req.text());
  const latency = Date.now() - Date.parse(event.time);
  const path = req.url.slice(req.url.lastIndexOf("/"));
  const group = path.includes("-") ? path.slice(0, path.lastIndexOf("-")) : path;
  (latencies[group] ??= []).push(latency);
  let state = paths.get(path);
  if (state === undefined) {
    paths.set(path, state = { count: 0, last: 0, distinct: 0, outOfOrder: 0 });
  }
  state.count++;
  // A redelivery of the newest seq is allowed (at least once); an older seq after it is not.
  if (event.seq > state.last) state.distinct++, state.last = event.seq;
  else if (event.seq < state.last) state.outOfOrder++;
  return new Response(null, { status: 204 });
});
console.log(server.addr.port);
for await (const _ of Deno.stdin.readable) { /* until the benchmark closes stdin */ }
const summary = Object.fromEntries(
  [...paths].map((
    [path, s],
  ) => [path, { count: s.count, distinct: s.distinct, outOfOrder: s.outOfOrder }]),
);
console.log(JSON.stringify({ latencies, paths: summary }));
await server.shutdown();
