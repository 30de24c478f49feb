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
 * Bytes appended into one reused, growing array: typed arrays over 64 bytes live off the heap, in
 * memory seldom given back, so an array per piece would leave the process larger.
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
