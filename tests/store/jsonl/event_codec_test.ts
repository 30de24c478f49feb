import assert from "node:assert/strict";
import {
  CorruptRecordError,
  decodeEvent,
  decodeReplayed,
  encodeEvent,
  eventHead,
  eventText,
} from "../../../src/store/jsonl/event_codec.ts";
import { eventHeadRoom, writeEventHead } from "../../../src/store/jsonl/event_head.ts";
import type { StoredEvent } from "../../../src/store/event_store.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function createdEvent(overrides: Partial<StoredEvent> = {}): StoredEvent {
  const id = "01JDQ8Z5K3M4N5P6Q7R8S9T0VW";
  return {
    seq: 7,
    type: "customer.created",
    id,
    version: 1,
    time: "2025-01-02T03:04:05.678Z",
    actor: "user-1",
    request_id: "req-1",
    idempotency_key: "key-1",
    request_hash: "sha256-abc",
    data: {
      id,
      name: "Zoë Ångström-Müller 山田 🎉",
      email: "zoe@example.com",
      phone: "+49 30 123456",
      address: {
        line1: "Straße 1",
        line2: null,
        city: "Zürich",
        region: null,
        postal_code: "8001",
        country: "CH",
      },
      metadata: { note: 'naïve \u2028 "quoted" \\ \n tab\t' },
      created_at: "2025-01-02T03:04:05.678Z",
      updated_at: "2025-01-02T03:04:05.678Z",
      version: 1,
    },
    ...overrides,
  } as StoredEvent;
}

/** The line without its trailing newline, as the log reader hands it to decodeEvent. */
function lineOf(event: StoredEvent): Uint8Array {
  const bytes = encodeEvent(event);
  return bytes.subarray(0, bytes.length - 1);
}

/** An independent bitwise CRC-32 (IEEE), so the on-disk format is checked against its definition. */
function referenceCrc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** Builds a line in the log format around any JSON object text, with a correct checksum. */
function withCrc(json: string): Uint8Array {
  const crc = referenceCrc32(encoder.encode(json)).toString(16).padStart(8, "0");
  return encoder.encode(`${json.slice(0, -1)},"crc":"${crc}"}`);
}

/** Asserts that decoding fails with CorruptRecordError for the given reason. */
function assertCorrupt(line: Uint8Array, reason: RegExp, note?: string): void {
  assert.throws(
    () => decodeEvent(line),
    (error) => error instanceof CorruptRecordError && reason.test(error.message),
    note,
  );
}

Deno.test("eventText is what JSON.stringify makes of the envelope in log order, then the data", () => {
  const events = [
    createdEvent(),
    createdEvent({ idempotency_key: undefined, request_hash: undefined }),
    createdEvent({ actor: 'Jürgen "J" \\ 🎉', request_id: "tab\there\u2028" }),
    createdEvent({ type: "customer.deleted", version: 3, data: null, idempotency_key: undefined }),
  ];
  for (const event of events) {
    const { seq, type, id, version, time, actor, request_id, idempotency_key, request_hash } =
      event;
    const envelope = { seq, type, id, version, time, actor, request_id, idempotency_key };
    const expected = JSON.stringify({ ...envelope, request_hash, data: event.data });
    assert.equal(eventText(event), expected);
    assert.equal(eventText(event, JSON.stringify(event.data)), expected);
  }
});

Deno.test("an encoded event decodes to an identical event, non-ASCII data included", () => {
  const event = createdEvent();
  assert.deepEqual(decodeEvent(lineOf(event)), event);
});

Deno.test("decodeReplayed gives the same data text decoded afresh or sliced from the line's text", () => {
  const event = createdEvent();
  const line = lineOf(event);
  const text = decoder.decode(line);
  const fresh = decodeReplayed(line);
  const sliced = decodeReplayed(line, text, "slice");
  assert.equal(sliced.dataJson, fresh.dataJson);
  assert.deepEqual(JSON.parse(sliced.dataJson!), event.data);
  assert.deepEqual(
    decodeReplayed(line, text, "slice"),
    fresh,
    "the envelope read from the text too",
  );
  const deletion = lineOf(createdEvent({ type: "customer.deleted", data: null }));
  assert.equal(decodeReplayed(deletion, decoder.decode(deletion), "slice").dataJson, null);
});

Deno.test("events without an idempotency key and deletions round-trip unchanged", () => {
  const updated = createdEvent({ type: "customer.updated", version: 2, seq: 8 });
  delete updated.idempotency_key;
  delete updated.request_hash;
  const deleted = {
    seq: 9,
    type: "customer.deleted",
    id: "01JDQ8Z5K3M4N5P6Q7R8S9T0VX",
    version: 3,
    time: "2025-01-02T03:04:06.000Z",
    actor: "user-2",
    request_id: "req-3",
    data: null,
  } as StoredEvent;
  assert.deepEqual(decodeEvent(lineOf(updated)), updated);
  assert.deepEqual(decodeEvent(lineOf(deleted)), deleted);
});

