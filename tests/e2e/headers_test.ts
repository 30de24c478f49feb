/** Contract §4: X-Request-Id and X-Content-Type-Options on every response. */
import assert from "node:assert/strict";
import { ApiClient, type ApiResponse, newCustomer, UNKNOWN_ID } from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

const SANE_ID = /^[A-Za-z0-9._-]{1,128}$/;
const MERGE_PATCH = "application/merge-patch+json";

Deno.test("response headers", async (t) => {
  const server = await startServer();
  try {
    const api = new ApiClient(server.url, await makeToken());
    const readOnly = await makeToken({ scope: "customers:read" });

    await t.step("every kind of response carries X-Request-Id and nosniff", async () => {
      const created = await api.post("/api/customers", { json: newCustomer() });
      const id = created.body.id;
      const one = `/api/customers/${id}`;
      const responses: [string, ApiResponse][] = [
        ["201 create", created],
        ["200 get", await api.get(one)],
        ["200 head", await api.head(one)],
        ["200 list", await api.get("/api/customers")],
        ["200 head list", await api.head("/api/customers")],
        ["304", await api.get(one, { headers: { "if-none-match": '"1"' } })],
        ["200 patch", await api.patch(one, { json: { name: "N" }, contentType: MERGE_PATCH })],
        ["400", await api.get("/api/customers?limit=0")],
        ["401", await api.get("/api/customers", { token: null })],
        ["403", await api.post("/api/customers", { json: newCustomer(), token: readOnly })],
        ["404 path", await api.get("/api/nothing-here")],
        ["404 id", await api.get(`/api/customers/${UNKNOWN_ID}`)],
        ["405", await api.delete("/api/customers")],
        [
          "409",
          await api.post("/api/customers", { json: newCustomer({ email: created.body.email }) }),
        ],
        ["412", await api.delete(one, { headers: { "if-match": '"1"' } })],
        [
          "413",
          await api.post("/api/customers", {
            body: "x".repeat(70_000),
            contentType: "application/json",
          }),
        ],
        ["415", await api.post("/api/customers", { body: "{}", contentType: "text/plain" })],
        ["422", await api.post("/api/customers", { json: {} })],
        ["204", await api.delete(one)],
      ];
      for (const [what, res] of responses) {
        assert.match(res.headers.get("x-request-id") ?? "", SANE_ID, `${what}: X-Request-Id`);
        assert.equal(res.headers.get("x-content-type-options"), "nosniff", `${what}: nosniff`);
      }
    });

    await t.step("a sane client X-Request-Id is echoed in the header and in problems", async () => {
      for (const sent of ["abc", "req-123_ABC.x", "a".repeat(128), "0"]) {
        const ok = await api.get("/api/customers?limit=1", { headers: { "x-request-id": sent } });
        assert.equal(ok.headers.get("x-request-id"), sent);
        const problem = await api.get(`/api/customers/${UNKNOWN_ID}`, {
          headers: { "x-request-id": sent },
        });
        assert.equal(problem.headers.get("x-request-id"), sent);
        assert.equal(problem.body.request_id, sent);
      }
    });

    await t.step(
      "an insane X-Request-Id (too long, bad characters, empty) is replaced",
      async () => {
        for (const sent of ["a".repeat(129), "bad id", "a/b", "a:b", "<script>", "é", ""]) {
          const res = await api.get("/api/customers?limit=1", {
            headers: { "x-request-id": sent },
          });
          const got = res.headers.get("x-request-id") ?? "";
          assert.notEqual(got, sent, `"${sent}" was echoed`);
          assert.match(got, SANE_ID, `replacement for "${sent}"`);
        }
      },
    );

    await t.step("request ids the server makes up differ between requests", async () => {
      const ids = new Set<string | null>();
      for (let i = 0; i < 5; i++) {
        ids.add((await api.get("/api/customers?limit=1")).headers.get("x-request-id"));
      }
      assert.equal(ids.size, 5);
    });
  } finally {
    await server.dispose();
  }
});
