/**
 * The size rules of src/ as a test: a file stays small enough to read in one sitting, and
 * comments explain rather than narrate.
 */
import assert from "node:assert/strict";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname).replace(/\/$/, "");
const MAX_LINES = 250;
const MAX_MAIN_LINES = 150;
const MAX_COMMENT_SHARE = 0.12;

interface Measured {
  path: string;
  lines: number;
  /** Its non-blank lines, trimmed. */
  text: string[];
}

/** Every TypeScript and JavaScript file under src/. */
async function measure(dir = "src"): Promise<Measured[]> {
  const measured: Measured[] = [];
  for await (const entry of Deno.readDir(`${ROOT}/${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) measured.push(...await measure(path));
    else if (/\.(ts|js)$/.test(path)) {
      const all = (await Deno.readTextFile(`${ROOT}/${path}`)).split("\n");
      const text = all.map((line) => line.trim()).filter((line) => line !== "");
      measured.push({ path, lines: all.length - 1, text });
    }
  }
  return measured;
}

/** Lines that hold only a comment: `//`, or inside (or opening or closing) a block comment. */
function commentLines(lines: string[]): number {
  let count = 0;
  let inBlock = false;
  for (const line of lines) {
    const opens = line.startsWith("/*");
    if (inBlock || opens || line.startsWith("//")) count++;
    if (opens) inBlock = true;
    if (inBlock && line.includes("*/")) inBlock = false;
  }
  return count;
}

Deno.test(`no file in src/ is over ${MAX_LINES} lines, and main.ts is at most ${MAX_MAIN_LINES}`, async () => {
  const measured = await measure();
  assert.ok(measured.length > 100, "src/ was read");
  const long = measured.filter((f) => f.lines > MAX_LINES).map((f) => `${f.path}: ${f.lines}`);
  assert.deepEqual(long, []);
  const main = measured.find((f) => f.path === "src/main.ts");
  assert.ok(main !== undefined && main.lines <= MAX_MAIN_LINES, `src/main.ts: ${main?.lines}`);
});

Deno.test(`comments are at most ${MAX_COMMENT_SHARE * 100} % of src/'s non-blank lines`, async () => {
  const measured = await measure();
  const all = measured.reduce((sum, file) => sum + file.text.length, 0);
  const comments = measured.reduce((sum, file) => sum + commentLines(file.text), 0);
  const share = comments / all;
  assert.ok(share <= MAX_COMMENT_SHARE, `${(share * 100).toFixed(1)} % of ${all} lines`);
});

Deno.test("the comment counter counts line and block comments, and no code", () => {
  const lines = ["// one", "const a = 1; // code", "/**", " * two", " */", "/* three */", "b();"]
    .map((line) => line.trim());
  assert.equal(commentLines(lines), 5);
});
