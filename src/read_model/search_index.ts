import { BlockArena } from "./block_arena.ts";
import { metadataText, sameFields, TEXT_FIELDS } from "./customer_fields.ts";
import { type FieldKeys, fieldKeysList, readFieldKeys } from "./field_keys.ts";
import { FieldPostings } from "./field_postings.ts";
import { GroupedPostings } from "./grouped_postings.ts";
import { MetadataPostings } from "./metadata_postings.ts";
import { SortOrders } from "./sort_orders.ts";

/** Changes wait for a flush up to this many customers, or FLUSH_MS. */
const PENDING_MAX = 2048;
const FLUSH_MS = 50;

/**
 * The search indexes of the read model: postings per text field and for metadata, and the sort
 * orders. A change is noted in the same step as the read model's and applied at the next flush,
 * in a batch whose hot sets stay in cache; every reader flushes first, so none sees it late.
 * Built once, in slices, after the replay; customers the build has not reached are left to it.
 */
export class SearchIndex {
  /** Where every posting set keeps its containers. */
  readonly arena = new BlockArena();
  readonly #fields: readonly FieldPostings[] = TEXT_FIELDS.map(() => new FieldPostings(this.arena));
  readonly #metadata = new MetadataPostings(this.arena);
  readonly #orders: SortOrders;
  readonly #textAt: (ordinal: number) => string | undefined;
  /** Ordinals below it are indexed (Infinity once built). */
  #frontier = 0;
  /** Changed ordinals not yet applied, in order, with the text the index holds for each. */
  #pending: number[] = [];
  #pendingTexts: (string | undefined)[] = [];
  /** A pending ordinal's place in #pending (a map: at most PENDING_MAX, not a column of all). */
  #marks = new Map<number, number>();
  #flushSoon: (flush: () => void) => void;
  readonly #grouped = new GroupedPostings(this.#fields);
  #was: FieldKeys[] = fieldKeysList();
  #now: FieldKeys[] = fieldKeysList();

  /**
   * `textAt` gives the text an ordinal holds (undefined for a free one); `flushSoon` runs a flush
   * a little later, so changes do not wait long for a reader.
   */
  constructor(
    textAt: (ordinal: number) => string | undefined,
    flushSoon: (flush: () => void) => void = (flush) =>
      Deno.unrefTimer(setTimeout(flush, FLUSH_MS)),
  ) {
    this.#textAt = textAt;
    this.#flushSoon = flushSoon;
    this.#orders = new SortOrders((ordinal) => this.#indexedText(ordinal));
  }

  /** True once every customer is indexed. */
  get built(): boolean {
    return this.#frontier === Infinity && this.#orders.nameReady;
  }

  /** The postings of each text field (TEXT_FIELDS order), up to date. */
  get fields(): readonly FieldPostings[] {
    this.flush();
    return this.#fields;
  }

  /** The metadata postings, up to date. */
  get metadata(): MetadataPostings {
    this.flush();
    return this.#metadata;
  }

  /** The sort orders, up to date. */
  get orders(): SortOrders {
    this.flush();
    return this.#orders;
  }

