import { io } from "./io_error.ts";

/** Makes a directory's entries (new, renamed or removed files) durable. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await io("opening", dir, () => Deno.open(dir));
  try {
    await io("syncing", dir, () => handle.sync());
  } finally {
    handle.close();
  }
}

/** Writes every byte, however many calls the OS needs. */
export async function writeAll(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
}

/**
 * As writeAll, but each call writes on this thread: for a group commit's few KB cheaper than an
 * async write's hand-off to a blocking thread. The fdatasync after it stays asynchronous.
 */
// deno-lint-ignore require-await -- async, so that a failed write is a rejection like writeAll's
export async function writeAllNow(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
}

/** Replaces `path` atomically with what `fill` writes: temp file, fsync, rename, dir fsync. */
export async function writeAtomically(
  dir: string,
  name: string,
  fill: (file: Deno.FsFile) => Promise<void>,
): Promise<void> {
  const temp = `${dir}/${tempName(name)}`;
  const file = await io(
    "opening",
    temp,
    () => Deno.open(temp, { write: true, create: true, truncate: true }),
  );
  try {
    await io("writing", temp, () => fill(file));
    await io("syncing", temp, () => file.sync());
  } catch (error) {
    file.close();
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
  file.close();
  await io("renaming", temp, () => Deno.rename(temp, `${dir}/${name}`));
  await syncDirectory(dir);
}

/** The temp file writeAtomically fills before renaming it to `name`. */
function tempName(name: string): string {
  return `.${name}.tmp`;
}

const TEMP_NAME = /^\..+\.tmp$/;

/**
 * Removes the temp files of writeAtomically calls a kill interrupted in `dir` (so call it when
 * none runs there): they may hold data that has been erased since.
 */
export async function removeLeftoverTemps(dir: string): Promise<void> {
  const found: string[] = [];
  try {
    await io("listing", dir, async () => {
      for await (const entry of Deno.readDir(dir)) {
        if (entry.isFile && TEMP_NAME.test(entry.name)) found.push(`${dir}/${entry.name}`);
      }
    });
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  for (const path of found) await io("removing", path, () => Deno.remove(path));
  if (found.length > 0) await syncDirectory(dir);
}
