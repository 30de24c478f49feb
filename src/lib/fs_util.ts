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
  const temp = `${dir}/.${name}.tmp`;
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
