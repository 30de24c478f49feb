/**
 * Contract §13 end to end, against the server as the README starts it: the query language over
 * HTTP, sort with cursors that carry it, `400 invalid-query`, and freshness: a write, then a
 * search with no wait in between, on the JSONL log and across two PostgreSQL replicas.
 */
import assert from "node:assert/strict";
import {
  ApiClient,
  assertProblem,
  type Customer,
  fullCustomer,
  newCustomer,
} from "../support/api.ts";
import { startServer, type TestServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";
import { createTestSchema } from "../support/postgres.ts";

const RUN = crypto.randomUUID().slice(0, 6);

/** The ids a search answers (one page of up to 1,000), and its Log-Seq. */
async function found(
  api: ApiClient,
  params: Record<string, string>,
  headers?: Record<string, string>,
) {
  const res = await api.get(`/api/customers?${new URLSearchParams({ limit: "1000", ...params })}`, {
    headers,
  });
  assert.equal(res.status, 200, res.text);
  return {
    ids: (res.body.data as Customer[]).map((c) => c.id),
    seq: Number(res.headers.get("log-seq")),
  };
}

Deno.test("searches answer the query language over HTTP, sorted and paged by cursor", async (t) => {
  await using server = await startServer();
  const api = new ApiClient(server.url, await makeToken());
  const ada = await api.create(fullCustomer({
    name: `Ada Lovelace ${RUN}`,
    email: `ada.${RUN}@example.com`,
    metadata: { crm_id: `A-${RUN}`, plan: "pro" },
  }));
  const grace = await api.create(newCustomer({
    name: `Grace Hopper ${RUN}`,
    phone: "+15555550100",
    address: { city: "Arlington", country: "US" },
  }));
  const alan = await api.create(
    newCustomer({ name: `alan turing ${RUN}`, metadata: { plan: "free" } }),
  );

  await t.step("each kind of clause finds what it should, case-insensitively", async () => {
    const cases: [string, string[]][] = [
      [`email:ADA.${RUN}@EXAMPLE.COM`, [ada.id]],
      [`metadata['crm_id']:a-${RUN}`, [ada.id]],
      [`name~"LOVEL" name~${RUN}`, [ada.id]],
      [`phone:"+15555550100"`, [grace.id]],
      [`address.city:arlington`, [grace.id]],
      [`address.country:gb`, [ada.id]],
      [`name~${RUN} phone:null`, [alan.id]],
      [`name~${RUN} -metadata['plan']:null`, [ada.id, alan.id]],
      [`(metadata['plan']:pro OR metadata['plan']:free) AND name~${RUN}`, [ada.id, alan.id]],
      [`id:${grace.id.toLowerCase()}`, [grace.id]],
      [`name~${RUN} created_at>=${ada.created_at} created_at<=${grace.created_at}`, [
        ada.id,
        grace.id,
      ]],
      [`name~${RUN} -(address.country:GB OR address.country:US)`, [alan.id]],
    ];
    for (const [query, ids] of cases) {
      assert.deepEqual((await found(api, { query })).ids, ids, query);
    }
    assert.deepEqual((await found(api, { q: "LOVELACE" })).ids, [ada.id], "q stays");
    assert.deepEqual(
      (await found(api, { email: ada.email.toUpperCase() })).ids,
      [ada.id],
      "email too",
    );
  });

  await t.step(
    "sort orders the page and its cursor carries the order from page to page",
    async () => {
      const names = [`b ${RUN}`, `A ${RUN}`, `c ${RUN}`, `a ${RUN}`, `B ${RUN}`];
      const created = [];
      for (const name of names) {
        created.push(
          await api.create(newCustomer({ name: `${name} sorted` })),
        );
      }
      const expected = [...created].sort((x, y) => {
        const [a, b] = [x.name.toLowerCase(), y.name.toLowerCase()];
        return a < b ? 1 : a > b ? -1 : x.id < y.id ? 1 : -1;
      }).map((c) => c.id);
      const seen: string[] = [];
      let path: string | null = `/api/customers?${new URLSearchParams({
        query: `name~"${RUN} sorted"`,
        sort: "-name",
        limit: "2",
      })}`;
      while (path !== null) {
        const res = await api.get(path);
        assert.equal(res.status, 200, res.text);
        seen.push(...res.body.data.map((c: Customer) => c.id));
        const link = res.headers.get("link");
        path = link === null ? null : link.slice(1, link.indexOf(">"));
      }
      assert.deepEqual(seen, expected);
      const first = await api.get(`/api/customers?sort=created_at&limit=1`);
      const wrong = await api.get(
        `/api/customers?sort=-created_at&cursor=${first.body.next_cursor}`,
      );
      assertProblem(wrong, 400);
      assert.match(wrong.body.detail, /continues sort=created_at, not sort=-created_at/);
    },
  );

  await t.step("a malformed query answers 400 invalid-query naming the offset", async () => {
    const res = await api.get(`/api/customers?query=${encodeURIComponent("name:ada AND email:")}`);
    assertProblem(res, 400);
    assert.equal(res.body.type, "urn:problem-type:customer-api:invalid-query");
    assert.deepEqual(res.body.errors, [{
      pointer: "/query",
      detail: "offset 19: expected a value after ':'",
    }]);
    const both = await api.get(`/api/customers?query=name:ada&q=ada`);
    assertProblem(both, 400);
    assert.equal(both.body.type, "urn:problem-type:customer-api:bad-request");
    assertProblem(await api.get(`/api/customers?sort=email`), 400);
  });
});

/** Writes and searches straight after each, on `writer` and `reader`; asserts what each sees. */
async function writeThenSearch(writer: ApiClient, reader: ApiClient, label: string): Promise<void> {
  for (let i = 0; i < 25; i++) {
    const token = `f${RUN}x${i}`;
    const created = await writer.post("/api/customers", {
      json: newCustomer({ name: `Fresh ${token}` }),
    });
    assert.equal(created.status, 201, created.text);
    const seq = created.headers.get("log-seq")!;
    const after = { "min-log-seq": seq };
    let seen = await found(reader, { query: `name~"${token}"` }, after);
    assert.deepEqual(seen.ids, [created.body.id], `${label}: a create is found at once`);
    assert.ok(seen.seq >= Number(seq), `${label}: the answer's Log-Seq covers the write`);
    const renamed = await writer.patch(`/api/customers/${created.body.id}`, {
      json: { name: `Renamed ${token}` },
      contentType: "application/merge-patch+json",
    });
    assert.equal(renamed.status, 200, renamed.text);
    const patched = { "min-log-seq": renamed.headers.get("log-seq")! };
    assert.deepEqual(
      (await found(reader, { query: `name~"fresh ${token}"` }, patched)).ids,
      [],
      `${label}: the old name is gone`,
    );
    seen = await found(reader, { query: `name:"renamed ${token}"`, sort: "-updated_at" }, patched);
    assert.deepEqual(seen.ids, [created.body.id], `${label}: the new name is found at once`);
    const gone = await writer.delete(`/api/customers/${created.body.id}`);
    assert.equal(gone.status, 204);
    const deleted = { "min-log-seq": gone.headers.get("log-seq")! };
    assert.deepEqual(
      (await found(reader, { query: `name~"${token}"` }, deleted)).ids,
      [],
      `${label}: a delete is gone at once`,
    );
  }
}

Deno.test("a write is reflected by the next search, with no wait, on the JSONL log", async () => {
  await using server = await startServer();
  const api = new ApiClient(server.url, await makeToken());
  // Writers beside: the search index is busy with other changes when each search comes.
  let writing = true;
  const noise = (async () => {
    while (writing) await api.create(newCustomer({ name: `Noise ${RUN}` }));
  })();
  try {
    await writeThenSearch(api, api, "jsonl");
  } finally {
    writing = false;
    await noise;
  }
  // After a restart the rebuilt index finds the same.
  await server.stop();
  await using again = await startServer({ dataDir: server.dataDir });
  const reread = new ApiClient(again.url, await makeToken());
  const noiseIds = (await found(reread, { query: `name~"noise ${RUN}"` })).ids;
  assert.ok(noiseIds.length > 0);
  assert.deepEqual(noiseIds, (await reread.listAll({ q: `noise ${RUN}` })).map((c) => c.id));
});

Deno.test("a write on one PostgreSQL replica is reflected by a search on either with Min-Log-Seq", async () => {
  const schema = await createTestSchema();
  const servers: TestServer[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      servers.push(await startServer({ env: { DATABASE_URL: schema.url } }));
    }
    const token = await makeToken();
    const [a, b] = servers.map((server) => new ApiClient(server.url, token));
    await writeThenSearch(a, a, "postgres, same replica");
    await writeThenSearch(a, b, "postgres, other replica");
  } finally {
    for (const server of servers) await server.dispose();
    await schema.drop();
  }
});
