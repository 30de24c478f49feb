import { io } from "../../lib/io_error.ts";
import { StoreLockedError } from "../store_errors.ts";

/** Takes DATA_DIR's flock and writes our PID, or throws StoreLockedError naming the holder. */
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
