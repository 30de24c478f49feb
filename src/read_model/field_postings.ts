import type { BlockArena } from "./block_arena.ts";
import { type FieldKeys, MISSING, SHORT } from "./field_keys.ts";
import { PostingSet } from "./posting_set.ts";

/**
 * One text field's postings: per trigram of its case-folded value the customers whose value holds
 * it; a value shorter than a trigram under itself, whole; and the customers with no value.
 */
export class FieldPostings {
  readonly #arena: BlockArena;
  #trigrams = new Map<number, PostingSet>();
  #short = new Map<string, PostingSet>();
  readonly #missing: PostingSet;

  constructor(arena: BlockArena) {
    this.#arena = arena;
    this.#missing = new PostingSet(arena);
  }

  /** Customers whose folded value contains the trigram with this key (trigramAt). */
  trigram(key: number): PostingSet | undefined {
    return this.#trigrams.get(key);
  }

  /** Customers whose folded value is exactly this value of under TRIGRAM units. */
  short(value: string): PostingSet | undefined {
    return this.#short.get(value);
  }

  /** Customers with no value (null, or no address). */
  get missing(): PostingSet {
    return this.#missing;
  }

  link(value: FieldKeys, ordinal: number): void {
    if (value.kind === MISSING) this.#missing.add(ordinal);
    else if (value.kind === SHORT) {
      let set = this.#short.get(value.short);
      if (set === undefined) this.#short.set(value.short, set = new PostingSet(this.#arena));
      set.add(ordinal);
    } else for (let i = 0; i < value.count; i++) this.#addTrigram(value.keys[i], ordinal);
  }

  unlink(value: FieldKeys, ordinal: number): void {
    if (value.kind === MISSING) this.#missing.delete(ordinal);
    else if (value.kind === SHORT) {
      const set = this.#short.get(value.short);
      if (set !== undefined && set.delete(ordinal) && set.size === 0) {
        this.#short.delete(value.short);
      }
    } else for (let i = 0; i < value.count; i++) this.deleteTrigram(value.keys[i], ordinal);
  }

  /** The set of a trigram, made if there is none yet (to add to it). */
  trigramFor(key: number): PostingSet {
    let set = this.#trigrams.get(key);
    if (set === undefined) this.#trigrams.set(key, set = new PostingSet(this.#arena));
    return set;
  }

  #addTrigram(key: number, ordinal: number): void {
    this.trigramFor(key).add(ordinal);
  }

  /** Takes an ordinal out of a trigram's set; a set left empty goes. */
  deleteTrigram(key: number, ordinal: number): void {
    const set = this.#trigrams.get(key);
    if (set !== undefined && set.delete(ordinal) && set.size === 0) this.#trigrams.delete(key);
  }
}
