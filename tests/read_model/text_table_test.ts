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

/** Sets a text the way the projection does: in its id's ordinal, or a new one. */
function set(table: TextTable, text: string): string | undefined {
  const ordinal = table.ordinalOf(text.slice(ID_AT, ID_AT + 26));
  if (ordinal === -1) {
    table.add(text);
    return undefined;
  }
  const before = table.textAt(ordinal);
  table.replace(ordinal, text);
  return before;
}

function remove(table: TextTable, id: string): string | undefined {
  const ordinal = table.ordinalOf(id);
  if (ordinal === -1) return undefined;
  const before = table.textAt(ordinal);
  table.delete(ordinal);
  return before;
}

Deno.test("a text is found by the id it starts with; a set of the same id replaces it", () => {
  const table = new TextTable();
  assert.equal(set(table, text(ulid(1))), undefined);
  assert.equal(set(table, text(ulid(2))), undefined);
  assert.equal(table.size, 2);
  assert.equal(table.get(ulid(1)), text(ulid(1)));
  assert.equal(set(table, text(ulid(1), "Ada B")), text(ulid(1)), "returns the text replaced");
  assert.equal(table.get(ulid(1)), text(ulid(1), "Ada B"));
  assert.equal(table.size, 2);
  assert.equal(table.get(ulid(3)), undefined);
  assert.equal(table.get("short"), undefined);
  assert.equal(remove(table, ulid(1)), text(ulid(1), "Ada B"));
  assert.equal(table.get(ulid(1)), undefined);
  assert.equal(remove(table, ulid(1)), undefined);
  assert.equal(table.size, 1);
});

Deno.test("a deleted customer's ordinal is given to the next new one, and the table never grows for it", () => {
  const table = new TextTable();
  const [a, b] = [table.add(text(ulid(1))), table.add(text(ulid(2)))];
  assert.deepEqual([a, b], [0, 1]);
  table.delete(a);
  assert.equal(table.textAt(a), undefined);
  assert.equal(table.add(text(ulid(3))), a);
  assert.equal(table.ordinalLimit, 2);
  assert.equal(table.ordinalOf(ulid(3)), a);
  assert.equal(table.ordinalOf(ulid(1)), -1);
});

Deno.test("ids that share a hash keep their own texts through sets and deletes", () => {
  const [a, b] = collidingIds();
  assert.equal(idHash(a, 0), idHash(b, 0));
  const table = new TextTable();
  set(table, text(a));
  set(table, text(b));
  assert.equal(table.size, 2);
  assert.deepEqual(table.under(idHash(a, 0)), [text(a), text(b)]);
  assert.equal(set(table, text(b, "B2")), text(b));
  assert.equal(table.get(a), text(a));
  assert.equal(table.get(b), text(b, "B2"));
  assert.equal(remove(table, a), text(a));
  assert.equal(table.get(a), undefined);
  assert.equal(table.get(b), text(b, "B2"));
  assert.deepEqual(table.under(idHash(b, 0)), [text(b, "B2")]);
  set(table, text(a, "A2"));
  assert.equal(table.get(a), text(a, "A2"));
  assert.equal(table.size, 2);
});

Deno.test("thousands of adds and deletes in random order leave every live id found, and no dead one", () => {
  const table = new TextTable();
  const live = new Map<string, string>();
  let seed = 7;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let step = 0; step < 20_000; step++) {
    const id = ulid(Math.floor(random() * 3000));
    if (live.has(id) && random() < 0.5) {
      assert.equal(remove(table, id), live.get(id));
      live.delete(id);
    } else {
      const next = text(id, `n${step}`);
      set(table, next);
      live.set(id, next);
    }
  }
  assert.equal(table.size, live.size);
  for (let n = 0; n < 3000; n++) assert.equal(table.get(ulid(n)), live.get(ulid(n)), ulid(n));
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
    set(table, text(ulid(n)));
    for (const seen of order.slice(0, i + 1)) assert.equal(table.get(ulid(seen)), text(ulid(seen)));
    const highest = Math.max(...order.slice(0, i + 1));
    assert.equal(table.get(ulid(highest + 1)), undefined);
    assert.equal(table.get("7ZZZZZZZZZZZZZZZZZZZZZZZZZ"), undefined);
  }
  // A delete of the greatest id leaves the others found, and a greater one set later too.
  assert.equal(remove(table, ulid(1_000_000)), text(ulid(1_000_000)));
  assert.equal(table.get(ulid(999_999)), text(ulid(999_999)));
  set(table, text(ulid(2_000_001)));
  assert.equal(table.get(ulid(2_000_001)), text(ulid(2_000_001)));
  assert.equal(table.get(ulid(1_000_000)), undefined);
  // Ids that differ from the greatest only in a later character, either way.
  const greatest = ulid(2_000_001);
  const below = greatest.slice(0, 25) + CROCKFORD[CROCKFORD.indexOf(greatest[25]) - 1];
  set(table, text(below));
  assert.equal(table.get(below), text(below));
  assert.equal(table.get(greatest), text(greatest));
});
