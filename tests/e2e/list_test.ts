/** Contract §4: GET /api/customers — order, cursor pagination, Link, limit and filters. */
import assert from "node:assert/strict";
import {
  ApiClient,
  type ApiResponse,
  assertJsonType,
  assertProblem,
  type Customer,
  inParallel,
  newCustomer,
} from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

const BULK = 250;

/** The target of `Link: <…>; rel="next"`, resolved against the server, or null. */
function nextLink(res: ApiResponse, base: string): string | null {
  const header = res.headers.get("link");
  if (header === null) return null;
  const match = header.match(/<([^>]*)>\s*;\s*rel="?next"?/);
  assert.ok(match, `Link without rel="next": ${header}`);
  return new URL(match[1], base).href;
}

function assertAscendingUnique(ids: string[]): void {
  for (let i = 1; i < ids.length; i++) {
    assert.ok(ids[i - 1] < ids[i], `not ascending at ${i}: ${ids[i - 1]} then ${ids[i]}`);
  }
}

Deno.test("listing customers", async (t) => {
  const server = await startServer();
  try {
    const api = new ApiClient(server.url, await makeToken());
    const created: Customer[] = [];

    await t.step("an empty store lists {data: [], next_cursor: null} without Link", async () => {
      const res = await api.get("/api/customers");
      assert.equal(res.status, 200, res.text);
      assertJsonType(res);
      assert.deepEqual(res.body, { data: [], next_cursor: null });
      assert.equal(res.headers.get("link"), null);
    });

    await t.step(`setup: create ${BULK} customers plus some to filter for`, async () => {
      created.push(
        await api.create(newCustomer({ name: "Mixed Case", email: "Mixed.Case+tag@Example.COM" })),
        await api.create(
          newCustomer({ name: "Grace Zebulon Hopper", email: "grace@navy.example" }),
        ),
        await api.create(newCustomer({ name: "Someone Else", email: "zebulon.fan@example.org" })),
      );
      const bulk = await inParallel(
        Array.from({ length: BULK }, () => newCustomer()),
        25,
        (input) => api.create(input),
      );
      created.push(...bulk);
    });

    for (const limit of [100, 7]) {
      await t.step(
        `a walk with limit=${limit} yields every id exactly once, ascending`,
        async () => {
          const pageSizes: number[] = [];
          const ids: string[] = [];
          let cursor: string | null = null;
          do {
            const params = new URLSearchParams({ limit: String(limit) });
            if (cursor !== null) params.set("cursor", cursor);
            const res = await api.get(`/api/customers?${params}`);
            assert.equal(res.status, 200, res.text);
            assert.deepEqual(Object.keys(res.body).sort(), ["data", "next_cursor"]);
            pageSizes.push(res.body.data.length);
            ids.push(...res.body.data.map((c: Customer) => c.id));
            cursor = res.body.next_cursor;
            assert.ok(cursor === null || typeof cursor === "string");
          } while (cursor !== null && pageSizes.length <= created.length);
          assertAscendingUnique(ids);
          assert.deepEqual(ids, created.map((c) => c.id).sort());
          assert.ok(pageSizes.slice(0, -1).every((size) => size === limit), `pages ${pageSizes}`);
          assert.equal(pageSizes.length, Math.ceil(created.length / limit));
        },
      );
    }

    await t.step(
      "Link rel=next is there iff a next page exists; following it walks all",
      async () => {
        let url: string | null = `${server.url}/api/customers?limit=100`;
        const ids: string[] = [];
        let pages = 0;
        while (url !== null && pages++ <= created.length) {
          const res = await api.get(url);
          assert.equal(res.status, 200, res.text);
          ids.push(...res.body.data.map((c: Customer) => c.id));
          url = nextLink(res, server.url);
          assert.equal(url === null, res.body.next_cursor === null, "Link iff next_cursor");
        }
        assert.equal(pages, Math.ceil(created.length / 100));
        assert.deepEqual(ids, created.map((c) => c.id).sort());
      },
    );

    await t.step("without limit a page holds 100 customers", async () => {
      const res = await api.get("/api/customers");
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.length, 100);
      assert.equal(typeof res.body.next_cursor, "string");
      assert.notEqual(nextLink(res, server.url), null);
    });

    await t.step("limit=1 gives one customer; limit=1000 gives all with no next page", async () => {
      const one = await api.get("/api/customers?limit=1");
      assert.equal(one.status, 200, one.text);
      assert.equal(one.body.data.length, 1);
      assert.equal(one.body.data[0].id, created.map((c) => c.id).sort()[0]);
      const all = await api.get("/api/customers?limit=1000");
      assert.equal(all.status, 200, all.text);
      assert.equal(all.body.data.length, created.length);
      assert.equal(all.body.next_cursor, null);
      assert.equal(all.headers.get("link"), null);
    });

    await t.step("listed customers are the same objects GET returns", async () => {
      const page = await api.get("/api/customers?limit=5");
      for (const listed of page.body.data) {
        const one = await api.get(`/api/customers/${listed.id}`);
        assert.deepEqual(listed, one.body);
      }
    });

    await t.step("email filter matches the whole address, case-insensitively", async () => {
      const target = created[0];
      for (const email of ["mixed.case+tag@example.com", "MIXED.CASE+TAG@EXAMPLE.COM"]) {
        const res = await api.get(`/api/customers?email=${encodeURIComponent(email)}`);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.data.map((c: Customer) => c.id), [target.id], email);
        assert.equal(res.body.next_cursor, null);
      }
      for (const partial of ["mixed.case", "example.com", "ixed.case+tag@example.com"]) {
        const res = await api.get(`/api/customers?email=${encodeURIComponent(partial)}`);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.data, [], `email=${partial} is not exact`);
      }
    });

    await t.step("q filter matches a substring of name or email, case-insensitively", async () => {
      const expected = [created[1].id, created[2].id].sort();
      for (const q of ["zebulon", "ZEBUL", "bulo"]) {
        const res = await api.get(`/api/customers?q=${q}`);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.data.map((c: Customer) => c.id), expected, `q=${q}`);
      }
      const byEmailOnly = await api.get("/api/customers?q=NAVY.EXAMPLE");
      assert.deepEqual(byEmailOnly.body.data.map((c: Customer) => c.id), [created[1].id]);
      const none = await api.get("/api/customers?q=no-such-substring-anywhere");
      assert.equal(none.status, 200);
      assert.deepEqual(none.body, { data: [], next_cursor: null });
    });

    await t.step("an empty filter (email=, q=) lists exactly what no filter lists", async () => {
      const unfiltered = await api.get("/api/customers?limit=7");
      assert.equal(unfiltered.status, 200, unfiltered.text);
      for (const query of ["email=", "q=", "email=&q="]) {
        const res = await api.get(`/api/customers?${query}&limit=7`);
        assert.equal(res.status, 200, `${query}: ${res.text}`);
        assert.deepEqual(res.body, unfiltered.body, query);
      }
      const withQ = await api.get("/api/customers?email=&q=zebulon");
      assert.equal(withQ.body.data.length, 2, "an empty email beside q filters by q alone");
    });

    await t.step("an email filter longer than 254 characters answers 400", async () => {
      const res = await api.get(`/api/customers?email=${"a".repeat(290)}%40example.com`);
      assertProblem(res, 400);
      assert.match(res.body.detail, /longer than 254 characters/);
      const at254 = `${"a".repeat(64)}@${"b".repeat(185)}.com`;
      const ok = await api.get(`/api/customers?email=${encodeURIComponent(at254)}`);
      assert.equal(ok.status, 200, ok.text);
      assert.deepEqual(ok.body.data, []);
    });

    await t.step("a filter whose percent-encoding is not UTF-8 answers 400 naming it", async () => {
      // %ED%A0%80 encodes a lone surrogate (U+D800), which no UTF-8 text can hold.
      for (const [query, name] of [["q=%ED%A0%80", "q"], ["email=%ED%A0%80", "email"]]) {
        const res = await api.get(`/api/customers?${query}`);
        assertProblem(res, 400);
        assert.match(res.body.detail, new RegExp(`"${name}" is not percent-encoded UTF-8`));
      }
    });

    await t.step("a filter stays applied across pages via next_cursor and via Link", async () => {
      const expected = [created[1].id, created[2].id].sort();
      const viaCursor = await api.listAll({ q: "zebulon" }, 1);
      assert.deepEqual(viaCursor.map((c) => c.id), expected);

      const first = await api.get("/api/customers?q=zebulon&limit=1");
      assert.equal(first.body.data.length, 1);
      const link = nextLink(first, server.url);
      assert.ok(link, "first of two filtered pages has a Link");
      const second = await api.get(link);
      assert.equal(second.status, 200, second.text);
      assert.deepEqual(
        [...first.body.data, ...second.body.data].map((c: Customer) => c.id),
        expected,
      );
      assert.equal(second.body.next_cursor, null);
      assert.equal(nextLink(second, server.url), null);
    });
  } finally {
    await server.dispose();
  }
});

