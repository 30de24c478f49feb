/** What an HTTP/1.1 answer said: its status, and whether the connection can carry another request. */
export interface Answer {
  status: number;
  reusable: boolean;
}

const decoder = new TextDecoder();
const CR = 13;
const LF = 10;

/** Reads the status and, if the declared length fits `buffer`, the rest, to reuse the connection. */
export async function readAnswer(conn: Deno.Conn, buffer: Uint8Array): Promise<Answer> {
  let length = 0;
  let headEnd = -1;
  while (headEnd === -1) {
    if (length === buffer.length) return tooLong(buffer, length);
    const n = await conn.read(buffer.subarray(length));
    if (n === null) return tooLong(buffer, length);
    const from = Math.max(0, length - 3);
    length += n;
    headEnd = endOfHead(buffer, from, length);
  }
  const status = statusOf(buffer, length);
  const head = decoder.decode(buffer.subarray(0, headEnd)).toLowerCase();
  if (/\r\nconnection: *close/.test(head) || head.startsWith("http/1.0")) {
    return { status, reusable: false };
  }
  // 204 and 304 answers have no body (RFC 9110 §6.4.1); others must declare their length.
  const declared = status === 204 || status === 304
    ? "0"
    : /\r\ncontent-length: *([0-9]+)/.exec(head)?.[1];
  if (declared === undefined) return { status, reusable: false };
  const total = headEnd + 4 + Number(declared);
  if (total > buffer.length) return { status, reusable: false };
  while (length < total) {
    const more = await conn.read(buffer.subarray(length, total));
    if (more === null) return { status, reusable: false };
    length += more;
  }
  // Anything beyond the declared length is not HTTP we understand: do not reuse.
  return { status, reusable: length === total };
}

/** The index of the blank line ending the head, searching from `from`; -1 when not yet read. */
function endOfHead(buffer: Uint8Array, from: number, length: number): number {
  for (let i = from; i + 3 < length; i++) {
    if (buffer[i] === CR && buffer[i + 1] === LF && buffer[i + 2] === CR && buffer[i + 3] === LF) {
      return i;
    }
  }
  return -1;
}

/** `HTTP/1.` as bytes: every answer's first seven. */
const HTTP_1 = [0x48, 0x54, 0x54, 0x50, 0x2f, 0x31, 0x2e];
const ZERO = 0x30;
const SPACE = 0x20;

/** The status of `HTTP/1.x NNN`, read from the bytes; throws when the answer is not HTTP/1. */
function statusOf(buffer: Uint8Array, length: number): number {
  const digit = (i: number) => buffer[i] >= ZERO && buffer[i] <= ZERO + 9;
  const http1 = length >= 12 && HTTP_1.every((byte, i) => buffer[i] === byte) &&
    (buffer[7] === ZERO || buffer[7] === ZERO + 1) && buffer[8] === SPACE && digit(9) &&
    digit(10) && digit(11);
  if (!http1) throw new Error("the answer is not HTTP/1.1");
  return (buffer[9] - ZERO) * 100 + (buffer[10] - ZERO) * 10 + (buffer[11] - ZERO);
}

/** The answer ended or filled the buffer before its head did: its status, if it had one. */
function tooLong(buffer: Uint8Array, length: number): Answer {
  if (buffer.subarray(0, length).indexOf(LF) === -1) {
    throw new Error("the connection closed before a status line");
  }
  return { status: statusOf(buffer, length), reusable: false };
}
