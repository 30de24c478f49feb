import { ExpectedVersionConflictError } from "./store_errors.ts";
import type { AppendOptions } from "./event_store.ts";

/** Who knows each customer's durable version, so a single-writer store keeps no second map. */
export interface VersionSource {
  /** The version of the customer's last applied event, or undefined when unknown or erased. */
  versionOf(id: string): number | undefined;
  readonly appliedSeq: number;
}

/** The fewest #durable entries that start a purge: a few group commits' worth. */
const PURGE_AT_LEAST = 256;

interface Seen {
  version: number;
  seq: number;
}

/** The versions `expected` is checked against: queued, then unapplied durable, then the source. */
export class StreamVersions {
  #source: VersionSource | undefined;
  #durable = new Map<string, Seen>();
  #pending = new Map<string, Seen>();
  #purgeAt = PURGE_AT_LEAST;

  /** Takes versions from `source` from now on; replayed events need not be remembered then. */
  use(source: VersionSource): void {
    this.#source = source;
  }

  /** True when a version source answers, so replay need not call noteReplayed. */
  get hasSource(): boolean {
    return this.#source !== undefined;
  }

  noteReplayed(id: string, version: number, seq: number): void {
    this.#durable.set(id, { version, seq });
  }

  /** Remembers a queued event's version, for later appends in the same group commit. */
  notePending(id: string, version: number, seq: number): void {
    this.#pending.set(id, { version, seq });
  }

  noteDurable(id: string, version: number, seq: number): void {
    // The queued event's own record moves over: no new one per event.
    const own = this.#pending.get(id);
    if (own?.seq === seq) {
      this.#pending.delete(id);
      this.#durable.set(id, own);
    } else this.#durable.set(id, { version, seq });
    // Entries the source has applied are dropped within a few hundred, so they die young; the next
    // purge waits until the map has doubled, so a large batch is not rescanned per event.
    if (this.#source !== undefined && this.#durable.size >= this.#purgeAt) {
      const applied = this.#source.appliedSeq;
      for (const [key, entry] of this.#durable) if (entry.seq <= applied) this.#durable.delete(key);
      this.#purgeAt = Math.max(PURGE_AT_LEAST, 2 * this.#durable.size);
    }
  }

  /** How many durable entries are remembered now (for tests). */
  get durableSize(): number {
    return this.#durable.size;
  }

  /** Forgets every queued event (a failed write rejected them all). */
  dropPending(): void {
    this.#pending.clear();
  }

  /** The stream's current version, queued events included (0 when it has no event). */
  current(id: string): number {
    const pending = this.#pending.get(id);
    if (pending !== undefined) return pending.version;
    const seen = this.#durable.get(id);
    const source = this.#source;
    if (seen !== undefined && (source === undefined || seen.seq > source.appliedSeq)) {
      return seen.version;
    }
    return source?.versionOf(id) ?? seen?.version ?? 0;
  }

  /** Throws ExpectedVersionConflictError unless every expected version is the current one. */
  check(options: AppendOptions | undefined): void {
    const expected = options?.expected;
    if (expected === undefined) return;
    for (const id of Object.keys(expected)) {
      const actual = this.current(id);
      if (actual !== expected[id]) throw new ExpectedVersionConflictError(id, expected[id], actual);
    }
  }
}
