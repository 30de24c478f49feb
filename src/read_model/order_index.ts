/** Compares two ordinals by their customers' keys: below 0, 0 (the same ordinal only) or above 0. */
export type OrdinalOrder = (a: number, b: number) => number;

/** A string key per ordinal that orders as `compare` does up to ties, and its in-place compare. */
export interface ExactKeys {
  of(ordinal: number): string;
  /** Compares `key` with the key of `ordinal`, reading it in place. */
  compareWith(key: string, ordinal: number): number;
}

/** Where a walk is: a chunk and a place in it. */
export interface OrderPosition {
  chunk: number;
  at: number;
}

/**
 * Ordinals sorted by their customers' keys, in chunks of at most CHUNK, so an insert or delete
 * anywhere moves at most a chunk; an insert past the last, the usual case, moves nothing.
 * `rough` is a number per ordinal that never disagrees with `compare` (ties allowed), and
 * `exact` (optional) a string that breaks most of its ties: chunks keep their last ordinal's, so
 * finding a place reads few customers. A key must not change while its ordinal is in the index:
 * delete, change, insert.
 */
export class OrderIndex {
  #chunks: Int32Array[] = [];
  #lengths: number[] = [];
  /** Each chunk's last ordinal's rough key, and its exact key once asked for. */
  #lastRough = new Float64Array(16);
  #lastExact: (string | undefined)[] = [];
  #size = 0;

  /** `chunk`: most ordinals in one chunk; smaller ones cost fewer comparisons inside. */
  constructor(
    readonly compare: OrdinalOrder,
    readonly rough: (ordinal: number) => number,
    readonly exact?: ExactKeys,
    readonly chunk = CHUNK,
  ) {}

  get size(): number {
    return this.#size;
  }

  /** Replaces the whole index with ordinals already in its order, chunks three-quarters full. */
  load(sorted: Int32Array): void {
    const per = Math.max(1, (this.chunk * 3) >>> 2);
    const count = Math.ceil(sorted.length / per);
    this.#chunks = [];
    this.#lengths = [];
    this.#lastExact = [];
    this.#lastRough = new Float64Array(Math.max(16, count * 2));
    for (let at = 0; at < sorted.length; at += per) {
      const chunk = new Int32Array(this.chunk);
      const part = sorted.subarray(at, Math.min(sorted.length, at + per));
      chunk.set(part);
      this.#chunks.push(chunk);
      this.#lengths.push(part.length);
      this.#lastExact.push(undefined);
      this.#lastRough[this.#chunks.length - 1] = this.rough(part[part.length - 1]);
    }
    this.#size = sorted.length;
  }

  insert(ordinal: number): void {
    const chunks = this.#chunks;
    const last = chunks.length - 1;
    this.#size++;
    if (last < 0) {
      this.#splice(0, chunkOf(ordinal), 1);
      return;
    }
    const lastLength = this.#lengths[last];
    if (this.compare(chunks[last][lastLength - 1], ordinal) < 0) {
      this.#insertAt(last, lastLength, ordinal);
      return;
    }
    const { chunk, at } = this.#find(ordinal);
    this.#insertAt(chunk, at, ordinal);
  }

