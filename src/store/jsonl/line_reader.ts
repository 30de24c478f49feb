import { decodeUtf8 } from "../../lib/utf8.ts";

const CHUNK = 1 << 20;
const NEWLINE = 0x0a;

/** Where reading stopped: the offset after the last newline, and any bytes after it. */
export interface LinesEnd {
  end: number;
  /** Bytes after the last newline (a torn last line), possibly empty. */
  rest: Uint8Array;
  lines: number;
}

/** The bytes to read: from `start` (default 0) up to `end` (default the end of the file). */
export interface LineRange {
  start?: number;
  end?: number;
  /** False: no line's `text` is wanted, so chunks are not decoded (default true). */
  decode?: boolean;
}

/**
 * Calls onLine for every line of a file in 1 MiB chunks, with `text` when the chunk is valid UTF-8;
 * false from onLine stops. `line` is a view into a reused buffer: copy it to keep it.
 */
export async function readLines(
  file: Deno.FsFile,
  onLine: (
    line: Uint8Array,
    offset: number,
    lineNumber: number,
    text: string | undefined,
  ) => void | false,
  afterChunk?: () => Promise<void>,
  range: LineRange = {},
): Promise<LinesEnd> {
  let offset = range.start ?? 0;
  const stop = range.end ?? Infinity;
  await file.seek(offset, Deno.SeekMode.Start);
  // The unfinished last line moves to the front, so no chunk is copied; a short range gets a
  // buffer of its size, not 2 MiB to zero on every read.
  let buffer = new Uint8Array(Math.max(0, Math.min(2 * CHUNK, stop - offset)));
  let carried = 0;
  let lineNumber = 1;
  let position = offset;
  while (position < stop) {
    const want = Math.min(CHUNK, stop - position);
    if (carried + want > buffer.length) {
      const grown = new Uint8Array(Math.max(2 * buffer.length, carried + want));
      grown.set(buffer.subarray(0, carried));
      buffer = grown;
    }
    const read = await file.read(buffer.subarray(carried, carried + want));
    if (read === null) break;
    position += read;
    const data = buffer.subarray(0, carried + read);
    const text = range.decode === false ? undefined : decodeLines(data);
    let start = 0;
    let textStart = 0;
    for (let end = data.indexOf(NEWLINE); end !== -1; end = data.indexOf(NEWLINE, start)) {
      // A newline byte never occurs inside a multi-byte character, so the two splits agree.
      const textEnd = text === undefined ? 0 : text.indexOf("\n", textStart);
      const lineText = text === undefined ? undefined : text.slice(textStart, textEnd);
      if (onLine(data.subarray(start, end), offset, lineNumber++, lineText) === false) {
        return { end: offset + end - start + 1, rest: new Uint8Array(0), lines: lineNumber - 1 };
      }
      offset += end - start + 1;
      start = end + 1;
      textStart = textEnd + 1;
    }
    buffer.copyWithin(0, start, data.length);
    carried = data.length - start;
    await afterChunk?.();
  }
  const carry = buffer.slice(0, carried);
  return { end: offset, rest: carry, lines: lineNumber - 1 };
}

/** The complete lines of a chunk as one string, or undefined if they are not valid UTF-8. */
function decodeLines(data: Uint8Array): string | undefined {
  const last = data.lastIndexOf(NEWLINE);
  if (last === -1) return undefined;
  try {
    return decodeUtf8(data.subarray(0, last + 1));
  } catch {
    return undefined;
  }
}
