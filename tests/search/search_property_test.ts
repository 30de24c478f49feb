/**
 * Random customers, random queries in the whole grammar, every sort, paged with writes between
 * pages and during a search's pauses: every page the indexes answer equals the oracle's page of
 * the state the search started from. SEARCH_SEED=n repeats a run.
 */
import assert from "node:assert/strict";
import type { Customer } from "../../src/domain/customer.ts";
import { CustomerProjection } from "../../src/read_model/projection.ts";
import { customerText } from "../../src/read_model/customer_text.ts";
import { encodeCursor, parseListQuery } from "../../src/customers/list_query.ts";
import { keyOf } from "../../src/search/list_sort.ts";
import type { Slicing } from "../../src/search/search_page.ts";
import { search } from "../../src/search/search_run.ts";
import { seededRandom, seedFrom } from "../../bench/support/prng.ts";
import { oraclePage, type SortName } from "./search_oracle.ts";

const SORTS: SortName[] = [
  "id",
  "-id",
  "created_at",
  "-created_at",
  "updated_at",
  "-updated_at",
  "name",
  "-name",
];
/** Words that fold, escape or compare oddly, and plain ones so that queries find something. */
const WORDS = [
  "ada",
  "Ada",
  "LOVE",
  "lace",
  "grace",
  "Hopper",
  "kal",
  "kalo",
  "İstanbul",
  "straße",
  "STRASSE",
  "Σίσυφος",
  "日本",
  'say "hi"',
  "back\\slash",
  "Kelvin",
  "e\u0301te",
  "été",
  "a",
  "ab",
  "x y",
];
const KEYS = ["crm_id", "plan", "Tier", "__proto__", "x y"];
const COUNTRIES = ["GB", "DE", "FR", "US", "JP"];

class World {
  readonly customers = new Map<string, Customer>();
  readonly projection = new CustomerProjection();
  #emails = 0;
  #ms = Date.UTC(2026, 0, 1);

  constructor(readonly random: () => number) {}

