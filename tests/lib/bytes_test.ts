import assert from "node:assert/strict";
import { ByteBuffer, concat } from "../../src/lib/bytes.ts";

const bytes = (...values: number[]) => new Uint8Array(values);

Deno.test("a ByteBuffer holds what was appended, in order, growing past its capacity", () => {
  const buffer = new ByteBuffer(4);
  const parts = [bytes(1, 2, 3), bytes(), bytes(4, 5), bytes(...Array(20).keys())];
  for (const part of parts) buffer.append(part);
  assert.deepEqual(buffer.bytes, concat(parts));
});

Deno.test("clear forgets the bytes and keeps the array: later appends start again at the front", () => {
  const buffer = new ByteBuffer(8);
  buffer.append(bytes(9, 9, 9));
  const before = buffer.bytes.buffer;
  buffer.clear();
  assert.equal(buffer.bytes.length, 0);
  buffer.append(bytes(1, 2));
  assert.deepEqual(buffer.bytes, bytes(1, 2));
  assert.equal(buffer.bytes.buffer, before, "the same array");
});

Deno.test("an appended part is copied: changing it afterwards does not change the buffer", () => {
  const buffer = new ByteBuffer();
  const part = bytes(1, 2, 3);
  buffer.append(part);
  part[0] = 7;
  assert.deepEqual(buffer.bytes, bytes(1, 2, 3));
});
