/**
 * Two services over two stores on one database (two replicas): the database decides conflicting
 * writes, and the loser gets the answer a single process gives (409 email taken, 412 If-Match,
 * the first answer again for a reused idempotency key).
 */
import assert from "node:assert/strict";
import { listed } from "../../support/listed.ts";
import { monotonicFactory } from "ulid";
import { CustomerService } from "../../../src/customers/customer_service.ts";
import type { WriteContext } from "../../../src/customers/write_context.ts";
import { EmailTakenError, VersionMismatchError } from "../../../src/domain/errors.ts";
import { WriteContendedError } from "../../../src/customers/write_contention.ts";
import { CustomerProjection } from "../../../src/read_model/projection.ts";
import { PostgresEventStore } from "../../../src/store/postgres/postgres_event_store.ts";
import { createTestSchema } from "../../support/postgres.ts";

async function replicas(
  url: string,
  writeDeadlineMs?: number,
): Promise<[CustomerService[], PostgresEventStore[]]> {
  const stores = [await PostgresEventStore.open(url), await PostgresEventStore.open(url)];
  const newId = monotonicFactory();
  const services = stores.map((store) =>
    new CustomerService({
      store,
      projection: new CustomerProjection(),
      clock: Date.now,
      newId,
      writeDeadlineMs,
    })
  );
  for (const service of services) await service.snapshots.replay();
  return [services, stores];
}

const body = (email: string) => ({ name: "Ada Lovelace", email });
const writer = (n: number) => ({ actor: "tester", requestId: `req-${n}` });

type Follow = (service: CustomerService) => Promise<void>;

async function withReplicas(
  fn: (services: CustomerService[], follow: Follow) => Promise<void>,
  writeDeadlineMs?: number,
): Promise<void> {
  const schema = await createTestSchema();
  const [services, stores] = await replicas(schema.url, writeDeadlineMs);
  // Waits until the replica's store has heard of every commit of both, then applies them.
  const follow = async (service: CustomerService) => {
    const store = stores[services.indexOf(service)];
    const head = Math.max(...stores.map((s) => s.lastSeq));
    if (store.lastSeq < head) await store.waitForCommit(head - 1);
    await service.follower.catchUp();
  };
  try {
    await fn(services, follow);
  } finally {
    for (const store of stores) await store.close();
    await schema.drop();
  }
}

Deno.test("two replicas creating the same email at once: exactly one wins, the other gets EmailTakenError", () =>
  withReplicas(async ([a, b]) => {
    for (let round = 0; round < 5; round++) {
      const email = `race${round}@example.com`;
      const results = await Promise.allSettled([
        a.create(body(email), writer(1)),
        b.create(body(email.toUpperCase()), writer(2)),
      ]);
      assert.deepEqual(results.map((r) => r.status).sort(), ["fulfilled", "rejected"]);
      const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
      assert.ok(lost.reason instanceof EmailTakenError, String(lost.reason));
    }
  }));

Deno.test("two replicas updating with the same If-Match at once: exactly one wins, the other gets VersionMismatchError", () =>
  withReplicas(async ([a, b], follow) => {
    const { customer } = await a.create(body("ifmatch@example.com"), writer(1));
    await follow(b);
    assert.equal(b.get(customer.id)?.version, 1, "replica b did not follow the create");
    const results = await Promise.allSettled([
      a.patch(customer.id, { name: "From A" }, [1], writer(2)),
      b.patch(customer.id, { name: "From B" }, [1], writer(3)),
    ]);
    assert.deepEqual(results.map((r) => r.status).sort(), ["fulfilled", "rejected"]);
    const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    assert.ok(lost.reason instanceof VersionMismatchError, String(lost.reason));
    await follow(a);
    await follow(b);
    assert.equal(a.get(customer.id)?.version, 2);
    assert.deepEqual(a.get(customer.id), b.get(customer.id));
  }));

Deno.test("a plain update on a replica that has not seen the latest version is decided again, not refused", () =>
  withReplicas(async ([a, b], follow) => {
    const { customer } = await a.create(body("stale@example.com"), writer(1));
    await follow(b);
    await a.patch(customer.id, { name: "First" }, undefined, writer(2));
    const updated = await b.patch(
      customer.id,
      { metadata: { tier: "gold" } },
      undefined,
      writer(3),
    );
    assert.equal(updated.customer.version, 3);
    assert.equal(updated.customer.name, "First");
  }));

Deno.test("the same idempotency key on two replicas at once creates one customer and answers it twice", () =>
  withReplicas(async ([a, b], follow) => {
    const results = await Promise.all([
      a.create(body("idem@example.com"), writer(1), "key-1"),
      b.create(body("idem@example.com"), writer(2), "key-1"),
    ]);
    assert.equal(results[0].customer.id, results[1].customer.id);
    assert.deepEqual(results.map((r) => r.replayed === true).sort(), [false, true]);
    await follow(a);
    assert.equal((await listed(a, "?limit=10")).ids.length, 1);
  }));

Deno.test("concurrent plain patches of one customer on two replicas keep every change, each with its own version", () =>
  withReplicas(async ([a, b], follow) => {
    const { customer } = await a.create(body("many@example.com"), writer(1));
    await follow(b);
    // Spread over a few milliseconds, so each replica's writes overlap the other's in flight.
    const contexts: WriteContext[] = Array.from({ length: 24 }, (_, n) => writer(n));
    const patches = contexts.map(async (context, n) => {
      await new Promise((resolve) => setTimeout(resolve, (n * 7) % 20));
      const service = n % 2 === 0 ? a : b;
      return service.patch(customer.id, { metadata: { [`p${n}`]: String(n) } }, undefined, context);
    });
    const answers = await Promise.all(patches);
    // Each answer's Log-Seq is its own event's seq: 24 different ones.
    assert.equal(new Set(answers.map((answer) => answer.seq)).size, 24);
    const versions = answers.map((answer) => answer.customer.version).sort((x, y) => x - y);
    assert.deepEqual(versions, Array.from({ length: 24 }, (_, n) => n + 2));
    for (const [n, answer] of answers.entries()) {
      assert.equal(answer.customer.metadata[`p${n}`], String(n));
    }
    await follow(a);
    await follow(b);
    for (const service of [a, b]) {
      const final = service.get(customer.id)!;
      assert.equal(final.version, 25);
      assert.deepEqual(
        Object.keys(final.metadata).sort(),
        Array.from({ length: 24 }, (_, n) => `p${n}`).sort(),
      );
    }
  }));

Deno.test("a plain update that loses past its deadline answers write contention, never a version mismatch", () =>
  withReplicas(async ([a, b], follow) => {
    const { customer } = await a.create(body("late@example.com"), writer(1));
    await follow(b);
    await a.patch(customer.id, { name: "First" }, undefined, writer(2));
    // b has not seen version 2: its first try is refused, and a zero deadline allows no second.
    await assert.rejects(
      () => b.patch(customer.id, { name: "Second" }, undefined, writer(3)),
      WriteContendedError,
    );
    await follow(b);
    assert.equal(b.get(customer.id)!.name, "First");
  }, 0));