Deno.test("a page asked for again after each kind of write shows that write, never an older page", async () => {
  const server = await startServer();
  try {
    const api = new ApiClient(server.url, await makeToken());
    const ids = async (path: string) => {
      const res = await api.get(path);
      assert.equal(res.status, 200, res.text);
      const body = res.body as { data: Customer[]; next_cursor: string | null };
      return { res, body, ids: body.data.map((c) => c.id) };
    };
    const first = await api.create(newCustomer({ name: "Ada First" }));
    const second = await api.create(newCustomer({ name: "Bob Second" }));
    // Each query is answered twice before every write, so a kept page exists to go stale.
    const queries = ["/api/customers", "/api/customers?limit=1", "/api/customers?q=second"];
    const seqs: number[] = [];
    for (const path of queries) await ids(path), await ids(path);
    seqs.push(Number((await ids("/api/customers")).res.headers.get("log-seq")));

    const third = await api.create(newCustomer({ name: "Cy Second Too" }));
    assert.deepEqual((await ids("/api/customers")).ids, [first.id, second.id, third.id]);
    assert.deepEqual((await ids("/api/customers?q=second")).ids, [second.id, third.id]);
    seqs.push(Number((await ids("/api/customers")).res.headers.get("log-seq")));

    const renamed = await api.put(`/api/customers/${first.id}`, {
      json: { name: "Ada Second Now", email: first.email },
    });
    assert.equal(renamed.status, 200, renamed.text);
    const afterPut = await ids("/api/customers?limit=1");
    assert.equal(afterPut.body.data[0].name, "Ada Second Now");
    assert.equal(afterPut.body.data[0].version, 2);
    assert.ok(afterPut.res.headers.get("link")?.includes("cursor="), "still a next page");
    assert.deepEqual((await ids("/api/customers?q=second")).ids, [first.id, second.id, third.id]);
    seqs.push(Number((await ids("/api/customers")).res.headers.get("log-seq")));

    const patched = await api.patch(`/api/customers/${second.id}`, {
      json: { name: "Bob Patched" },
      contentType: "application/merge-patch+json",
    });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual((await ids("/api/customers?q=second")).ids, [first.id, third.id]);
    seqs.push(Number((await ids("/api/customers")).res.headers.get("log-seq")));

    const deleted = await api.delete(`/api/customers/${third.id}`);
    assert.equal(deleted.status, 204, deleted.text);
    const afterDelete = await ids("/api/customers");
    assert.deepEqual(afterDelete.ids, [first.id, second.id]);
    assert.equal(afterDelete.body.next_cursor, null);
    assert.deepEqual((await ids("/api/customers?q=second")).ids, [first.id]);
    seqs.push(Number(afterDelete.res.headers.get("log-seq")));

    for (let i = 1; i < seqs.length; i++) {
      assert.ok(seqs[i] > seqs[i - 1], `Log-Seq of the list grows with each write: ${seqs}`);
    }
  } finally {
    await server.stop();
  }
});
