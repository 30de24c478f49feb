import assert from "node:assert/strict";
import { listed } from "../support/listed.ts";
import type { Customer } from "../../src/domain/customer.ts";
import {
  EmailTakenError,
  IdempotencyKeyInFlightError,
  IdempotencyKeyReusedError,
} from "../../src/domain/errors.ts";
import { CustomerProjection } from "../../src/read_model/projection.ts";
import { CustomerService } from "../../src/customers/customer_service.ts";
import { customerText } from "../../src/read_model/customer_text.ts";
import { IDEMPOTENCY_TTL_MS } from "../../src/customers/idempotency.ts";
import { JsonlEventStore } from "../../src/store/jsonl/jsonl_store.ts";
import { StoreFailedError, WriteFailedError } from "../../src/store/store_errors.ts";
import { MemoryEventStore } from "../../src/store/memory/memory_event_store.ts";

const T0 = Date.UTC(2026, 10, 21, 10, 0, 0);
const ALICE = { actor: "alice", requestId: "req-1" };
const BOB = { actor: "bob", requestId: "req-2" };
const ADA = { name: "Ada Lovelace", email: "ada@example.com" };

/** ULIDs 01JDQ8Z5K3000…001, 01JDQ8Z5K3000…002, …: valid, ascending and predictable. */
function idAt(n: number): string {
  return `01JDQ8Z5K3${String(n).padStart(16, "0")}`;
}

/** A sync the test can hold (to keep a write in flight) or make fail. */
class SyncGate {
  calls = 0;
  failNext = false;
  #held: PromiseWithResolvers<void> | null = null;
  #reached: PromiseWithResolvers<void> = Promise.withResolvers();

  hold(): void {
    this.#held = Promise.withResolvers();
    this.#reached = Promise.withResolvers();
  }

  /** Resolves once a write is waiting in the held sync. */
  reached(): Promise<void> {
    return this.#reached.promise;
  }

  release(): void {
    this.#held?.resolve();
    this.#held = null;
  }

  /** Fails the next write like an I/O error the store can roll back from. */
  failNextWrite = false;

  readonly write = async (file: Deno.FsFile, bytes: Uint8Array): Promise<void> => {
    if (this.failNextWrite) {
      this.failNextWrite = false;
      throw new Error("EIO: simulated write failure");
    }
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
  };

