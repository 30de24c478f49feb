/**
 * One group commit on PostgreSQL: the appends queued together share one transaction; one refused
 * append (expected version, email, idempotency key) leaves the others.
 */
import { withSeq } from "../stored_event.ts";
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
import { intArray, lines, textArray } from "./array_literal.ts";

/**
 * One call of the append_group function (append_function_constrained.ts), committed on its own;
 * the events' data as lines (array_literal.ts), or as an array when lines cannot carry them.
 */
const call = (data: string) =>
  `SELECT append_group($1, $2::int[], $3::text[], $4::text[], $5::int[], $6::text[],
  $7::text[], $8::text[], $9::text[], $10::text[], ${data}, $12::text[], $13::int[],
  $14::text[], $15::int[], $16::text) AS result`;
const AS_LINES = { name: "append_group", text: call(`string_to_array($11, E'\\n', '')`) };
const AS_ARRAY = { name: "append_group_array", text: call("$11::text[]") };

/** A refusal as the function reports it: the append's number (from 1), a kind, its details. */
type Refusal =
  | [number, "version", string, number, number]
  | [number, "key", string, string]
  | [number, "email", string];

/**
 * Commits the group in one round trip: one statement outside any explicit transaction, so the
 * server locks the head, checks, writes and commits without waiting for the service in between.
 * Should the database still refuse the write (an email passed between customers inside the
 * group), the group is retried append by append in savepoints. Its notification carries the
 * events `withEvents` (while other replicas listen), else the head. Fills each append's `stored`
 * or `error`; returns the head.
 */
export async function commitGroup(
  client: PgClient,
  group: QueuedAppend[],
  stats: CommitStats,
  withEvents = true,
): Promise<number> {
  let result: { first: number; refused: Refusal[]; wait: number };
  try {
    const [values, asLines] = callParameters(group, withEvents);
    ({ rows: [{ result }] } = await client.query({ ...(asLines ? AS_LINES : AS_ARRAY), values }));
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
    item.stored = item.events.map((event) => withSeq(event, ++last));
  }
  stats.observe(group.length, last - result.first, 1, result.wait);
  return last;
}

function countWritten(group: QueuedAppend[]): number {
  return group.reduce((sum, item) => sum + (item.stored?.length ?? 0), 0);
}

/**
 * The function's arguments: the events as one array per column, the expected versions, and the
 * notice's lines `withEvents`; and whether the data went as lines.
 */
function callParameters(group: QueuedAppend[], withEvents: boolean): [unknown[], boolean] {
  const items: number[] = [];
  const [types, ids, times, actors, requests, keys, hashes, data, emails]: (string | null)[][] = [
    [],
    [],
    [],
    [],
    [],
    [],
    [],
    [],
    [],
  ];
  const versions: number[] = [];
  const expected: [number[], string[], number[]] = [[], [], []];
  for (let i = 0; i < group.length; i++) {
    const item = group[i];
    for (const e of item.events) {
      items.push(i + 1);
      types.push(e.type);
      ids.push(e.id);
      versions.push(e.version);
      times.push(e.time);
      actors.push(e.actor);
      requests.push(e.request_id);
      keys.push(e.idempotency_key ?? null);
      hashes.push(e.request_hash ?? null);
      data.push(e.data === null ? null : e.dataJson ?? JSON.stringify(e.data));
      emails.push(e.data === null ? null : e.data.email);
    }
    const wanted = item.options?.expected;
    if (wanted === undefined) continue;
    for (const id in wanted) {
      expected[0].push(i + 1);
      expected[1].push(id);
      expected[2].push(wanted[id]);
    }
  }
  const dataLines = lines(data);
  const notice = withEvents ? noticeEvents(group.flatMap((item) => item.events)) : null;
  return [[
    group.length,
    intArray(items),
    textArray(types),
    textArray(ids),
    intArray(versions),
    textArray(times),
    textArray(actors),
    textArray(requests),
    textArray(keys),
    textArray(hashes),
    dataLines ?? textArray(data),
    textArray(emails),
    intArray(expected[0]),
    textArray(expected[1]),
    intArray(expected[2]),
    notice,
  ], dataLines !== undefined];
}
