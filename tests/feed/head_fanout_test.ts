/** The shared head reader: streams ahead of it join and get each later event once, in order. */
import assert from "node:assert/strict";
import { EventStreams } from "../../src/feed/event_stream.ts";
import { FeedIndex } from "../../src/feed/feed_index.ts";
import { FeedReader, type PageRequest } from "../../src/feed/feed_reader.ts";
import { batchInterval, HeadFanOut, type HeadSubscriber } from "../../src/feed/head_fanout.ts";
import type { NewEvent } from "../../src/store/event_store.ts";
import { MemoryEventStore } from "../../src/store/memory/memory_event_store.ts";

const TIME = "2026-01-02T03:04:05.678Z";

/** An event whose data the head reader never looks at. */
function event(type: NewEvent["type"], id: string, version: number): NewEvent {
  return { type, id, version, time: TIME, data: null, actor: "t", request_id: "r" } as NewEvent;
}

/** A feed reader whose pages wait until the test opens the gate, to hold the head reader back. */
class GatedReader extends FeedReader {
  #open = Promise.resolve();
  #release = () => {};

  /** Holds every page read from now until open(), each as it was when read. */
  close(): void {
    this.#open = new Promise((resolve) => this.#release = resolve);
  }

  open(): void {
    this.#release();
  }

  override async read(request: PageRequest) {
    const page = await super.read(request);
    await this.#open;
    return page;
  }
}

/** A subscriber that records the seqs of the frames it is handed, and every chunk. */
function subscriber(position: number, types: string[] = []) {
  const seqs: number[] = [];
  const chunks: Uint8Array[] = [];
  const decoder = new TextDecoder();
  const sub: HeadSubscriber = {
    request: { after: position, limit: 100, types: new Set(types) },
    position,
    deliver: (chunk) => {
      chunks.push(chunk);
      seqs.push(...[...decoder.decode(chunk).matchAll(/^id: (\d+)$/gm)].map((m) => +m[1]));
      return true;
    },
    release: () => {},
  };
  return { sub, seqs, chunks };
}

async function setUp() {
  const store = new MemoryEventStore();
  await store.replay(() => {});
  const reader = new GatedReader(store, new FeedIndex(store), 86_400_000);
  const fanOut = new HeadFanOut(store, reader);
  return { store, reader, fanOut };
}

/** Appends `count` created events, one commit each. */
async function write(
  store: MemoryEventStore,
  count: number,
  type: NewEvent["type"] = "customer.created",
) {
  for (let i = 0; i < count; i++) await store.append([event(type, `c${store.lastSeq + 1}`, 1)]);
}

