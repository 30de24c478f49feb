/**
 * The acceptance test's race audit on hand-made runs: a second winner of an email race is fine when
 * the first was deleted before it was created, even once erasure removed both created events.
 */
import assert from "node:assert/strict";
import { assertRaces, type FeedEvent } from "../support/replica_audit.ts";
import { type RaceAnswer, WriteLedger } from "../support/write_ledger.ts";

const EMAIL = "raced@x.test";

/** A 201 answer to a create of customer `id` whose event got `seq`. */
function created(id: string, seq: number): RaceAnswer {
  const customer = { id, name: "Raced", email: EMAIL, version: 1 };
  return { status: 201, text: JSON.stringify(customer), seq };
}

function deleted(id: string, seq: number, version: number): FeedEvent {
  return { seq, type: "customer.deleted", customer_id: id, version, data: null };
}

function raced(...answers: RaceAnswer[]): WriteLedger {
  const ledger = new WriteLedger();
  ledger.emailRaces.push(answers);
  return ledger;
}

Deno.test("two winners of an email race pass when the first was deleted before the second was created, both erased", () => {
  // A created at 10 and deleted at 11; B created at 12 and deleted at 20. Erasure left the deletes.
  const feed = [deleted("A", 11, 2), deleted("B", 20, 3)];
  assertRaces(raced(created("A", 10), created("B", 12)), feed);
});

Deno.test("two winners of an email race fail when the second was created before the first was deleted", () => {
  const feed = [deleted("B", 20, 3), deleted("A", 21, 2)];
  assert.throws(
    () => assertRaces(raced(created("A", 10), created("B", 12)), feed),
    /2 live creates with one email/,
  );
});

Deno.test("two live winners of an email race fail", () => {
  const feed: FeedEvent[] = [];
  assert.throws(
    () => assertRaces(raced(created("A", 10), created("B", 12)), feed),
    /2 live creates with one email/,
  );
});
