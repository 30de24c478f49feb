/**
 * A new temporary directory with a short name: runs nest (a test runs `deno task test` in a clone),
 * and a Unix socket's path, such as Chromium's in its TMPDIR, may not pass 107 bytes.
 */

/** Creates `$TMPDIR/<prefix><8 random hex digits>` with `mode` and answers its path. */
export async function shortTempDir(prefix: string, mode = 0o700): Promise<string> {
  const base = (Deno.env.get("TMPDIR") || "/tmp").replace(/\/$/, "");
  while (true) {
    const name = prefix + crypto.randomUUID().replaceAll("-", "").slice(0, 8);
    try {
      await Deno.mkdir(`${base}/${name}`, { mode: 0o700 });
      await Deno.chmod(`${base}/${name}`, mode);
      return `${base}/${name}`;
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
  }
}
