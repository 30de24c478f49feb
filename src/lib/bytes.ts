/** Joins byte arrays into one. */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Bytes appended one after another into one reused, growing array: for a writer of many small
 * pieces, no array per piece. Typed arrays of more than 64 bytes live outside the JavaScript heap,
 * in memory the allocator seldom gives back to the system, so an array per line of a big file
 * leaves the process that much larger after it is done.
 */
export class ByteBuffer {
  #bytes: Uint8Array;
  #length = 0;

  constructor(capacity = 1 << 20) {
    this.#bytes = new Uint8Array(capacity);
  }

  /** The bytes appended since the last clear (a view, valid until the next append). */
  get bytes(): Uint8Array {
    return this.#bytes.subarray(0, this.#length);
  }

  /** Appends a copy of `part`. */
  append(part: Uint8Array): void {
    const needed = this.#length + part.length;
    if (needed > this.#bytes.length) {
      const grown = new Uint8Array(Math.max(needed, this.#bytes.length * 2));
      grown.set(this.bytes);
      this.#bytes = grown;
    }
    this.#bytes.set(part, this.#length);
    this.#length = needed;
  }

  /** Forgets the bytes appended, keeping the array. */
  clear(): void {
    this.#length = 0;
  }
}