Deno.test("an encoded event is one line of valid JSON ending with a newline and a CRC member", () => {
  const bytes = encodeEvent(createdEvent());
  assert.equal(bytes[bytes.length - 1], 0x0a);
  assert.equal(bytes.indexOf(0x0a), bytes.length - 1, "only the final byte is a newline");
  const text = decoder.decode(bytes.subarray(0, bytes.length - 1));
  const parsed = JSON.parse(text);
  assert.match(parsed.crc, /^[0-9a-f]{8}$/);
  assert.match(text, /,"crc":"[0-9a-f]{8}"\}$/);
});

Deno.test("the checksum is the CRC-32 of the UTF-8 line as if the crc member were absent", () => {
  const line = lineOf(createdEvent());
  const text = decoder.decode(line);
  const match = /^(.*),"crc":"([0-9a-f]{8})"\}$/s.exec(text);
  assert.notEqual(match, null);
  const withoutCrc = encoder.encode(`${match![1]}}`);
  assert.equal(parseInt(match![2], 16), referenceCrc32(withoutCrc));
});

Deno.test("a flipped byte anywhere in the line is rejected with CorruptRecordError", () => {
  const line = lineOf(createdEvent());
  for (let at = 0; at < line.length; at++) {
    for (const mask of [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xff]) {
      const damaged = line.slice();
      damaged[at] ^= mask;
      assert.throws(
        () => decodeEvent(damaged),
        CorruptRecordError,
        `byte ${at} flipped with mask ${mask} was not detected`,
      );
    }
  }
});

Deno.test("a line without a crc member is rejected with CorruptRecordError", () => {
  const event = createdEvent();
  assertCorrupt(encoder.encode(JSON.stringify(event)), /no checksum/);
  assertCorrupt(encoder.encode('{"seq":1}'), /too short/);
  assertCorrupt(new Uint8Array(0), /too short/);
});

Deno.test("a truncated line is rejected with CorruptRecordError at every cut point", () => {
  const line = lineOf(createdEvent());
  for (let length = 0; length < line.length; length++) {
    assert.throws(
      () => decodeEvent(line.subarray(0, length)),
      CorruptRecordError,
      `line cut to ${length} bytes was accepted`,
    );
  }
});

Deno.test("JSON with a valid checksum that is not a customer event is rejected", () => {
  const valid = JSON.parse(JSON.stringify(createdEvent()));
  const notEvents = [
    '{"hello":"world"}',
    JSON.stringify({ ...valid, type: "customer.renamed" }),
    JSON.stringify({ ...valid, seq: "7" }),
    JSON.stringify({ ...valid, seq: 1.5 }),
    JSON.stringify({ ...valid, id: "not-a-ulid" }),
    JSON.stringify({ ...valid, id: "01jdq8z5k3m4n5p6q7r8s9t0vw" }),
    JSON.stringify({ ...valid, version: null }),
  ];
  for (const json of notEvents) assertCorrupt(withCrc(json), /not a customer event/, json);
});

Deno.test("a checksummed line that is not valid JSON or UTF-8 is rejected", () => {
  assertCorrupt(withCrc('{"seq":1,,}'), /not valid UTF-8 JSON/);
  const json = encoder.encode('{"seq":1,"x":"\xff"}');
  const badUtf8 = json.slice();
  badUtf8[badUtf8.indexOf(0xc3)] = 0xff; // 0xff never occurs in UTF-8
  const crc = referenceCrc32(badUtf8).toString(16).padStart(8, "0");
  const line = new Uint8Array([
    ...badUtf8.subarray(0, badUtf8.length - 1),
    ...encoder.encode(`,"crc":"${crc}"}`),
  ]);
  assertCorrupt(line, /not valid UTF-8 JSON/);
});

Deno.test("writeEventHead writes eventHead's bytes, whatever the strings hold", () => {
  const base = {
    seq: 1234567,
    type: "customer.created",
    id: "01HF7YAT000GWEW5N3FFHFB54S",
    version: 1,
    time: "2026-11-26T15:43:13.249Z",
    actor: "alice",
    request_id: "9542815c-bf31-4555-8e71-5bdd984bb7d1",
    data: null,
  };
  const events = [
    base,
    { ...base, seq: 0, version: 10, idempotency_key: "key-1", request_hash: "abc" },
    { ...base, seq: Number.MAX_SAFE_INTEGER, actor: 'quo"te\\back', request_id: "tab\there" },
    { ...base, actor: "Björn Ærø 🎉", request_id: "\u0000\u001f\u007f", idempotency_key: "\ud800" },
    { ...base, actor: "", request_id: " ~" },
  ] as unknown as StoredEvent[];
  for (const event of events) {
    const bytes = new Uint8Array(eventHeadRoom(event));
    const end = writeEventHead(event, bytes, 0);
    assert.equal(new TextDecoder().decode(bytes.subarray(0, end)), eventHead(event));
  }
});
