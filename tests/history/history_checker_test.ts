/** The history checker finds each kind of anomaly it exists for, and passes a clean history. */
import assert from "node:assert/strict";
import { checkHistory } from "../support/history_checker.ts";
import type { CustomerBody, FeedEvent, Op } from "../support/history_ops.ts";

const ID = "01JDQ8Z5K3M4N5P6Q7R8S9T0VW";

function customer(version: number, metadata: Record<string, string>): CustomerBody {
  return {
    id: ID,
    name: "Ada",
    email: "ada@example.com",
    phone: null,
    address: null,
    metadata,
    created_at: "2026-11-21T10:00:00.000Z",
    updated_at: "2026-11-21T10:00:00.000Z",
    version,
  };
}

function event(seq: number, version: number, request: string, data: CustomerBody): FeedEvent {
  const type = version === 1 ? "customer.created" : "customer.updated";
  return { seq, type, customer_id: ID, version, request_id: request, data };
}

/** A create and two patches, each adding its own key, answered one after another. */
function history() {
  const v1 = customer(1, {});
  const v2 = customer(2, { a: "1" });
  const v3 = customer(3, { a: "1", b: "2" });
  const ops: Op[] = [
    {
      id: "c",
      client: 0,
      kind: "create",
      customer: ID,
      start: 0,
      end: 1,
      status: 201,
      version: 1,
      logSeq: 1,
      answer: v1,
      body: { name: "Ada", email: "ada@example.com" },
    },
    {
      id: "a",
      client: 1,
      kind: "patch",
      customer: ID,
      start: 2,
      end: 3,
      status: 200,
      version: 2,
      logSeq: 2,
      answer: v2,
      body: { metadata: { a: "1" } },
    },
    {
      id: "b",
      client: 2,
      kind: "patch",
      customer: ID,
      start: 4,
      end: 5,
      status: 200,
      version: 3,
      logSeq: 3,
      answer: v3,
      body: { metadata: { b: "2" } },
    },
  ];
  const feed = [event(1, 1, "c", v1), event(2, 2, "a", v2), event(3, 3, "b", v3)];
  return { ops, feed, final: new Map([[ID, v3 as CustomerBody | null]]) };
}

Deno.test("a clean history passes", () => {
  const { ops, feed, final } = history();
  assert.deepEqual(checkHistory(ops, feed, [final]).anomalies, []);
});

Deno.test("a patch built on a state that never was (a lost update) is found", () => {
  const { ops, feed } = history();
  const lost = customer(3, { b: "2" });
  feed[2] = event(3, 3, "b", lost);
  ops[2].answer = lost;
  const { anomalies } = checkHistory(ops, feed, [new Map([[ID, lost]])]);
  assert.ok(
    anomalies.some((text) => text.includes("not its change of version 2")),
    anomalies.join("\n"),
  );
});

Deno.test("a write answered 412 yet applied is found, and so is an If-Match applied elsewhere", () => {
  const { ops, feed, final } = history();
  ops[2] = { ...ops[2], status: 412, ifMatch: 1, answer: undefined, version: undefined };
  const { anomalies } = checkHistory(ops, feed, [final]);
  assert.ok(
    anomalies.some((text) => text.includes("answered 412 but applied")),
    anomalies.join("\n"),
  );
  assert.ok(anomalies.some((text) => text.includes("applied at version 3")), anomalies.join("\n"));
});

Deno.test("two answers with one version, or one Log-Seq, are found", () => {
  const { ops, feed, final } = history();
  ops[2] = { ...ops[2], version: 2, logSeq: 2 };
  const { anomalies } = checkHistory(ops, feed, [final]);
  assert.ok(
    anomalies.some((text) => text.includes(`both answered ${ID} v2`)),
    anomalies.join("\n"),
  );
  assert.ok(
    anomalies.some((text) => text.includes("both answered Log-Seq 2")),
    anomalies.join("\n"),
  );
});

Deno.test("a write sent after another was answered, yet ordered before it, is found", () => {
  const { ops, feed, final } = history();
  ops[1] = { ...ops[1], start: 6, end: 7 };
  const { anomalies } = checkHistory(ops, feed, [final]);
  assert.ok(anomalies.some((text) => text.includes("yet comes before it")), anomalies.join("\n"));
});

Deno.test("an acknowledged write missing from the feed, and a replica serving another state, are found", () => {
  const { ops, feed } = history();
  const { anomalies } = checkHistory(ops, feed.slice(0, 2), [new Map([[ID, customer(3, {})]])]);
  assert.ok(
    anomalies.some((text) => text.includes("patch b was answered 200 but is not in the feed")),
  );
  assert.ok(anomalies.some((text) => text.includes("replica 0 serves")), anomalies.join("\n"));
});
