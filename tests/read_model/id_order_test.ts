import assert from "node:assert/strict";
import { IdOrder } from "../../src/read_model/id_order.ts";

/** A well-formed ULID that sorts by n (0–99). */
const idOf = (n: number) => `01JDQ8Z5K3M4N5P6Q7R8S9T0${String(n).padStart(2, "0")}`;
const text = (n: number, v = 1) => `{"id":"${idOf(n)}","version":${v}}`;

function live(order: IdOrder): string[] {
  return Array.from({ length: order.length }, (_, i) => order.at(i)).filter((t) => t !== undefined);
}

Deno.test("texts keep id order whatever order they come in; a text of a known id takes its place", () => {
  const order = new IdOrder();
  for (const n of [5, 1, 9, 3]) order.put(text(n));
  order.put(text(3, 2));
  assert.deepEqual(live(order), [text(1), text(3, 2), text(5), text(9)]);
  assert.deepEqual(order.texts(), live(order));
});

Deno.test("a removed id leaves a tombstone that the list skips and a new text of the id revives", () => {
  const order = new IdOrder();
  for (const n of [1, 2, 3]) order.put(text(n));
  order.remove(idOf(2));
  order.remove(idOf(2));
  order.remove(idOf(7));
  assert.deepEqual(order.texts(), [text(1), text(3)]);
  assert.equal(order.length, 3, "the tombstone holds the place");
  order.put(text(2, 3));
  assert.deepEqual(order.texts(), [text(1), text(2, 3), text(3)]);
  assert.equal(order.length, 3);
});

Deno.test("indexAfter finds the first id after any string, tombstones and all", () => {
  const order = new IdOrder();
  for (const n of [10, 20, 30]) order.put(text(n));
  order.remove(idOf(20));
  assert.equal(order.indexAfter(idOf(10)), 1);
  assert.equal(order.indexAfter(idOf(15)), 1);
  assert.equal(order.indexAfter(idOf(20)), 2);
  assert.equal(order.indexAfter(""), 0);
  assert.equal(order.indexAfter("0"), 0);
  assert.equal(order.indexAfter("zzz"), 3);
  assert.equal(order.indexAfter(idOf(10).slice(0, 25)), 0, "a prefix sorts first");
  assert.equal(order.indexAfter(`${idOf(10)}x`), 1, "a longer string sorts after its prefix");
});
