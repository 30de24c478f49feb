/**
 * The behaviour every EventStore backend owes the services, as one suite: a backend's test file
 * calls eventStoreContract with a harness that opens (and reopens) its store over real storage.
 */
import assert from "node:assert/strict";
import type { EventStore, NewEvent, ReplayedEvent } from "../../src/store/event_store.ts";
import type { StoreMaintenance } from "../../src/store/store_maintenance.ts";
import {
  ExpectedVersionConflictError,
  StoreClosedError,
  StoreError,
} from "../../src/store/store_errors.ts";
import { created, deleted, ulid, updated } from "../support/events.ts";
import { ContractSource } from "./contract_source.ts";

/** One backend's storage for one test: opened, reopened after close, then removed. */
export interface StoreHarness {
  /** Opens a store over this harness's storage (the previous store is closed first). */
  open(): Promise<EventStore>;
  /** The backend's recovery and compaction over a state source. */
  maintenance(store: EventStore, source: ContractSource): StoreMaintenance;
  /** Removes the storage. */
  dispose(): Promise<void>;
}

/** An event as a reader sees it, for comparing what was appended with what comes back. */
function shape(event: ReplayedEvent) {
  return {
    seq: event.seq,
    type: event.type,
    id: event.id,
    version: event.version,
    data: event.dataJson,
  };
}

function expectedShape(event: NewEvent, seq: number) {
  return {
    seq,
    type: event.type,
    id: event.id,
    version: event.version,
    data: event.data === null ? null : JSON.stringify(event.data),
  };
}

async function replayAll(store: EventStore, afterSeq = 0): Promise<ReplayedEvent[]> {
  const events: ReplayedEvent[] = [];
  await store.replay((event) => events.push(event), afterSeq);
  return events;
}

/** Reads the whole log through readFrom in pages of `page`. */
async function readAll(store: EventStore, page = 1000): Promise<ReplayedEvent[]> {
  const events: ReplayedEvent[] = [];
  for (;;) {
    const next = await store.readFrom(events.at(-1)?.seq ?? 0, page);
    if (next.length === 0) return events;
    events.push(...next);
  }
}

