import assert from "node:assert/strict";
import type { Customer } from "../../src/domain/customer.ts";
import type { CustomerState } from "../../src/domain/decide.ts";
import type { CustomerEvent } from "../../src/domain/events.ts";
import { PendingState } from "../../src/customers/pending_state.ts";
import { plainCustomer } from "../support/events.ts";

const TIME = "2026-01-02T03:04:05.678Z";

function customer(id: string, email: string, version = 1): Customer {
  return plainCustomer({ id, name: "Ada", email, version, time: TIME });
}

function updated(id: string, email: string, version = 1): CustomerEvent {
  const data = customer(id, email, version);
  return {
    type: version === 1 ? "customer.created" : "customer.updated",
    id,
    version,
    time: TIME,
    data,
  };
}

/** A base state holding one durable customer. */
const DURABLE = customer("durable", "durable@example.com");
const base: CustomerState = {
  get: (id) => id === DURABLE.id ? DURABLE : undefined,
  emailOwner: (key) => key === DURABLE.email ? DURABLE.id : undefined,
};

Deno.test("held changes are seen over the base until released, counted per key", () => {
  const state = new PendingState(base);
  const first = state.hold(updated("a", "a@example.com"));
  const second = state.hold(updated("a", "A2@example.com", 2));
  assert.equal(state.get("a")?.version, 2, "the newest decided change");
  assert.equal(state.emailOwner("a@example.com"), "a");
  assert.equal(state.emailOwner("a2@example.com"), "a", "by email key (lower case)");
  assert.equal(state.emailOwner(DURABLE.email), DURABLE.id);
  state.release(first);
  assert.equal(state.get("a")?.version, 2, "still held by the second change");
  assert.equal(state.emailOwner("a@example.com"), undefined, "a freed email is released");
  state.release(second);
  assert.equal(state.get("a"), undefined);
  assert.equal(state.get(DURABLE.id), DURABLE);
  assert.equal(state.emailOwner("a2@example.com"), undefined);
});

Deno.test("a delete holds the customer gone, and no email", () => {
  const state = new PendingState(base);
  const holding = state.hold({
    type: "customer.deleted",
    id: DURABLE.id,
    version: 2,
    time: TIME,
    data: null,
  });
  assert.equal(state.get(DURABLE.id), undefined);
  assert.equal(holding.email, undefined);
  state.release(holding);
  assert.equal(state.get(DURABLE.id), DURABLE);
});

Deno.test("several keys keep their own entries, released in any order", () => {
  const ids = ["id0", "id1", "id2"];
  const emails = ["e0", "e1", "e2"];
  for (const order of [[0, 1, 2], [2, 1, 0], [1, 0, 2], [1, 2, 0]]) {
    const state = new PendingState(base);
    const holdings = ids.map((id, i) => state.hold(updated(id, emails[i])));
    for (const [i, id] of ids.entries()) {
      assert.equal(state.get(id)?.email, emails[i]);
      assert.equal(state.emailOwner(emails[i]), id);
    }
    const released = new Set<number>();
    for (const i of order) {
      state.release(holdings[i]);
      released.add(i);
      for (const [j, id] of ids.entries()) {
        assert.equal(state.get(id)?.email, released.has(j) ? undefined : emails[j], `${order}`);
        assert.equal(state.emailOwner(emails[j]), released.has(j) ? undefined : id);
      }
    }
  }
});
