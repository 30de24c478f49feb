/**
 * A test that cannot run here (a tool it drives is missing) is ignored with its reason, never
 * silently: `deno task test` names a file in TEST_SKIPS_FILE, every skip is appended to it, and the
 * run ends with one line listing them all. Run without that file, each skip is warned about.
 */

/** The variable naming the file the skips are appended to, one JSON object a line. */
export const SKIPS_FILE_VAR = "TEST_SKIPS_FILE";

/** One ignored test and why. */
export interface Skip {
  test: string;
  reason: string;
}

/**
 * `definition` as given when `reason` is undefined; otherwise ignored, with the skip recorded.
 * For `Deno.test(skipIf(reason, { name, fn }))` and `t.step(skipIf(reason, { name, fn }))`.
 */
export function skipIf<T extends { name: string; ignore?: boolean }>(
  reason: string | undefined,
  definition: T,
): T {
  if (reason === undefined) return definition;
  const file = Deno.env.get(SKIPS_FILE_VAR);
  const skip: Skip = { test: definition.name, reason };
  if (file) Deno.writeTextFileSync(file, JSON.stringify(skip) + "\n", { append: true });
  else console.warn(`SKIPPED "${skip.test}": ${skip.reason}`);
  return { ...definition, ignore: true };
}

/** The skips a file holds (none when it does not exist). */
export async function readSkips(file: string): Promise<Skip[]> {
  const text = await Deno.readTextFile(file).catch(() => "");
  return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
}

/** The run's last line: every skip with its reason, or that there was none. */
export function skipsLine(skips: readonly Skip[]): string {
  if (skips.length === 0) return "skipped: none";
  return `skipped ${skips.length}: ` +
    skips.map((skip) => `${skip.test} (${skip.reason})`).join("; ");
}
