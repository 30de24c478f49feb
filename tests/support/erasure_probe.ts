/**
 * Where a deleted customer's personal data can still be read through the API: the feed paged from
 * 0, an event stream from 0 (up to a given seq), the customer's history. For erasure tests on
 * either store; a test warms a replica's caches with the same reads before the delete.
 */
import assert from "node:assert/strict";
import type { ApiClient } from "./api.ts";
import { nextEvent, openStream } from "./sse_client.ts";

/** Every page of `GET /api/events` from 0 (optionally one customer's), as one text. */
export async function feedText(api: ApiClient, customerId?: string): Promise<string> {
  const texts: string[] = [];
  for (let after = 0, page = 0; page < 1000; page++) {
    const filter = customerId === undefined ? "" : `&customer_id=${customerId}`;
    const res = await api.get(`/api/events?after=${after}&limit=2${filter}`);
    assert.equal(res.status, 200, res.text);
    assert.ok(res.headers.has("log-seq"), "a feed answer without Log-Seq");
    texts.push(res.text);
    after = res.body.last_seq;
    if (!res.body.has_more) return texts.join("\n");
  }
  throw new Error("The feed did not end");
}

/** The frames of an event stream opened from 0, read until the event at `untilSeq` arrived. */
export async function streamText(api: ApiClient, untilSeq: number): Promise<string> {
  const stream = await openStream(`${api.baseUrl}/api/events?after=0`, {
    authorization: `Bearer ${api.token}`,
  });
  assert.equal(stream.status, 200);
  const frames: string[] = [];
  try {
    for (;;) {
      const frame = await nextEvent(stream);
      assert.ok(frame !== undefined, "the stream ended early");
      frames.push(frame.data ?? "");
      if (Number(frame.id) >= untilSeq) return frames.join("\n");
    }
  } finally {
    await stream.close();
  }
}

/** Every place placesShowing looks in. */
export const ALL_PLACES = [
  "GET /api/events",
  "GET /api/events?customer_id",
  "the event stream",
  "history",
];

/**
 * Where `marker` can still be read on a server: the feed, the customer's feed, a stream from 0 up
 * to `headSeq`, the customer's history (the same reads warm a server's memory before a delete).
 */
export async function placesShowing(
  api: ApiClient,
  marker: string,
  id: string,
  headSeq: number,
): Promise<string[]> {
  const places: string[] = [];
  if ((await feedText(api)).includes(marker)) places.push(ALL_PLACES[0]);
  if ((await feedText(api, id)).includes(marker)) places.push(ALL_PLACES[1]);
  if ((await streamText(api, headSeq)).includes(marker)) places.push(ALL_PLACES[2]);
  const history = await api.get(`/api/customers/${id}/history`);
  if (history.text.includes(marker)) places.push(ALL_PLACES[3]);
  return places;
}

/** Retries `check` every 100 ms until it holds or `ms` pass; fails naming `what`. */
export async function eventually(
  check: () => Promise<boolean>,
  what: () => string,
  ms = 10_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
