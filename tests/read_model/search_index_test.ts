import assert from "node:assert/strict";
import type { Customer } from "../../src/domain/customer.ts";
import { CustomerProjection } from "../../src/read_model/projection.ts";
import { customerText } from "../../src/read_model/customer_text.ts";
import { readMetadata, readTextFields, TEXT_FIELDS } from "../../src/read_model/customer_fields.ts";
import { folded, trigramAt } from "../../src/read_model/trigrams.ts";
import { seededRandom, seedFrom } from "../../bench/support/prng.ts";

const WORDS = ["ada", "ADA", "Σίσυφος", "straße", "İz", "ab", "x", 'q"q', "b\\s", "日本"];

function customer(random: () => number, id: string, n: number): Customer {
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
  const maybe = (value: string) => (random() < 0.3 ? null : value);
  return {
    id,
    name: `${pick(WORDS)} ${pick(WORDS)}`,
    email: `${pick(["a", "b"])}.${n}@x.org`,
    phone: maybe(`+49${Math.floor(random() * 100)}`),
    address: random() < 0.3 ? null : {
      line1: maybe(pick(WORDS)),
      line2: maybe(pick(WORDS)),
      city: maybe(pick(WORDS)),
      region: maybe(pick(WORDS)),
      postal_code: maybe(pick(WORDS)),
      country: maybe(pick(["GB", "DE"])),
    },
    metadata: random() < 0.5 ? {} : { [pick(["k", "plan"])]: pick(WORDS) },
    created_at: new Date(Date.UTC(2026, 0, 1) + Math.floor(random() * 1e6)).toISOString(),
    updated_at: new Date(Date.UTC(2026, 1, 1) + Math.floor(random() * 1e6)).toISOString(),
    version: 1,
  };
}

/** Checks every posting the index should hold for the live customers, and holds no other. */
function assertIndexMatches(projection: CustomerProjection, label: string): void {
  const index = projection.search;
  const fields = index.fields;
  for (let ordinal = 0; ordinal < projection.ordinalLimit; ordinal++) {
    const text = projection.textAt(ordinal);
    const values = text === undefined ? [] : readTextFields(text);
    for (let f = 0; f < TEXT_FIELDS.length; f++) {
      const value = text === undefined ? undefined : values[f];
      const where = `${label}: ordinal ${ordinal} ${TEXT_FIELDS[f]} = ${JSON.stringify(value)}`;
      assert.equal(fields[f].missing.has(ordinal), value === null, `${where} (missing)`);
      for (const word of WORDS) {
        const short = folded(word);
        if (short.length >= 3) continue;
        assert.equal(
          fields[f].short(short)?.has(ordinal) ?? false,
          value != null && folded(value) === short,
          `${where} short ${short}`,
        );
      }
      if (value == null || folded(value).length < 3) continue;
      const lower = folded(value);
      for (let at = 0; at + 3 <= lower.length; at++) {
        assert.ok(
          fields[f].trigram(trigramAt(lower, at))?.has(ordinal),
          `${where} trigram ${lower.slice(at, at + 3)}`,
        );
      }
    }
    if (text === undefined) continue;
    const metadata = readMetadata(text);
    for (const key of ["k", "plan"]) {
      assert.equal(
        index.metadata.withKey(key)?.has(ordinal) ?? false,
        Object.hasOwn(metadata, key),
        `${label}: ${ordinal} metadata ${key}`,
      );
    }
  }
  // No trigram set holds a customer whose value lacks it: checked on every word's trigrams.
  for (const word of WORDS) {
    const lower = folded(word);
    for (let at = 0; at + 3 <= lower.length; at++) {
      for (let f = 0; f < TEXT_FIELDS.length; f++) {
        fields[f].trigram(trigramAt(lower, at))?.forEach((ordinal) => {
          const value = readTextFields(projection.textAt(ordinal)!)[f];
          assert.ok(
            value !== null && folded(value).includes(lower.slice(at, at + 3)),
            `${label}: stale ${ordinal}`,
          );
        });
      }
    }
  }
}

Deno.test("the search index holds exactly what the texts say through creates, changes, deletes and reused ordinals", () => {
  const seed = seedFrom("INDEX_SEED");
  const random = seededRandom(seed);
  const projection = new CustomerProjection();
  const ids: string[] = [];
  const id = (n: number) => `01JDQ8Z5K3M4N5P6Q7R8${String(n).padStart(6, "0")}`;
  for (let n = 0; n < 3000; n++) {
    ids.push(id(n));
    projection.put(customerText(customer(random, id(n), n)));
  }
  while (!projection.search.buildSlice(projection.ordinalLimit, () => 0, 1));
  assertIndexMatches(projection, `seed ${seed}, built`);
  let next = 3000;
  for (let step = 0; step < 9000; step++) {
    const roll = random();
    if (roll < 0.25 && ids.length > 0) {
      const [gone] = ids.splice(Math.floor(random() * ids.length), 1);
      projection.remove(gone);
    } else if (roll < 0.5) {
      ids.push(id(next));
      projection.put(customerText(customer(random, id(next), next++)));
    } else if (ids.length > 0) {
      const which = ids[Math.floor(random() * ids.length)];
      projection.put(customerText({ ...customer(random, which, next++), version: 2 }));
    }
    // A reader flushes at any point: sometimes mid-batch, sometimes after hundreds of changes.
    // Steps 3000 to 8000 pass with no reader: batches fill up and apply by themselves.
    if ((step < 3000 || step > 8000) && random() < 0.005) {
      assertIndexMatches(projection, `seed ${seed}, step ${step}`);
    }
  }
  assertIndexMatches(projection, `seed ${seed}, end`);
});
