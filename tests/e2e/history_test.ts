/** Contract §8 retention and erasure, §9 history and versions, through the real server. */
import assert from "node:assert/strict";
import { ApiClient, assertProblem, newCustomer } from "../support/api.ts";
import { makeDataDir, removeDir, startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";
import { ALL_PLACES, eventually, placesShowing } from "../support/erasure_probe.ts";

const MERGE_PATCH = "application/merge-patch+json";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("history pages a customer's events by version; versions/<n> answers it as it was, with ETag", async () => {
  await using server = await startServer();
  const api = new ApiClient(server.url, await makeToken());
  const ada = await api.create(newCustomer({ name: "Ada" }));
  const other = await api.create(newCustomer());
  for (const name of ["Ada B", "Ada C"]) {
    await api.patch(`/api/customers/${ada.id}`, { json: { name }, contentType: MERGE_PATCH });
  }
  const history = await api.get(`/api/customers/${ada.id}/history`);
  assert.equal(history.status, 200, history.text);
  assert.deepEqual(history.body.data.map((e: { version: number }) => e.version), [1, 2, 3]);
  assert.deepEqual(history.body.data.map((e: { seq: number }) => e.seq), [1, 3, 4]);
  assert.equal(history.body.has_more, false);
  assert.ok(history.headers.get("log-seq"));
  const page = await api.get(`/api/customers/${ada.id}/history?after=1&limit=1`);
  assert.deepEqual([page.body.data[0].version, page.body.has_more], [2, true]);
  assertProblem(await api.get(`/api/customers/${ada.id}/history?since=1`), 400);

  const v2 = await api.get(`/api/customers/${ada.id}/versions/2`);
  assert.equal(v2.status, 200);
  assert.equal(v2.headers.get("etag"), '"2"');
  assert.deepEqual([v2.body.name, v2.body.version], ["Ada B", 2]);
  for (const n of ["0", "4", "x"]) {
    assertProblem(await api.get(`/api/customers/${ada.id}/versions/${n}`), 404);
  }
  // The customers module's own route next to the feed module's still answers.
  assert.equal((await api.get(`/api/customers/${other.id}`)).status, 200);

  assert.equal((await api.delete(`/api/customers/${ada.id}`)).status, 204);
  assertProblem(await api.get(`/api/customers/${ada.id}/history`), 404);
  assertProblem(await api.get(`/api/customers/${ada.id}/versions/1`), 404);
});

Deno.test("history and the customer filter after a restart: the index covers the replayed log, after kill -9 and after a clean stop", async () => {
  const dataDir = await makeDataDir();
  try {
    const first = await startServer({ dataDir });
    const api = new ApiClient(first.url, await makeToken());
    const ada = await api.create(newCustomer({ name: "Ada" }));
    await api.patch(`/api/customers/${ada.id}`, {
      json: { name: "Ada B" },
      contentType: MERGE_PATCH,
    });
    await first.stop("SIGKILL");
    for (const stop of ["SIGTERM", "SIGKILL"] as const) {
      const server = await startServer({ dataDir });
      const again = new ApiClient(server.url, await makeToken());
      const history = await again.get(`/api/customers/${ada.id}/history`);
      assert.equal(history.status, 200, history.text);
      assert.deepEqual(history.body.data.map((e: { version: number }) => e.version), [1, 2]);
      const filtered = await again.get(`/api/events?customer_id=${ada.id}`);
      assert.deepEqual(filtered.body.data.map((e: { seq: number }) => e.seq), [1, 2]);
      assert.equal((await again.get(`/api/customers/${ada.id}/versions/1`)).body.name, "Ada");
      await server.stop(stop);
    }
  } finally {
    await removeDir(dataDir);
  }
});

Deno.test("past EVENT_RETENTION events are not served: an older cursor answers 410 cursor-expired, an old version 410", async () => {
  await using server = await startServer({ env: { EVENT_RETENTION: "2s" } });
  const api = new ApiClient(server.url, await makeToken());
  const old = await api.create(newCustomer());
  await api.create(newCustomer());
  await sleep(3_500);
  const fresh = await api.create(newCustomer());

  const expired = await api.get("/api/events?after=1");
  assertProblem(expired, 410);
  assert.match(expired.body.type, /cursor-expired$/);
  assert.deepEqual([expired.body.oldest_seq, expired.body.last_seq], [3, 3]);
  const feed = await api.get("/api/events");
  assert.deepEqual(feed.body.data.map((e: { customer_id: string }) => e.customer_id), [fresh.id]);
  assert.equal((await api.get("/api/events?after=2")).status, 200, "right before the oldest");
  assertProblem(await api.get(`/api/customers/${old.id}/versions/1`), 410);
  assert.deepEqual((await api.get(`/api/customers/${old.id}/history`)).body.data, []);
});

Deno.test("erasure wins: after a delete and compaction the customer's earlier events leave the feed and the disk, its customer.deleted stays", async () => {
  await using server = await startServer({ env: { ERASE_WITHIN_SECONDS: "1" } });
  const api = new ApiClient(server.url, await makeToken());
  const name = `Erasable ${crypto.randomUUID()}`;
  const victim = await api.create(newCustomer({ name }));
  await api.patch(`/api/customers/${victim.id}`, {
    json: { phone: "+4915112345678" },
    contentType: MERGE_PATCH,
  });
  const kept = await api.create(newCustomer());
  // Read before the delete: the events are in the server's memory (recent events, index).
  const keptSeq = Number((await api.get(`/api/customers/${kept.id}`)).headers.get("log-seq"));
  assert.deepEqual(await placesShowing(api, name, victim.id, keptSeq), ALL_PLACES);
  const deleted = await api.delete(`/api/customers/${victim.id}`);
  assert.equal(deleted.status, 204);
  const deleteSeq = Number(deleted.headers.get("log-seq"));

  const deadline = Date.now() + 15_000;
  let events: { type: string; customer_id: string }[] = [];
  while (Date.now() < deadline) {
    events = (await api.get(`/api/events?customer_id=${victim.id}`)).body.data;
    if (events.length === 1) break;
    await sleep(200);
  }
  assert.deepEqual(events.map((e) => e.type), ["customer.deleted"]);
  const all = (await api.get("/api/events")).body.data;
  assert.deepEqual(all.map((e: { type: string; customer_id: string }) => [e.type, e.customer_id]), [
    ["customer.created", kept.id],
    ["customer.deleted", victim.id],
  ]);
  let places: string[] = [];
  await eventually(
    async () => (places = await placesShowing(api, name, victim.id, deleteSeq)).length === 0,
    () => `still in ${places.join(", ")}`,
  );
  assertProblem(await api.get(`/api/customers/${victim.id}/history`), 404);
  const files = await filesUnder(server.dataDir);
  assert.ok(files.length > 0);
  for (const file of files) {
    const text = await Deno.readTextFile(file).catch(() => "");
    assert.ok(!text.includes(name), `the name is still in ${file}`);
  }
});

async function filesUnder(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) files.push(...await filesUnder(path));
    else if (entry.isFile) files.push(path);
  }
  return files;
}

