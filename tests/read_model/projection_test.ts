import assert from "node:assert/strict";
import { encodeCursor, parseListQuery } from "../../src/customers/list_query.ts";
import { nextTurn } from "../../src/lib/next_turn.ts";
import { search } from "../../src/search/search_run.ts";
import type { Customer } from "../../src/domain/customer.ts";
import type { CustomerEvent } from "../../src/domain/events.ts";
import { CustomerProjection, recordOf } from "../../src/read_model/projection.ts";
import { customerText } from "../../src/read_model/customer_text.ts";
import { emailHash } from "../../src/read_model/email_index.ts";
import { plainCustomer } from "../support/events.ts";

const TIME = "2026-11-21T10:00:00.000Z";

/** A well-formed ULID that sorts by n (0–99). */
function idOf(n: number): string {
  return `01JDQ8Z5K3M4N5P6Q7R8S9T0${String(n).padStart(2, "0")}`;
}

function customer(n: number, name: string, email: string, version = 1): Customer {
  return plainCustomer({ id: idOf(n), name, email, version, time: TIME });
}

/** Folds an event into the projection as the service does: with the data's canonical text. */
function fold(projection: CustomerProjection, event: CustomerEvent): void {
  projection.apply(event.id, event.data === null ? null : customerText(event.data));
}

function created(data: Customer): CustomerEvent {
  return { type: "customer.created", id: data.id, version: 1, time: TIME, data };
}

function updated(data: Customer): CustomerEvent {
  return { type: "customer.updated", id: data.id, version: data.version, time: TIME, data };
}

function deleted(id: string, version: number): CustomerEvent {
  return { type: "customer.deleted", id, version, time: TIME, data: null };
}

