/**
 * The invariants of a group commit, checked in one query after the log head is locked (so nothing
 * changes under the check): expected versions, live emails and idempotency keys. Each append is
 * refused on its own; accepted ones count for the appends after them in the same group.
 */
import type { NewEvent } from "../event_store.ts";
import {
  EmailInUseError,
  ExpectedVersionConflictError,
  IdempotencyKeyTakenError,
} from "../store_errors.ts";
import type { PgClient } from "./pg_connection.ts";
import type { QueuedAppend } from "./queued_append.ts";

const CHECK = `SELECT
  (SELECT coalesce(json_object_agg(customer_id, version), '{}') FROM streams
    WHERE customer_id = ANY($1::text[])) AS versions,
  (SELECT coalesce(json_object_agg(x, c.customer_id), '{}') FROM unnest($2::text[]) x
    JOIN customer_emails c ON lower(c.email) = lower(x)) AS emails,
  (SELECT coalesce(json_agg(k.actor || ' ' || k.key), '[]') FROM idempotency_keys k
    JOIN unnest($3::text[], $4::text[]) AS q(actor, key) USING (actor, key)) AS keys`;

interface CheckRow {
  versions: Record<string, number>;
  emails: Record<string, string>;
  keys: string[];
}

const liveEmail = (event: NewEvent) => event.data === null ? undefined : event.data.email;

/** Sets `error` on every append the database state (and earlier appends of the group) refuses. */
export async function checkGroup(client: PgClient, group: QueuedAppend[]): Promise<void> {
  const events = group.flatMap((item) => item.events);
  const ids = [...new Set(group.flatMap((item) => Object.keys(item.options?.expected ?? {})))];
  const emails = [...new Set(events.map(liveEmail).filter((e) => e !== undefined))];
  const keyed = events.filter((e) => e.idempotency_key !== undefined);
  const { rows: [row] } = await client.query<CheckRow>(CHECK, [
    ids,
    emails,
    keyed.map((e) => e.actor),
    keyed.map((e) => e.idempotency_key),
  ]);
  const versions = new Map(Object.entries(row.versions));
  const owners = new Map(
    Object.entries(row.emails).map(([email, id]) => [email.toLowerCase(), id]),
  );
  const keys = new Set(row.keys);
  for (const item of group) {
    item.error = refusal(item, versions, owners, keys);
    if (item.error !== undefined) continue;
    for (const event of item.events) {
      versions.set(event.id, event.version);
      for (const [email, id] of owners) if (id === event.id) owners.delete(email);
      const email = liveEmail(event);
      if (email !== undefined) owners.set(email.toLowerCase(), event.id);
      if (event.idempotency_key !== undefined) keys.add(`${event.actor} ${event.idempotency_key}`);
    }
  }
}

function refusal(
  item: QueuedAppend,
  versions: Map<string, number>,
  owners: Map<string, string>,
  keys: Set<string>,
): Error | undefined {
  for (const [id, expected] of Object.entries(item.options?.expected ?? {})) {
    const actual = versions.get(id) ?? 0;
    if (actual !== expected) return new ExpectedVersionConflictError(id, expected, actual);
  }
  // The key first: a repeated keyed create is answered again, not refused for its email.
  for (const event of item.events) {
    const key = event.idempotency_key;
    if (key !== undefined && keys.has(`${event.actor} ${key}`)) {
      return new IdempotencyKeyTakenError(event.actor, key);
    }
  }
  for (const event of item.events) {
    const email = liveEmail(event);
    const owner = email === undefined ? undefined : owners.get(email.toLowerCase());
    if (owner !== undefined && owner !== event.id) return new EmailInUseError(email!);
  }
  return undefined;
}
