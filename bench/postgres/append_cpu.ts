/**
 * CPU per create of the PostgreSQL store's group commit, measured directly rather than through
 * throughput (which the machine's other load moves far more): closed-loop writers append creates
 * through the store as the service does (one create per append, its expected version 0), so
 * groups of about half the writers commit while the next fills; the PostgreSQL backends' CPU
 * (from /proc/<pid>/stat) and this process's are divided by the creates.
 *
 * deno run -A bench/postgres/append_cpu.ts [--root=DIR] [--writers=50] [--creates=20000]
 *   [--prefill=50000] [--keys] [--rounds=3]
 *
 * `--root` measures another checkout's store (e.g. the main branch) with the same load.
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { createPool } from "../../src/store/postgres/pg_connection.ts";
import type { EventStore, NewEvent } from "../../src/store/event_store.ts";
import { cpuSeconds } from "../support/child_processes.ts";

const { values: args } = parseArgs({
  args: Deno.args,
  options: {
    root: { type: "string" },
    writers: { type: "string" },
    creates: { type: "string" },
    prefill: { type: "string" },
    rounds: { type: "string" },
    url: { type: "string" },
    keys: { type: "boolean" },
  },
});
const base = args.url ?? Deno.env.get("BENCH_DATABASE_URL") ??
  "postgres://postgres@127.0.0.1:5432/test";
const root = args.root ?? new URL("../..", import.meta.url).pathname;
const writers = Number(args.writers ?? 50);
const creates = Number(args.creates ?? 20_000);
const prefill = Number(args.prefill ?? 50_000);
const rounds = Number(args.rounds ?? 3);

type Store = EventStore & {
  commitStats: { groups: number; events: number; roundTrips: number };
};
const { PostgresEventStore } = await import(`${root}/src/store/postgres/postgres_event_store.ts`);

let n = 0;
/** A create as the service makes it for bench/support/workload.lua's POST body. */
function create(tag: string): NewEvent {
  const i = n++;
  const id = `01J${tag}${String(i).padStart(23 - tag.length, "0")}`;
  const time = new Date().toISOString();
  const data = {
    id,
    name: `Bench Customer ${i}`,
    email: `bench.${tag}.${i}@example.com`,
    phone: `+4930${String(i % 1e7).padStart(7, "0")}`,
    address: {
      line1: `${i % 1000} Bench Street`,
      line2: null,
      city: "Berlin",
      region: "BE",
      postal_code: "10115",
      country: "DE",
    },
    metadata: { source: "bench" },
    created_at: time,
    updated_at: time,
    version: 1,
  };
  const event = {
    type: "customer.created",
    id,
    version: 1,
    time,
    data,
    actor: "bench",
    request_id: crypto.randomUUID(),
    dataJson: JSON.stringify(data),
  } as NewEvent;
  if (args.keys) {
    event.idempotency_key = crypto.randomUUID();
    event.request_hash = "0123456789abcdef0123456789abcdef";
  }
  return event;
}

/** `count` creates by `writers` closed-loop appenders. */
async function load(store: Store, count: number, tag: string): Promise<void> {
  let left = count;
  await Promise.all(Array.from({ length: writers }, async () => {
    while (left-- > 0) {
      const event = create(tag);
      await store.append([event], { expected: { [event.id]: 0 } });
    }
  }));
}

const schema = `append_cpu_${Date.now()}`;
const admin = createPool(base, 1, () => {});
await admin.query(`CREATE SCHEMA ${schema}`);
const url = new URL(base);
url.searchParams.set("options", `-c search_path=${schema}`);
url.searchParams.set("application_name", schema);
try {
  const store: Store = await PostgresEventStore.open(url.toString());
  await store.replay(() => {});
  await load(store, prefill, "P");
  await load(store, 2000, "W");
  const backends = async () => {
    const { rows } = await admin.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE application_name = $1",
      [schema],
    );
    let sum = 0;
    for (const { pid } of rows) sum += await cpuSeconds(pid);
    return sum;
  };
  const own = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  };
  for (let r = 0; r < rounds; r++) {
    const stats = { ...store.commitStats };
    const before = { backend: await backends(), own: own(), at: performance.now() };
    await load(store, creates, `R${r}`);
    const after = { backend: await backends(), own: own(), at: performance.now() };
    const groups = store.commitStats.groups - stats.groups;
    const events = store.commitStats.events - stats.events;
    const us = (seconds: number) => Math.round((seconds / creates) * 1e6);
    console.log(JSON.stringify({
      root,
      keys: args.keys,
      creates,
      backend_us_per_create: us(after.backend - before.backend),
      client_us_per_create: us(after.own - before.own),
      events_per_group: Math.round((events / groups) * 10) / 10,
      round_trips_per_group: (store.commitStats.roundTrips - stats.roundTrips) / groups,
      creates_per_s: Math.round(creates / ((after.at - before.at) / 1000)),
    }));
  }
  await store.close();
} finally {
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
}