/** A projection holding customers 1..count, named "Customer n" with email cn@example.com. */
function projectionOf(numbers: number[]): CustomerProjection {
  const projection = new CustomerProjection();
  for (const n of numbers) {
    fold(projection, created(customer(n, `Customer ${n}`, `c${n}@example.com`)));
  }
  return projection;
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

function idsOf(items: { id: string }[]): string[] {
  return items.map((item) => item.id);
}

Deno.test("an empty projection has size 0 and lists nothing", async () => {
  const projection = new CustomerProjection();
  assert.equal(projection.size, 0);
  assert.deepEqual(await list(projection, { limit: 100 }), { items: [], more: false });
});

Deno.test("a created event makes the customer readable by id and by email key", () => {
  const projection = new CustomerProjection();
  const ada = customer(1, "Ada Lovelace", "Ada@Example.com");
  fold(projection, created(ada));
  assert.equal(projection.size, 1);
  assert.deepEqual(projection.get(idOf(1)), ada);
  assert.equal(projection.emailOwner("ada@example.com"), idOf(1));
  assert.equal(projection.emailOwner("Ada@Example.com"), undefined, "keys are lower case");
  assert.equal(projection.get(idOf(2)), undefined);
});

Deno.test("an updated event replaces the customer and moves the email index to the new email", async () => {
  const projection = projectionOf([1]);
  const changed = customer(1, "Ada King", "augusta@example.com", 2);
  fold(projection, updated(changed));
  assert.equal(projection.size, 1);
  assert.deepEqual(projection.get(idOf(1)), changed);
  assert.equal(projection.emailOwner("c1@example.com"), undefined);
  assert.equal(projection.emailOwner("augusta@example.com"), idOf(1));
  assert.deepEqual(idsOf((await list(projection, { limit: 10 })).items), [idOf(1)]);
});

Deno.test("an updated event that only changes the email's case keeps the email owned", () => {
  const projection = projectionOf([1]);
  fold(projection, updated(customer(1, "Customer 1", "C1@EXAMPLE.com", 2)));
  assert.equal(projection.emailOwner("c1@example.com"), idOf(1));
});

Deno.test("a freed email can be taken by another customer after an email change", () => {
  const projection = projectionOf([1]);
  fold(projection, updated(customer(1, "Customer 1", "new@example.com", 2)));
  fold(projection, created(customer(2, "Customer 2", "c1@example.com")));
  assert.equal(projection.emailOwner("c1@example.com"), idOf(2));
  assert.equal(projection.emailOwner("new@example.com"), idOf(1));
});

Deno.test("a deleted event removes the customer and frees its email", async () => {
  const projection = projectionOf([1, 2, 3]);
  fold(projection, deleted(idOf(2), 2));
  assert.equal(projection.size, 2);
  assert.equal(projection.get(idOf(2)), undefined);
  assert.equal(projection.emailOwner("c2@example.com"), undefined);
  assert.deepEqual(idsOf((await list(projection, { limit: 10 })).items), [idOf(1), idOf(3)]);
  assert.deepEqual((await list(projection, { limit: 10, email: "c2@example.com" })).items, []);

  fold(projection, created(customer(4, "Reuser", "C2@example.com")));
  assert.equal(projection.emailOwner("c2@example.com"), idOf(4));
});

Deno.test("deleting the first, last and only customers keeps the id order intact", async () => {
  const projection = projectionOf(range(1, 5));
  fold(projection, deleted(idOf(1), 2));
  fold(projection, deleted(idOf(5), 2));
  assert.deepEqual(idsOf((await list(projection, { limit: 10 })).items), [
    idOf(2),
    idOf(3),
    idOf(4),
  ]);
  for (const n of [3, 2, 4]) fold(projection, deleted(idOf(n), 2));
  assert.equal(projection.size, 0);
  assert.deepEqual(await list(projection, { limit: 10 }), { items: [], more: false });
});

Deno.test("a deleted event for an unknown id changes nothing", async () => {
  const projection = projectionOf([1, 3]);
  fold(projection, deleted(idOf(2), 2));
  assert.equal(projection.size, 2);
  assert.deepEqual(idsOf((await list(projection, { limit: 10 })).items), [idOf(1), idOf(3)]);
  assert.equal(projection.emailOwner("c1@example.com"), idOf(1));
  assert.equal(projection.emailOwner("c3@example.com"), idOf(3));
});

Deno.test("list orders customers by id ascending", async () => {
  const projection = projectionOf(range(1, 5));
  assert.deepEqual(idsOf((await list(projection, { limit: 100 })).items), range(1, 5).map(idOf));
});

Deno.test("ids inserted out of order still come out sorted", async () => {
  const order = [7, 3, 9, 1, 5, 2, 8, 4, 6, 0];
  const projection = projectionOf(order);
  assert.deepEqual(idsOf((await list(projection, { limit: 100 })).items), range(0, 9).map(idOf));
});

Deno.test("list with a limit returns the first ids and says more when more remain", async () => {
  const projection = projectionOf(range(1, 5));
  assert.deepEqual(await list(projection, { limit: 2 }), {
    items: [1, 2].map((n) => projection.record(idOf(n))!),
    more: true,
  });
});

Deno.test("list with a limit equal to the number of customers says no more", async () => {
  const projection = projectionOf(range(1, 3));
  const page = await list(projection, { limit: 3 });
  assert.deepEqual(idsOf(page.items), range(1, 3).map(idOf));
  assert.equal(page.more, false);
});

/** Walks every page with the given query and returns the pages' ids and more flags. */
async function walk(
  projection: CustomerProjection,
  query: { limit: number; q?: string },
): Promise<{ ids: string[][]; more: boolean[] }> {
  const ids: string[][] = [];
  const more: boolean[] = [];
  let after: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const page = await list(projection, { ...query, after });
    ids.push(idsOf(page.items));
    more.push(page.more);
    if (!page.more) return { ids, more };
    after = page.items[page.items.length - 1].id;
  }
  assert.fail("pagination did not end");
}

Deno.test("paging with after returns every id exactly once, with more true on all but the last page", async () => {
  const projection = projectionOf(range(1, 7));
  assert.deepEqual(await walk(projection, { limit: 3 }), {
    ids: [[1, 2, 3], [4, 5, 6], [7]].map((page) => page.map(idOf)),
    more: [true, true, false],
  });
});

Deno.test("paging a multiple of the limit ends on a full page with more false, not an empty page", async () => {
  const projection = projectionOf(range(1, 6));
  assert.deepEqual(await walk(projection, { limit: 3 }), {
    ids: [[1, 2, 3], [4, 5, 6]].map((page) => page.map(idOf)),
    more: [true, false],
  });
});

