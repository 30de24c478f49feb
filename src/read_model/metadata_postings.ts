import { fnv1a30 } from "../lib/fnv_hash.ts";
import type { BlockArena } from "./block_arena.ts";
import { PostingSet } from "./posting_set.ts";
import { folded } from "./trigrams.ts";

/**
 * Metadata postings: per key the customers that have it, and per key and case-folded value (by a
 * 30-bit hash, so a caller checks each customer found) those that have that value. A value most
 * customers do not share is one ordinal, not a set.
 */
export class MetadataPostings {
  #keys = new Map<string, PostingSet>();
  #values = new Map<number, number | PostingSet>();

  constructor(readonly arena: BlockArena) {}

  /** Customers whose metadata has this key. */
  withKey(key: string): PostingSet | undefined {
    return this.#keys.get(key);
  }

  /** Customers that may have this value under this key (a superset: hashes collide). */
  withValue(key: string, value: string): PostingSet | number | undefined {
    return this.#values.get(valueHash(key, value));
  }

  link(metadata: Record<string, string>, ordinal: number): void {
    for (const key in metadata) {
      let set = this.#keys.get(key);
      if (set === undefined) this.#keys.set(key, set = new PostingSet(this.arena));
      set.add(ordinal);
      const hash = valueHash(key, metadata[key]);
      const found = this.#values.get(hash);
      if (found === undefined) this.#values.set(hash, ordinal);
      else if (typeof found === "number") {
        if (found === ordinal) continue;
        const both = new PostingSet(this.arena);
        both.add(found);
        both.add(ordinal);
        this.#values.set(hash, both);
      } else found.add(ordinal);
    }
  }

  unlink(metadata: Record<string, string>, ordinal: number): void {
    for (const key in metadata) {
      const set = this.#keys.get(key);
      if (set !== undefined && set.delete(ordinal) && set.size === 0) this.#keys.delete(key);
      const hash = valueHash(key, metadata[key]);
      const found = this.#values.get(hash);
      if (found === ordinal) this.#values.delete(hash);
      else if (typeof found === "object" && found.delete(ordinal) && found.size === 1) {
        this.#values.set(hash, found.toArray()[0]);
      }
    }
  }
}

function valueHash(key: string, value: string): number {
  return fnv1a30(`${key}\u0000${folded(value)}`);
}
