/**
 * One group commit on PostgreSQL: the appends queued together share one transaction; one refused
 * append (expected version, email, idempotency key) leaves the others.
 */
import type { NewEvent, StoredEvent } from "../event_store.ts";
import type { PgClient } from "./pg_connection.ts";
import { checkGroup } from "./group_checks.ts";
import { commitEach } from "./append_each.ts";
import { inlineParameters, type SqlValue } from "./sql_literals.ts";
import { begin, INSERT_EVENTS, LOG_CHANNEL, type QueuedAppend } from "./queued_append.ts";

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
 * Commits the group in three round trips: begin and lock the head, check every invariant at once
 * (group_checks.ts), write every accepted append in one statement and commit. Should the database
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
    // The write and the COMMIT in one round trip: the head stays locked one round trip less.
    const events = group.flatMap((item) => item.stored === undefined ? [] : item.events);
    const write = stored.length === 0
      ? ""
      : `${inlineParameters(WRITE_GROUP, writeParameters(events, stored, last))}; `;
    await client.query(`${write}COMMIT`);
    return last;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    if ((error as { code?: string }).code !== "23505") throw error;
    for (const item of group) item.stored = item.error = undefined;
    return commitEach(client, group);
  }
}

function writeParameters(
  events: NewEvent[],
  stored: StoredEvent[],
  last: number,
): SqlValue[] {
  const column = (pick: (e: NewEvent) => string | number | null) => events.map(pick);
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
    keyed.map((e) => e.idempotency_key!),
    keyed.map((e) => e.seq),
    last,
  ];
}
