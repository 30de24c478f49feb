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

Deno.test("against a sorted model: ids of a few times, in any order, put, updated and removed past the tombstone threshold", () => {
  const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  let seed = 7;
  const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  // Three times (the first 10 characters), many ids each: the order within a time is by the rest.
  const ids = Array.from({ length: 3000 }, () => {
    let id = ["01JDQ8Z5K3", "01JDQ8Z5K4", "01JDQ8Z6A0"][random(3)];
    while (id.length < 26) id += CROCKFORD[random(32)];
    return id;
  });
  const order = new IdOrder();
  const model = new Map<string, string>();
  for (let step = 0; step < 12_000; step++) {
    const id = ids[random(ids.length)];
    if (random(3) === 0) {
      order.remove(id);
      model.delete(id);
    } else {
      const text = `{"id":"${id}","version":${step}}`;
      order.put(text);
      model.set(id, text);
    }
  }
  const expected = [...model.keys()].sort().map((id) => model.get(id)!);
  assert.deepEqual(order.texts(), expected);
  assert.deepEqual(live(order), expected);
  const after = [...model.keys()].sort()[10];
  assert.equal(order.at(order.indexAfter(after)), expected[11]);
});
