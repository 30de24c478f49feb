/**
 * A collector stand-in for the tracing benchmark: accepts OTLP/HTTP exports, reads and drops them,
 * and counts them (GET /stats). In a process of its own, so its CPU is not the server's.
 * `deno run --allow-net bench/tracing/otlp_sink.ts` prints `{"port":N}`.
 */
let requests = 0;
let bytes = 0;
const traces = { requests: 0, bytes: 0 };

Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(JSON.stringify({ port })),
}, async (request) => {
  const path = new URL(request.url).pathname;
  if (request.method === "GET" && path === "/stats") {
    return Response.json({ requests, bytes, traces });
  }
  const size = (await request.arrayBuffer()).byteLength;
  requests++;
  bytes += size;
  if (path === "/v1/traces") {
    traces.requests++;
    traces.bytes += size;
  }
  return new Response(new Uint8Array(0), {
    headers: { "content-type": request.headers.get("content-type") ?? "application/x-protobuf" },
  });
});
