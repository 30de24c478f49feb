/** The erasure and retention rule compaction applies to each event (store/snapshot_source.ts). */
import assert from "node:assert/strict";
import type { ReplayedEvent } from "../../src/store/event_store.ts";
import { keepsEvent, type SnapshotSource } from "../../src/store/snapshot_source.ts";

const DAY = 86_400_000;
const NOW = Date.parse("2026-03-01T00:00:00Z");
const OLD = new Date(NOW - 40 * DAY).toISOString();
const RECENT = new Date(NOW - 1 * DAY).toISOString();
const CUTOFF = NOW - 30 * DAY;

/** A state where "live" is at version 3 and "gone" was deleted. */
const state = {
  isLive: (id: string) => id === "live",
  versionOf: (id: string) => (id === "live" ? 3 : undefined),
} as unknown as SnapshotSource;

const event = (
  id: string,
  type: ReplayedEvent["type"],
  version: number,
  time: string,
  seq = 10,
) => ({
  seq,
  id,
  type,
  version,
  time,
});

Deno.test("past retention a live customer's older events go, its latest (the whole customer) stays", () => {
  assert.equal(keepsEvent(state, event("live", "customer.created", 1, OLD), 100, CUTOFF), false);
  assert.equal(keepsEvent(state, event("live", "customer.updated", 3, OLD), 100, CUTOFF), true);
  assert.equal(keepsEvent(state, event("live", "customer.updated", 2, RECENT), 100, CUTOFF), true);
});

Deno.test("a deleted customer's tombstone stays within retention and goes after it; its other events go at once", () => {
  assert.equal(keepsEvent(state, event("gone", "customer.deleted", 2, RECENT), 100, CUTOFF), true);
  assert.equal(keepsEvent(state, event("gone", "customer.deleted", 2, OLD), 100, CUTOFF), false);
  assert.equal(keepsEvent(state, event("gone", "customer.created", 1, RECENT), 100, CUTOFF), false);
});

Deno.test("events the snapshot does not cover stay, however old; without a retention nothing expires", () => {
  assert.equal(
    keepsEvent(state, event("gone", "customer.created", 1, OLD, 101), 100, CUTOFF),
    true,
  );
  assert.equal(keepsEvent(state, event("live", "customer.created", 1, OLD), 100), true);
  assert.equal(keepsEvent(state, event("gone", "customer.deleted", 2, OLD), 100), true);
});
