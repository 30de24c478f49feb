import { readName, readTimes } from "./customer_fields.ts";
import { PagedColumn } from "../lib/paged_column.ts";
import { NameOrderBuild } from "./name_order_build.ts";
import { OrderIndex } from "./order_index.ts";
import { compareIds, ID_AT, ID_LENGTH } from "./text_table.ts";
import { folded } from "./trigrams.ts";

/** The name order's chunks are small: comparing two names reads a text, so fewer pay. */
const NAME_CHUNK = 128;

/** The orders a list can be sorted by besides id; ties break by id. */
export type SortField = "created_at" | "updated_at" | "name";

/**
 * Customers in created_at, updated_at and (case-folded) name order, with the columns the orders
 * compare: both times and the name's first three units, so most comparisons read no text.
 */
export class SortOrders {
  #created = new PagedColumn();
  #updated = new PagedColumn();
  #namePrefix = new PagedColumn();
  readonly #textAt: (ordinal: number) => string | undefined;
  readonly created: OrderIndex;
  readonly updated: OrderIndex;
  readonly name: OrderIndex;
  /** While the name order is built apart: what changed meanwhile, to put in after. */
  #nameBuild: { build: NameOrderBuild; changed: Set<number> } | undefined;
  #nameLive = false;

  /** `textAt` gives the text an ordinal holds now (a key must not change while indexed). */
  constructor(textAt: (ordinal: number) => string | undefined) {
    this.#textAt = textAt;
    const byId = (a: number, b: number) => compareIds(textAt(a)!, textAt(b)!);
    this.created = new OrderIndex(
      (a, b) => this.#created.get(a) - this.#created.get(b) || byId(a, b),
      (ordinal) => this.#created.get(ordinal),
    );
    this.updated = new OrderIndex(
      (a, b) => this.#updated.get(a) - this.#updated.get(b) || byId(a, b),
      (ordinal) => this.#updated.get(ordinal),
    );
    this.name = new OrderIndex(
      (a, b) => {
        return this.#namePrefix.get(a) - this.#namePrefix.get(b) ||
          compareFoldedNames(textAt(a)!, textAt(b)!) || byId(a, b);
      },
      (ordinal) => this.#namePrefix.get(ordinal),
      {
        of: (ordinal) => nameKey(textAt(ordinal)!),
        compareWith: (key, ordinal) => compareNameKeyWith(key, textAt(ordinal)!),
      },
      NAME_CHUNK,
    );
  }

  /** The order of a sort field. */
  of(field: SortField): OrderIndex {
    return field === "name" ? this.name : field === "created_at" ? this.created : this.updated;
  }

  /** An ordinal's created_at or updated_at in epoch ms (it must be indexed). */
  time(field: "created_at" | "updated_at", ordinal: number): number {
    return field === "created_at" ? this.#created.get(ordinal) : this.#updated.get(ordinal);
  }

  /** Adds an ordinal holding `text` (now textAt's) to every order. */
  link(ordinal: number, text: string): void {
    const [created, updated] = readTimes(text);
    this.#created.set(ordinal, created);
    this.#updated.set(ordinal, updated);
    this.#namePrefix.set(ordinal, namePrefix(text));
    this.created.insert(ordinal);
    this.updated.insert(ordinal);
    this.#nameInsert(ordinal);
  }

  /** Removes an ordinal from every order; textAt must still give the text it was linked with. */
  unlink(ordinal: number): void {
    this.created.delete(ordinal);
    this.updated.delete(ordinal);
    this.#nameDelete(ordinal);
  }

  /** Which orders a change from `before` to `after` moves the ordinal in (a bit per order). */
  moves(before: string, after: string): number {
    if (compareIds(before, after) !== 0) return 7;
    const [created, updated] = readTimes(after);
    let moves = 0;
    const [wasCreated, wasUpdated] = readTimes(before);
    if (created !== wasCreated) moves |= 1;
    if (updated !== wasUpdated) moves |= 2;
    if (compareFoldedNames(before, after) !== 0) moves |= 4;
    return moves;
  }

  /** Takes an ordinal out of the orders `moves` names, before its text changes. */
  unlinkMoved(ordinal: number, moves: number): void {
    if (moves & 1) this.created.delete(ordinal);
    if (moves & 2) this.updated.delete(ordinal);
    if (moves & 4) this.#nameDelete(ordinal);
  }

  /** Puts an ordinal back into the orders `moves` names, once it holds its new text. */
  relinkMoved(ordinal: number, moves: number, text: string): void {
    const [created, updated] = readTimes(text);
    if (moves & 1) {
      this.#created.set(ordinal, created);
      this.created.insert(ordinal);
    }
    if (moves & 2) {
      this.#updated.set(ordinal, updated);
      this.updated.insert(ordinal);
    }
    if (moves & 4) {
      this.#namePrefix.set(ordinal, namePrefix(text));
      this.#nameInsert(ordinal);
    }
  }

