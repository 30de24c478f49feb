import { requestLine, type TraceIds } from "./log.ts";

const encoder = new TextEncoder();
const NEWLINE = 10;
const DOT = 46;
const ZERO = 48;
/** Where the time stamp's milliseconds are in a request line: `{"time":"YYYY-MM-DDTHH:MM:SS.`. */
const MILLIS_AT = 29;
/** The methods whose request-line parts are kept encoded; any other is written byte by byte. */
const KNOWN_METHODS: ReadonlySet<string> = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
]);
/** A request line's length without its request id, method and route (a long route's is ~150). */
const REQUEST_LINE_FIXED = 160;
/** The trace fields' length without their ids: `,"trace_id":"","span_id":""`. */
const TRACE_FIELDS = 27;

/** Log lines gathered as UTF-8 bytes, written once per `flushMs` or full buffer. */
export class LogBuffer {
  #bytes: Uint8Array;
  #used = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stampMs = -1;
  #stamp = new Uint8Array(0);
  #middles = new Map<string, Map<string, Uint8Array>>();

  constructor(
    private readonly write: (bytes: Uint8Array) => void,
    private readonly flushMs = 50,
    capacity = 64 * 1024,
  ) {
    this.#bytes = new Uint8Array(capacity);
  }

  /** Adds one line of any text (it must hold no newline). */
  text(line: string): void {
    const most = line.length * 3 + 1;
    if (this.#used + most > this.#bytes.length) this.flush();
    if (most > this.#bytes.length) return this.write(encoder.encode(`${line}\n`));
    this.#used += encoder.encodeInto(line, this.#bytes.subarray(this.#used)).written;
    this.#bytes[this.#used++] = NEWLINE;
    this.#schedule();
  }

  /** Adds requestLine's access-log line for these fields, byte for byte (all ASCII, unescaped). */
  request(
    requestId: string,
    method: string,
    route: string,
    status: number,
    durationMs: number,
    trace?: TraceIds,
  ): void {
    const traced = trace === undefined
      ? 0
      : TRACE_FIELDS + trace.traceId.length + trace.spanId.length;
    const most = REQUEST_LINE_FIXED + requestId.length + method.length + route.length + traced;
    if (this.#used + most > this.#bytes.length) this.flush();
    // Only a method of kilobytes comes here: the line is built as a string instead.
    if (most > this.#bytes.length) {
      return this.text(requestLine(requestId, method, route, status, durationMs, trace));
    }
    this.#put(this.#stampOf(Date.now()));
    this.#ascii(requestId);
    const middle = KNOWN_METHODS.has(method) ? this.#middleOf(method, route) : undefined;
    if (middle !== undefined) this.#put(middle);
    else {
      this.#ascii('","method":"');
      this.#ascii(method);
      this.#ascii('","route":"');
      this.#ascii(route);
      this.#ascii('","status":');
    }
    this.#digits(status);
    this.#ascii(',"duration_ms":');
    this.#millis(Math.round(durationMs * 1000));
    if (trace !== undefined) {
      this.#ascii(',"trace_id":"');
      this.#ascii(trace.traceId);
      this.#ascii('","span_id":"');
      this.#ascii(trace.spanId);
      this.#ascii('"');
    }
    this.#ascii("}\n");
    this.#schedule();
  }

  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#used === 0) return;
    const used = this.#used;
    this.#used = 0;
    this.write(this.#bytes.subarray(0, used));
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => this.flush(), this.flushMs);
    Deno.unrefTimer(this.#timer as unknown as number);
  }

  /** A request line's start up to its request id: encoded once a second, millis set in place. */
  #stampOf(ms: number): Uint8Array {
    if (ms === this.#stampMs) return this.#stamp;
    const second = Math.floor(ms / 1000);
    if (second === Math.floor(this.#stampMs / 1000)) {
      const millis = ms - second * 1000;
      this.#stamp[MILLIS_AT] = ZERO + Math.floor(millis / 100);
      this.#stamp[MILLIS_AT + 1] = ZERO + Math.floor(millis / 10) % 10;
      this.#stamp[MILLIS_AT + 2] = ZERO + millis % 10;
    } else {
      this.#stamp = encoder.encode(
        `{"time":"${new Date(ms).toISOString()}","level":"info","msg":"request","request_id":"`,
      );
    }
    this.#stampMs = ms;
    return this.#stamp;
  }

  /** A request line's part between request id and status, encoded once per route and method. */
  #middleOf(method: string, route: string): Uint8Array {
    let byMethod = this.#middles.get(route);
    if (byMethod === undefined) this.#middles.set(route, byMethod = new Map());
    let middle = byMethod.get(method);
    if (middle === undefined) {
      middle = encoder.encode(`","method":"${method}","route":"${route}","status":`);
      byMethod.set(method, middle);
    }
    return middle;
  }

  #put(bytes: Uint8Array): void {
    this.#bytes.set(bytes, this.#used);
    this.#used += bytes.length;
  }

  #ascii(text: string): void {
    const bytes = this.#bytes;
    let at = this.#used;
    for (let i = 0; i < text.length; i++) bytes[at++] = text.charCodeAt(i);
    this.#used = at;
  }

  #digits(value: number): void {
    if (value >= 10) this.#digits(Math.floor(value / 10));
    this.#bytes[this.#used++] = ZERO + value % 10;
  }

  /** Microseconds as milliseconds the way String(number) writes them: 1.25, 0.005, 3. */
  #millis(us: number): void {
    const whole = Math.floor(us / 1000);
    let fraction = us - whole * 1000;
    this.#digits(whole);
    if (fraction === 0) return;
    this.#bytes[this.#used++] = DOT;
    for (let unit = 100; fraction > 0; unit /= 10) {
      const digit = Math.floor(fraction / unit);
      this.#bytes[this.#used++] = ZERO + digit;
      fraction -= digit * unit;
    }
  }
}
