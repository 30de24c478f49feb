/** Reads Prometheus text exposition for tests, and lints it with `promtool` when installed. */

/** Samples by series, keyed exactly as exposed: `name{label="v",…}` or a bare `name`. */
export type Samples = Map<string, number>;

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$/;

/** Parses every sample line; comment lines are skipped, anything else throws. */
export function parseSamples(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = SAMPLE.exec(line);
    if (match === null) throw new Error(`Not a sample line: "${line}"`);
    if (samples.has(match[1])) throw new Error(`Series "${match[1]}" exposed twice`);
    samples.set(match[1], Number(match[2]));
  }
  return samples;
}

/** The value of one series; throws when it is not exposed, so a typo cannot pass as zero. */
export function sample(samples: Samples, series: string): number {
  const value = samples.get(series);
  if (value === undefined) {
    throw new Error(`Series "${series}" not exposed; have:\n${[...samples.keys()].join("\n")}`);
  }
  return value;
}

/** Why the promtool tests cannot run here (for skipIf), or undefined when `promtool` runs. */
export async function promtoolMissing(): Promise<string | undefined> {
  const reason = "promtool is not installed (Debian package `prometheus`)";
  try {
    const { success } = await new Deno.Command("promtool", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    }).output();
    return success ? undefined : reason;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return reason;
    throw error;
  }
}

/** Runs `promtool check metrics` with the text on stdin; returns its exit code and output. */
export async function promtoolCheck(text: string): Promise<{ code: number; output: string }> {
  const child = new Deno.Command("promtool", {
    args: ["check", "metrics"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  const decoder = new TextDecoder();
  return { code, output: decoder.decode(stdout) + decoder.decode(stderr) };
}