/** Lets the head reader run until it has read up to `seq`. */
async function headAt(fanOut: HeadFanOut, seq: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (fanOut.head < seq && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  assert.equal(fanOut.head, seq);
}

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

Deno.test("a stream ahead of the head reader joins and gets only the events after its position", async () => {
  const { store, reader, fanOut } = await setUp();
  await write(store, 3);
  const atHead = subscriber(3);
  assert.ok(fanOut.join(atHead.sub));
  reader.close();
  await write(store, 3);
  // The head reader is still at 3 (its read is held); this stream read to 5 by itself.
  assert.equal(fanOut.head, 3);
  const ahead = subscriber(5);
  assert.ok(fanOut.join(ahead.sub));
  assert.equal(fanOut.positionOf(ahead.sub), 5);
  assert.equal(fanOut.join(subscriber(2).sub), false, "a stream behind reads by itself");
  reader.open();
  await headAt(fanOut, 6);
  assert.deepEqual(atHead.seqs, [4, 5, 6]);
  assert.deepEqual(ahead.seqs, [6]);
  assert.equal(fanOut.positionOf(ahead.sub), 6);
  // Once the head passed it, it shares the one chunk of its group.
  await write(store, 2);
  await headAt(fanOut, 8);
  assert.deepEqual(atHead.seqs, range(4, 8));
  assert.deepEqual(ahead.seqs, [6, 7, 8]);
  assert.equal(ahead.chunks.at(-1), atHead.chunks.at(-1));
  fanOut.close();
});

Deno.test("a stream ahead of everything the batch read waits, its position never going back", async () => {
  const { store, reader, fanOut } = await setUp();
  await write(store, 2);
  const atHead = subscriber(2);
  assert.ok(fanOut.join(atHead.sub));
  reader.close();
  await write(store, 1);
  // The held read started when the log ended at 3; the stream read to 5 before it joined.
  await new Promise((resolve) => setTimeout(resolve, 5));
  await write(store, 2);
  const ahead = subscriber(5);
  assert.ok(fanOut.join(ahead.sub));
  // The held batch goes out; the next is held again.
  reader.open();
  reader.close();
  await headAt(fanOut, 3);
  assert.deepEqual(atHead.seqs, [3]);
  assert.deepEqual(ahead.seqs, []);
  assert.equal(fanOut.positionOf(ahead.sub), 5);
  reader.open();
  await headAt(fanOut, 5);
  assert.deepEqual(ahead.seqs, []);
  assert.equal(fanOut.positionOf(ahead.sub), 5);
  await write(store, 1);
  await headAt(fanOut, 6);
  assert.deepEqual(atHead.seqs, range(3, 6));
  assert.deepEqual(ahead.seqs, [6]);
  fanOut.close();
});

Deno.test("a filtered stream ahead of the head reader gets only later events its filter selects", async () => {
  const { store, reader, fanOut } = await setUp();
  await write(store, 1);
  const deletes = subscriber(1, ["customer.deleted"]);
  assert.ok(fanOut.join(deletes.sub));
  reader.close();
  await write(store, 2, "customer.deleted");
  await write(store, 1);
  await write(store, 1, "customer.deleted");
  // Seqs 2, 3 and 5 are deletes; this one read (and sent) up to 3 by itself.
  const ahead = subscriber(3, ["customer.deleted"]);
  assert.ok(fanOut.join(ahead.sub));
  reader.open();
  await headAt(fanOut, 5);
  assert.deepEqual(deletes.seqs, [2, 3, 5]);
  assert.deepEqual(ahead.seqs, [5]);
  await write(store, 1);
  await write(store, 1, "customer.deleted");
  await headAt(fanOut, 7);
  assert.deepEqual(deletes.seqs, [2, 3, 5, 7]);
  assert.deepEqual(ahead.seqs, [5, 7]);
  assert.equal(ahead.chunks.at(-1), deletes.chunks.at(-1));
  fanOut.close();
});

Deno.test("streams at and ahead of the head reader each get every later event once, in order", async () => {
  const { store, reader, fanOut } = await setUp();
  await write(store, 10);
  const subscribers = [subscriber(10)];
  assert.ok(fanOut.join(subscribers[0].sub));
  for (let round = 0; round < 5; round++) {
    reader.close();
    await write(store, 4);
    // Joined at the head reader's position, and at each seq it has not read yet.
    const head = fanOut.head;
    for (let position = head; position <= store.lastSeq; position++) {
      const joining = subscriber(position, position % 2 === 0 ? [] : ["customer.created"]);
      assert.ok(fanOut.join(joining.sub));
      subscribers.push(joining);
    }
    reader.open();
    await headAt(fanOut, store.lastSeq);
  }
  await write(store, 3);
  await headAt(fanOut, store.lastSeq);
  for (const { sub, seqs } of subscribers) {
    assert.deepEqual(seqs, range(sub.position + 1, store.lastSeq), `joined at ${sub.position}`);
  }
  fanOut.close();
});

/** A feed reader that counts the pages streams read by themselves (the head reader's are larger). */
class CountingReader extends FeedReader {
  streamReads = 0;

  override read(request: PageRequest) {
    if (request.limit <= 100) this.streamReads++;
    return super.read(request);
  }
}

/** The seqs of the event frames a stream sends until it ends. */
async function streamSeqs(body: ReadableStream<Uint8Array>): Promise<number[]> {
  let text = "";
  for await (const part of body.pipeThrough(new TextDecoderStream())) text += part;
  return [...text.matchAll(/^id: (\d+)\nevent: customer/gm)].map((match) => +match[1]);
}

Deno.test("streams opened while writes flow join the head reader instead of reading each commit", async () => {
  const store = new MemoryEventStore();
  await store.replay(() => {});
  const reader = new CountingReader(store, new FeedIndex(store), 86_400_000);
  const streams = new EventStreams(store, reader, { maxStreams: 100 });
  let writing = true;
  const writer = (async () => {
    while (writing) {
      await write(store, 1);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  const stop = new AbortController();
  const opened: { after: number; seqs: Promise<number[]> }[] = [];
  for (let i = 0; i < 40; i++) {
    await new Promise((resolve) => setTimeout(resolve, 7));
    const after = store.lastSeq;
    const body = streams.open({ after, limit: 100, types: new Set() }, stop.signal);
    opened.push({ after, seqs: streamSeqs(body) });
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  writing = false;
  await writer;
  const last = store.lastSeq;
  await new Promise((resolve) => setTimeout(resolve, 100));
  streams.closeAll();
  for (const { after, seqs } of opened) assert.deepEqual(await seqs, range(after + 1, last));
  // One catch-up read each, and a few more when the head reader was ahead at the join; refused
  // joins read once per commit (hundreds here).
  assert.ok(reader.streamReads < 3 * opened.length, `${reader.streamReads} stream reads`);
});

Deno.test("the batch interval bounds the streams' writes a second and, up to 1,000 streams, the wait", () => {
  let previous = 0;
  for (let streams = 1; streams <= 5000; streams++) {
    const interval = batchInterval(streams);
    assert.ok(interval >= previous, `the interval never shrinks as streams are added (${streams})`);
    previous = interval;
    // One write per stream per batch: at most 10,000 a second up to 250 streams, 40,000 beyond.
    const writesPerSecond = streams * 1000 / interval;
    assert.ok(writesPerSecond <= (streams <= 250 ? 10_000 : 40_000) + 1e-6, `${streams} streams`);
    if (streams <= 1000) assert.ok(interval <= 25, `${streams} streams wait at most 25 ms`);
  }
  assert.equal(batchInterval(0), 0);
  assert.equal(batchInterval(100), 10);
  assert.equal(batchInterval(1000), 25);
  assert.equal(batchInterval(2000), 50);
});
