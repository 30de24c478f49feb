/**
 * What must hold on every replica after a run of concurrent writers (write_ledger.ts): the feed is
 * the same everywhere and gap-free, every acknowledged write is in it exactly once, the customers
 * and their histories follow from it, and every race had at most one winner.
 */
import assert from "node:assert/strict";
import type { ApiClient, Customer } from "./api.ts";
import type { AckedWrite, WriteLedger } from "./write_ledger.ts";

/** A public event of the feed (contract §9). */
export interface FeedEvent {
  seq: number;
  type: "customer.created" | "customer.updated" | "customer.deleted";
  customer_id: string;
  version: number;
  data: Customer | null;
}

/** Every event of the feed up to `head`, page by page, once the replica has applied `head`. */
export async function readFeed(api: ApiClient, head: number): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  for (let after = 0; after < head;) {
    const res = await api.get(`/api/events?after=${after}&limit=1000`, {
      headers: { "min-log-seq": String(head) },
    });
    assert.equal(res.status, 200, res.text);
    events.push(...res.body.data);
    assert.ok(res.body.last_seq > after, `the feed did not move past ${after}`);
    after = res.body.last_seq;
  }
  return events;
}

/** Per customer, its events in feed order. */
export function byCustomer(feed: FeedEvent[]): Map<string, FeedEvent[]> {
  const map = new Map<string, FeedEvent[]>();
  for (const event of feed) {
    map.set(event.customer_id, [...map.get(event.customer_id) ?? [], event]);
  }
  return map;
}

/**
 * Seqs strictly increase up to `head`, and each customer's versions run 1, 2, 3, … with no gap; the
 * only seqs missing are the erased earlier events of deleted customers (a delete at version v
 * erased v − 1 events), so the feed's length plus those is exactly `head`.
 */
export function assertFeedGapFree(feed: FeedEvent[], head: number): void {
  feed.forEach((event, i) => {
    if (i > 0) assert.ok(event.seq > feed[i - 1].seq, `seq ${event.seq} after ${feed[i - 1].seq}`);
  });
  assert.equal(feed.at(-1)?.seq, head, "the feed ends at the log head");
  let erased = 0;
  for (const [id, events] of byCustomer(feed)) {
    const last = events.at(-1)!;
    const onlyDelete = events.length === 1 && last.type === "customer.deleted";
    if (onlyDelete) erased += last.version - 1;
    const versions = events.map((e) => e.version);
    const from = onlyDelete ? last.version : 1;
    assert.deepEqual(versions, versions.map((_, i) => from + i), `versions of ${id}: ${versions}`);
    assert.ok(
      events.every((e, i) =>
        (e.type === "customer.created") === (e.version === 1) &&
        (e.type !== "customer.deleted" || i === events.length - 1)
      ),
      `event types of ${id}`,
    );
  }
  assert.equal(feed.length + erased, head, `${feed.length} events + ${erased} erased ≠ ${head}`);
}

/** Each acknowledged write is the feed's event at the seq its answer named, with what it answered. */
export function assertAckedInFeed(feed: FeedEvent[], acked: AckedWrite[]): void {
  const bySeq = new Map(feed.map((event) => [event.seq, event]));
  const deletedAt = new Map(
    feed.filter((e) => e.type === "customer.deleted").map((e) => [e.customer_id, e.seq]),
  );
  const type = {
    create: "customer.created",
    patch: "customer.updated",
    delete: "customer.deleted",
  };
  for (const write of acked) {
    // A replayed answer names the seq the replica had applied, at or past the first answer's.
    const event = write.replayed
      ? feed.find((e) => e.customer_id === write.id && e.version === 1 && e.seq <= write.seq)
      : bySeq.get(write.seq);
    if (event === undefined) {
      // Erased: only the earlier events of a customer deleted later go.
      const deleted = deletedAt.get(write.id);
      assert.ok(deleted !== undefined, `acknowledged ${write.op} lost: ${JSON.stringify(write)}`);
      assert.ok(write.replayed || deleted > write.seq, `${write.op} erased before it was made`);
      continue;
    }
    const story = () =>
      `${JSON.stringify(write)} vs ${
        JSON.stringify(feed.filter((e) => e.customer_id === write.id))
      }`;
    assert.equal(event.type, type[write.op], story());
    assert.equal(event.customer_id, write.id, story());
    if (write.text !== undefined) {
      assert.equal(event.version, write.version, `seq ${write.seq}`);
      assert.deepEqual(event.data, JSON.parse(write.text), `seq ${write.seq}`);
    }
  }
}

