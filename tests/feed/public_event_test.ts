import assert from "node:assert/strict";
import { PUBLIC_EVENT_FIELDS } from "../support/customers.ts";
import { publicEventJson } from "../../src/feed/public_event.ts";
import type { ReplayedEvent } from "../../src/store/event_store.ts";

const customer = { id: "01JDQ8Z5K3M4N5P6Q7R8S9T0VW", name: 'Ada "the" Lovelace\u2028', version: 2 };
const updated: ReplayedEvent = {
  seq: 131,
  type: "customer.updated",
  id: customer.id,
  version: 2,
  time: "2026-11-21T10:00:00.000Z",
  actor: 'alice "admin"',
  request_id: "req-1",
  idempotency_key: "k-1",
  request_hash: "h",
  dataJson: JSON.stringify(customer),
};

Deno.test("a public event has exactly the documented members, in order, and the data as stored", () => {
  const event = JSON.parse(publicEventJson(updated));
  assert.deepEqual(Object.keys(event), [...PUBLIC_EVENT_FIELDS]);
  assert.deepEqual(event, {
    seq: 131,
    type: "customer.updated",
    time: "2026-11-21T10:00:00.000Z",
    customer_id: customer.id,
    version: 2,
    actor: 'alice "admin"',
    request_id: "req-1",
    data: customer,
  });
});

Deno.test("a public event never carries the idempotency key, the request hash or a checksum", () => {
  const text = publicEventJson(updated);
  for (const internal of ["idempotency_key", "request_hash", "crc", "k-1"]) {
    assert.ok(!text.includes(internal), internal);
  }
});

Deno.test("a delete's public event has data null", () => {
  const deleted = { ...updated, type: "customer.deleted" as const, version: 3, dataJson: null };
  assert.equal(JSON.parse(publicEventJson(deleted)).data, null);
});