Deno.test("retention is enforced by compaction: events past EVENT_RETENTION leave the disk, the live state and fresh tombstones stay", async () => {
  const dataDir = await makeDataDir();
  // One compaction, 3 s after the first delete: no second snapshot removes whole segments.
  const env = { EVENT_RETENTION: "2s", ERASE_WITHIN_SECONDS: "3" };
  try {
    await retentionCompacts(dataDir, env);
  } finally {
    await removeDir(dataDir);
  }
});

async function retentionCompacts(dataDir: string, env: Record<string, string>): Promise<void> {
  const server = await startServer({ dataDir, env });
  const api = new ApiClient(server.url, await makeToken());
  const [oldName, newName, goneName] = ["Old", "New", "Gone"].map((w) =>
    `${w} ${crypto.randomUUID()}`
  );
  const ada = await api.create(newCustomer({ name: oldName }));
  await api.patch(`/api/customers/${ada.id}`, {
    json: { name: newName },
    contentType: MERGE_PATCH,
  });
  const gone = await api.create(newCustomer({ name: goneName }));
  await api.delete(`/api/customers/${gone.id}`);
  const quiet = await api.create(newCustomer());
  await sleep(2_500);
  // Still within retention when the compaction runs.
  const late = await api.create(newCustomer());
  await api.delete(`/api/customers/${late.id}`);

  const deadline = Date.now() + 15_000;
  let text = "";
  while (Date.now() < deadline) {
    text = await diskText(server.dataDir);
    if (!text.includes(oldName)) break;
    await sleep(200);
  }
  assert.ok(!text.includes(oldName), "ada's expired first version is gone from disk");
  assert.ok(
    !text.includes(gone.id),
    "an expired tombstone is gone with every event of its customer",
  );
  assert.ok(!text.includes(goneName), "erasure still holds");
  assert.ok(text.includes(newName), "ada's current state stays");
  assert.ok(text.includes(late.id), "a tombstone within retention stays");

  const feed = await api.get("/api/events");
  assert.deepEqual(feed.body.data.map((e: { type: string }) => e.type), ["customer.deleted"]);
  assert.equal(feed.body.data[0].customer_id, late.id);
  const expired = await api.get("/api/events?after=3");
  assertProblem(expired, 410);
  assert.equal(expired.body.oldest_seq, 6);
  assert.equal((await api.get(`/api/customers/${ada.id}`)).body.name, newName);
  assert.equal((await api.get(`/api/customers/${quiet.id}`)).status, 200);

  // Restarted (after kill -9: no compaction at shutdown) from what the compaction left.
  await server.stop("SIGKILL");
  await using again = await startServer({ dataDir, env });
  const after = new ApiClient(again.url, await makeToken());
  assert.equal((await after.get(`/api/customers/${ada.id}`)).body.name, newName);
  assert.equal((await after.get(`/api/customers/${quiet.id}`)).status, 200);
  assert.equal((await after.get(`/api/customers/${gone.id}`)).status, 404);
}

/** Every file under the data directory as one text. */
async function diskText(dir: string): Promise<string> {
  const texts = await Promise.all(
    (await filesUnder(dir)).map((file) => Deno.readTextFile(file).catch(() => "")),
  );
  return texts.join("\n");
}
