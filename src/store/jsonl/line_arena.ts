/** Writers of many self-checking lines: a reused buffer, and an arena of lines kept as views. */
import { concat } from "../../lib/bytes.ts";
import { checksumInto, CRC_SUFFIX_LENGTH, encodeLineInto, encoder } from "./checked_line.ts";

/**
 * Self-checking lines encoded one after another into one reused buffer (what encodeLine makes,
 * byte for byte), for a writer of many lines: no array per line for the collector to free.
 */
export class LineBuffer {
  #bytes = new Uint8Array(1 << 20);
  #length = 0;

  /** The bytes of the lines added since the last clear (a view, valid until the next add). */
  get bytes(): Uint8Array {
    return this.#bytes.subarray(0, this.#length);
  }

  /** Adds the line of a JSON object's text. */
  add(json: string): void {
    const needed = this.#length + lineRoom(json);
    if (needed > this.#bytes.length) {
      const grown = new Uint8Array(Math.max(needed, this.#bytes.length * 2));
      grown.set(this.bytes);
      this.#bytes = grown;
    }
    this.#length = encodeLineInto(json, this.#bytes, this.#length);
  }

  /** Forgets the lines added, keeping the buffer. */
  clear(): void {
    this.#length = 0;
  }
}

/**
 * Self-checking lines (what encodeLine makes, byte for byte) encoded one after another into large
 * arrays that are never reused, for the log's writer: each line is a view that stays valid as
 * long as it is kept, lines encoded in a row sit next to each other (so a group commit writes
 * them as one view, joinAdjacent, instead of copying them into a new array), and no array is
 * made per line. An array per line (off the JavaScript heap once over 64 bytes) cost an
 * allocation, a copy into the batch and the collector's work to free it.
 */
export class LineArena {
  #slab = new Uint8Array(ARENA_SLAB_BYTES);
  #end = 0;

  /**
   * Encodes a JSON object's text as a line (newline included); returns a view of its bytes. With
   * `last`, the text is `json` + `last` + `}` (an object whose last member's value is `last`):
   * each part is encoded where it goes, so the whole text is never made as one string. Joined
   * first, the parts made a concatenation that encoding flattened into a copy of the whole line,
   * a few hundred bytes for the collector per event.
   */
  add(json: string, last?: string): Uint8Array {
    return this.addWritten(json.length * 3, writeText, json, last);
  }

  /**
   * Like add(head, last), with the head written by `write` (at most `room` bytes) from `value`
   * instead of encoded from a string: a writer that knows its head's parts (event_head.ts) writes
   * them as bytes, making no string at all. With `last` undefined the head is the whole text.
   */
  addWritten<T>(
    room: number,
    write: (value: T, bytes: Uint8Array, at: number) => number,
    value: T,
    last?: string,
  ): Uint8Array {
    room += CRC_SUFFIX_LENGTH + (last === undefined ? 0 : last.length * 3 + 1);
    if (this.#end + room > this.#slab.length) {
      // The old array lives on as long as a line in it is kept.
      this.#slab = new Uint8Array(Math.max(ARENA_SLAB_BYTES, room));
      this.#end = 0;
    }
    const start = this.#end;
    let end = write(value, this.#slab, start);
    if (last !== undefined) {
      end += encoder.encodeInto(last, this.#slab.subarray(end)).written;
      this.#slab[end++] = 0x7d; // the object's closing brace
    }
    this.#end = checksumInto(this.#slab, start, end);
    return this.#slab.subarray(start, this.#end);
  }
}

/** The size of each of a LineArena's arrays: room for about 150 events of a few hundred bytes. */
const ARENA_SLAB_BYTES = 64 * 1024;

/**
 * Byte views one after another as one: a view spanning them when they are adjacent in one array
 * (lines a LineArena encoded in a row, the usual batch), else a copy of them joined.
 */
export function joinAdjacent(parts: readonly Uint8Array[]): Uint8Array {
  const first = parts[0];
  let end = first.byteOffset + first.length;
  for (let i = 1; i < parts.length; i++) {
    const part = parts[i];
    if (part.buffer !== first.buffer || part.byteOffset !== end) return concat(parts);
    end += part.length;
  }
  return parts.length === 1
    ? first
    : new Uint8Array(first.buffer, first.byteOffset, end - first.byteOffset);
}

/** Encodes a text into `bytes` at `at`, which has room for it; returns where it ends. */
function writeText(text: string, bytes: Uint8Array, at: number): number {
  return at + encoder.encodeInto(text, bytes.subarray(at)).written;
}

/** The most bytes the line of a JSON text can take: 3 per UTF-16 unit, the suffix for the brace. */
function lineRoom(json: string): number {
  return json.length * 3 + CRC_SUFFIX_LENGTH;
}
