/** A headless Chromium from npm (@sparticuz/chromium) for a machine with none of its own. */

/** Unpacks the package's Chromium into `dir` (about 200 MB); answers the binary's path. */
export async function unpackChromium(dir: string): Promise<string> {
  // The package unpacks into os.tmpdir(): TMPDIR points into the run's directory meanwhile.
  const tmpdir = Deno.env.get("TMPDIR");
  Deno.env.set("TMPDIR", dir);
  try {
    const { default: chromium } = await import("@sparticuz/chromium");
    return await chromium.executablePath();
  } finally {
    if (tmpdir === undefined) Deno.env.delete("TMPDIR");
    else Deno.env.set("TMPDIR", tmpdir);
  }
}
