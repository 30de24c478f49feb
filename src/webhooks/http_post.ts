import type { Destination } from "./destination.ts";

/** At most this much of a receiver's answer is read; none of it is kept. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** What one POST got: a status code, or an error saying why none came. */
export type PostOutcome = { status: number; error?: undefined } | {
  status?: undefined;
  error: string;
};

const encoder = new TextEncoder();
const STATUS_LINE = /^HTTP\/1\.[01] ([0-9]{3})/;

/**
 * POSTs `body` over HTTP/1.1 to the destination's checked address: TCP to that IP, then TLS with
 * the URL's host name for SNI and certificate checks, so a DNS answer changed since the check is
 * never used. Reads the status line within at most 64 KiB and closes; follows no redirect.
 */
export async function postTo(
  destination: Destination,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostOutcome> {
  let conn: Deno.Conn | undefined;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      conn?.close();
    } catch { /* already closed */ }
  }, timeoutMs);
  try {
    const tcp = await Deno.connect({ hostname: destination.address, port: destination.port });
    conn = tcp;
    if (timedOut) throw new Error("timeout");
    if (destination.tls) {
      conn = await Deno.startTls(tcp, {
        hostname: destination.url.hostname.replace(/^\[|\]$/g, ""),
      });
    }
    const bytes = encoder.encode(body);
    const lines = [
      `POST ${destination.url.pathname}${destination.url.search} HTTP/1.1`,
      `host: ${destination.url.host}`,
      "content-type: application/json",
      `content-length: ${bytes.length}`,
      "user-agent: customer-api-webhooks",
      "connection: close",
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    await writeAll(conn, encoder.encode(lines.join("\r\n") + "\r\n\r\n"));
    await writeAll(conn, bytes);
    return { status: await readStatus(conn) };
  } catch (error) {
    if (timedOut) return { error: `no answer within ${timeoutMs} ms` };
    return { error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
    try {
      conn?.close();
    } catch { /* already closed */ }
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await conn.write(bytes.subarray(written));
}

/** Reads until the status line is complete, at most MAX_ANSWER_BYTES. */
async function readStatus(conn: Deno.Conn): Promise<number> {
  const buffer = new Uint8Array(MAX_ANSWER_BYTES);
  let length = 0;
  while (length < buffer.length) {
    const n = await conn.read(buffer.subarray(length));
    if (n === null) break;
    length += n;
    const text = new TextDecoder().decode(buffer.subarray(0, length));
    const end = text.indexOf("\r\n");
    if (end !== -1) {
      const match = STATUS_LINE.exec(text.slice(0, end));
      if (match === null) throw new Error("the answer is not HTTP/1.1");
      return Number(match[1]);
    }
  }
  throw new Error("the connection closed before a status line");
}
