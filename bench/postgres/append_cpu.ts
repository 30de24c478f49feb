/**
 * CPU per create of the PostgreSQL store's group commit, measured directly rather than through
 * throughput (which the machine's other load moves far more): closed-loop writers append creates
 * through the store as the service does (one create per append, its expected version 0), so
 * groups of about half the writers commit while the next fills; the PostgreSQL backends' CPU
 * (from /proc/<pid>/stat) and this process's are divided by the creates.
 *
 * deno run -A bench/postgres/append_cpu.ts [--root=DIR,DIR] [--writers=50] [--creates=20000]
 *   [--prefill=50000] [--keys] [--rounds=3]
 *
 * `--root` measures other checkouts' stores (e.g. the main branch's and this one's), each on a
 * schema of its own, in alternating rounds; medians of the rounds.
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
const roots = (args.root ?? decodeURIComponent(new URL("../..", import.meta.url).pathname))
  .split(",").map((root) => root.replace(/\/$/, ""));
const writers = Number(args.writers ?? 50);
const creates = Number(args.creates ?? 20_000);
const prefill = Number(args.prefill ?? 50_000);
const rounds = Number(args.rounds ?? 3);

type Store = EventStore & {
  commitStats: { groups: number; events: number; roundTrips: number };
};

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

/** One root's store on a schema of its own, and what its rounds measured. */
interface Measured {
  root: string;
  schema: string;
  store: Store;
  backend: number[];
  client: number[];
  perGroup: number[];
}

const admin = createPool(base, 1, () => {});
const measured: Measured[] = [];
try {
  for (const [i, dir] of roots.entries()) {
    const { PostgresEventStore } = await import(
      `${dir}/src/store/postgres/postgres_event_store.ts`
    );
    const schema = `append_cpu_${Date.now()}_${i}`;
    await admin.query(`CREATE SCHEMA ${schema}`);
    const url = new URL(base);
    url.searchParams.set("options", `-c search_path=${schema}`);
    url.searchParams.set("application_name", schema);
    const store: Store = await PostgresEventStore.open(url.toString());
    measured.push({ root: dir, schema, store, backend: [], client: [], perGroup: [] });
    await store.replay(() => {});
    await load(store, prefill, `P${i}`);
    await load(store, 2000, `W${i}`);
  }
  const backends = async (schema: string) => {
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
    // Alternating order, so that neither root always runs first in a round.
    for (const m of r % 2 === 0 ? measured : [...measured].reverse()) {
      const stats = { ...m.store.commitStats };
      const before = { backend: await backends(m.schema), own: own() };
      await load(m.store, creates, `R${r}`);
      const after = { backend: await backends(m.schema), own: own() };
      m.backend.push((after.backend - before.backend) / creates);
      m.client.push((after.own - before.own) / creates);
      m.perGroup.push(
        (m.store.commitStats.events - stats.events) / (m.store.commitStats.groups - stats.groups),
      );
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
  const us = (values: number[]) => Math.round(median(values) * 1e6);
  for (const m of measured) {
    console.log(JSON.stringify({
      root: m.root,
      keys: args.keys ?? false,
      rounds,
      creates_per_round: creates,
      backend_us_per_create: us(m.backend),
      client_us_per_create: us(m.client),
      backend_rounds: m.backend.map((v) => Math.round(v * 1e6)),
      client_rounds: m.client.map((v) => Math.round(v * 1e6)),
      events_per_group: Math.round(median(m.perGroup) * 10) / 10,
    }));
  }
} finally {
  for (const m of measured) {
    await m.store.close();
    await admin.query(`DROP SCHEMA ${m.schema} CASCADE`);
  }
  await admin.end();
}
