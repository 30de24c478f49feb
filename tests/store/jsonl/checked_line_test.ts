import assert from "node:assert/strict";
import {
  CorruptRecordError,
  decodeLine,
  encodeLine,
} from "../../../src/store/jsonl/checked_line.ts";
import { joinAdjacent, LineArena, LineBuffer } from "../../../src/store/jsonl/line_arena.ts";
import { splitLine, splitLineText } from "../../../src/store/jsonl/line_split.ts";

const records = [
  '{"kind":"snapshot","format":1,"seq":7}',
  '{"kind":"customer","data":{"id":"01J","name":"Björn Ærø 🎉","email":"b@x.example"}}',
  '{"kind":"customer","data":{"id":"01K","name":"Ada","email":"a@x.example"}}',
  '{"kind":"end","records":2}',
];

Deno.test("LineBuffer writes what encodeLine writes, byte for byte, across a grown buffer", () => {
  const lines = new LineBuffer();
  const big = `{"kind":"customer","data":{"name":"${"é".repeat(600_000)}"}}`;
  for (const record of [...records, big, ...records]) lines.add(record);
  const expected = [...records, big, ...records].map((r) => encodeLine(r));
  assert.deepEqual(lines.bytes, new Uint8Array(expected.flatMap((line) => [...line])));
  lines.clear();
  lines.add(records[0]);
  assert.deepEqual(lines.bytes, encodeLine(records[0]));
});

Deno.test("LineArena writes what encodeLine writes; lines added in a row join without a copy", () => {
  const arena = new LineArena();
  const big = `{"kind":"customer","data":{"name":"${"é".repeat(40_000)}"}}`;
  const lines = [...records, big, ...records].map((record) => arena.add(record));
  assert.deepEqual(lines, [...records, big, ...records].map((r) => encodeLine(r)));
  // The big line does not fit in the first array: the lines after it start a new one.
  const before = joinAdjacent(lines.slice(0, 4));
  assert.equal(before.buffer, lines[0].buffer);
  assert.deepEqual(before, new Uint8Array(lines.slice(0, 4).flatMap((line) => [...line])));
  const across = joinAdjacent(lines);
  assert.notEqual(across.buffer, lines[0].buffer);
  assert.deepEqual(across, new Uint8Array(lines.flatMap((line) => [...line])));
  // A line keeps its bytes while later lines fill and replace the array.
  const kept = lines[0].slice();
  for (let i = 0; i < 1000; i++) arena.add(records[1]);
  assert.deepEqual(lines[0], kept);
});

Deno.test("LineArena.add of a text in two parts writes the line of the joined text", () => {
  const arena = new LineArena();
  const head = '{"seq":3,"type":"customer.created","id":"01J","data":';
  const parts: [string, string][] = [
    [head, '{"id":"01J","name":"Björn Ærø 🎉","email":"b@x.example"}'],
    [head, "null"],
    ['{"kind":"é","data":', `{"name":"${"é".repeat(40_000)}"}`],
    [head, '{"id":"01K","name":"Ada"}'],
  ];
  const lines = parts.map(([first, last]) => arena.add(first, last));
  assert.deepEqual(lines, parts.map(([first, last]) => encodeLine(`${first}${last}}`)));
  // Lines in a row still join without a copy (the big one started a new array).
  assert.equal(joinAdjacent(lines.slice(2)).buffer, lines[3].buffer);
});

Deno.test("splitLineText reuses the previous head only when its bytes are the same", () => {
  const line = (record: string) => encodeLine(record).subarray(0, -1);
  const first = splitLineText(line(records[1]), "data")!;
  const second = splitLineText(line(records[2]), "data", first)!;
  assert.equal(second.head, '{"kind":"customer"}');
  assert.equal(second.head, first.head);
  assert.equal(second.member, '{"id":"01K","name":"Ada","email":"a@x.example"}');
  const other = splitLineText(line('{"kind":"custom","data":{"id":"x"}}'), "data", first)!;
  assert.equal(other.head, '{"kind":"custom"}');
});

Deno.test("splitLine finds the member by the line's text, ASCII or not, and checks the checksum", () => {
  const decoder = new TextDecoder();
  for (const record of [records[1], records[2]]) {
    const line = encodeLine(record).subarray(0, -1);
    const text = decoder.decode(line);
    for (const split of [splitLine(line, "data", text)!, splitLine(line, "data")!]) {
      assert.deepEqual(split.head, { kind: "customer" });
      assert.deepEqual(JSON.parse(split.member), (decodeLine(line) as { data: unknown }).data);
    }
    const damaged = line.slice();
    damaged[30] ^= 1;
    assert.throws(() => splitLine(damaged, "data", decoder.decode(damaged)), CorruptRecordError);
  }
  const none = encodeLine(records[0]).subarray(0, -1);
  assert.equal(splitLine(none, "data", decoder.decode(none)), undefined);
});

Deno.test("splitLine finds the member in bytes after non-ASCII text before it, too", () => {
  const decoder = new TextDecoder();
  const record = { actor: "Jürgen 🎉", data: { name: "Ærø", n: 1 } };
  const line = encodeLine(record).subarray(0, -1);
  for (const mode of ["decode", "slice"] as const) {
    const split = splitLine(line, "data", decoder.decode(line), mode)!;
    assert.deepEqual(split.head, { actor: "Jürgen 🎉" });
    assert.deepEqual(JSON.parse(split.member), record.data);
  }
});
