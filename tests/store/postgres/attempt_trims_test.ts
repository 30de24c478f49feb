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
  assert.deepEqual(trims.inserted(rows("a", ATTEMPTS_KEPT + 1, 30).reverse()), [
    { id: "a", after: 0, upto: 30 },
  ]);
});

Deno.test("attempt trims: each trim starts where the endpoint's last one ended", () => {
  const trims = new AttemptTrims();
  trims.inserted(rows("a", 1, 150));
  assert.deepEqual(trims.inserted(rows("a", 151, 20)), [{ id: "a", after: 50, upto: 70 }]);
  assert.deepEqual(trims.inserted(rows("a", 400, 1)), [{ id: "a", after: 70, upto: 71 }]);
});

Deno.test("attempt trims: endpoints are cut apart, and a forgotten one starts again from 0", () => {
  const trims = new AttemptTrims();
  // Interleaved n, as one identity numbers every endpoint's rows.
  const both = Array.from({ length: 240 }, (_, i) => ({
    endpoint_id: i % 2 === 0 ? "a" : "b",
    n: i + 1,
  }));
  assert.deepEqual(trims.inserted(both), [
    { id: "a", after: 0, upto: 39 },
    { id: "b", after: 0, upto: 40 },
  ]);
  trims.forget("a");
  assert.deepEqual(trims.inserted(rows("a", 1000, ATTEMPTS_KEPT + 1)), [
    { id: "a", after: 0, upto: 1000 },
  ]);
});
