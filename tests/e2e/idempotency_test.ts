/** Contract §4: Idempotency-Key on POST — replay, conflicts, validation and restarts. */
import assert from "node:assert/strict";
import { ApiClient, assertProblem, type Customer, newCustomer } from "../support/api.ts";
import { makeDataDir, removeDir, startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

const MERGE_PATCH = "application/merge-patch+json";

Deno.test("idempotent creation", async (t) => {
  const server = await startServer();
  try {
    const api = new ApiClient(server.url, await makeToken());
    const post = (body: unknown, key: string) =>
      api.post("/api/customers", { json: body, headers: { "idempotency-key": key } });
    const count = async () => (await api.listAll({}, 1000)).length;

    await t.step(
      "a repeat with the same key and body replays the 201 and creates nothing",
      async () => {
        const body = newCustomer({ phone: "+15551234567" });
        const first = await post(body, "replay-key-1");
        assert.equal(first.status, 201, first.text);
        assert.notEqual(first.headers.get("idempotent-replayed"), "true");
        const before = await count();
        for (let i = 0; i < 3; i++) {
          const again = await post(body, "replay-key-1");
          assert.equal(again.status, 201, again.text);
          assert.equal(again.headers.get("idempotent-replayed"), "true");
          assert.deepEqual(again.body, first.body);
          assert.equal(again.headers.get("location"), first.headers.get("location"));
          assert.equal(again.headers.get("etag"), first.headers.get("etag"));
        }
        assert.equal(await count(), before, "replays created customers");
      },
    );

    await t.step("the replay is the first response even after the customer changed", async () => {
      const body = newCustomer();
      const first = await post(body, "replay-key-2");
      assert.equal(first.status, 201, first.text);
      const patched = await api.patch(first.headers.get("location")!, {
        json: { name: "Changed Since" },
        contentType: MERGE_PATCH,
      });
      assert.equal(patched.status, 200, patched.text);
      const again = await post(body, "replay-key-2");
      assert.equal(again.status, 201);
      assert.equal(again.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(again.body, first.body);
    });

    await t.step("the same key with a different body answers 422 and creates nothing", async () => {
      const first = await post(newCustomer(), "reused-key");
      assert.equal(first.status, 201, first.text);
      const before = await count();
      const other = await post(newCustomer(), "reused-key");
      assertProblem(other, 422);
      assert.notEqual(other.headers.get("idempotent-replayed"), "true");
      assert.equal(await count(), before);
    });

    await t.step(
      "a different key with the same body is a new request (409 on the email)",
      async () => {
        const body = newCustomer();
        assert.equal((await post(body, "key-a")).status, 201);
        assertProblem(await post(body, "key-b"), 409);
      },
    );

    await t.step(
      "concurrent requests with one key create one customer; others replay or 409",
      async () => {
        const body = newCustomer();
        const before = await count();
        const results = await Promise.all(
          Array.from({ length: 10 }, () => post(body, "in-flight-key")),
        );
        const statuses = results.map((r) => r.status);
        assert.ok(statuses.every((s) => s === 201 || s === 409), `statuses ${statuses}`);
        const ids = new Set(results.filter((r) => r.status === 201).map((r) => r.body.id));
        assert.equal(ids.size, 1, `201s name ${ids.size} customers`);
        for (const r of results.filter((r) => r.status === 409)) assertProblem(r, 409);
        assert.equal(await count(), before + 1);
      },
    );

    await t.step("a key of 1 or 255 printable ASCII characters is accepted", async () => {
      const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("");
      for (const key of ["k", "K".repeat(255), `x${printable.trim()}x`.slice(0, 255)]) {
        const res = await post(newCustomer(), key);
        assert.equal(res.status, 201, `key of ${key.length}: ${res.text}`);
      }
    });

    await t.step(
      "an empty, 256-character or non-ASCII key answers 400 and creates nothing",
      async () => {
        const before = await count();
        for (const key of ["", "K".repeat(256), "clé-é"]) {
          const res = await post(newCustomer(), key);
          assertProblem(res, 400);
        }
        assert.equal(await count(), before);
      },
    );
  } finally {
    await server.dispose();
  }
});

Deno.test("idempotency keys survive a restart", async () => {
  const dataDir = await makeDataDir();
  try {
    const body = newCustomer();
    const headers = { "idempotency-key": "survives-restart" };
    let first: { body: Customer; location: string | null };

    const before = await startServer({ dataDir });
    try {
      const api = new ApiClient(before.url, await makeToken());
      const res = await api.post("/api/customers", { json: body, headers });
      assert.equal(res.status, 201, res.text);
      first = { body: res.body, location: res.headers.get("location") };
    } finally {
      const stopped = await before.stop();
      assert.equal(stopped.code, 0, `SIGTERM exit code; stderr: ${stopped.stderr}`);
    }

    const after = await startServer({ dataDir });
    try {
      const api = new ApiClient(after.url, await makeToken());
      const again = await api.post("/api/customers", { json: body, headers });
      assert.equal(again.status, 201, again.text);
      assert.equal(again.headers.get("idempotent-replayed"), "true");
      assert.deepEqual(again.body, first.body);
      assert.equal(again.headers.get("location"), first.location);
      assertProblem(await api.post("/api/customers", { json: newCustomer(), headers }), 422);
      assert.equal((await api.listAll()).length, 1);
    } finally {
      await after.stop();
    }
  } finally {
    await removeDir(dataDir);
  }
});

Deno.test("IDEMPOTENCY_MAX_KEYS=2: the newest keys replay, the oldest is forgotten, also after a restart", async () => {
  const dataDir = await makeDataDir();
  try {
    const bodies = ["a", "b", "c"].map((key) => ({ key, body: newCustomer() }));
    const env = { IDEMPOTENCY_MAX_KEYS: "2" };
    for (const life of ["first", "after a restart"]) {
      await using server = await startServer({ dataDir, env });
      const api = new ApiClient(server.url, await makeToken());
      const post = ({ key, body }: { key: string; body: unknown }) =>
        api.post("/api/customers", { json: body, headers: { "idempotency-key": key } });
      if (life === "first") {
        for (const created of bodies) assert.equal((await post(created)).status, 201);
      }
      for (const created of bodies.slice(1)) {
        const again = await post(created);
        assert.equal(again.status, 201, `${life}: ${again.text}`);
        assert.equal(
          again.headers.get("idempotent-replayed"),
          "true",
          `${life}: key ${created.key}`,
        );
      }
      // Key "a" is forgotten: the retry is a new create, refused because its email is taken.
      const forgotten = await post(bodies[0]);
      assertProblem(forgotten, 409);
      assert.equal(forgotten.body.type, "urn:problem-type:customer-api:email-taken");
      assert.equal((await api.listAll()).length, 3, life);
    }
  } finally {
    await removeDir(dataDir);
  }
});
