import { io } from "../../lib/io_error.ts";
import { StoreLockedError } from "../store_errors.ts";

/**
 * Takes the exclusive lock (flock) of DATA_DIR's lock file and writes our PID into it, or throws
 * StoreLockedError naming the holder's PID. The OS releases the lock when the process dies.
 */
export async function takeLock(path: string): Promise<Deno.FsFile> {
  const lock = await io(
    "opening",
    path,
    () => Deno.open(path, { read: true, write: true, create: true }),
  );
  if (!(await io("locking", path, () => lock.tryLock(true)))) {
    lock.close();
    const holder = (await Deno.readTextFile(path)).trim() || "unknown";
    throw new StoreLockedError(path, holder);
  }
  await io("writing", path, async () => {
    await lock.truncate(0);
    await lock.write(new TextEncoder().encode(`${Deno.pid}\n`));
  });
  return lock;
}
