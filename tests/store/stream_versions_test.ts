import assert from "node:assert/strict";
import { StreamVersions } from "../../src/store/stream_versions.ts";

Deno.test("StreamVersions forgets applied durable versions within a few hundred writes", () => {
  const versions = new StreamVersions();
  const applied = { seq: 0 };
  versions.use({
    versionOf: () => undefined,
    get appliedSeq() {
      return applied.seq;
    },
  });
  let most = 0;
  for (let seq = 1; seq <= 10_000; seq++) {
    const id = `customer-${seq}`;
    versions.notePending(id, 1, seq);
    versions.noteDurable(id, 1, seq);
    // The source applies each write just after it is durable, as the service does.
    applied.seq = seq;
    most = Math.max(most, versions.durableSize);
  }
  // Dropped late (after 4,096), the entries outlived young-generation collections.
  assert.ok(most <= 512, `at most ${most} durable entries were kept`);
});

Deno.test("StreamVersions keeps every durable version the source has not applied", () => {
  const versions = new StreamVersions();
  versions.use({ versionOf: () => undefined, appliedSeq: 0 });
  // One group commit of many events, none applied yet: each must still answer, and the purge
  // must not rescan them for every event (it waits for the map to double).
  for (let seq = 1; seq <= 5_000; seq++) versions.noteDurable(`customer-${seq}`, seq, seq);
  assert.equal(versions.durableSize, 5_000);
  for (const seq of [1, 2_500, 5_000]) assert.equal(versions.current(`customer-${seq}`), seq);
});