Deno.test("paging with limit 1 visits each id once", async () => {
  const projection = projectionOf([4, 2, 3, 1]);
  const { ids, more } = await walk(projection, { limit: 1 });
  assert.deepEqual(ids, range(1, 4).map((n) => [idOf(n)]));
  assert.deepEqual(more, [true, true, true, false]);
});

Deno.test("after an id that is no longer live, listing continues with the next greater id", async () => {
  const projection = projectionOf(range(1, 5));
  fold(projection, deleted(idOf(3), 2));
  assert.deepEqual(idsOf((await list(projection, { limit: 10, after: idOf(3) })).items), [
    idOf(4),
    idOf(5),
  ]);
  assert.deepEqual(idsOf((await list(projection, { limit: 10, after: idOf(2) })).items), [
    idOf(4),
    idOf(5),
  ]);
});

Deno.test("after the last id the page is empty with more false", async () => {
  const projection = projectionOf(range(1, 3));
  assert.deepEqual(await list(projection, { limit: 10, after: idOf(3) }), {
    items: [],
    more: false,
  });
  assert.deepEqual(await list(projection, { limit: 10, after: idOf(99) }), {
    items: [],
    more: false,
  });
});

Deno.test("after an id below every id lists from the start", async () => {
  const projection = projectionOf(range(5, 7));
  assert.deepEqual(
    idsOf((await list(projection, { limit: 10, after: idOf(1) })).items),
    range(5, 7).map(idOf),
  );
});

function people(): CustomerProjection {
  const projection = new CustomerProjection();
  fold(projection, created(customer(1, "Ada Lovelace", "ada@example.com")));
  fold(projection, created(customer(2, "Grace Hopper", "grace@navy.example")));
  fold(projection, created(customer(3, "Alan Turing", "alan@bletchley.example")));
  fold(projection, created(customer(4, "Katherine Johnson", "kj@NASA.example")));
  fold(projection, created(customer(5, "Adam Smith", "adam@econ.example")));
  return projection;
}

Deno.test("q matches a case-insensitive substring of the name", async () => {
  const projection = people();
  assert.deepEqual(idsOf((await list(projection, { limit: 10, q: "LOVE" })).items), [idOf(1)]);
  assert.deepEqual(idsOf((await list(projection, { limit: 10, q: "ada" })).items), [
    idOf(1),
    idOf(5),
  ]);
  assert.deepEqual(idsOf((await list(projection, { limit: 10, q: "e j" })).items), [idOf(4)]);
});

Deno.test("q matches a case-insensitive substring of the email", async () => {
  const projection = people();
  assert.deepEqual(idsOf((await list(projection, { limit: 10, q: "nasa" })).items), [idOf(4)]);
  assert.deepEqual(idsOf((await list(projection, { limit: 10, q: "NAVY.EX" })).items), [idOf(2)]);
  assert.deepEqual(
    idsOf((await list(projection, { limit: 10, q: "EXAMPLE" })).items),
    range(1, 5).map(idOf),
  );
});

Deno.test("q that matches nothing returns an empty page with more false", async () => {
  assert.deepEqual(await list(people(), { limit: 10, q: "zebra" }), { items: [], more: false });
});

Deno.test("q with a limit says more only when another matching customer follows", async () => {
  const projection = people();
  assert.deepEqual(await walk(projection, { limit: 1, q: "ad" }), {
    ids: [[idOf(1)], [idOf(5)]],
    more: [true, false],
  });
  // Customers 3–5 follow the only match, but none of them matches, so there is no next page.
  assert.deepEqual(await list(projection, { limit: 1, q: "GRACE" }), {
    items: [projection.record(idOf(2))!],
    more: false,
  });
});

Deno.test("q combined with after pages through matches only", async () => {
  const projection = people();
  assert.deepEqual(idsOf((await list(projection, { limit: 10, q: "ad", after: idOf(1) })).items), [
    idOf(5),
  ]);
});

Deno.test("the email filter matches the whole address case-insensitively", async () => {
  const projection = people();
  assert.deepEqual(await list(projection, { limit: 10, email: "KJ@nasa.EXAMPLE" }), {
    items: [projection.record(idOf(4))!],
    more: false,
  });
  assert.deepEqual(
    idsOf((await list(projection, { limit: 10, email: "grace@navy.example" })).items),
    [
      idOf(2),
    ],
  );
});