/** The events of customers 1..count: each created, then updated once. */
function history(count: number): NewEvent[] {
  return Array.from({ length: count }, (_, i) => [created(i + 1), updated(i + 1, 2)]).flat();
}

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Registers the contract's tests for one backend. */
export function eventStoreContract(backend: string, harness: () => Promise<StoreHarness>): void {
  const test = (name: string, fn: (h: StoreHarness) => Promise<void>) =>
    Deno.test(`${backend}: ${name}`, async () => {
      const h = await harness();
      try {
        await fn(h);
      } finally {
        await h.dispose();
      }
    });

  test("appends come back from readFrom in append order with seq 1..N and no gap", async (h) => {
    const store = await h.open();
    await replayAll(store);
    const events = history(10);
    const stored = [
      ...await store.append(events.slice(0, 1)),
      ...await store.append(events.slice(1, 8)),
      ...await store.append(events.slice(8)),
    ];
    assert.deepEqual(stored.map((e) => e.seq), range(1, 20));
    assert.equal(store.lastSeq, 20);
    assert.deepEqual(
      (await readAll(store, 3)).map(shape),
      events.map((e, i) => expectedShape(e, i + 1)),
    );
    await store.close();
  });

  test("a reopened store replays every event identically and continues the sequence", async (h) => {
    const first = await h.open();
    await replayAll(first);
    const events = history(6);
    await first.append(events);
    await first.close();

    const second = await h.open();
    assert.deepEqual(
      (await replayAll(second)).map(shape),
      events.map((e, i) => expectedShape(e, i + 1)),
    );
    assert.equal(second.lastSeq, 12);
    const [next] = await second.append([created(7)]);
    assert.equal(next.seq, 13);
    await second.close();

    const third = await h.open();
    assert.deepEqual((await replayAll(third, 10)).map((e) => e.seq), [11, 12, 13]);
    await third.close();
  });

  test("readFrom pages by afterSeq and limit and answers nothing past the end", async (h) => {
    const store = await h.open();
    await replayAll(store);
    await store.append(history(5));
    assert.deepEqual((await store.readFrom(3, 2)).map((e) => e.seq), [4, 5]);
    assert.deepEqual((await store.readFrom(8, 100)).map((e) => e.seq), [9, 10]);
    assert.deepEqual(await store.readFrom(10, 100), []);
    assert.deepEqual(await store.readFrom(99, 100), []);
    await store.close();
  });

  test("readFrom during concurrent appends sees a gap-free prefix and only durable events", async (h) => {
    const store = await h.open();
    await replayAll(store);
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0; i < 25; i++) {
        await store.append([created(w * 100 + i), updated(w * 100 + i, 2)]);
      }
    });
    let writing = true;
    const done = Promise.all(writers).finally(() => (writing = false));
    const seen: number[] = [];
    while (writing || seen.length < store.lastSeq) {
      const durable = store.lastSeq;
      const page = await store.readFrom(seen.at(-1) ?? 0, 7);
      for (const event of page) {
        assert.ok(event.seq <= durable, `read seq ${event.seq} before it was durable (${durable})`);
        assert.equal(event.seq, (seen.at(-1) ?? 0) + 1, "readFrom skipped or repeated a seq");
        seen.push(event.seq);
      }
      if (page.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await done;
    assert.deepEqual(seen, range(1, 400));
    await store.close();
  });

  test("waitForCommit resolves once a later event is durable, at once if one is, and rejects on abort", async (h) => {
    const store = await h.open();
    await replayAll(store);
    await store.append([created(1)]);
    assert.equal(await store.waitForCommit(0), 1);
    let woken: number | undefined;
    const waiting = store.waitForCommit(1).then((seq) => (woken = seq));
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(woken, undefined, "woke without a commit");
    await store.append([updated(1, 2)]);
    assert.equal(await waiting, 2);
    const controller = new AbortController();
    const aborted = store.waitForCommit(2, controller.signal);
    controller.abort(new Error("client went away"));
    await assert.rejects(aborted, /client went away/);
    await store.close();
  });

  test("an expected-version mismatch rejects the whole batch and writes nothing", async (h) => {
    const store = await h.open();
    await replayAll(store);
    await store.append([created(1), updated(1, 2)]);
    const conflict = store.append([created(2), updated(1, 3)], {
      expected: { [ulid(1)]: 1 },
    });
    await assert.rejects(conflict, (error: unknown) => {
      assert.ok(error instanceof ExpectedVersionConflictError);
      assert.ok(error instanceof StoreError);
      assert.deepEqual([error.id, error.expected, error.actual], [ulid(1), 1, 2]);
      return true;
    });
    assert.equal(store.lastSeq, 2);
    assert.deepEqual((await readAll(store)).map((e) => e.seq), [1, 2]);
    await assert.rejects(store.append([created(3)], { expected: { [ulid(3)]: 1 } }));
    const [next] = await store.append([updated(1, 3), created(3)], {
      expected: { [ulid(1)]: 2, [ulid(3)]: 0 },
    });
    assert.equal(next.seq, 3, "the rejected batches took sequence numbers");
    await store.close();
  });

  test("of two concurrent appends expecting the same version exactly one is written", async (h) => {
    const store = await h.open();
    await replayAll(store);
    await store.append([created(1)]);
    const expected = { [ulid(1)]: 1 };
    const results = await Promise.allSettled([
      store.append([updated(1, 2)], { expected }),
      store.append([updated(1, 2)], { expected }),
    ]);
    assert.deepEqual(results.map((r) => r.status).sort(), ["fulfilled", "rejected"]);
    const rejected = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    assert.ok(rejected.reason instanceof ExpectedVersionConflictError);
    assert.deepEqual((await readAll(store)).map((e) => e.seq), [1, 2]);
    await store.close();
  });

  test("expected versions hold across a reopen", async (h) => {
    const first = await h.open();
    await replayAll(first);
    await first.append([created(1), updated(1, 2), created(2)]);
    await first.close();
    const second = await h.open();
    const source = new ContractSource(second);
    await h.maintenance(second, source).recover();
    await assert.rejects(
      second.append([updated(1, 3)], { expected: { [ulid(1)]: 1 } }),
      ExpectedVersionConflictError,
    );
    const stored = await second.append([updated(1, 3)], { expected: { [ulid(1)]: 2 } });
    assert.equal(stored[0].seq, 4);
    await second.close();
  });

  test("expected versions hold across a compaction and a reopen that recovers from it", async (h) => {
    const first = await h.open();
    const source = new ContractSource(first);
    const maintenance = h.maintenance(first, source);
    await maintenance.recover();
    for (const event of [created(1), updated(1, 2), created(2)]) {
      source.apply(await first.append([event]));
    }
    await maintenance.compact();
    source.apply(await first.append([created(3)]));
    await first.close();

    const second = await h.open();
    await h.maintenance(second, new ContractSource(second)).recover();
    for (const [id, version] of [[ulid(1), 2], [ulid(2), 1], [ulid(3), 1]] as const) {
      await assert.rejects(
        second.append([updated(1, 9)], { expected: { [id]: version - 1 } }),
        ExpectedVersionConflictError,
        `${id} is not at ${version - 1}`,
      );
    }
    const stored = await second.append([updated(1, 3), updated(2, 2)], {
      expected: { [ulid(1)]: 2, [ulid(2)]: 1, [ulid(3)]: 1 },
    });
    assert.deepEqual(stored.map((e) => e.seq), [5, 6]);
    await second.close();
  });

  test("concurrent appends get distinct, gap-free seqs in call order and all become durable", async (h) => {
    const store = await h.open();
    await replayAll(store);
    const appends = Array.from({ length: 100 }, (_, i) => store.append([created(i + 1)]));
    const seqs = (await Promise.all(appends)).map(([event]) => event.seq);
    assert.deepEqual(seqs, range(1, 100));
    await store.close();
    const reopened = await h.open();
    assert.deepEqual((await replayAll(reopened)).map((e) => e.id), range(1, 100).map(ulid));
    await reopened.close();
  });

  test("after a delete and a compaction the customer's earlier events are gone and its delete stays", async (h) => {
    const store = await h.open();
    const source = new ContractSource(store);
    const maintenance = h.maintenance(store, source);
    await maintenance.recover();
    const events = [created(1), created(2), updated(1, 2), updated(2, 2), deleted(1, 3)];
    for (const event of events) source.apply(await store.append([event]));
    assert.equal(store.erasedSeq, 0, "no erasure yet");
    await maintenance.compact();
    const kept = [[2, ulid(2)], [4, ulid(2)], [5, ulid(1)]];
    assert.deepEqual((await readAll(store)).map((e) => [e.seq, e.id]), kept);
    // The erasure horizon passed the delete: readers may forget the customer's earlier events.
    assert.ok(store.erasedSeq >= 5, `erasedSeq ${store.erasedSeq}`);
    const [next] = await store.append([created(3)]);
    assert.equal(next.seq, 6, "compaction changed the sequence");
    await store.close();

    const reopened = await h.open();
    const replayed = await replayAll(reopened);
    assert.deepEqual(replayed.map((e) => [e.seq, e.id]), [...kept, [6, ulid(3)]]);
    assert.equal(replayed.find((e) => e.id === ulid(1))?.type, "customer.deleted");
    await reopened.close();
  });

  test("a closed store rejects appends, and waits for a commit, with a StoreError", async (h) => {
    const store = await h.open();
    await replayAll(store);
    await store.append([created(1)]);
    const waiting = store.waitForCommit(1);
    await store.close();
    await assert.rejects(waiting, StoreClosedError);
    await assert.rejects(store.append([created(2)]), (error: unknown) => {
      assert.ok(error instanceof StoreClosedError);
      assert.ok(error instanceof StoreError);
      return true;
    });
  });
}
