/** GET /api/openapi.json names the server a client should call: PUBLIC_URL, else its own origin. */
import assert from "node:assert/strict";
import { ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";

Deno.test("without PUBLIC_URL the document's server is the origin it was fetched from", async () => {
  await using server = await startServer();
  const res = await new ApiClient(server.url, null).get("/api/openapi.json");
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.servers.map((entry: { url: string }) => entry.url), [server.url]);
  assert.doesNotMatch(res.text, /127\.0\.0\.1:8000/);
});

Deno.test("with PUBLIC_URL the document's server is PUBLIC_URL, without its trailing slash", async () => {
  await using server = await startServer({ env: { PUBLIC_URL: "https://api.example.com/crm/" } });
  const api = new ApiClient(server.url, null);
  const res = await api.get("/api/openapi.json");
  assert.equal(res.status, 200, res.text);
  assert.deepEqual(res.body.servers, [
    { url: "https://api.example.com/crm", description: "This service (PUBLIC_URL)." },
  ]);
  // The bytes are encoded once and reused: every later answer is the same whole document.
  for (let i = 0; i < 3; i++) assert.equal((await api.get("/api/openapi.json")).text, res.text);
});
