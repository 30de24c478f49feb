/** A minimal Server-Sent Events reader for black-box tests of the event stream. */

/** One parsed frame: a comment has only `comment`. */
export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** An open event stream. */
export interface SseStream {
  status: number;
  headers: Headers;
  /** The next frame, or undefined once the server closed the stream. Rejects after `ms`. */
  next(ms?: number): Promise<SseFrame | undefined>;
  close(): Promise<void>;
}

/** Opens `GET path` with `Accept: text/event-stream`; a non-200 answer is read whole as `text`. */
export async function openStream(
  url: string,
  headers: Record<string, string> = {},
): Promise<SseStream & { text?: string }> {
  const res = await fetch(url, { headers: { accept: "text/event-stream", ...headers } });
  if (res.status !== 200 || res.body === null) {
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      text,
      next: () => Promise.resolve(undefined),
      close: () => Promise.resolve(),
    };
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let ended = false;
  const next = async (ms = 10_000): Promise<SseFrame | undefined> => {
    const deadline = performance.now() + ms;
    while (true) {
      const end = buffer.indexOf("\n\n");
      if (end !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        return parse(block);
      }
      if (ended) return undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<"late">((resolve) => {
        timer = setTimeout(() => resolve("late"), Math.max(0, deadline - performance.now()));
      });
      const read = await Promise.race([reader.read(), late]);
      clearTimeout(timer);
      if (read === "late") throw new Error(`No frame within ${ms} ms`);
      if (read.done) ended = true;
      else buffer += read.value;
    }
  };
  return {
    status: res.status,
    headers: res.headers,
    next,
    close: () => reader.cancel().catch(() => {}),
  };
}

function parse(block: string): SseFrame {
  const frame: SseFrame = {};
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) frame.comment = line.slice(1).trim();
    const colon = line.indexOf(": ");
    if (colon === -1) continue;
    const [name, value] = [line.slice(0, colon), line.slice(colon + 2)];
    if (name === "id" || name === "event" || name === "data") frame[name] = value;
  }
  return frame;
}

/** The next frame that is an event (not a comment), failing after `ms`. */
export async function nextEvent(stream: SseStream, ms = 10_000): Promise<SseFrame | undefined> {
  while (true) {
    const frame = await stream.next(ms);
    if (frame === undefined || frame.event !== undefined) return frame;
  }
}
