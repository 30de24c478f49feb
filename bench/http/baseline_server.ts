/**
 * The ceiling of the runtime: a bare `Deno.serve` answering one fixed ~250-byte customer JSON to
 * every request, with no routing, auth or storage. It reads request bodies as any real server
 * must: left unread, POSTs of some sizes (e.g. ~550 bytes) drop from ~60k to ~13k req/s here.
 * Prints `{"port":N}` once it listens.
 * `deno run --allow-net --allow-env=PORT bench/http/baseline_server.ts`
 */

/** A typical customer as the service returns it, 250 bytes or so. */
export const BASELINE_BODY = JSON.stringify({
  id: "01JBENCH0000000000000000AB",
  name: "Ada Lovelace",
  email: "ada.lovelace.1@example.com",
  phone: "+4930123456",
  address: null,
  metadata: { plan: "pro" },
  created_at: "2025-01-01T00:00:00.000Z",
  updated_at: "2025-01-01T00:00:00.000Z",
  version: 1,
});

if (import.meta.main) {
  const headers = { "content-type": "application/json; charset=utf-8" };
  const answer = () => new Response(BASELINE_BODY, { headers });
  Deno.serve({
    port: Number(Deno.env.get("PORT") ?? "0"),
    hostname: "127.0.0.1",
    onListen: ({ port }) => console.log(JSON.stringify({ port })),
  }, (request) => request.body === null ? answer() : request.arrayBuffer().then(answer));
}
