/**
 * The group committer keeps its writer connection a short while after its queue empties, so the
 * next group does not wait for the pool; it gives it back after that, or to another user waiting.
 */
import assert from "node:assert/strict";
import { GroupCommitter } from "../../../src/store/postgres/group_committer.ts";
import { NotifiedTail } from "../../../src/store/postgres/notified_tail.ts";
import { createPool } from "../../../src/store/postgres/pg_connection.ts";
import { PostgresEventStore } from "../../../src/store/postgres/postgres_event_store.ts";
import { created } from "../../support/events.ts";
import { createTestSchema } from "../../support/postgres.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `body` with a committer on a migrated schema and a pool of `max` connections. */
async function withCommitter(
  max: number,
  body: (committer: GroupCommitter, pool: ReturnType<typeof createPool>) => Promise<void>,
): Promise<void> {
  const schema = await createTestSchema();
  await (await PostgresEventStore.open(schema.url)).close();
  const pool = createPool(schema.url, max, () => {});
  const committer = new GroupCommitter(pool, () => {}, new NotifiedTail());
  try {
    await body(committer, pool);
  } finally {
    await committer.close();
    await pool.end();
    await schema.drop();
  }
}

Deno.test("group committer: appends one after another reuse the writer, which is given back when idle", async () => {
  await withCommitter(4, async (committer) => {
    const [first] = await committer.append([created(1)]);
    const writer = committer.writerProcess;
    assert.ok(writer, "the writer is kept after its group");
    for (let n = 2; n <= 20; n++) {
      const [stored] = await committer.append([created(n)]);
      assert.equal(stored.seq, first.seq + n - 1);
      assert.equal(committer.writerProcess, writer, `append ${n} reused the writer`);
    }
    assert.equal(committer.stats.groups, 20);
    await sleep(200);
    assert.equal(committer.writerProcess, undefined, "given back once no append came");
  });
});

Deno.test("group committer: a kept writer does not starve another user of a one-connection pool", async () => {
  await withCommitter(1, async (committer, pool) => {
    await committer.append([created(1)]);
    assert.ok(committer.writerProcess, "the writer is kept after its group");
    const asked = performance.now();
    const other = await pool.connect();
    const waited = performance.now() - asked;
    other.release();
    assert.ok(waited < 1000, `waited ${Math.round(waited)} ms for the only connection`);
    assert.equal(committer.writerProcess, undefined);
    const [stored] = await committer.append([created(2)]);
    assert.equal(stored.seq, 2);
  });
});