/** Each live customer's history on `api` is its events in the feed (the first `sample` of them). */
export async function assertHistories(
  api: ApiClient,
  feed: FeedEvent[],
  sample: number,
): Promise<void> {
  const live = [...byCustomer(feed)].filter(([, events]) => events.at(-1)!.data !== null);
  for (const [id, events] of live.slice(0, sample)) {
    const res = await api.get(`/api/customers/${id}/history?limit=1000`);
    assert.equal(res.status, 200, res.text);
    const versions = res.body.data.map((e: FeedEvent) => e.version);
    assert.deepEqual(res.body.data, events, `history of ${id} on ${api.baseUrl}: ${versions}`);
  }
}

/** The live customers the feed leads to, by id. */
export function liveCustomers(feed: FeedEvent[]): Customer[] {
  const live: Customer[] = [];
  for (const events of byCustomer(feed).values()) {
    const last = events.at(-1)!;
    if (last.data !== null) live.push(last.data);
  }
  return live.sort((a, b) => a.id.localeCompare(b.id));
}

/** Email uniqueness among live customers (lower-cased, as the contract compares them). */
export function assertEmailsUnique(customers: Customer[]): void {
  const emails = customers.map((c) => c.email.toLowerCase());
  assert.equal(new Set(emails).size, emails.length, "two live customers share an email");
}

/**
 * Races: one email → one 201 (exactly one when no answer failed), unless the winner was deleted
 * before the next create committed (the email is free again then); one If-Match → ≤ one 200.
 */
export function assertRaces(ledger: WriteLedger, feed: FeedEvent[]): void {
  const events = byCustomer(feed);
  const deletedSeq = (id: string) =>
    events.get(id)?.find((e) => e.type === "customer.deleted")?.seq ?? Infinity;
  for (const answers of ledger.emailRaces) {
    // A winner's create seq is its answer's Log-Seq: once that customer is deleted too, erasure
    // removed its created event from the feed (its delete event stays).
    const won = answers.filter((a) => a.status === 201).map((a) => ({
      id: JSON.parse(a.text!).id as string,
      createdSeq: a.seq!,
    }));
    won.sort((a, b) => deletedSeq(a.id) - deletedSeq(b.id));
    for (let i = 1; i < won.length; i++) {
      assert.ok(
        deletedSeq(won[i - 1].id) < won[i].createdSeq,
        `${won.length} live creates with one email: ${JSON.stringify(answers)}`,
      );
    }
    if (answers.every((a) => a.status === 201 || a.status === 409)) {
      assert.ok(won.length >= 1, JSON.stringify(answers));
      const lost = answers.filter((a) => a.status === 409);
      assert.ok(lost.every((a) => /email-taken$/.test(String(a.type))), JSON.stringify(lost));
    }
  }
  for (const answers of ledger.ifMatchRaces) {
    const won = answers.filter((a) => a.status === 200).length;
    assert.ok(won <= 1, `${won} patches with one If-Match: ${JSON.stringify(answers)}`);
  }
}

/** A reused Idempotency-Key answers with the first answer: every 201 the same, and one customer. */
export function assertIdempotentReplays(ledger: WriteLedger): void {
  const ids = new Set<string>();
  for (const [key, answers] of ledger.keyed) {
    const created = answers.filter((a) => a.status === 201).map((a) => a.text);
    assert.ok(created.every((text) => text === created[0]), `key ${key}: ${created}`);
    const others = answers.filter((a) => a.status !== 201 && a.status !== "error");
    for (const answer of others) {
      assert.ok(
        answer.status === 503 ||
          answer.status === 409 && /idempotency-key-in-flight$/.test(String(answer.type)),
        `key ${key}: ${answer.status} ${answer.text}`,
      );
    }
    if (created[0] === undefined) continue;
    const id = JSON.parse(created[0]).id;
    assert.ok(!ids.has(id), `two keys answered with customer ${id}`);
    ids.add(id);
  }
}
