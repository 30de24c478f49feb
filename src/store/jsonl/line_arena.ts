/** Writers of many self-checking lines: a reused buffer, and an arena of lines kept as views. */
import { concat } from "../../lib/bytes.ts";
import { checksumInto, CRC_SUFFIX_LENGTH, encodeLineInto, encoder } from "./checked_line.ts";

/** Self-checking lines encoded into one reused buffer: no array per line for the collector. */
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

  clear(): void {
    this.#length = 0;
  }
}

/**
 * Self-checking lines encoded into large never-reused arrays for the log's writer: each line is a
 * view, lines encoded in a row are adjacent (a batch is written as one view), no array per line.
 */
export class LineArena {
  #slab = new Uint8Array(ARENA_SLAB_BYTES);
  #end = 0;

  /**
   * Encodes a JSON object's text as a line and returns a view of it; with `last`, the text is
   * `json` + `last` + `}`, each part encoded where it goes so the whole is never one string.
   */
  add(json: string, last?: string): Uint8Array {
    return this.addWritten(json.length * 3, writeText, json, last);
  }

  /** Like add(head, last), with the head written as bytes by `write` (at most `room` of them). */
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

/** Byte views as one: a view spanning them when adjacent in one array, else a joined copy. */
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

function writeText(text: string, bytes: Uint8Array, at: number): number {
  return at + encoder.encodeInto(text, bytes.subarray(at)).written;
}

/** The most bytes the line of a JSON text can take: 3 per UTF-16 unit, the suffix for the brace. */
function lineRoom(json: string): number {
  return json.length * 3 + CRC_SUFFIX_LENGTH;
}
