/**
 * The behaviour every WebhookStore backend owes the webhook service, as one suite: a backend's
 * test file calls webhookStoreContract with a harness over real storage.
 */
import assert from "node:assert/strict";
import {
  ATTEMPTS_KEPT,
  type DeliveryAttempt,
  type WebhookEndpoint,
  type WebhookStore,
} from "../../src/store/webhook_store.ts";
import { ExpectedVersionConflictError } from "../../src/store/store_errors.ts";
import { ulid } from "../support/events.ts";

/** One backend's storage for one test. */
export interface WebhookStoreHarness {
  /** Opens a store over this harness's storage (the previous one is closed first). */
  open(): Promise<WebhookStore>;
  /** True when a reopened store must hold what the closed one held. */
  durable: boolean;
  /**
   * For a store that several processes share: opens one more store over the same storage, beside
   * the one open() gave (dispose() closes it).
   */
  openShared?: () => Promise<WebhookStore>;
  dispose(): Promise<void>;
}

/** An endpoint with every field set. */
export function endpoint(n: number, overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint {
  return {
    id: ulid(n),
    url: `https://hooks.example.com/${n}`,
    types: ["customer.created"],
    description: `endpoint ${n}`,
    enabled: true,
    disabled_reason: null,
    last_seq: 0,
    created_at: "2026-11-23T10:00:00.000Z",
    updated_at: "2026-11-23T10:00:00.000Z",
    version: 1,
    secrets: [{ secret: "whsec_" + "A".repeat(43) + "=", expires_at: null }],
    ...overrides,
  };
}

/** A failed first attempt of `seq`. */
export function attempt(seq: number, n = 1): DeliveryAttempt {
  return {
    seq,
    event_type: "customer.created",
    attempt: n,
    at: "2026-11-23T10:00:00.000Z",
    status_code: 500,
    error: null,
    duration_ms: 1.5,
    next_attempt_at: null,
  };
}

/** Registers the contract's tests for one backend. */
export function webhookStoreContract(name: string, harness: () => Promise<WebhookStoreHarness>) {
  const test = (title: string, body: (h: WebhookStoreHarness) => Promise<void>) =>
    Deno.test(`${name}: ${title}`, async () => {
      const h = await harness();
      try {
        await body(h);
      } finally {
        await h.dispose();
      }
    });

  test("put, get and list return endpoints in id order, copies not references", async (h) => {
    const store = await h.open();
    await store.put(endpoint(2));
    await store.put(endpoint(1));
    assert.deepEqual(store.list().map((e) => e.id), [ulid(1), ulid(2)]);
    const got = store.get(ulid(1))!;
    assert.deepEqual(got, endpoint(1));
    got.url = "changed";
    assert.equal(store.get(ulid(1))!.url, endpoint(1).url);
    assert.equal(store.get(ulid(3)), undefined);
    await store.close();
  });

  test("a checkpoint moves last_seq forward only, and a put never moves it back", async (h) => {
    const store = await h.open();
    await store.put(endpoint(1, { last_seq: 5 }));
    await store.checkpoint(ulid(1), 9);
    await store.checkpoint(ulid(1), 7);
    assert.equal(store.get(ulid(1))!.last_seq, 9);
    await store.put(endpoint(1, { last_seq: 5, version: 2, enabled: false }));
    assert.equal(store.get(ulid(1))!.last_seq, 9);
    assert.equal(store.get(ulid(1))!.enabled, false);
    await store.checkpoint(ulid(4), 3);
    assert.equal(store.get(ulid(4)), undefined);
    await store.close();
  });

  test("attempts come newest first and each endpoint keeps its last ATTEMPTS_KEPT", async (h) => {
    const store = await h.open();
    await store.put(endpoint(1));
    await store.put(endpoint(2));
    await Promise.all(
      Array.from(
        { length: ATTEMPTS_KEPT + 20 },
        (_, i) => store.recordAttempt(ulid(1), attempt(i + 1)),
      ),
    );
    await store.recordAttempt(ulid(2), attempt(7));
    const kept = store.attempts(ulid(1));
    assert.equal(kept.length, ATTEMPTS_KEPT);
    assert.equal(kept[0].seq, ATTEMPTS_KEPT + 20);
    assert.equal(kept[kept.length - 1].seq, 21);
    assert.deepEqual(store.attempts(ulid(2)), [attempt(7)]);
    await store.close();
  });

  test("a put not newer than the stored version fails and writes nothing", async (h) => {
    const store = await h.open();
    await store.put(endpoint(1));
    await assert.rejects(
      store.put(endpoint(1, { url: "https://hooks.example.com/late" })),
      (error) => error instanceof ExpectedVersionConflictError && error.actual === 1,
    );
    await store.put(endpoint(1, { version: 3, enabled: false }));
    await assert.rejects(
      store.put(endpoint(1, { version: 2 })),
      (error) => error instanceof ExpectedVersionConflictError && error.actual === 3,
    );
    assert.deepEqual(store.get(ulid(1)), endpoint(1, { version: 3, enabled: false }));
    await store.close();
  });

  test("stores sharing storage see each other's writes after refresh", async (h) => {
    if (h.openShared === undefined) return;
    const a = await h.open();
    const b = await h.openShared();
    await a.put(endpoint(1));
    await a.put(endpoint(2));
    await b.refresh();
    assert.deepEqual(b.list(), [endpoint(1), endpoint(2)]);
    await b.put(endpoint(1, { version: 2, enabled: false }));
    // A's copy is stale: its change from version 1 loses, as a second writer's would.
    await assert.rejects(
      a.put(endpoint(1, { version: 2, url: "https://hooks.example.com/a" })),
      (error) => error instanceof ExpectedVersionConflictError && error.actual === 2,
    );
    await a.checkpoint(ulid(2), 9);
    await a.recordAttempt(ulid(2), attempt(9));
    await a.remove(ulid(1));
    await b.refresh(ulid(2));
    assert.deepEqual(b.list(), [endpoint(2, { last_seq: 9 })]);
    assert.deepEqual(b.attempts(ulid(2)), [attempt(9)]);
    await a.refresh();
    assert.equal(a.get(ulid(1)), undefined);
    await b.close();
    await a.close();
  });

  test("remove drops the endpoint and its attempts", async (h) => {
    const store = await h.open();
    await store.put(endpoint(1));
    await store.recordAttempt(ulid(1), attempt(1));
    await store.remove(ulid(1));
    assert.equal(store.get(ulid(1)), undefined);
    assert.deepEqual(store.attempts(ulid(1)), []);
    await store.remove(ulid(1));
    await store.close();
  });

  test("a change put over an endpoint removed meanwhile fails and does not bring it back", async (h) => {
    const store = await h.open();
    await store.put(endpoint(1));
    await store.remove(ulid(1));
    await assert.rejects(
      store.put(endpoint(1, { version: 2, description: "late change" })),
      (error) => error instanceof ExpectedVersionConflictError && error.actual === 0,
    );
    assert.equal(store.get(ulid(1)), undefined);
    await store.close();
    if (h.durable) {
      const reopened = await h.open();
      assert.equal(reopened.get(ulid(1)), undefined);
      await reopened.close();
    }
  });

  test("a change put from a copy of an endpoint another store removed since fails", async (h) => {
    if (h.openShared === undefined) return;
    const a = await h.open();
    const b = await h.openShared();
    await a.put(endpoint(1));
    await b.refresh();
    // B still holds the endpoint when A removes it: B's change must not create it again.
    await a.remove(ulid(1), 1);
    await assert.rejects(
      b.put(endpoint(1, { version: 2, description: "from b" })),
      (error) => error instanceof ExpectedVersionConflictError && error.actual === 0,
    );
    await a.refresh();
    assert.equal(a.get(ulid(1)), undefined);
    await b.close();
    await a.close();
  });

  test("restore() stores a copied endpoint as it is, at any version", async (h) => {
    const store = await h.open();
    await store.restore(endpoint(1, { version: 7, last_seq: 12 }));
    assert.deepEqual(store.get(ulid(1)), endpoint(1, { version: 7, last_seq: 12 }));
    await store.close();
    if (h.durable) {
      const reopened = await h.open();
      assert.deepEqual(reopened.get(ulid(1)), endpoint(1, { version: 7, last_seq: 12 }));
      await reopened.close();
    }
  });

  test("a remove with a stale version fails and removes nothing", async (h) => {
    const store = await h.open();
    await store.put(endpoint(1));
    await store.put(endpoint(1, { version: 2, description: "newer" }));
    await assert.rejects(
      store.remove(ulid(1), 1),
      (error) => error instanceof ExpectedVersionConflictError && error.actual === 2,
    );
    assert.deepEqual(store.get(ulid(1)), endpoint(1, { version: 2, description: "newer" }));
    await assert.rejects(
      store.remove(ulid(3), 1),
      (error) => error instanceof ExpectedVersionConflictError && error.actual === 0,
    );
    await store.remove(ulid(1), 2);
    assert.equal(store.get(ulid(1)), undefined);
    await store.close();
    if (h.durable) {
      const reopened = await h.open();
      assert.equal(reopened.get(ulid(1)), undefined);
      await reopened.close();
    }
  });

  test("a remove checked against a copy another store changed since fails there", async (h) => {
    if (h.openShared === undefined) return;
    const a = await h.open();
    const b = await h.openShared();
    await a.put(endpoint(1));
    await b.refresh();
    // B still holds version 1 when A's change commits: its remove of version 1 must not drop it.
    await a.put(endpoint(1, { version: 2, description: "from a" }));
    await assert.rejects(
      b.remove(ulid(1), 1),
      (error) => error instanceof ExpectedVersionConflictError && error.actual === 2,
    );
    await a.refresh();
    assert.deepEqual(a.get(ulid(1)), endpoint(1, { version: 2, description: "from a" }));
    await b.refresh();
    await b.remove(ulid(1), 2);
    await a.refresh();
    assert.equal(a.get(ulid(1)), undefined);
    await b.close();
    await a.close();
  });

  test("what a resolved write stored is there after reopening", async (h) => {
    if (!h.durable) return;
    let store = await h.open();
    await store.put(endpoint(1));
    await store.put(endpoint(2));
    await store.checkpoint(ulid(1), 42);
    await store.recordAttempt(ulid(1), attempt(42));
    await store.remove(ulid(2));
    await store.close();
    store = await h.open();
    assert.deepEqual(store.list(), [endpoint(1, { last_seq: 42 })]);
    assert.deepEqual(store.attempts(ulid(1)), [attempt(42)]);
    await store.close();
  });

  test("many changes survive reopening with the newest state", async (h) => {
    if (!h.durable) return;
    let store = await h.open();
    await store.put(endpoint(1));
    for (let seq = 1; seq <= 3000; seq += 10) {
      await Promise.all([
        store.checkpoint(ulid(1), seq),
        store.recordAttempt(ulid(1), attempt(seq)),
      ]);
    }
    await store.close();
    store = await h.open();
    assert.equal(store.get(ulid(1))!.last_seq, 2991);
    assert.equal(store.attempts(ulid(1)).length, ATTEMPTS_KEPT);
    assert.equal(store.attempts(ulid(1))[0].seq, 2991);
    await store.close();
  });
}
