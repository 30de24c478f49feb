const CHUNK = 1 << 20;
const NEWLINE = 0x0a;

/** Where reading stopped: the offset after the last newline, and any bytes after it. */
export interface LinesEnd {
  /** Offset just past the last complete line. */
  end: number;
  /** Bytes after the last newline (a torn last line), possibly empty. */
  rest: Uint8Array;
  /** The number of complete lines. */
  lines: number;
}

/**
 * Calls onLine for every newline-terminated line of a file, in order, with its byte offset and
 * 1-based line number; reads in 1 MiB chunks so memory does not grow with the file.
 */
export async function readLines(
  file: Deno.FsFile,
  onLine: (line: Uint8Array, offset: number, lineNumber: number) => void,
): Promise<LinesEnd> {
  await file.seek(0, Deno.SeekMode.Start);
  const chunk = new Uint8Array(CHUNK);
  let carry = new Uint8Array(0);
  let offset = 0;
  let lineNumber = 1;
  while (true) {
    const read = await file.read(chunk);
    if (read === null) break;
    const data = carry.length === 0
      ? chunk.subarray(0, read)
      : concat([carry, chunk.subarray(0, read)]);
    let start = 0;
    for (let end = data.indexOf(NEWLINE); end !== -1; end = data.indexOf(NEWLINE, start)) {
      onLine(data.subarray(start, end), offset, lineNumber++);
      offset += end - start + 1;
      start = end + 1;
    }
    carry = data.slice(start);
  }
  return { end: offset, rest: carry, lines: lineNumber - 1 };
}

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
