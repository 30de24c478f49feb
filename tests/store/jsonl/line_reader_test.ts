import assert from "node:assert/strict";
import { readLines } from "../../../src/store/jsonl/line_reader.ts";

/** The lines readLines hands over for a file of `content`, read over `range`. */
async function linesOf(content: string, range?: { start?: number; end?: number }) {
  const path = await Deno.makeTempFile();
  try {
    await Deno.writeTextFile(path, content);
    using file = await Deno.open(path);
    const seen: { offset: number; text: string | undefined }[] = [];
    const end = await readLines(
      file,
      (_line, offset, _n, text) => {
        seen.push({ offset, text });
      },
      undefined,
      range,
    );
    return { seen, end };
  } finally {
    await Deno.remove(path);
  }
}

Deno.test("readLines over a short range reads its lines, and a line longer than the range's buffer", async () => {
  const long = "x".repeat(3 << 20);
  const content = `a\nbb\n${long}\nccc\n`;
  // A range of a few bytes starting mid-file: its buffer is sized to it.
  const short = await linesOf(content, { start: 2, end: 5 });
  assert.deepEqual(short.seen, [{ offset: 2, text: "bb" }]);
  assert.equal(short.end.end, 5);
  // A range cut inside a line leaves that line as the rest.
  const cut = await linesOf(content, { start: 0, end: 4 });
  assert.deepEqual(cut.seen.map((line) => line.text), ["a"]);
  assert.deepEqual(new TextDecoder().decode(cut.end.rest), "bb");
  // No range: a line longer than the 2 MiB buffer grows it; every line comes once, in order.
  const whole = await linesOf(content);
  assert.deepEqual(whole.seen.map((line) => line.text?.length), [1, 2, long.length, 3]);
  assert.equal(whole.seen[3].offset, 5 + long.length + 1);
  // An empty range reads nothing.
  assert.deepEqual((await linesOf(content, { start: 5, end: 5 })).seen, []);
});