Deno.test("the email filter does not match a substring or an unknown address", async () => {
  const projection = people();
  for (const email of ["grace@navy", "race@navy.example", "grace@navy.example ", "x@example.com"]) {
    assert.deepEqual(
      await list(projection, { limit: 10, email }),
      { items: [], more: false },
      email,
    );
  }
});

Deno.test("the email filter honours after and q", async () => {
  const projection = people();
  const email = "grace@navy.example";
  assert.deepEqual(idsOf((await list(projection, { limit: 10, email, after: idOf(1) })).items), [
    idOf(2),
  ]);
  assert.deepEqual((await list(projection, { limit: 10, email, after: idOf(2) })).items, []);
  assert.deepEqual(idsOf((await list(projection, { limit: 10, email, q: "HOPPER" })).items), [
    idOf(2),
  ]);
  assert.deepEqual((await list(projection, { limit: 10, email, q: "turing" })).items, []);
});

Deno.test("the email filter follows email changes", async () => {
  const projection = people();
  fold(projection, updated(customer(2, "Grace Hopper", "admiral@navy.example", 2)));
  assert.deepEqual((await list(projection, { limit: 10, email: "grace@navy.example" })).items, []);
  assert.deepEqual(
    idsOf((await list(projection, { limit: 10, email: "ADMIRAL@navy.example" })).items),
    [
      idOf(2),
    ],
  );
});

Deno.test("after thousands of deletes the list, pages and all() still hold exactly the live ids in order", async () => {
  const bigId = (n: number) => `01JDQ8Z5K3M4N5P6Q7R8S9${String(n).padStart(4, "0")}`;
  const numbers = range(1, 5000);
  const projection = new CustomerProjection();
  for (const n of numbers) {
    fold(projection, created({ ...customer(n, `C ${n}`, `c${n}@example.com`), id: bigId(n) }));
  }
  // Enough deletes to pass the tombstone threshold several times over.
  for (const n of numbers.filter((n) => n % 3 !== 0)) fold(projection, deleted(bigId(n), 2));
  const live = numbers.filter((n) => n % 3 === 0).map(bigId);
  assert.equal(projection.size, live.length);
  assert.deepEqual(idsOf(projection.all()), live);
  const seen: string[] = [];
  let after: string | undefined;
  for (let more = true; more;) {
    const page = await list(projection, { limit: 97, after });
    seen.push(...idsOf(page.items));
    more = page.more;
    after = page.items.at(-1)?.id;
  }
  assert.deepEqual(seen, live);
  // A page that starts after a deleted id still continues right after it.
  assert.deepEqual(idsOf((await list(projection, { limit: 1, after: bigId(4) })).items), [
    bigId(6),
  ]);
});

Deno.test("a record keeps the customer as JSON text, and get() parses it back to the same customer", async () => {
  const projection = new CustomerProjection();
  const ada = customer(1, 'Ada "Countess" Lovelace', "Ada@Example.com");
  fold(projection, created(ada));
  const record = projection.record(idOf(1))!;
  assert.deepEqual(record, {
    id: idOf(1),
    version: 1,
    json: JSON.stringify(ada),
  });
  assert.deepEqual(projection.get(idOf(1)), ada);
  // q finds names whose JSON text needs escaping, and only in name or email.
  assert.deepEqual(idsOf((await list(projection, { limit: 10, q: '"countess"' })).items), [
    idOf(1),
  ]);
  assert.deepEqual(idsOf((await list(projection, { limit: 10, q: "2026-11" })).items), []);
});