  int(n: number): number {
    return Math.floor(this.random() * n);
  }

  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)];
  }

  text(words: number): string {
    return Array.from({ length: 1 + this.int(words) }, () => this.pick(WORDS)).join(
      this.pick([" ", "-", ""]),
    );
  }

  /** A time a few seconds after the last, so times tie now and then. */
  time(): string {
    this.#ms += this.int(3) * 1000 + this.int(2);
    return new Date(this.#ms).toISOString();
  }

  fresh(id: string, created: string, version: number): Customer {
    const address = this.int(4) === 0 ? null : {
      line1: this.int(3) === 0 ? null : `${this.int(99)} ${this.text(2)} Street`,
      line2: this.int(2) === 0 ? null : this.text(1),
      city: this.int(4) === 0 ? null : this.pick(["London", "Berlin", "İzmir", "Zürich", "Lyon"]),
      region: this.int(2) === 0 ? null : this.pick(["BE", "TX", "27", "Île"]),
      postal_code: this.int(3) === 0 ? null : String(10000 + this.int(30)),
      country: this.int(5) === 0 ? null : this.pick(COUNTRIES),
    };
    const metadata: Record<string, string> = {};
    for (const key of KEYS) {
      if (this.int(3) !== 0) continue;
      Object.defineProperty(metadata, key, {
        value: this.text(1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return {
      id,
      name: this.text(3),
      email: `${this.text(1).replace(/[^A-Za-z]/g, "") || "u"}.${this.#emails++}@${
        this.pick(["Example.com", "mail.org"])
      }`,
      phone: this.int(3) === 0 ? null : `+49${30_000_000 + this.int(200)}`,
      address,
      metadata,
      created_at: created,
      updated_at: created,
      version,
    };
  }

  create(): void {
    const created = this.time();
    const id = ulidAt(Date.parse(created), this.int(2 ** 30));
    this.put(this.fresh(id, created, 1));
  }

  /** A random write: a create, a change of some fields, or a delete. */
  write(): void {
    const ids = [...this.customers.keys()];
    const roll = this.int(10);
    if (ids.length === 0 || roll < 3) return this.create();
    const id = this.pick(ids);
    if (roll < 5) {
      this.customers.delete(id);
      this.projection.remove(id);
      return;
    }
    const before = this.customers.get(id)!;
    const next = this.fresh(id, before.created_at, before.version + 1);
    const kept = { ...before };
    for (const field of ["name", "phone", "address", "metadata"] as const) {
      if (this.int(2) === 0) (kept as Record<string, unknown>)[field] = next[field];
    }
    this.put({ ...kept, updated_at: this.time(), version: before.version + 1 });
  }

  put(customer: Customer): void {
    this.customers.set(customer.id, customer);
    this.projection.put(customerText(customer));
  }

  /** A random query in the grammar, and how many clauses it has. */
  query(depth = 0): string {
    const roll = this.int(depth > 2 ? 4 : 10);
    if (roll >= 4) {
      const parts = Array.from({ length: 2 + this.int(2) }, () => this.query(depth + 1));
      const joiner = this.pick([" AND ", " and ", " ", " OR ", " or "]);
      const joined = parts.join(joiner);
      return this.int(2) === 0 ? `(${joined})` : joined;
    }
    return `${this.int(5) === 0 ? "-" : ""}${this.clause()}`;
  }

  clause(): string {
    const customer = this.customers.size > 0 ? this.pick([...this.customers.values()]) : undefined;
    const field = this.pick([
      "name",
      "email",
      "phone",
      "address.line1",
      "address.line2",
      "address.city",
      "address.region",
      "address.postal_code",
      "address.country",
      "metadata",
      "id",
      "created_at",
      "updated_at",
    ]);
    if (field === "created_at" || field === "updated_at") {
      const at = customer === undefined ? new Date(0).toISOString() : customer[field];
      const value = this.pick([
        at,
        at.slice(0, 10),
        String(Math.floor(Date.parse(at) / 1000)),
        at.replace(".", ","),
      ]);
      return `${field}${this.pick([">", ">=", "<", "<=", ":"])}${value.includes(",") ? at : value}`;
    }
    if (field === "id") {
      return `id:${
        this.int(3) === 0 ? (customer?.id ?? "x").toLowerCase() : customer?.id ?? "none"
      }`;
    }
    if (field === "metadata") {
      const key = this.pick(KEYS);
      const value = customer !== undefined && Object.hasOwn(customer.metadata, key)
        ? customer.metadata[key]
        : undefined;
      return `metadata[${quoted(key, "'")}]:${
        value === undefined || this.int(4) === 0 ? "null" : quoted(value)
      }`;
    }
    const own = customer === undefined ? null : valueOf(customer, field);
    if (own === null || this.int(5) === 0) {
      return `${field}:${this.int(2) === 0 ? "null" : quoted(this.pick(WORDS))}`;
    }
    const cased = this.int(2) === 0 ? own.toUpperCase() : own;
    if (this.int(2) === 0) return `${field}:${quoted(cased)}`;
    const points = [...cased];
    if (points.length < 3) return `${field}:${quoted(cased)}`;
    const start = this.int(points.length - 2);
    const piece = points.slice(start, start + 3 + this.int(points.length - start - 2)).join("");
    return `${field}~${quoted(piece)}`;
  }
}

/** The clauses of a query the generator made: one per field name in it. */
function clauses(text: string): number {
  return text.match(
    /(?:^|[\s(-])(?:name|email|phone|address\.\w+|metadata|id|created_at|updated_at)[:~<>\[]/g,
  )?.length ?? 0;
}

function valueOf(customer: Customer, field: string): string | null {
  if (field === "name" || field === "email" || field === "phone") return customer[field];
  const part = field.slice("address.".length) as keyof NonNullable<Customer["address"]>;
  return customer.address?.[part] ?? null;
}

/** A query value: bare when plain, else quoted with its quotes and backslashes escaped. */
function quoted(value: string, quote = '"', bare = quote === '"'): string {
  if (bare && /^[A-Za-z0-9@.+_-]+$/.test(value) && value !== "null") return value;
  return `${quote}${value.replaceAll("\\", "\\\\").replaceAll(quote, `\\${quote}`)}${quote}`;
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

function ulidAt(ms: number, salt: number): string {
  let time = "";
  for (let i = 0, t = ms; i < 10; i++, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
  let rest = "";
  for (let i = 0, s = salt; i < 16; i++, s = Math.floor(s / 32) + i * 7) rest += CROCKFORD[s % 32];
  return time + rest;
}

/** Slicing that pauses at every chance, and writes while paused when `writes` says so. */
function pausing(world: World, writes: () => number): Slicing {
  return {
    // Each way to answer in turn: candidates checked at once, a walk in order, a scan.
    collectMax: world.pick([0, 40, 20_000]),
    probeVisits: world.pick([0, 60, 16_384]),
    sliceMs: 0,
    now: () => 0,
    nextTurn: () => {
      for (let i = writes(); i > 0; i--) world.write();
      return Promise.resolve();
    },
  };
}

Deno.test("every page of random searches equals the oracle's, with writes between pages and during pauses", async () => {
  const seed = seedFrom("SEARCH_SEED");
  const world = new World(seededRandom(seed));
  const context = `SEARCH_SEED=${seed}`;
  // Half the customers before the build, half after: bulk-built and changed entries both.
  for (let i = 0; i < 3000; i++) world.create();
  while (!world.projection.search.buildSlice(world.projection.ordinalLimit, () => 0, 1));
  for (let i = 0; i < 4000; i++) world.write();
  let pagesChecked = 0;
  let writesDuringPauses = 0;
  for (let round = 0; round < 160; round++) {
    // Every fourth query cannot be narrowed and matches few: its walk pauses, and writes come.
    let text: string;
    do {
      text = round % 4 === 3
        ? `(-email~"example" -email~"mail.org") OR (${world.query()})`
        : world.query();
    } while (clauses(text) > 18);
    const sort = world.pick(SORTS);
    const limit = 1 + world.int(world.int(3) === 0 ? 200 : 20);
    let cursor: string | undefined;
    let after: Customer | undefined;
    for (let page = 0; page < 4; page++) {
      const params = new URLSearchParams({ query: text, sort, limit: String(limit) });
      if (cursor !== undefined) params.set("cursor", cursor);
      const request = parseListQuery(`?${params}`);
      const state = new Map(world.customers);
      const expected = oraclePage(state.values(), request.query, sort, limit, after);
      let writes = 0;
      const slicing = pausing(world, () => {
        const count = 1 + world.int(3);
        writes += count;
        return count;
      });
      const answered = await search(world.projection, request, slicing);
      writesDuringPauses += writes;
      const ids = answered.texts.map((json) => JSON.parse(json).id as string);
      const label =
        `${context} round ${round} page ${page}: query=${text} sort=${sort} limit=${limit}`;
      assert.deepEqual({ ids, more: answered.more }, expected, label);
      for (const json of answered.texts) {
        assert.deepEqual(JSON.parse(json), state.get(JSON.parse(json).id), label);
      }
      pagesChecked++;
      if (!answered.more) break;
      const last = answered.texts[answered.texts.length - 1];
      after = JSON.parse(last);
      cursor = encodeCursor(keyOf(request.sort, last), request.sort);
      for (let i = world.int(6); i > 0; i--) world.write();
    }
  }
  assert.ok(pagesChecked > 200, `${context}: ${pagesChecked} pages checked`);
  assert.ok(
    writesDuringPauses > 20,
    `${context}: only ${writesDuringPauses} writes came during pauses`,
  );
});
