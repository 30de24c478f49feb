import { fnv1a30 } from "../lib/fnv_hash.ts";

/**
 * Canonical customer texts by id with no id string kept (a text starts with its id), under a
 * 30-bit hash of the id; colliding ids share an entry. `bench --only=startup` measures replay.
 */
export class TextTable {
  #byHash = new Map<number, string | string[]>();
  #size = 0;
  /** The greatest id ever set, as UTF-16 units: get answers a new (greater) id without probing. */
  #maxId = new Uint16Array(ID_LENGTH);

  get size(): number {
    return this.#size;
  }

  /** The text of the customer with this id. */
  get(id: string): string | undefined {
    if (id.length !== ID_LENGTH || compareId(id, 0, this.#maxId) > 0) return undefined;
    const found = this.#byHash.get(idHash(id, 0));
    if (typeof found === "string") return found.startsWith(id, ID_AT) ? found : undefined;
    return found?.find((text) => text.startsWith(id, ID_AT));
  }

  /** The texts whose ids have this hash (for a caller that holds hashes, not ids). */
  under(hash: number): readonly string[] {
    const found = this.#byHash.get(hash);
    return found === undefined ? [] : typeof found === "string" ? [found] : found;
  }

  /** Sets the text of the customer whose id it starts with; returns the text it replaced. */
  set(text: string): string | undefined {
    const maxId = this.#maxId;
    if (compareId(text, ID_AT, maxId) > 0) {
      for (let i = 0; i < ID_LENGTH; i++) maxId[i] = text.charCodeAt(ID_AT + i);
    }
    const hash = idHash(text, ID_AT);
    const found = this.#byHash.get(hash);
    if (found === undefined) {
      this.#byHash.set(hash, text);
      this.#size++;
      return undefined;
    }
    if (typeof found === "string") {
      if (sameId(found, text)) {
        this.#byHash.set(hash, text);
        return found;
      }
      this.#byHash.set(hash, [found, text]);
      this.#size++;
      return undefined;
    }
    const at = found.findIndex((other) => sameId(other, text));
    if (at === -1) {
      found.push(text);
      this.#size++;
      return undefined;
    }
    const before = found[at];
    found[at] = text;
    return before;
  }

  /** Removes the text of the customer with this id; returns it. */
  delete(id: string): string | undefined {
    const text = this.get(id);
    if (text === undefined) return undefined;
    const hash = idHash(id, 0);
    const found = this.#byHash.get(hash)!;
    if (typeof found === "string") this.#byHash.delete(hash);
    else {
      const rest = found.filter((other) => other !== text);
      this.#byHash.set(hash, rest.length === 1 ? rest[0] : rest);
    }
    this.#size--;
    return text;
  }
}

/** Where a canonical text's id starts, and its length (a ULID). */
export const ID_AT = '{"id":"'.length;
export const ID_LENGTH = 26;

/** The hash of the 26-character id starting at `at` of `text` (FNV-1a, to 30 bits). */
export function idHash(text: string, at: number): number {
  return fnv1a30(text, at, at + ID_LENGTH);
}

/** The id a canonical text starts with, as a string of its own (a slice would keep the text). */
export function idOf(text: string): string {
  return JSON.parse(`"${text.slice(ID_AT, ID_AT + ID_LENGTH)}"`);
}

/** The 26-character id at `at` of `text` compared with `units` (below 0, 0 or above 0). */
function compareId(text: string, at: number, units: Uint16Array): number {
  for (let i = 0; i < ID_LENGTH; i++) {
    const difference = text.charCodeAt(at + i) - units[i];
    if (difference !== 0) return difference;
  }
  return 0;
}

function sameId(a: string, b: string): boolean {
  for (let i = ID_AT; i < ID_AT + ID_LENGTH; i++) {
    if (a.charCodeAt(i) !== b.charCodeAt(i)) return false;
  }
  return true;
}
