/** Where the deliveries log is cut: each trim starts where the last ended and keeps the newest. */
import assert from "node:assert/strict";
import { AttemptTrims } from "../../../src/store/postgres/attempt_trims.ts";
import { ATTEMPTS_KEPT } from "../../../src/store/webhook_store.ts";

const rows = (id: string, from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({ endpoint_id: id, n: String(from + i) }));

Deno.test("attempt trims: none until an endpoint has more than ATTEMPTS_KEPT, then up to its newest", () => {
  const trims = new AttemptTrims();
  assert.deepEqual(trims.inserted(rows("a", 1, ATTEMPTS_KEPT)), []);
  // Rows come back in any order: the cut is by n.
  const due = trims.inserted(rows("a", ATTEMPTS_KEPT + 1, 30).reverse());
  assert.deepEqual(due, [{ id: "a", after: 0, upto: 30 }]);
  trims.done(due);
});

Deno.test("attempt trims: each trim starts where the endpoint's last one ended", () => {
  const trims = new AttemptTrims();
  trims.done(trims.inserted(rows("a", 1, 150)));
  const due = trims.inserted(rows("a", 151, 20));
  assert.deepEqual(due, [{ id: "a", after: 50, upto: 70 }]);
  trims.done(due);
  assert.deepEqual(trims.inserted(rows("a", 400, 1)), [{ id: "a", after: 70, upto: 71 }]);
});

Deno.test("attempt trims: a trim that did not run is redone from where the last one that ran ended", () => {
  const trims = new AttemptTrims();
  trims.done(trims.inserted(rows("a", 1, 150)));
  // This one failed (done is not called): the next starts at 50 again and goes further.
  assert.deepEqual(trims.inserted(rows("a", 151, 20)), [{ id: "a", after: 50, upto: 70 }]);
  assert.deepEqual(trims.inserted(rows("a", 171, 5)), [{ id: "a", after: 50, upto: 75 }]);
});

Deno.test("attempt trims: endpoints are cut apart, and a forgotten one starts again from 0", () => {
  const trims = new AttemptTrims();
  // Interleaved n, as one identity numbers every endpoint's rows.
  const both = Array.from({ length: 240 }, (_, i) => ({
    endpoint_id: i % 2 === 0 ? "a" : "b",
    n: i + 1,
  }));
  const due = trims.inserted(both);
  assert.deepEqual(due, [{ id: "a", after: 0, upto: 39 }, { id: "b", after: 0, upto: 40 }]);
  trims.done(due);
  trims.forget("a");
  assert.deepEqual(trims.inserted(rows("a", 1000, ATTEMPTS_KEPT + 1)), [
    { id: "a", after: 0, upto: 1000 },
  ]);
});