Deno.test("text in another field order is kept canonical: GET answers it so, its version and email index read right", () => {
  const projection = new CustomerProjection();
  const ada = customer(1, "Ada Lovelace", "Ada@Example.com", 7);
  const reversed = JSON.stringify(Object.fromEntries(Object.entries(ada).reverse()));
  projection.apply(ada.id, reversed);
  assert.deepEqual(projection.record(idOf(1)), {
    id: idOf(1),
    version: 7,
    json: customerText(ada),
  });
  assert.equal(projection.version(idOf(1)), 7);
  assert.equal(projection.emailOwner("ada@example.com"), idOf(1));
  const moved = { ...ada, email: "countess@example.com", version: 8 };
  projection.apply(ada.id, JSON.stringify(Object.fromEntries(Object.entries(moved).reverse())));
  assert.equal(projection.emailOwner("ada@example.com"), undefined, "the old email is free");
  assert.equal(projection.emailOwner("countess@example.com"), idOf(1));
  projection.remove(ada.id);
  assert.equal(projection.emailOwner("countess@example.com"), undefined);
  assert.equal(projection.has(idOf(1)), false);
});

Deno.test("a version of 16 digits is kept and read back", () => {
  const projection = new CustomerProjection();
  const big = customer(1, "Ada Lovelace", "ada@example.com", Number.MAX_SAFE_INTEGER);
  fold(projection, updated(big));
  assert.equal(projection.record(idOf(1))!.version, Number.MAX_SAFE_INTEGER);
  fold(projection, deleted(idOf(1), Number.MAX_SAFE_INTEGER));
  assert.equal(projection.emailOwner("ada@example.com"), undefined);
});

Deno.test("two customers whose emails share the index's hash are each found by email, also after updates and a delete", async () => {
  const seen = new Map<number, string>();
  let pair: [string, string] | undefined;
  for (let i = 0; pair === undefined; i++) {
    const email = `user${i}@example.com`;
    const other = seen.get(emailHash(email));
    if (other !== undefined) pair = [other, email];
    else seen.set(emailHash(email), email);
  }
  const [a, b] = pair;
  const projection = new CustomerProjection();
  fold(projection, created(customer(1, "A", a)));
  fold(projection, created(customer(2, "B", b.toUpperCase())));
  assert.equal(projection.emailOwner(a), idOf(1));
  assert.equal(projection.emailOwner(b), idOf(2));
  assert.deepEqual(idsOf((await list(projection, { limit: 10, email: b })).items), [idOf(2)]);
  fold(projection, updated(customer(1, "A2", a.toUpperCase(), 2)));
  assert.equal(projection.emailOwner(a), idOf(1), "a change of case keeps the key");
  fold(projection, deleted(idOf(1), 3));
  assert.equal(projection.emailOwner(a), undefined);
  assert.equal(projection.emailOwner(b), idOf(2));
  fold(projection, updated(customer(2, "B", a, 2)));
  assert.equal(projection.emailOwner(a), idOf(2), "the freed email is taken by the other");
  assert.equal(projection.emailOwner(b), undefined);
});

Deno.test("put takes the id from the text, canonical or not, and keeps it through updates", () => {
  const projection = new CustomerProjection();
  const ada = customer(1, "Ada", "ada@example.com");
  const grace = customer(2, "Grace", "grace@example.com");
  projection.put(customerText(ada));
  projection.put(JSON.stringify(Object.fromEntries(Object.entries(grace).reverse())));
  assert.deepEqual(projection.get(idOf(1)), ada);
  assert.deepEqual(projection.record(idOf(2))?.json, customerText(grace));
  assert.equal(projection.emailOwner("grace@example.com"), idOf(2));
  fold(projection, updated(customer(1, "Ada B", "ada@example.com", 2)));
  assert.deepEqual(idsOf(projection.all()), [idOf(1), idOf(2)]);
  assert.equal(projection.version(idOf(1)), 2);
});

/** A page as the list answers it, through the search with built indexes: ids and `more`. */
async function list(
  projection: CustomerProjection,
  query: { limit: number; after?: string; q?: string; email?: string },
): Promise<{ items: { id: string; version: number; json: string }[]; more: boolean }> {
  while (!projection.search.buildSlice(projection.ordinalLimit, () => 0, 1));
  const params = new URLSearchParams({ limit: String(query.limit) });
  if (query.after !== undefined) params.set("cursor", encodeCursor({ id: query.after }));
  if (query.q !== undefined) params.set("q", query.q);
  if (query.email !== undefined) params.set("email", query.email);
  const slicing = { sliceMs: 1, now: () => performance.now(), nextTurn };
  const page = await search(projection, parseListQuery(`?${params}`), slicing);
  return { items: page.texts.map(recordOf), more: page.more };
}
