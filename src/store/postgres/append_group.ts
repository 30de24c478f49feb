/**
 * One group commit on PostgreSQL: the appends queued together share one transaction; one refused
 * append (expected version, email, idempotency key) leaves the others.
 */
import type { AppendOptions, NewEvent, StoredEvent } from "../event_store.ts";
import {
  EmailInUseError,
  ExpectedVersionConflictError,
  IdempotencyKeyTakenError,
} from "../store_errors.ts";
import type { PgClient } from "./pg_connection.ts";
import { checkGroup } from "./group_checks.ts";

/** One queued append and where its outcome goes. */
export interface QueuedAppend {
  events: readonly NewEvent[];
  options?: AppendOptions;
  stored?: StoredEvent[];
  error?: unknown;
}

/** The channel NOTIFY wakes followers on; the payload is unused (they read log_head). */
export const LOG_CHANNEL = "customer_api_log";

const INSERT_EVENTS = `INSERT INTO events
  (seq, type, customer_id, version, time, actor, request_id, idempotency_key, request_hash, data)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[],
    $7::text[], $8::text[], $9::text[], $10::text[])`;
const UPSERT_STREAMS = `INSERT INTO streams (customer_id, version)
  SELECT * FROM unnest($1::text[], $2::int[])
  ON CONFLICT (customer_id) DO UPDATE SET version = excluded.version`;
const UPSERT_EMAILS = `INSERT INTO customer_emails (customer_id, email)
  SELECT * FROM unnest($1::text[], $2::text[])
  ON CONFLICT (customer_id) DO UPDATE SET email = excluded.email`;

const WRITE_GROUP = `WITH
  e AS (${INSERT_EVENTS}),
  s AS (INSERT INTO streams (customer_id, version) SELECT * FROM unnest($11::text[], $12::int[])
    ON CONFLICT (customer_id) DO UPDATE SET version = excluded.version),
  d AS (DELETE FROM customer_emails WHERE customer_id = ANY($13::text[])),
  m AS (INSERT INTO customer_emails (customer_id, email) SELECT * FROM unnest($14::text[], $15::text[])
    ON CONFLICT (customer_id) DO UPDATE SET email = excluded.email),
  k AS (INSERT INTO idempotency_keys (actor, key, seq)
    SELECT * FROM unnest($16::text[], $17::text[], $18::bigint[]))
  UPDATE log_head SET seq = $19 RETURNING pg_notify('${LOG_CHANNEL}', '')`;

/**
 * Commits the group in four round trips: lock the head, check every invariant at once
 * (group_checks.ts), write every accepted append in one statement, commit. Should the database
 * still refuse the write (an email passed between customers inside the group), the group is
 * retried append by append in savepoints. Fills each append's `stored` or `error`; returns the head.
 */
export async function commitGroup(client: PgClient, group: QueuedAppend[]): Promise<number> {
  const first = await begin(client);
  try {
    await checkGroup(client, group);
    const stored: StoredEvent[] = [];
    let last = first;
    for (const item of group) {
      if (item.error !== undefined) continue;
      item.stored = item.events.map(({ dataJson: _, ...event }) => ({
        ...event,
        seq: ++last,
      })) as StoredEvent[];
      stored.push(...item.stored);
    }
    if (stored.length > 0) {
      const events = group.flatMap((item) => item.stored === undefined ? [] : item.events);
      await client.query(WRITE_GROUP, writeParameters(events, stored, last));
    }
    await client.query("COMMIT");
    return last;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    if ((error as { code?: string }).code !== "23505") throw error;
    for (const item of group) item.stored = item.error = undefined;
    return commitEach(client, group);
  }
}

async function begin(client: PgClient): Promise<number> {
  await client.query("BEGIN");
  // The lock that orders commits: held until COMMIT, so seqs follow commit order.
  const head = await client.query<{ seq: string }>("SELECT seq FROM log_head FOR UPDATE");
  return Number(head.rows[0].seq);
}

function writeParameters(events: NewEvent[], stored: StoredEvent[], last: number): unknown[] {
  const column = (pick: (e: NewEvent) => unknown) => events.map(pick);
  // The last event of each customer decides its stream version and email.
  const latest = [...new Map(events.map((event) => [event.id, event])).values()];
  const live = latest.filter((e) => e.data !== null);
  const keyed = stored.filter((e) =>
    e.type === "customer.created" && e.idempotency_key !== undefined
  );
  return [
    stored.map((e) => e.seq),
    column((e) => e.type),
    column((e) => e.id),
    column((e) => e.version),
    column((e) => e.time),
    column((e) => e.actor),
    column((e) => e.request_id),
    column((e) => e.idempotency_key ?? null),
    column((e) => e.request_hash ?? null),
    column((e) => e.data === null ? null : e.dataJson ?? JSON.stringify(e.data)),
    latest.map((e) => e.id),
    latest.map((e) => e.version),
    latest.filter((e) => e.data === null).map((e) => e.id),
    live.map((e) => e.id),
    live.map((e) => e.data!.email),
    keyed.map((e) => e.actor),
    keyed.map((e) => e.idempotency_key),
    keyed.map((e) => e.seq),
    last,
  ];
}