  /** The ordinal is about to change from `before` (none: it was free) to what textAt will give. */
  changing(ordinal: number, before: string | undefined): void {
    if (ordinal >= this.#frontier || this.#marks.has(ordinal)) return;
    // Earlier changes are done, this one is not: a full batch is applied before it joins.
    if (this.#pending.length >= PENDING_MAX) this.flush();
    this.#marks.set(ordinal, this.#pending.push(ordinal) - 1);
    this.#pendingTexts.push(before);
    if (this.#pending.length === 1) this.#flushSoon(() => this.flush());
  }

  /** Applies every pending change; a reader calls it first. */
  flush(): void {
    const pending = this.#pending;
    for (let i = 0; i < pending.length; i++) {
      const ordinal = pending[i];
      const before = this.#pendingTexts[i];
      const after = this.#textAt(ordinal);
      if (before === after || before === undefined) {
        this.#marks.delete(ordinal);
        if (before === undefined && after !== undefined) this.#link(ordinal, after);
      } else if (after === undefined) {
        this.#unlink(ordinal, before);
        this.#marks.delete(ordinal);
      } else this.#change(ordinal, before, after);
    }
    pending.length = 0;
    this.#pendingTexts.length = 0;
    this.#grouped.apply();
  }

  /** The text the index holds for an ordinal: until a flush, a changed one's earlier text. */
  #indexedText(ordinal: number): string | undefined {
    const mark = this.#marks.get(ordinal);
    return mark === undefined ? this.#textAt(ordinal) : this.#pendingTexts[mark];
  }

  /**
   * Indexes the customers the build has not reached, until `now()` passes `until`; true once
   * all are (ordinals below `limit` are all there are).
   */
  buildSlice(limit: number, now: () => number, until: number): boolean {
    this.flush();
    let ordinal = this.#frontier;
    while (ordinal < limit) {
      const text = this.#textAt(ordinal);
      if (text !== undefined) this.#link(ordinal, text);
      ordinal++;
      if ((ordinal & 63) === 0 && now() >= until) break;
    }
    this.#grouped.apply();
    this.#frontier = ordinal >= limit ? Infinity : ordinal;
    // The name order comes last, sorted at once: inserting a million names one by one costs more.
    if (this.#frontier !== Infinity || now() >= until) return false;
    return this.#orders.buildName(() => this.#live(limit), now, until);
  }

  /** Every ordinal a customer holds. */
  #live(limit: number): Int32Array {
    const live: number[] = [];
    for (let ordinal = 0; ordinal < limit; ordinal++) {
      if (this.#textAt(ordinal) !== undefined) live.push(ordinal);
    }
    return Int32Array.from(live);
  }

  /** Links a customer; its trigrams wait for the batch to apply. */
  #link(ordinal: number, text: string): void {
    readFieldKeys(text, this.#now);
    if (this.#grouped.full) this.#grouped.apply();
    for (let f = 0; f < this.#fields.length; f++) this.#grouped.link(f, this.#now[f], ordinal);
    this.#metadata.link(metadataOf(text), ordinal);
    this.#orders.link(ordinal, text);
  }

  /** Unlinks a customer while the pending map still gives its old text to the orders. */
  #unlink(ordinal: number, text: string): void {
    readFieldKeys(text, this.#was);
    for (let f = 0; f < this.#fields.length; f++) this.#fields[f].unlink(this.#was[f], ordinal);
    this.#metadata.unlink(metadataOf(text), ordinal);
    this.#orders.unlink(ordinal);
  }

  #change(ordinal: number, before: string, after: string): void {
    const moves = this.#orders.moves(before, after);
    this.#orders.unlinkMoved(ordinal, moves);
    this.#marks.delete(ordinal);
    this.#orders.relinkMoved(ordinal, moves, after);
    if (!sameFields(before, after)) {
      readFieldKeys(before, this.#was);
      readFieldKeys(after, this.#now);
      if (this.#grouped.full) this.#grouped.apply();
      for (let f = 0; f < this.#fields.length; f++) {
        if (!this.#was[f].sameAs(this.#now[f])) {
          this.#grouped.change(f, this.#was[f], this.#now[f], ordinal);
        }
      }
    }
    const [oldMetadata, newMetadata] = [metadataText(before), metadataText(after)];
    if (oldMetadata !== newMetadata) {
      this.#metadata.unlink(JSON.parse(oldMetadata), ordinal);
      this.#metadata.link(JSON.parse(newMetadata), ordinal);
    }
  }
}

const EMPTY = {};

function metadataOf(text: string): Record<string, string> {
  const json = metadataText(text);
  return json === "{}" ? EMPTY : JSON.parse(json);
}
