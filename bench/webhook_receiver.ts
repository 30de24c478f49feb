/**
 * The benchmark's webhook receiver, a process of its own so that the load generator does not slow
 * it: prints its port, records each delivery's commit-to-arrival latency (ms), and prints them
 * as JSON when its stdin closes.
 */
const latencies: number[] = [];
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
  const event = JSON.parse(await req.text());
  latencies.push(Date.now() - Date.parse(event.time));
  return new Response(null, { status: 204 });
});
console.log(server.addr.port);
for await (const _ of Deno.stdin.readable) { /* until the benchmark closes stdin */ }
console.log(JSON.stringify(latencies));
await server.shutdown();
