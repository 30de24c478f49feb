/** The webhook store contract against the JSONL backend, and what its file does on disk. */
import assert from "node:assert/strict";
import { WEBHOOKS_FILE } from "../../../src/store/jsonl/data_dir_layout.ts";
import { JsonlWebhookStore } from "../../../src/store/jsonl/jsonl_webhook_store.ts";
import { WebhookFileDamagedError } from "../../../src/store/jsonl/webhook_file.ts";
import { ulid } from "../../support/events.ts";
import { attempt, endpoint, webhookStoreContract } from "../webhook_store_contract.ts";

webhookStoreContract("jsonl webhook store", async () => {
  const dir = await Deno.makeTempDir({ prefix: "webhook-store-" });
  return {
    // A small compaction threshold, so the contract runs through rewrites too.
    open: () => JsonlWebhookStore.open(dir, { compactAfterLines: 50 }),
    durable: true,
    dispose: () => Deno.remove(dir, { recursive: true }),
  };
});

async function withDir(body: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "webhook-store-" });
  try {
    await body(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a torn last line of the webhooks file is cut off with a warning", async () => {
  await withDir(async (dir) => {
    const store = await JsonlWebhookStore.open(dir);
    await store.put(endpoint(1));
    await store.checkpoint(ulid(1), 5);
    await store.close();
    const path = `${dir}/${WEBHOOKS_FILE}`;
    const bytes = await Deno.readFile(path);
    await Deno.writeFile(path, bytes.subarray(0, bytes.length - 7));
    const warnings: string[] = [];
    const reopened = await JsonlWebhookStore.open(dir, { warn: (msg) => warnings.push(msg) });
    assert.equal(reopened.get(ulid(1))!.last_seq, 0);
    assert.equal(warnings.length, 1);
    await reopened.checkpoint(ulid(1), 6);
    await reopened.close();
    assert.equal((await JsonlWebhookStore.open(dir)).get(ulid(1))!.last_seq, 6);
  });
});

Deno.test("damage before the last line of the webhooks file refuses to open, naming the line", async () => {
  await withDir(async (dir) => {
    const store = await JsonlWebhookStore.open(dir);
    await store.put(endpoint(1));
    await store.recordAttempt(ulid(1), attempt(1));
    await store.close();
    const path = `${dir}/${WEBHOOKS_FILE}`;
    const text = await Deno.readTextFile(path);
    await Deno.writeTextFile(path, text.replace("hooks.example.com", "hooks.example.org"));
    await assert.rejects(JsonlWebhookStore.open(dir), WebhookFileDamagedError);
    await assert.rejects(JsonlWebhookStore.open(dir), /line 1/);
  });
});

Deno.test("the webhooks file is rewritten once mostly superseded, keeping the newest state", async () => {
  await withDir(async (dir) => {
    const store = await JsonlWebhookStore.open(dir, { compactAfterLines: 20 });
    await store.put(endpoint(1));
    for (let seq = 1; seq <= 200; seq++) await store.checkpoint(ulid(1), seq);
    await store.close();
    const lines = (await Deno.readTextFile(`${dir}/${WEBHOOKS_FILE}`)).trim().split("\n");
    assert.ok(lines.length <= 22, `${lines.length} lines`);
    const reopened = await JsonlWebhookStore.open(dir);
    assert.equal(reopened.get(ulid(1))!.last_seq, 200);
    await reopened.close();
  });
});

Deno.test("a steady stream of checkpoints and attempts shares one sync per 100 ms, and all of it is durable", async () => {
  await withDir(async (dir) => {
    let syncs = 0;
    // As slow as a real disk's fdatasync (a temp dir may be in memory).
    const sync = async (file: Deno.FsFile) => {
      syncs++;
      await file.syncData();
      await new Promise((resolve) => setTimeout(resolve, 5));
    };
    const store = await JsonlWebhookStore.open(dir, { sync });
    await store.put(endpoint(1));
    const before = syncs;
    const writes: Promise<void>[] = [];
    const started = performance.now();
    // About 500 deliveries' worth over 500 ms: a checkpoint and an attempt each.
    for (let seq = 1; performance.now() - started < 500; seq++) {
      writes.push(store.checkpoint(ulid(1), seq), store.recordAttempt(ulid(1), attempt(seq)));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await Promise.all(writes);
    const elapsed = performance.now() - started;
    assert.ok(syncs - before <= Math.ceil(elapsed / 100) + 1, `${syncs - before} syncs`);
    const last = writes.length / 2;
    await store.close();
    const reopened = await JsonlWebhookStore.open(dir);
    assert.equal(reopened.get(ulid(1))!.last_seq, last);
    assert.equal(reopened.attempts(ulid(1))[0].seq, last);
    assert.equal(reopened.attempts(ulid(1)).length, 100);
    await reopened.close();
  });
});