  /** True once the name order is built (or was never left to a build: built as customers come). */
  get nameReady(): boolean {
    return this.#nameLive;
  }

  /**
   * Builds the name order of these ordinals (every one linked so far) in slices, until `now()`
   * passes `until`; true once it is up to date. Until then the name order takes no change.
   */
  buildName(ordinals: () => Int32Array, now: () => number, until: number): boolean {
    if (this.#nameLive) return true;
    this.#nameBuild ??= {
      build: new NameOrderBuild(
        ordinals(),
        (ordinal) => this.#textAt(ordinal)!,
        (ordinal) => this.#namePrefix.get(ordinal),
        compareFoldedNames,
      ),
      changed: new Set(),
    };
    const { build, changed } = this.#nameBuild;
    if (!build.step(now, until)) return false;
    this.name.load(build.sorted().filter((ordinal) => !changed.has(ordinal)));
    this.#nameLive = true;
    this.#nameBuild = undefined;
    for (const ordinal of changed) {
      if (this.#textAt(ordinal) !== undefined) this.name.insert(ordinal);
    }
    return true;
  }

  #nameInsert(ordinal: number): void {
    if (this.#nameLive) this.name.insert(ordinal);
    else this.#nameBuild?.changed.add(ordinal);
  }

  #nameDelete(ordinal: number): void {
    if (this.#nameLive) this.name.delete(ordinal);
    else this.#nameBuild?.changed.add(ordinal);
  }
}

/** A canonical text's name, case-folded: the name order's key. */
export function foldedName(text: string): string {
  return folded(readName(text));
}

const NAME_AT = '{"id":"'.length + 26 + '","name":"'.length;

/** Compares two canonical texts' folded names, reading plain ASCII names in place. */
export function compareFoldedNames(a: string, b: string): number {
  for (let i = NAME_AT;; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x >= 0x80 || y >= 0x80 || x === 0x5c || y === 0x5c) break;
    if (x === 0x22 || y === 0x22) return x === y ? 0 : x === 0x22 ? -1 : 1;
    if (x >= 0x41 && x <= 0x5a) x += 0x20;
    if (y >= 0x41 && y <= 0x5a) y += 0x20;
    if (x !== y) return x - y;
  }
  const [x, y] = [foldedName(a), foldedName(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * The name order's exact key: the folded name, a NUL (names hold no control character) and the
 * id, so keys order as the order does, ties and all.
 */
export function nameKey(text: string): string {
  return `${foldedName(text)}\u0000${text.slice(ID_AT, ID_AT + ID_LENGTH)}`;
}

/** Compares a nameKey with a canonical text's, reading plain ASCII in place. */
export function compareNameKeyWith(key: string, text: string): number {
  const nameLength = key.length - ID_LENGTH - 1;
  let i = 0;
  for (;; i++) {
    let y = text.charCodeAt(NAME_AT + i);
    if (y === 0x5c || y >= 0x80) break;
    if (i === nameLength) {
      if (y !== 0x22) return -1;
      for (let j = 0; j < ID_LENGTH; j++) {
        const difference = key.charCodeAt(nameLength + 1 + j) - text.charCodeAt(ID_AT + j);
        if (difference !== 0) return difference;
      }
      return 0;
    }
    const x = key.charCodeAt(i);
    if (x >= 0x80) break;
    if (y === 0x22) return 1;
    if (y >= 0x41 && y <= 0x5a) y += 0x20;
    if (x !== y) return x - y;
  }
  const other = nameKey(text);
  return key < other ? -1 : key > other ? 1 : 0;
}

/** prefixOf(foldedName(text)), read in place when the name's first units are plain ASCII. */
function namePrefix(text: string): number {
  let prefix = 0;
  for (let i = 0; i < 6; i++) {
    let unit = text.charCodeAt(NAME_AT + i);
    if (unit >= 0x80 || unit === 0x5c) return prefixOf(foldedName(text));
    if (unit === 0x22) {
      for (; i < 6; i++) prefix *= 256;
      return prefix;
    }
    if (unit >= 0x41 && unit <= 0x5a) unit += 0x20;
    prefix = prefix * 256 + unit + 1;
  }
  return prefix;
}

/**
 * The first six UTF-16 units of a key as one number, a byte each, ordered as the keys are up to
 * ties: a unit from 254 up saturates to 255 and ends the prefix.
 */
export function prefixOf(key: string): number {
  let prefix = 0;
  let i = 0;
  for (; i < 6 && i < key.length; i++) {
    const unit = key.charCodeAt(i);
    prefix = prefix * 256 + (unit >= 254 ? 255 : unit + 1);
    if (unit >= 254) {
      i++;
      break;
    }
  }
  for (; i < 6; i++) prefix *= 256;
  return prefix;
}
