import assert from "node:assert/strict";
import { ID_AT, idHash, idOf, TextTable } from "../../src/read_model/text_table.ts";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A well-formed ULID for n (sorting by n). */
function ulid(n: number): string {
  let tail = "";
  for (let i = 0; i < 6; i++, n = Math.floor(n / 32)) tail = CROCKFORD[n % 32] + tail;
  return `01JDQ8Z5K3M4N5P6Q7R8${tail}`;
}

const text = (id: string, name = "Ada") => `{"id":"${id}","name":"${name}"}`;

/** Two ids with one hash, found by search (the same pair every run). */
function collidingIds(): [string, string] {
  const seen = new Map<number, string>();
  for (let n = 0;; n++) {
    const id = ulid(n);
    const other = seen.get(idHash(id, 0));
    if (other !== undefined) return [other, id];
    seen.set(idHash(id, 0), id);
  }
}

Deno.test("a text is found by the id it starts with; a set of the same id replaces it", () => {
  const table = new TextTable();
  assert.equal(table.set(text(ulid(1))), undefined);
  assert.equal(table.set(text(ulid(2))), undefined);
  assert.equal(table.size, 2);
  assert.equal(table.get(ulid(1)), text(ulid(1)));
  assert.equal(table.set(text(ulid(1), "Ada B")), text(ulid(1)), "returns the text replaced");
  assert.equal(table.get(ulid(1)), text(ulid(1), "Ada B"));
  assert.equal(table.size, 2);
  assert.equal(table.get(ulid(3)), undefined);
  assert.equal(table.get("short"), undefined);
  assert.equal(table.delete(ulid(1)), text(ulid(1), "Ada B"));
  assert.equal(table.get(ulid(1)), undefined);
  assert.equal(table.delete(ulid(1)), undefined);
  assert.equal(table.size, 1);
});

Deno.test("ids that share a hash keep their own texts through sets and deletes", () => {
  const [a, b] = collidingIds();
  assert.equal(idHash(a, 0), idHash(b, 0));
  const table = new TextTable();
  table.set(text(a));
  table.set(text(b));
  assert.equal(table.size, 2);
  assert.deepEqual(table.under(idHash(a, 0)), [text(a), text(b)]);
  assert.equal(table.set(text(b, "B2")), text(b));
  assert.equal(table.get(a), text(a));
  assert.equal(table.get(b), text(b, "B2"));
  assert.equal(table.delete(a), text(a));
  assert.equal(table.get(a), undefined);
  assert.equal(table.get(b), text(b, "B2"));
  assert.deepEqual(table.under(idHash(b, 0)), [text(b, "B2")]);
  table.set(text(a, "A2"));
  assert.equal(table.get(a), text(a, "A2"));
  assert.equal(table.size, 2);
});

Deno.test("a text's id hash is its id's; idOf copies the id out of the text", () => {
  const id = ulid(42);
  assert.equal(idHash(text(id), ID_AT), idHash(id, 0));
  assert.equal(idOf(text(id)), id);
});

Deno.test("ids set in any order are found, and ids above all of them are not", () => {
  const table = new TextTable();
  const order = [5, 900, 3, 1_000_000, 31, 32, 999_999, 1, 64];
  for (const [i, n] of order.entries()) {
    table.set(text(ulid(n)));
    for (const seen of order.slice(0, i + 1)) assert.equal(table.get(ulid(seen)), text(ulid(seen)));
    const highest = Math.max(...order.slice(0, i + 1));
    assert.equal(table.get(ulid(highest + 1)), undefined);
    assert.equal(table.get("7ZZZZZZZZZZZZZZZZZZZZZZZZZ"), undefined);
  }
  // A delete of the greatest id leaves the others found, and a greater one set later too.
  assert.equal(table.delete(ulid(1_000_000)), text(ulid(1_000_000)));
  assert.equal(table.get(ulid(999_999)), text(ulid(999_999)));
  table.set(text(ulid(2_000_001)));
  assert.equal(table.get(ulid(2_000_001)), text(ulid(2_000_001)));
  assert.equal(table.get(ulid(1_000_000)), undefined);
  // Ids that differ from the greatest only in a later character, either way.
  const greatest = ulid(2_000_001);
  const below = greatest.slice(0, 25) + CROCKFORD[CROCKFORD.indexOf(greatest[25]) - 1];
  table.set(text(below));
  assert.equal(table.get(below), text(below));
  assert.equal(table.get(greatest), text(greatest));
});
