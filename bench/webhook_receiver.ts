/**
 * The benchmark's webhook receiver, a process of its own so that the load generator does not slow
 * it: prints its port, then for every delivery records its commit-to-arrival latency (ms) and,
 * per path (one per endpoint), whether its seq came in order. When its stdin closes it prints
 * `{"latencies":[…],"paths":{"<path>":{"count","distinct","outOfOrder"}}}`.
 */
const latencies: number[] = [];
const paths = new Map<
  string,
  { count: number; last: number; seen: Set<number>; outOfOrder: number }
>();
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
  const event = JSON.parse(await req.text());
  latencies.push(Date.now() - Date.parse(event.time));
  const path = new URL(req.url).pathname;
  let state = paths.get(path);
  if (state === undefined) {
    paths.set(path, state = { count: 0, last: 0, seen: new Set(), outOfOrder: 0 });
  }
  state.count++;
  // A redelivery (same seq again) is allowed; an older seq after a newer one is not.
  if (event.seq < state.last) state.outOfOrder++;
  state.last = Math.max(state.last, event.seq);
  state.seen.add(event.seq);
  return new Response(null, { status: 204 });
});
console.log(server.addr.port);
for await (const _ of Deno.stdin.readable) { /* until the benchmark closes stdin */ }
const summary = Object.fromEntries(
  [...paths].map((
    [path, s],
  ) => [path, { count: s.count, distinct: s.seen.size, outOfOrder: s.outOfOrder }]),
);
console.log(JSON.stringify({ latencies, paths: summary }));
await server.shutdown();
