/**
 * `deno task migrate` end to end: a DATA_DIR written by the real server (creates, an update, a
 * delete, an idempotent create) is copied into a fresh PostgreSQL schema, served from there by a
 * real server with the same customers, versions and feed seqs, copied back into a new DATA_DIR
 * and served again; webhook endpoints go both ways too; a target that holds data is refused with
 * exit 73 and left as it was.
 */
import assert from "node:assert/strict";
import { writeEventLog } from "../../bench/support/event_log_fixture.ts";
import { JsonlWebhookStore } from "../../src/store/jsonl/jsonl_webhook_store.ts";
import { PostgresWebhookStore } from "../../src/store/postgres/postgres_webhook_store.ts";
import type { WebhookEndpoint } from "../../src/store/webhook_store.ts";
import { ApiClient, newCustomer } from "../support/api.ts";
import { runDenoTask } from "../support/deno_task.ts";
import { listFiles } from "../support/data_dir.ts";
import { createTestSchema } from "../support/postgres.ts";
import { makeDataDir, removeDir, startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

/** What a client sees of the whole service: every customer and the whole feed. */
async function view(client: ApiClient) {
  const customers = await client.listAll();
  let feed = await client.get("/api/events?after=0&limit=1000");
  if (feed.status === 410) {
    // Compaction dropped the oldest events: the feed begins at oldest_seq.
    feed = await client.get(`/api/events?after=${feed.body.oldest_seq - 1}&limit=1000`);
  }
  assert.equal(feed.status, 200, feed.text);
  return { customers, events: feed.body.data, lastSeq: feed.body.last_seq };
}

/** Serves `env` with a real server, hands a client to `use`, then stops it. */
async function served<T>(
  env: Record<string, string>,
  dataDir: string | undefined,
  use: (client: ApiClient) => Promise<T>,
): Promise<T> {
  await using server = await startServer({ env, dataDir });
  const result = await use(new ApiClient(server.url, await makeToken()));
  const stopped = await server.stop();
  assert.equal(stopped.code, 0, stopped.stderr);
  return result;
}

/**
 * Writes customers through a JSONL server with `sourceEnv`, migrates into PostgreSQL and back and
 * compares what servers on each copy answer; `truncated`: the source log must begin past seq 1.
 */
async function roundTrip(sourceEnv: Record<string, string>, truncated: boolean): Promise<void> {
  const parent = await makeDataDir();
  const schema = await createTestSchema();
  const dataDir = `${parent}/source`;
  const backDir = `${parent}/copy`;
  const keyed = { "idempotency-key": "create-once" };
  try {
    await Deno.mkdir(dataDir);
    const keyedBody = newCustomer();
    const keyedId = await served(sourceEnv, dataDir, async (client) => {
      const a = await client.create(newCustomer());
      const b = await client.create(newCustomer());
      const c = await client.create(keyedBody, keyed);
      const patched = await client.patch(`/api/customers/${a.id}`, {
        json: { name: "Ada Renamed" },
        headers: { "if-match": '"1"' },
      });
      assert.equal(patched.status, 200, patched.text);
      assert.equal((await client.delete(`/api/customers/${b.id}`)).status, 204);
      for (let i = 0; i < 6; i++) await client.create(newCustomer());
      return c.id;
    });
    // As a restarted server serves it: the stop compacted, erasing the deleted customer's events.
    const before = await served({}, dataDir, view);
    assert.equal(before.customers.length, 8);
    // Erasure left the delete of the deleted customer; truncation leaves only the newest events
    // (how many depends on when the background compactions ran).
    if (truncated) assert.ok(before.events.length < 10, `${before.events.length} events`);
    else assert.equal(before.events.length, 10);

    const toPostgres = await runDenoTask("migrate", ["--to", "postgres"], {
      DATA_DIR: dataDir,
      DATABASE_URL: schema.url,
    });
    assert.equal(toPostgres.code, 0, toPostgres.stdout + toPostgres.stderr);
    const verified = JSON.parse(/verified: (.*)/.exec(toPostgres.stdout)![1]);
    assert.equal(verified.firstSeq > 1, truncated, `the source log begins at ${verified.firstSeq}`);
    assert.equal(verified.head, before.lastSeq);

    const onPostgres = await served({ DATABASE_URL: schema.url }, undefined, async (client) => {
      assert.deepEqual(await view(client), before);
      // The idempotency key came along: the repeat is answered again, not created again.
      const again = await client.post("/api/customers", { json: keyedBody, headers: keyed });
      assert.equal(again.status, 201, again.text);
      assert.equal(again.headers.get("idempotent-replayed"), "true");
      assert.equal(again.body.id, keyedId);
      const added = await client.create(newCustomer());
      const after = await view(client);
      assert.equal(after.lastSeq, before.lastSeq + 1, "appends continue after the copied head");
      assert.ok(after.customers.some((customer) => customer.id === added.id));
      return after;
    });

    const toJsonl = await runDenoTask("migrate", ["--to", "jsonl"], {
      DATA_DIR: backDir,
      DATABASE_URL: schema.url,
      SEGMENT_MAX_BYTES: "4096",
    });
    assert.equal(toJsonl.code, 0, toJsonl.stdout + toJsonl.stderr);
    const segments = (await listFiles(backDir)).filter((file) => file.endsWith(".compacted.jsonl"));
    assert.ok(segments.length >= (truncated ? 1 : 2), `segments of 4 KiB: ${segments}`);
    await served({}, backDir, async (client) => {
      assert.deepEqual(await view(client), onPostgres);
    });

    // Targets that hold data are refused, and nothing in them changes.
    const files = await listFiles(dataDir);
    const intoFull = await runDenoTask("migrate", ["--to", "jsonl"], {
      DATA_DIR: dataDir,
      DATABASE_URL: schema.url,
    });
    assert.equal(intoFull.code, 73, intoFull.stdout + intoFull.stderr);
    assert.match(intoFull.stderr, /DATA_DIR ".*" is not empty/);
    assert.deepEqual(await listFiles(dataDir), files);
    const intoDatabase = await runDenoTask("migrate", ["--to", "postgres"], {
      DATA_DIR: backDir,
      DATABASE_URL: schema.url,
    });
    assert.equal(intoDatabase.code, 73, intoDatabase.stdout + intoDatabase.stderr);
    assert.match(intoDatabase.stderr, /the database in DATABASE_URL is not empty/);
    const [{ n }] = await schema.query(`SELECT count(*) AS n FROM ${schema.name}.events`);
    assert.equal(Number(n), onPostgres.events.length, "the refused run wrote nothing");
  } finally {
    await schema.drop();
    await removeDir(parent);
  }
}

Deno.test("migrate copies a DATA_DIR into PostgreSQL and back, and the servers answer alike", async () => {
  await roundTrip({}, false);
});

Deno.test("migrate copies a DATA_DIR whose oldest segments compaction dropped, and back", async () => {
  // A snapshot every 2 events: compactions drop the oldest segments, so the log begins past 1.
  await roundTrip({ SNAPSHOT_EVERY: "2" }, true);
});

/** Two endpoints as a server leaves them: one rotated and delivering, one disabled by failures. */
async function writeWebhooks(dataDir: string): Promise<WebhookEndpoint[]> {
  const webhooks = await JsonlWebhookStore.open(dataDir);
  const secret = (c: string) => `whsec_${btoa(c.repeat(32))}`;
  const endpoints: WebhookEndpoint[] = [{
    id: "01JDQ8Z5K3M4N5P6Q7R8S9WHK1",
    url: "https://receiver.example.com/hook",
    types: ["customer.created", "customer.deleted"],
    description: "crm",
    enabled: true,
    disabled_reason: null,
    last_seq: 17,
    created_at: "2026-11-20T10:00:00.000Z",
    updated_at: "2026-11-21T10:00:00.000Z",
    version: 3,
    secrets: [{ secret: secret("b"), expires_at: null }, {
      secret: secret("a"),
      expires_at: "2026-11-22T10:00:00.000Z",
    }],
  }, {
    id: "01JDQ8Z5K3M4N5P6Q7R8S9WHK2",
    url: "https://other.example.com/in",
    types: ["customer.updated"],
    description: "",
    enabled: false,
    disabled_reason: "failures: 9 attempts of seq 4 failed",
    last_seq: 3,
    created_at: "2026-11-20T11:00:00.000Z",
    updated_at: "2026-11-20T12:00:00.000Z",
    version: 2,
    secrets: [{ secret: secret("c"), expires_at: null }],
  }];
  for (const endpoint of endpoints) await webhooks.restore(endpoint);
  for (let seq = 15; seq <= 17; seq++) {
    await webhooks.recordAttempt(endpoints[0].id, {
      seq,
      event_type: "customer.created",
      attempt: seq === 16 ? 2 : 1,
      at: `2026-11-21T10:00:${seq}.000Z`,
      status_code: seq === 15 ? 503 : 204,
      error: null,
      duration_ms: 12.5,
      next_attempt_at: seq === 15 ? "2026-11-21T10:01:00.000Z" : null,
    });
  }
  await webhooks.close();
  return endpoints;
}

Deno.test("migrate copies webhook endpoints (ids, versions, secrets, state, checkpoints, deliveries logs) into PostgreSQL and back", async () => {
  const parent = await makeDataDir();
  const schema = await createTestSchema();
  const dataDir = `${parent}/source`;
  const backDir = `${parent}/copy`;
  try {
    await Deno.mkdir(dataDir);
    await writeEventLog(dataDir, 20);
    const endpoints = await writeWebhooks(dataDir);
    const source = await JsonlWebhookStore.open(dataDir);
    const attempts = source.attempts(endpoints[0].id);
    await source.close();
    assert.equal(attempts.length, 3);

    const there = await runDenoTask("migrate", ["--to", "postgres"], {
      DATA_DIR: dataDir,
      DATABASE_URL: schema.url,
    });
    assert.equal(there.code, 0, there.stdout + there.stderr);
    assert.match(there.stdout, /2 webhook endpoints/);
    const copy = await PostgresWebhookStore.open(schema.url);
    assert.deepEqual(copy.list(), endpoints);
    assert.deepEqual(copy.attempts(endpoints[0].id), attempts);
    assert.deepEqual(copy.attempts(endpoints[1].id), []);
    await copy.close();

    await Deno.mkdir(backDir);
    const back = await runDenoTask("migrate", ["--to", "jsonl"], {
      DATA_DIR: backDir,
      DATABASE_URL: schema.url,
    });
    assert.equal(back.code, 0, back.stdout + back.stderr);
    const returned = await JsonlWebhookStore.open(backDir);
    assert.deepEqual(returned.list(), endpoints);
    assert.deepEqual(returned.attempts(endpoints[0].id), attempts);
    await returned.close();
  } finally {
    await schema.drop();
    await removeDir(parent);
  }
});

Deno.test("migrate refuses a database holding only webhook endpoints, copying nothing", async () => {
  const dataDir = await makeDataDir();
  const schema = await createTestSchema();
  try {
    await writeEventLog(dataDir, 20);
    const [endpoint] = await writeWebhooks(dataDir);
    const target = await PostgresWebhookStore.open(schema.url);
    await target.restore(endpoint);
    await target.close();
    const run = await runDenoTask("migrate", ["--to", "postgres"], {
      DATA_DIR: dataDir,
      DATABASE_URL: schema.url,
    });
    assert.equal(run.code, 73, run.stdout + run.stderr);
    assert.match(run.stderr, /not empty \(0 events, last seq 0, 1 webhook endpoints\)/);
    const [{ n }] = await schema.query(`SELECT count(*) AS n FROM ${schema.name}.events`);
    assert.equal(Number(n), 0);
  } finally {
    await schema.drop();
    await removeDir(dataDir);
  }
});
