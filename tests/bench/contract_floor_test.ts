import assert from "node:assert/strict";
import { ChildGroup } from "../../bench/support/child_processes.ts";
import { startFloor } from "../../bench/http/http_targets.ts";
import { mintToken, randomSecret } from "../../bench/support/service_token.ts";

const SEEDED = Array.from({ length: 150 }, (_, i) => ({
  id: `01JFLOOR${String(i).padStart(18, "0")}`,
  name: `Seeded ${i}`,
  email: `seeded.${i}@example.com`,
  phone: null,
  address: null,
  metadata: {},
  created_at: "2025-01-01T00:00:00.000Z",
  updated_at: "2025-01-01T00:00:00.000Z",
  version: 3,
}));

function assertMandatoryHeaders(response: Response): void {
  assert.equal(response.headers.get("content-type"), "application/json; charset=utf-8");
  assert.match(response.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  assert.equal(response.headers.get("x-content-type-options"), "nosniff");
}

Deno.test("contract floor answers GET one, a page of 100 and a durable POST with the mandatory headers", async () => {
  const dir = await Deno.makeTempDir({ prefix: "contract-floor-test-" });
  const group = new ChildGroup(dir);
  try {
    await Deno.writeTextFile(`${dir}/db.json`, JSON.stringify({ customers: SEEDED }));
    const secret = randomSecret();
    const floor = await startFloor(group, `${dir}/db.json`, `${dir}/log.jsonl`, secret);
    const auth = { authorization: `Bearer ${await mintToken(secret)}` };

    const one = await fetch(`${floor.url}/api/customers/${SEEDED[7].id}`, { headers: auth });
    assert.equal(one.status, 200);
    assertMandatoryHeaders(one);
    assert.equal(one.headers.get("etag"), '"3"');
    assert.deepEqual(await one.json(), SEEDED[7]);

    const page = await fetch(`${floor.url}/api/customers?limit=100`, { headers: auth });
    assert.equal(page.status, 200);
    assertMandatoryHeaders(page);
    const body = await page.json();
    assert.deepEqual(
      body.data.map((c: { id: string }) => c.id),
      SEEDED.slice(0, 100).map((c) => c.id),
    );
    assert.equal(body.next_cursor, SEEDED[99].id);
    assert.equal(
      page.headers.get("link"),
      `</api/customers?limit=100&cursor=${SEEDED[99].id}>; rel="next"`,
    );

    const created = await fetch(`${floor.url}/api/customers`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ name: "New One", email: "new.one@example.com" }),
    });
    assert.equal(created.status, 201);
    assertMandatoryHeaders(created);
    assert.equal(created.headers.get("etag"), '"1"');
    const customer = await created.json();
    assert.equal(created.headers.get("location"), `/api/customers/${customer.id}`);
    const logged = (await Deno.readTextFile(`${dir}/log.jsonl`)).trim().split("\n");
    assert.deepEqual(logged.map((line) => JSON.parse(line).data), [customer]);

    const anonymous = await fetch(`${floor.url}/api/customers/${SEEDED[7].id}`);
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
  } finally {
    await group.stopAll();
    await Deno.remove(dir, { recursive: true });
  }
});