  /** Removes an ordinal (its key as when inserted); false when it is not in the index. */
  delete(ordinal: number): boolean {
    const { chunk, at } = this.#find(ordinal);
    if (chunk === this.#chunks.length || this.#chunks[chunk][at] !== ordinal) return false;
    const length = this.#lengths[chunk];
    this.#chunks[chunk].copyWithin(at, at + 1, length);
    this.#size--;
    if (length === 1) this.#splice(chunk, undefined, 0);
    else {
      this.#lengths[chunk] = length - 1;
      if (at === length - 1) this.#setLast(chunk, this.#chunks[chunk][at - 1]);
    }
    return true;
  }

  /**
   * The first position whose ordinal is not `before` (all ordinals `before` holds for come
   * first); `{chunk: chunks, at: 0}` past the end.
   */
  seek(before: (ordinal: number) => boolean): OrderPosition {
    const chunks = this.#chunks;
    let low = 0;
    let high = chunks.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (before(chunks[middle][this.#lengths[middle] - 1])) low = middle + 1;
      else high = middle;
    }
    return low === chunks.length
      ? { chunk: low, at: 0 }
      : { chunk: low, at: this.#within(low, before) };
  }

  /**
   * Visits ordinals from `position` on (backwards: from the one before it), until `visit` returns
   * false or the end; returns how many it visited.
   */
  walk(position: OrderPosition, backwards: boolean, visit: (ordinal: number) => boolean): number {
    const [chunks, lengths, step] = [this.#chunks, this.#lengths, backwards ? -1 : 1];
    let [c, at, visited] = [position.chunk, position.at, 0];
    if (backwards && --at < 0) at = (lengths[--c] ?? 0) - 1;
    for (; c >= 0 && c < chunks.length; c += step, at = backwards ? (lengths[c] ?? 0) - 1 : 0) {
      const chunk = chunks[c];
      for (const length = lengths[c]; at >= 0 && at < length; at += step) {
        visited++;
        if (!visit(chunk[at])) return visited;
      }
    }
    return visited;
  }

  /** The number of ordinals before a position. */
  rank(position: OrderPosition): number {
    let rank = position.at;
    for (let c = 0; c < position.chunk; c++) rank += this.#lengths[c];
    return rank;
  }

  /** Where `ordinal` is or would go: chunks by their last keys, then by compare. */
  #find(ordinal: number): OrderPosition {
    const key = this.rough(ordinal);
    const exact = this.exact;
    const exactKey = exact?.of(ordinal);
    /** True when `other` goes before `ordinal`: rough keys, then exact ones, then compare. */
    const before = (other: number, otherRough = this.rough(other)) => {
      if (otherRough !== key) return otherRough < key;
      if (exactKey !== undefined) {
        const difference = exact!.compareWith(exactKey, other);
        if (difference !== 0) return difference > 0;
      }
      return this.compare(other, ordinal) < 0;
    };
    let low = 0;
    let high = this.#chunks.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const last = this.#chunks[middle][this.#lengths[middle] - 1];
      let goesAfter: boolean;
      if (this.#lastRough[middle] !== key || exactKey === undefined) {
        goesAfter = before(last, this.#lastRough[middle]);
      } else {
        const lastExact = this.#lastExact[middle] ??= exact!.of(last);
        goesAfter = lastExact < exactKey ||
          (lastExact === exactKey && this.compare(last, ordinal) < 0);
      }
      if (goesAfter) low = middle + 1;
      else high = middle;
    }
    if (low === this.#chunks.length) return { chunk: low, at: 0 };
    return { chunk: low, at: this.#within(low, (other) => before(other)) };
  }

  #within(chunkIndex: number, before: (ordinal: number) => boolean): number {
    const chunk = this.#chunks[chunkIndex];
    let from = 0;
    let to = this.#lengths[chunkIndex] - 1;
    while (from < to) {
      const middle = (from + to) >>> 1;
      if (before(chunk[middle])) from = middle + 1;
      else to = middle;
    }
    return from;
  }

  #insertAt(chunkIndex: number, at: number, ordinal: number): void {
    let chunk = this.#chunks[chunkIndex];
    const length = this.#lengths[chunkIndex];
    if (length === chunk.length && chunk.length < this.chunk) {
      const grown = new Int32Array(Math.min(this.chunk, chunk.length * 2));
      grown.set(chunk);
      this.#chunks[chunkIndex] = chunk = grown;
    }
    if (length < chunk.length) {
      chunk.copyWithin(at + 1, at, length);
      chunk[at] = ordinal;
      this.#lengths[chunkIndex] = length + 1;
      if (at === length) this.#setLast(chunkIndex, ordinal);
      return;
    }
    // A full chunk splits in two halves; the new ordinal goes into the half it belongs to.
    const half = this.chunk >>> 1;
    const right = chunk.slice(half);
    this.#splice(chunkIndex + 1, right, length - half);
    this.#lengths[chunkIndex] = half;
    this.#setLast(chunkIndex, chunk[half - 1]);
    if (at <= half) this.#insertAt(chunkIndex, at, ordinal);
    else this.#insertAt(chunkIndex + 1, at - half, ordinal);
  }

  /** Inserts a chunk of `length` ordinals at `index`, or (none) removes the chunk there. */
  #splice(index: number, chunk: Int32Array | undefined, length: number): void {
    const count = this.#chunks.length;
    if (chunk === undefined) {
      this.#chunks.splice(index, 1);
      this.#lengths.splice(index, 1);
      this.#lastExact.splice(index, 1);
      this.#lastRough.copyWithin(index, index + 1, count);
      return;
    }
    if (count === this.#lastRough.length) {
      const grown = new Float64Array(count * 2);
      grown.set(this.#lastRough);
      this.#lastRough = grown;
    }
    this.#chunks.splice(index, 0, chunk);
    this.#lengths.splice(index, 0, length);
    this.#lastExact.splice(index, 0, undefined);
    this.#lastRough.copyWithin(index + 1, index, count);
    this.#setLast(index, chunk[length - 1]);
  }

  #setLast(chunkIndex: number, ordinal: number): void {
    this.#lastRough[chunkIndex] = this.rough(ordinal);
    this.#lastExact[chunkIndex] = undefined;
  }
}

/** Most ordinals in one chunk, by default. */
const CHUNK = 512;

function chunkOf(ordinal: number): Int32Array {
  const chunk = new Int32Array(8);
  chunk[0] = ordinal;
  return chunk;
}
