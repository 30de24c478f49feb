import assert from "node:assert/strict";
import { readLines } from "../../../src/store/jsonl/line_reader.ts";

/** The lines readLines hands over for `range`, and where it says it stopped. */
async function linesOf(bytes: Uint8Array, range?: { start?: number; end?: number }) {
  const path = await Deno.makeTempFile({ prefix: "line-reader-" });
  try {
    await Deno.writeFile(path, bytes);
    using file = await Deno.open(path, { read: true });
    const lines: { text: string | undefined; offset: number }[] = [];
    const end = await readLines(
      file,
      (line, offset, _n, text) => {
        assert.equal(new TextDecoder().decode(line), text);
        lines.push({ text, offset });
      },
      undefined,
      range,
    );
    return { lines, end };
  } finally {
    await Deno.remove(path);
  }
}

const text = (lines: string[]) => new TextEncoder().encode(lines.map((l) => `${l}\n`).join(""));

Deno.test("a bounded range gives exactly the lines in it, with their offsets, and a torn rest", async () => {
  const bytes = text(["first", "second", "third", "fourth"]);
  const { lines, end } = await linesOf(bytes, { start: 6, end: 19 });
  assert.deepEqual(lines, [{ text: "second", offset: 6 }, { text: "third", offset: 13 }]);
  assert.equal(end.end, 19);
  assert.equal(end.rest.length, 0);
  // A range that ends inside a line: the complete lines, then the part of the cut one.
  const cut = await linesOf(bytes, { start: 6, end: 16 });
  assert.deepEqual(cut.lines.map((l) => l.text), ["second"]);
  assert.equal(new TextDecoder().decode(cut.end.rest), "thi");
  // An empty range reads nothing.
  assert.deepEqual((await linesOf(bytes, { start: 19, end: 19 })).lines, []);
});

Deno.test("lines longer than the buffer are whole, bounded or not", async () => {
  const long = "x".repeat(3 * (1 << 20));
  const bytes = text(["a", long, "b"]);
  for (const range of [undefined, { start: 0, end: bytes.length }, { start: 2 }]) {
    const { lines } = await linesOf(bytes, range);
    assert.deepEqual(
      lines.map((l) => l.text?.length),
      range?.start === 2 ? [long.length, 1] : [1, long.length, 1],
    );
  }
});
