/** The savepoint path of a group commit: each append refused by the database's own constraints. */
import type { NewEvent, StoredEvent } from "../event_store.ts";
import {
  EmailInUseError,
  ExpectedVersionConflictError,
  IdempotencyKeyTakenError,
} from "../store_errors.ts";
import type { PgClient } from "./pg_connection.ts";
import { begin, INSERT_EVENTS, LOG_CHANNEL, type QueuedAppend } from "./queued_append.ts";

const UPSERT_CUSTOMERS = `INSERT INTO customers (customer_id, version, email)
  SELECT * FROM unnest($1::text[], $2::int[], $3::text[])
  ON CONFLICT (customer_id) DO UPDATE SET version = excluded.version, email = excluded.email`;

/** The slow path: each append in a savepoint, refused by the database's own constraints. */
export async function commitEach(client: PgClient, group: QueuedAppend[]): Promise<number> {
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
      await client.query(
        `UPDATE log_head SET seq = $1 RETURNING pg_notify('${LOG_CHANNEL}', '')`,
        [last],
      );
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
      "SELECT customer_id, version FROM customers WHERE customer_id = ANY($1::text[])",
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
  // The last event of each customer in the batch decides its version and email (none if deleted).
  const latest = [...new Map(item.events.map((event) => [event.id, event])).values()];
  await client.query(UPSERT_CUSTOMERS, [
    latest.map((e) => e.id),
    latest.map((e) => e.version),
    latest.map((e) => e.data?.email ?? null),
  ]);
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
  if (constraint === "customers_email_key") {
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
