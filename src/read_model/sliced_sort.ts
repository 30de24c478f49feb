/** Runs this long are sorted in one go, then merged pairwise. */
const RUN = 2048;

/**
 * A merge sort of integers by a comparison that can stop at any point and go on later, so
 * sorting a million keeps no request waiting; `compare` must give the same answers throughout.
 */
export class SlicedSort {
  #from: Int32Array;
  #to: Int32Array;
  #width = 0;
  /** Where the pass is: the next pair of runs, and inside it (left, right, out). */
  #start = 0;
  #left = -1;
  #right = 0;
  #out = 0;

  constructor(items: Int32Array, readonly compare: (a: number, b: number) => number) {
    this.#from = items;
    this.#to = new Int32Array(items.length);
  }

  /** Sorts on until `now()` passes `until`; true once sorted (then `sorted` holds the result). */
  step(now: () => number, until: number): boolean {
    const length = this.#from.length;
    while (this.#width === 0) {
      if (this.#start >= length) {
        [this.#width, this.#start] = [RUN, 0];
        break;
      }
      this.#from.subarray(this.#start, Math.min(length, this.#start + RUN)).sort(this.compare);
      this.#start += RUN;
      if (now() >= until) return false;
    }
    for (let work = 0; this.#width < length;) {
      if (this.#start >= length) {
        [this.#from, this.#to] = [this.#to, this.#from];
        [this.#width, this.#start] = [this.#width * 2, 0];
        continue;
      }
      work += this.#merge(Math.min(length, this.#start + this.#width), 4096);
      if (work >= 4096) {
        work = 0;
        if (now() >= until) return false;
      }
    }
    return true;
  }

  /** The sorted items, once step said so. */
  get sorted(): Int32Array {
    return this.#from;
  }

  /** Merges up to `most` items of the pair of runs at #start; returns how many it merged. */
  #merge(middle: number, most: number): number {
    const [from, to, compare] = [this.#from, this.#to, this.compare];
    const end = Math.min(from.length, this.#start + 2 * this.#width);
    if (this.#left === -1) {
      [this.#left, this.#right, this.#out] = [this.#start, middle, this.#start];
    }
    let [left, right, out] = [this.#left, this.#right, this.#out];
    const stop = Math.min(end, out + most);
    while (out < stop) {
      if (left < middle && (right >= end || compare(from[left], from[right]) <= 0)) {
        to[out++] = from[left++];
      } else to[out++] = from[right++];
    }
    const merged = out - this.#out;
    if (out === end) [this.#left, this.#start] = [-1, end];
    else [this.#left, this.#right, this.#out] = [left, right, out];
    return merged;
  }
}
