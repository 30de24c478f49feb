/**
 * The change feed, live: Server-Sent Events opened with a stream token (EventSource cannot send
 * Authorization). The browser resumes a dropped stream itself with Last-Event-ID; once it gives
 * up (a stream token lasts a minute at most), the stream is opened again with a fresh token after
 * the last seq seen (the oldest kept, if that is past retention). It opens `backlog` events
 * before the newest, so the view starts with the latest changes. Events reach `onBatch` at most once per animation frame, and only the newest
 * `window` of those waiting, so a fast feed or a hidden tab cannot grow memory.
 */

export const EVENT_TYPES = ["customer.created", "customer.updated", "customer.deleted"];

/** Opens the stream; `stop()` closes it for good. */
export function openFeed(api, { types, customerId, window, backlog, onBatch, onState }) {
  let source = null;
  let lastSeq = null;
  let stopped = false;
  let failures = 0;
  let retry;
  let frame = 0;
  let pending = [];
  let dropped = 0;

  function flush() {
    frame = 0;
    const batch = pending;
    const skipped = dropped;
    pending = [];
    dropped = 0;
    if (!stopped) onBatch(batch, skipped, lastSeq);
  }

  function receive(message) {
    let event;
    try {
      event = JSON.parse(message.data);
    } catch {
      return;
    }
    // A resumed stream may repeat what was already shown.
    if (lastSeq !== null && event.seq <= lastSeq) return;
    lastSeq = event.seq;
    pending.push(event);
    if (pending.length > window * 2) {
      dropped += pending.length - window;
      pending = pending.slice(-window);
    }
    if (frame === 0) frame = requestAnimationFrame(flush);
  }

  function bookmark(message) {
    const seq = Number(message.lastEventId);
    if (Number.isInteger(seq) && (lastSeq === null || seq > lastSeq)) lastSeq = seq;
  }

  function retryLater() {
    if (stopped) return;
    onState("reconnecting");
    const delay = Math.min(1000 * 2 ** failures, 15_000);
    failures++;
    retry = setTimeout(connect, delay);
  }

  async function connect() {
    if (stopped) return;
    let token;
    try {
      // The list's Log-Seq is the newest event applied: open a little before it.
      if (lastSeq === null) {
        const head = await api.get("/api/customers?limit=1");
        lastSeq = Math.max(0, Number(head.headers.get("log-seq") ?? 0) - backlog);
      }
      await api.get(`/api/events?after=${lastSeq}&limit=1`).catch((error) => {
        if (error.status !== 410) throw error;
        // What was missed is past retention: go on from the oldest event still kept.
        lastSeq = Math.max(0, Number(error.problem.oldest_seq ?? 1) - 1);
        onState("gap", lastSeq);
      });
      token = (await api.post("/api/events/stream-tokens")).body.token;
    } catch (error) {
      // A refused session ends the console's session; anything else is tried again.
      if (error.status !== 401) retryLater();
      return;
    }
    if (stopped) return;
    const params = new URLSearchParams({ after: String(lastSeq) });
    for (const type of types) params.append("type", type);
    if (customerId) params.set("customer_id", customerId);
    params.set("access_token", token);
    const opened = new EventSource(`/api/events?${params}`);
    source = opened;
    opened.addEventListener("open", () => {
      failures = 0;
      onState("live", lastSeq);
    });
    for (const type of EVENT_TYPES) opened.addEventListener(type, receive);
    opened.addEventListener("bookmark", bookmark);
    opened.addEventListener("error", () => {
      if (stopped || source !== opened) return;
      if (opened.readyState !== EventSource.CLOSED) return onState("reconnecting");
      opened.close();
      source = null;
      retryLater();
    });
  }

  connect();
  return {
    stop() {
      stopped = true;
      clearTimeout(retry);
      if (frame !== 0) cancelAnimationFrame(frame);
      source?.close();
      source = null;
    },
  };
}
