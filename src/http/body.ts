import { concat } from "../lib/bytes.ts";
import { decodeUtf8 } from "../lib/utf8.ts";
import { Deadline } from "./body_deadline.ts";
import { ValidationError } from "../domain/errors.ts";
import {
  BodyTimeoutError,
  BodyTooLargeError,
  MalformedBodyError,
  UnsupportedMediaTypeError,
} from "./errors.ts";

/** Deeper bodies are refused: a customer is 3 levels deep, and recursion must stay bounded. */
export const MAX_JSON_DEPTH = 32;
/** BODY_TIMEOUT's default: a body not received within 30 s is answered 408. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

/** Reads a JSON body: media type, size and time limits while reading, strict UTF-8, then parse. */
export async function readJsonBody(
  request: Request,
  accepted: readonly string[],
  maxBytes: number,
  timeoutMs = DEFAULT_BODY_TIMEOUT_MS,
): Promise<unknown> {
  const contentType = request.headers.get("content-type");
  // Most clients send exactly an accepted type: then there is nothing to split or lower-case.
  const mediaType = contentType !== null && accepted.includes(contentType)
    ? contentType
    : contentType?.split(";", 1)[0].trim().toLowerCase();
  if (mediaType === undefined || !accepted.includes(mediaType)) {
    throw new UnsupportedMediaTypeError(contentType, accepted);
  }
  const deadline = new Deadline(timeoutMs);
  let bytes: Uint8Array;
  try {
    bytes = await readLimited(request, maxBytes, deadline);
  } finally {
    deadline.stop();
  }
  // A body read whole is checked here: a Request built in-process may declare a wrong length.
  if (bytes.length > maxBytes) throw new BodyTooLargeError(maxBytes);
  let text: string;
  try {
    // Strict, yet without the copy Deno's fatal decoder makes on every call (lib/utf8.ts).
    text = decodeUtf8(bytes);
  } catch {
    throw new MalformedBodyError("The request body is not valid UTF-8");
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new MalformedBodyError("The request body is not valid JSON");
  }
  if (depthExceeds(body, MAX_JSON_DEPTH)) {
    throw new ValidationError([{
      pointer: "",
      detail: `must not be nested deeper than ${MAX_JSON_DEPTH} levels`,
    }]);
  }
  return body;
}

/** True when objects or arrays nest deeper than `limit`; it stops descending at the limit. */
function depthExceeds(value: unknown, limit: number, depth = 1): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (depth > limit) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (depthExceeds(item, limit, depth + 1)) return true;
    return false;
  }
  for (const key in value) {
    if (depthExceeds((value as Record<string, unknown>)[key], limit, depth + 1)) return true;
  }
  return false;
}

/** The body's bytes, failing past `maxBytes` or the deadline; a known length is one native read. */
function readLimited(
  request: Request,
  maxBytes: number,
  deadline: Deadline,
): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (declared > maxBytes) return refuse(request, maxBytes);
  if (declared <= maxBytes) return deadline.race(request.bytes());
  return readChunks(request, maxBytes, deadline);
}

async function refuse(request: Request, maxBytes: number): Promise<never> {
  await request.body?.cancel();
  throw new BodyTooLargeError(maxBytes);
}

/** Reads a body of unknown length chunk by chunk, stopping as soon as it passes `maxBytes`. */
async function readChunks(
  request: Request,
  maxBytes: number,
  deadline: Deadline,
): Promise<Uint8Array> {
  if (request.body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let length = 0;
  const reader = request.body.getReader();
  while (true) {
    const { done, value } = await deadline.race(reader.read()).catch((error) => {
      // A trickling client must not hold the reader; its read settles when the stream ends.
      if (error instanceof BodyTimeoutError) reader.cancel().catch(() => {});
      throw error;
    });
    if (done) break;
    length += value.length;
    if (length > maxBytes) {
      await reader.cancel();
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? chunks[0] : concat(chunks);
}