/** The slow path: each append in a savepoint, refused by the database's own constraints. */
async function commitEach(client: PgClient, group: QueuedAppend[]): Promise<number> {
  const first = await begin(client);
  try {
    let last = first;
    for (const item of group) {
      await client.query("SAVEPOINT append");
      try {
        item.stored = await appendOne(client, item, last);
        await client.query("RELEASE SAVEPOINT append");
        last += item.stored.length;
      } catch (error) {
        await client.query("ROLLBACK TO SAVEPOINT append");
        item.error = refusal(error, item);
      }
    }
    if (last > first) {
      await client.query("UPDATE log_head SET seq = $1", [last]);
      await client.query(`NOTIFY ${LOG_CHANNEL}`);
    }
    await client.query("COMMIT");
    return last;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

async function appendOne(client: PgClient, item: QueuedAppend, after: number) {
  const expected = item.options?.expected;
  if (expected !== undefined && Object.keys(expected).length > 0) {
    const ids = Object.keys(expected);
    const { rows } = await client.query<{ customer_id: string; version: number }>(
      "SELECT customer_id, version FROM streams WHERE customer_id = ANY($1::text[])",
      [ids],
    );
    const actual = new Map(rows.map((row) => [row.customer_id, row.version]));
    for (const id of ids) {
      const version = actual.get(id) ?? 0;
      if (version !== expected[id]) {
        throw new ExpectedVersionConflictError(id, expected[id], version);
      }
    }
  }
  const stored = item.events.map(({ dataJson: _, ...event }, i) => ({
    ...event,
    seq: after + i + 1,
  }));
  const columns = (pick: (e: NewEvent, i: number) => unknown) => item.events.map(pick);
  await client.query(INSERT_EVENTS, [
    stored.map((event) => event.seq),
    columns((e) => e.type),
    columns((e) => e.id),
    columns((e) => e.version),
    columns((e) => e.time),
    columns((e) => e.actor),
    columns((e) => e.request_id),
    columns((e) => e.idempotency_key ?? null),
    columns((e) => e.request_hash ?? null),
    columns((e) => e.data === null ? null : e.dataJson ?? JSON.stringify(e.data)),
  ]);
  // The last event of each customer in the batch decides its stream version and email.
  const latest = new Map(item.events.map((event) => [event.id, event]));
  const streams = [...latest.values()];
  await client.query(UPSERT_STREAMS, [streams.map((e) => e.id), streams.map((e) => e.version)]);
  const gone = streams.filter((e) => e.data === null).map((e) => e.id);
  if (gone.length > 0) {
    await client.query("DELETE FROM customer_emails WHERE customer_id = ANY($1::text[])", [gone]);
  }
  const live = streams.filter((e) => e.data !== null);
  if (live.length > 0) {
    await client.query(UPSERT_EMAILS, [live.map((e) => e.id), live.map((e) => e.data!.email)]);
  }
  for (const event of item.events) {
    if (event.type !== "customer.created" || event.idempotency_key === undefined) continue;
    await client.query("INSERT INTO idempotency_keys (actor, key, seq) VALUES ($1, $2, $3)", [
      event.actor,
      event.idempotency_key,
      stored[item.events.indexOf(event)].seq,
    ]);
  }
  return stored as StoredEvent[];
}

/** The store error a refused append gets; anything else fails the whole transaction. */
function refusal(error: unknown, item: QueuedAppend): unknown {
  if (error instanceof ExpectedVersionConflictError) return error;
  const { code, constraint, detail } = error as {
    code?: string;
    constraint?: string;
    detail?: string;
  };
  if (code !== "23505") throw error;
  if (constraint === "customer_emails_email_key") {
    const email = /=\((.*)\) already exists/.exec(detail ?? "")?.[1] ??
      String(item.events.find((e) => e.data !== null)?.data?.email);
    return new EmailInUseError(email);
  }
  if (constraint === "idempotency_keys_pkey") {
    const event = item.events.find((e) => e.idempotency_key !== undefined)!;
    return new IdempotencyKeyTakenError(event.actor, event.idempotency_key!);
  }
  const event = item.events[0];
  return new ExpectedVersionConflictError(event.id, event.version - 1, event.version);
}
