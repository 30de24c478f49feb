/**
 * One group commit on PostgreSQL: the appends queued together share one transaction; one refused
 * append (expected version, email, idempotency key) leaves the others.
 */
import type { StoredEvent } from "../event_store.ts";
import {
  EmailInUseError,
  ExpectedVersionConflictError,
  IdempotencyKeyTakenError,
} from "../store_errors.ts";
import type { CommitStats } from "./commit_stats.ts";
import type { PgClient } from "./pg_connection.ts";
import { commitEach } from "./append_each.ts";
import type { QueuedAppend } from "./queued_append.ts";
import { noticeEvents } from "./notified_tail.ts";

/** One call of the append_group function (append_function_checked.ts), committed on its own. */
const CALL = `SELECT append_group($1, $2::int[], $3::text[], $4::text[], $5::int[], $6::text[],
  $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::int[],
  $14::text[], $15::int[], $16::text) AS result`;

/** A refusal as the function reports it: the append's number (from 1), a kind, its details. */
type Refusal =
  | [number, "version", string, number, number]
  | [number, "key", string, string]
  | [number, "email", string];

/**
 * Commits the group in one round trip: one statement outside any explicit transaction, so the
 * server locks the head, checks, writes and commits without waiting for the service in between.
 * Should the database still refuse the write (an email passed between customers inside the
 * group), the group is retried append by append in savepoints. Fills each append's `stored` or
 * `error`; returns the head.
 */
export async function commitGroup(
  client: PgClient,
  group: QueuedAppend[],
  stats: CommitStats,
): Promise<number> {
  let result: { first: number; refused: Refusal[]; wait: number };
  try {
    ({ rows: [{ result }] } = await client.query({
      name: "append_group",
      text: CALL,
      values: callParameters(group),
    }));
  } catch (error) {
    if ((error as { code?: string }).code !== "23505") throw error;
    let roundTrips = 1;
    const counted = Object.create(client, {
      query: {
        value: (text: string, values?: unknown[]) => (roundTrips++, client.query(text, values)),
      },
    });
    const head = await commitEach(counted, group);
    stats.observe(group.length, countWritten(group), roundTrips, 0);
    return head;
  }
  for (const [n, kind, ...details] of result.refused) {
    const item = group[n - 1];
    if (kind === "version") {
      const [id, expected, actual] = details as [string, number, number];
      item.error = new ExpectedVersionConflictError(id, expected, actual);
    } else if (kind === "key") {
      const [actor, key] = details as [string, string];
      item.error = new IdempotencyKeyTakenError(actor, key);
    } else {
      item.error = new EmailInUseError(details[0] as string);
    }
  }
  let last = result.first;
  for (const item of group) {
    if (item.error !== undefined) continue;
    item.stored = item.events.map(({ dataJson: _, ...event }) => ({
      ...event,
      seq: ++last,
    })) as StoredEvent[];
  }
  stats.observe(group.length, last - result.first, 1, result.wait);
  return last;
}

function countWritten(group: QueuedAppend[]): number {
  return group.reduce((sum, item) => sum + (item.stored?.length ?? 0), 0);
}

/** The function's arguments: the events as one array per column, then the expected versions. */
function callParameters(group: QueuedAppend[]): unknown[] {
  const columns: unknown[][] = Array.from({ length: 11 }, () => []);
  const expected: unknown[][] = [[], [], []];
  group.forEach((item, i) => {
    for (const e of item.events) {
      const values = [
        i + 1,
        e.type,
        e.id,
        e.version,
        e.time,
        e.actor,
        e.request_id,
        e.idempotency_key ?? null,
        e.request_hash ?? null,
        e.data === null ? null : e.dataJson ?? JSON.stringify(e.data),
        e.data === null ? null : e.data.email,
      ];
      values.forEach((value, c) => columns[c].push(value));
    }
    for (const [id, version] of Object.entries(item.options?.expected ?? {})) {
      expected[0].push(i + 1);
      expected[1].push(id);
      expected[2].push(version);
    }
  });
  const notice = noticeEvents(group.flatMap((item) => item.events));
  return [group.length, ...columns, ...expected, notice];
}