  readonly sync = async (file: Deno.FsFile): Promise<void> => {
    this.calls++;
    this.#reached.resolve();
    if (this.#held !== null) await this.#held.promise;
    if (this.failNext) {
      this.failNext = false;
      throw new Error("EIO: simulated fdatasync failure");
    }
    await file.syncData();
  };
}

interface Fixture {
  dir: string;
  store: JsonlEventStore;
  projection: CustomerProjection;
  service: CustomerService;
  gate: SyncGate;
  clock: { now: number };
}

async function open(dir: string, clock = { now: T0 }, firstId = 1): Promise<Fixture> {
  const gate = new SyncGate();
  const store = await JsonlEventStore.open(dir, { sync: gate.sync, write: gate.write });
  const projection = new CustomerProjection();
  let next = firstId;
  const service = new CustomerService({
    store,
    projection,
    clock: () => clock.now,
    newId: () => idAt(next++),
  });
  await service.snapshots.replay();
  return { dir, store, projection, service, gate, clock };
}

/** Runs a test against a fresh service in a temp dir; always releases the gate and closes. */
function serviceTest(name: string, body: (f: Fixture) => Promise<void>): void {
  Deno.test(name, async () => {
    const dir = await Deno.makeTempDir({ prefix: "customer-service-test-" });
    const fixture = await open(dir);
    try {
      await body(fixture);
    } finally {
      fixture.gate.release();
      await fixture.store.close().catch(() => {});
      await Deno.remove(dir, { recursive: true });
    }
  });
}

/** What a create that wrote `customer` as the event at `seq` answers. */
function written(customer: Customer, seq: number) {
  return { customer, seq, text: customerText(customer) };
}

/** What a create whose key answers `customer` again answers, at the applied `seq`. */
function replayedAt(customer: Customer, seq: number) {
  return { customer, seq, text: undefined, replayed: true };
}

function customerAt(n: number, input: { name: string; email: string }, at = T0): Customer {
  const time = new Date(at).toISOString();
  return {
    id: idAt(n),
    name: input.name,
    email: input.email,
    phone: null,
    address: null,
    metadata: {},
    created_at: time,
    updated_at: time,
    version: 1,
  };
}

serviceTest("a create answers the new customer and makes it readable", async ({ service }) => {
  const result = await service.create(ADA, ALICE);
  assert.deepEqual(result, written(customerAt(1, ADA), 1));
  assert.deepEqual(service.get(idAt(1)), customerAt(1, ADA));
});

serviceTest(
  "a write answers its customer's text and its event's seq, the text GET then answers; a no-op and a replayed key answer no text, at the applied seq",
  async ({ service }) => {
    const created = await service.create(ADA, ALICE, "key-1");
    const { customer } = created;
    assert.equal(created.seq, 1);
    assert.equal(created.text, service.record(customer.id)?.json);
    assert.equal(created.text, customerText(customer));
    const changed = await service.patch(customer.id, { name: "Ada King" }, undefined, ALICE);
    assert.equal(changed.seq, 2);
    assert.equal(JSON.parse(changed.text!).name, "Ada King");
    assert.equal(changed.text, service.record(customer.id)?.json);
    const unchanged = await service.patch(customer.id, {}, undefined, ALICE);
    assert.deepEqual(unchanged, { customer: service.get(customer.id), seq: 2, text: undefined });
    const replayed = await service.create(ADA, ALICE, "key-1");
    assert.deepEqual(replayed, replayedAt(customer, 2));
  },
);

serviceTest(
  "of 50 concurrent creates with one email exactly one succeeds, the rest are EmailTakenError",
  async ({ service, store, projection }) => {
    const results = await Promise.allSettled(
      Array.from(
        { length: 50 },
        (_, i) => service.create({ name: `Ada ${i}`, email: ADA.email }, ALICE),
      ),
    );
    const fulfilled = results.filter((r) => r.status === "fulfilled");
    const rejected = results.filter((r) => r.status === "rejected");
    assert.equal(fulfilled.length, 1);
    assert.equal(rejected.length, 49);
    for (const r of rejected) assert.ok(r.reason instanceof EmailTakenError, String(r.reason));
    assert.equal(projection.size, 1);
    assert.equal(store.lastSeq, 1);
  },
);

serviceTest(
  "concurrent creates whose emails differ only in case: one succeeds",
  async ({ service, projection }) => {
    const results = await Promise.allSettled(
      ["ada@example.com", "ADA@example.com", "Ada@Example.COM"].map((email) =>
        service.create({ name: "Ada", email }, ALICE)
      ),
    );
    assert.deepEqual(results.map((r) => r.status), ["fulfilled", "rejected", "rejected"]);
    assert.equal(projection.size, 1);
  },
);

serviceTest(
  "50 concurrent creates with distinct emails all succeed with distinct ids, sharing syncs",
  async ({ service, store, projection, gate }) => {
    const results = await Promise.all(
      Array.from(
        { length: 50 },
        (_, i) => service.create({ name: `C ${i}`, email: `c${i}@example.com` }, ALICE),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.customer.id),
      Array.from({ length: 50 }, (_, i) => idAt(i + 1)),
    );
    assert.equal(projection.size, 50);
    assert.equal(store.lastSeq, 50);
    assert.equal(store.stats.events, 50);
    // Group commit: the first write syncs alone, the 49 queued behind it share one sync.
    assert.ok(gate.calls <= 2, `${gate.calls} syncs for 50 concurrent writes`);
  },
);

serviceTest(
  "repeating a create with the same idempotency key answers the first customer, replayed, creating nothing",
  async ({ service, store, projection }) => {
    const first = await service.create(ADA, ALICE, "key-1");
    assert.deepEqual(first, written(customerAt(1, ADA), 1));
    const again = await service.create({ email: ADA.email, name: ADA.name }, ALICE, "key-1");
    assert.deepEqual(again, replayedAt(customerAt(1, ADA), 1));
    assert.equal(projection.size, 1);
    assert.equal(store.lastSeq, 1);
  },
);

serviceTest(
  "the same idempotency key with a different body is IdempotencyKeyReusedError and creates nothing",
  async ({ service, store }) => {
    await service.create(ADA, ALICE, "key-1");
    await assert.rejects(
      service.create({ name: "Grace Hopper", email: "grace@example.com" }, ALICE, "key-1"),
      IdempotencyKeyReusedError,
    );
    assert.equal(store.lastSeq, 1);
    assert.equal((await listed(service, "?limit=10")).ids.length, 1);
  },
);

serviceTest(
  "an idempotency key is scoped to its caller: another caller's same key is not replayed",
  async ({ service }) => {
    await service.create(ADA, ALICE, "key-1");
    const grace = { name: "Grace Hopper", email: "grace@example.com" };
    assert.deepEqual(await service.create(grace, BOB, "key-1"), written(customerAt(2, grace), 2));
  },
);

serviceTest(
  "the same idempotency key while the first create is in flight is IdempotencyKeyInFlightError",
  async ({ service, gate, store }) => {
    gate.hold();
    const first = service.create(ADA, ALICE, "key-1");
    await gate.reached();
    await assert.rejects(service.create(ADA, ALICE, "key-1"), IdempotencyKeyInFlightError);
    gate.release();
    assert.deepEqual(await first, written(customerAt(1, ADA), 1));
    assert.deepEqual(await service.create(ADA, ALICE, "key-1"), replayedAt(customerAt(1, ADA), 1));
    assert.equal(store.lastSeq, 1);
  },
);

Deno.test("idempotency keys survive reopening the store and replaying into a fresh service", async () => {
  const dir = await Deno.makeTempDir({ prefix: "customer-service-test-" });
  try {
    const before = await open(dir);
    await before.service.create(ADA, ALICE, "key-1");
    await before.store.close();

    const after = await open(dir, { now: T0 + 60_000 }, 100);
    try {
      assert.deepEqual(
        await after.service.create(ADA, ALICE, "key-1"),
        replayedAt(customerAt(1, ADA), 1),
      );
      await assert.rejects(
        after.service.create({ ...ADA, name: "Other" }, ALICE, "key-1"),
        IdempotencyKeyReusedError,
      );
      assert.equal(after.store.lastSeq, 1);
    } finally {
      await after.store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

serviceTest(
  "an idempotency key older than 24 h is forgotten: the key can create again",
  async ({ service, clock }) => {
    await service.create(ADA, ALICE, "key-1");
    clock.now = T0 + IDEMPOTENCY_TTL_MS;
    const grace = { name: "Grace Hopper", email: "grace@example.com" };
    assert.deepEqual(
      await service.create(grace, ALICE, "key-1"),
      written(customerAt(2, grace, clock.now), 2),
    );
  },
);

serviceTest(
  "an idempotency key just under 24 h old is still replayed",
  async ({ service, clock }) => {
    await service.create(ADA, ALICE, "key-1");
    clock.now = T0 + IDEMPOTENCY_TTL_MS - 1;
    assert.equal((await service.create(ADA, ALICE, "key-1")).replayed, true);
  },
);

serviceTest(
  "a created customer is not visible through get or list until its write is durable",
  async ({ service, gate }) => {
    gate.hold();
    const pending = service.create(ADA, ALICE);
    await gate.reached();
    assert.equal(service.get(idAt(1)), undefined);
    assert.deepEqual(await listed(service, "?limit=10"), { ids: [], more: false });
    gate.release();
    await pending;
    assert.deepEqual(service.get(idAt(1)), customerAt(1, ADA));
  },
);

serviceTest(
  "an email claimed by a create that is not yet durable is already taken",
  async ({ service, gate }) => {
    gate.hold();
    const pending = service.create(ADA, ALICE);
    await gate.reached();
    await assert.rejects(
      service.create({ name: "Imposter", email: "ADA@example.com" }, BOB),
      EmailTakenError,
    );
    gate.release();
    await pending;
  },
);

serviceTest(
  "a replace is not visible until durable; readers see the old version meanwhile",
  async ({ service, gate }) => {
    await service.create(ADA, ALICE);
    gate.hold();
    const pending = service.replace(idAt(1), { ...ADA, name: "Augusta Ada King" }, [1], ALICE);
    await gate.reached();
    assert.equal(service.get(idAt(1))?.version, 1);
    assert.equal(service.get(idAt(1))?.name, "Ada Lovelace");
    gate.release();
    assert.equal((await pending).customer.version, 2);
    assert.equal(service.get(idAt(1))?.name, "Augusta Ada King");
  },
);

serviceTest(
  "a failed sync rejects the create with StoreFailedError and leaves the projection unchanged",
  async ({ service, projection, gate }) => {
    gate.failNext = true;
    await assert.rejects(service.create(ADA, ALICE, "key-1"), StoreFailedError);
    assert.equal(projection.size, 0);
    assert.equal(service.get(idAt(1)), undefined);
    assert.deepEqual(await listed(service, "?limit=10"), { ids: [], more: false });
  },
);

Deno.test(
  "a failed sync of a replace leaves the customer as it was, also after a restart",
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "customer-service-test-" });
    try {
      const before = await open(dir);
      await before.service.create(ADA, ALICE);
      before.gate.failNext = true;
      await assert.rejects(
        before.service.replace(idAt(1), { ...ADA, name: "Changed" }, undefined, ALICE),
        StoreFailedError,
      );
      assert.deepEqual(before.service.get(idAt(1)), customerAt(1, ADA));
      assert.equal(before.store.lastSeq, 1);
      await before.store.close();

      const after = await open(dir);
      try {
        assert.deepEqual(after.service.get(idAt(1)), customerAt(1, ADA));
        assert.equal(after.store.lastSeq, 1);
      } finally {
        await after.store.close();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

serviceTest(
  "after a failed create the idempotency key is neither in flight nor remembered",
  async ({ service, gate }) => {
    gate.failNext = true;
    await assert.rejects(service.create(ADA, ALICE, "key-1"), StoreFailedError);
    // The store takes no more writes, but the key must not answer 409 or replay a ghost.
    await assert.rejects(service.create(ADA, ALICE, "key-1"), StoreFailedError);
  },
);

serviceTest(
  "a rolled-back write leaves the projection unchanged, and the same create then succeeds",
  async ({ service, projection, gate, store }) => {
    gate.failNextWrite = true;
    await assert.rejects(service.create(ADA, ALICE, "key-1"), WriteFailedError);
    assert.equal(projection.size, 0);
    assert.equal(store.lastSeq, 0);
    // The email is free again and the key is neither in flight nor remembered.
    const retried = await service.create(ADA, ALICE, "key-1");
    assert.deepEqual(retried, written(customerAt(2, ADA), 1));
    assert.equal(store.lastSeq, 1);
  },
);

serviceTest(
  "commit listeners run in registration order after the write is durable and applied",
  async ({ service, store }) => {
    const calls: string[] = [];
    service.addCommitListener((event) => {
      assert.equal(store.lastSeq, event.seq, "called before the event was durable");
      assert.equal(service.appliedSeq, event.seq, "called before the event was applied");
      calls.push(`first ${event.type} ${event.seq}`);
    });
    service.addCommitListener((event) => calls.push(`second ${event.type} ${event.seq}`));
    await service.create(ADA, ALICE);
    await service.delete(idAt(1), undefined, ALICE);
    assert.deepEqual(calls, [
      "first customer.created 1",
      "second customer.created 1",
      "first customer.deleted 2",
      "second customer.deleted 2",
    ]);
  },
);

serviceTest(
  "snapshots.records() restored line by line into a fresh service give the same customers, keys and versions",
  async ({ service }) => {
    await service.create(ADA, ALICE, "key-1");
    await service.create({ name: "Grace Hopper", email: "grace@example.com" }, BOB);
    await service.patch(idAt(2), { name: "Grace B. Hopper" }, undefined, BOB);
    const lines = [...service.snapshots.records()];
    const copy = new CustomerService({
      store: new MemoryEventStore(),
      projection: new CustomerProjection(),
      clock: () => T0,
      newId: () => idAt(99),
    });
    for (const line of lines) copy.snapshots.restore(line);
    assert.deepEqual(copy.get(idAt(1)), service.get(idAt(1)));
    assert.deepEqual(copy.get(idAt(2)), service.get(idAt(2)));
    const { snapshots } = copy;
    assert.deepEqual([snapshots.versionOf(idAt(1)), snapshots.versionOf(idAt(2))], [1, 2]);
    assert.deepEqual(lines.map((line) => snapshots.idOf(line)).sort(), [idAt(1), idAt(1), idAt(2)]);
    // The remembered key came back: a repeat answers the first result again.
    const again = await copy.create(ADA, ALICE, "key-1");
    assert.deepEqual(again, replayedAt(customerAt(1, ADA), 0));
  },
);

serviceTest(
  "jumpTo a newer snapshot: customers gone or changed meanwhile follow it, emails that passed between customers stay taken",
  async ({ service }) => {
    const GRACE = { name: "Grace Hopper", email: "grace@example.com" };
    const BOB_ = { name: "Bob", email: "bob@example.com" };
    // The state a replica held when it was cut off: Ada (ada@), Grace (grace@), Bob.
    for (const input of [ADA, GRACE, BOB_]) await service.create(input, ALICE);
    // Meanwhile, elsewhere: Grace moved to grace2@ and Ada (a lower id) took grace@; Linus took
    // ada@; Bob was deleted.
    let next = 1;
    const other = new CustomerService({
      store: new MemoryEventStore(),
      projection: new CustomerProjection(),
      clock: () => T0,
      newId: () => idAt(next++),
    });
    await other.snapshots.replay(0);
    for (const input of [ADA, GRACE, BOB_]) await other.create(input, ALICE);
    await other.patch(idAt(2), { email: "grace2@example.com" }, undefined, ALICE);
    await other.patch(idAt(1), { email: "grace@example.com" }, undefined, ALICE);
    await other.create({ name: "Linus", email: "ada@example.com" }, ALICE, "key-linus");
    await other.delete(idAt(3), undefined, BOB);

    service.snapshots.jumpTo(40, [...other.snapshots.records()]);
    assert.equal(service.appliedSeq, 40);
    for (const n of [1, 2, 3, 4]) assert.deepEqual(service.get(idAt(n)), other.get(idAt(n)));
    assert.deepEqual((await listed(service, "?limit=10")).ids, [1, 2, 4].map(idAt));
    for (const email of ["ada@example.com", "grace@example.com", "grace2@example.com"]) {
      await assert.rejects(service.create({ name: "Copy", email }, BOB), EmailTakenError, email);
    }
    assert.deepEqual(
      (await listed(service, "?limit=10&email=grace@example.com")).ids,
      [idAt(1)],
    );
    // The key remembered in the snapshot answers again.
    const linus = { name: "Linus", email: "ada@example.com" };
    assert.equal((await service.create(linus, ALICE, "key-linus")).replayed, true);
    // An older snapshot changes nothing.
    service.snapshots.jumpTo(39, []);
    assert.deepEqual(service.get(idAt(1)), other.get(idAt(1)));
  },
);
