import { syncDirectory } from "../lib/fs_util.ts";
import { DEV_SECRET_FILE } from "../store/jsonl/data_dir_layout.ts";

/** Reads DATA_DIR/dev-secret, creating it (mode 0600, 32 random bytes) when missing. */
export async function loadOrCreateDevSecret(
  dataDir: string,
): Promise<{ secret: Uint8Array; created: boolean }> {
  const existing = await readDevSecret(dataDir);
  if (existing !== undefined) return { secret: existing, created: false };
  const path = `${dataDir}/${DEV_SECRET_FILE}`;
  const random = crypto.getRandomValues(new Uint8Array(32));
  const text = btoa(String.fromCharCode(...random)).replace(/=+$/, "");
  await Deno.mkdir(dataDir, { recursive: true });
  await Deno.writeTextFile(path, `${text}\n`, { createNew: true, mode: 0o600 });
  await syncDirectory(dataDir);
  return { secret: new TextEncoder().encode(text), created: true };
}

/** Reads the dev secret if it exists. */
export async function readDevSecret(dataDir: string): Promise<Uint8Array | undefined> {
  try {
    return new TextEncoder().encode(
      (await Deno.readTextFile(`${dataDir}/${DEV_SECRET_FILE}`)).trim(),
    );
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}
