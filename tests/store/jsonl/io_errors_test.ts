/** Every I/O error of the JSONL store names the file and the operation, and keeps its class. */
import assert from "node:assert/strict";
import { writeAll } from "../../../src/lib/fs_util.ts";
import { JsonlEventStore, type JsonlStoreOptions } from "../../../src/store/jsonl/jsonl_store.ts";
import { LOG_DIR, segmentName, SNAPSHOT_DIR } from "../../../src/store/jsonl/data_dir_layout.ts";
import { writeSnapshot } from "../../../src/store/jsonl/snapshot_file.ts";
import { StorageFullError, StoreFailedError } from "../../../src/store/store_errors.ts";
import { created } from "../../support/events.ts";

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "io_errors_test_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function opened(dir: string, options: JsonlStoreOptions): Promise<JsonlEventStore> {
  const store = await JsonlEventStore.open(dir, options);
  await store.replay(() => {});
  return store;
}

Deno.test("an injected ENOSPC write is still StorageFullError, its cause naming writing and the segment", async () => {
  await withTempDir(async (dir) => {
    let fail = false;
    const write = (file: Deno.FsFile, bytes: Uint8Array) =>
      fail
        ? Promise.reject(Object.assign(new Error("No space left on device"), { code: "ENOSPC" }))
        : writeAll(file, bytes);
    const store = await opened(dir, { write });
    fail = true;
    const error = await store.append([created(1)]).catch((e) => e);
    assert.ok(error instanceof StorageFullError, String(error));
    const cause = error.cause as Error & { code: string };
    assert.equal(cause.code, "ENOSPC");
    const segment = `${dir}/${LOG_DIR}/${segmentName(1)}`;
    assert.equal(cause.message, `I/O error while writing "${segment}": No space left on device`);
    await store.close();
  });
});

Deno.test("an injected EIO on fdatasync stops the store with an error naming syncing and the segment", async () => {
  await withTempDir(async (dir) => {
    const fatal: unknown[] = [];
    const sync = () =>
      Promise.reject(Object.assign(new Error("Input/output error"), { code: "EIO" }));
    const store = await opened(dir, { sync, onFatal: (error) => fatal.push(error) });
    const error = await store.append([created(1)]).catch((e) => e);
    assert.ok(error instanceof StoreFailedError, String(error));
    const segment = `${dir}/${LOG_DIR}/${segmentName(1)}`;
    assert.equal(
      String(fatal[0]),
      `Error: I/O error while syncing "${segment}": Input/output error`,
    );
    await store.close();
  });
});

Deno.test("a real failure at open: a file where the log directory should be is named", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/${LOG_DIR}`, "not a directory");
    const error = await JsonlEventStore.open(dir).catch((e) => e);
    assert.ok(error instanceof Deno.errors.AlreadyExists, String(error));
    assert.match(error.message, new RegExp(`^I/O error while opening "${dir}/${LOG_DIR}": `));
  });
});

Deno.test("a real failure at open: a directory where the lock file should be is named", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/customer-api.lock`);
    const error = await JsonlEventStore.open(dir).catch((e) => e);
    assert.match(String(error), new RegExp(`I/O error while opening "${dir}/customer-api.lock": `));
  });
});

Deno.test("a real failure renaming a snapshot into place names renaming and the temp file", async () => {
  await withTempDir(async (dir) => {
    // A non-empty directory where the snapshot goes: the rename cannot replace it.
    const target = `${dir}/${SNAPSHOT_DIR}/snapshot-00000000000000000005.jsonl`;
    await Deno.mkdir(`${target}/in-the-way`, { recursive: true });
    const error = await writeSnapshot(dir, 5, []).catch((e) => e);
    const temp = `${dir}/${SNAPSHOT_DIR}/.snapshot-00000000000000000005.jsonl.tmp`;
    assert.ok(String(error).includes(`I/O error while renaming "${temp}": `), String(error));
  });
});
