import { dirname } from "node:path";
import { StoreLockedError } from "../store/store_errors.ts";
import { CorruptLogError } from "../store/store_errors.ts";
import { SettingError, type StartupError, StartupIoError } from "../lib/startup_error.ts";

/** Makes sure DATA_DIR is a directory, creating only its last component (a typo grows no tree). */
export async function prepareDataDir(dataDir: string): Promise<void> {
  try {
    await Deno.mkdir(dataDir);
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw dataDirFailure(error, dataDir);
  }
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(dataDir);
  } catch (error) {
    throw dataDirFailure(error, dataDir);
  }
  if (!info.isDirectory) {
    throw new SettingError("DATA_DIR", dataDir, "is a file, not a directory; choose a directory");
  }
}

/** The startup error for a failure while replaying DATA_DIR (damage or I/O: exit EXIT_IO). */
export function replayFailure(error: unknown, dataDir: string): StartupError {
  if (error instanceof Deno.errors.NotCapable) return dataDirFailure(error, dataDir);
  if (error instanceof CorruptLogError) {
    return new StartupIoError("DATA_DIR", dataDir, `holds a damaged log: ${error.message}`);
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new StartupIoError(
    "DATA_DIR",
    dataDir,
    `could not be read: ${detail}; check the disk and that file, or restore it from a backup`,
  );
}

/** The startup error for a failure while creating, opening or locking DATA_DIR. */
export function dataDirFailure(error: unknown, dataDir: string): StartupError {
  const detail = error instanceof Error ? error.message : String(error);
  if (error instanceof StoreLockedError) {
    return new SettingError(
      "DATA_DIR",
      dataDir,
      `is in use by process ${error.holder}; stop that process or choose another DATA_DIR`,
    );
  }
  if (error instanceof Deno.errors.NotFound) {
    return new SettingError(
      "DATA_DIR",
      dataDir,
      `cannot be created: its parent directory "${
        dirname(dataDir)
      }" does not exist; create it first or choose another DATA_DIR`,
    );
  }
  if (error instanceof Deno.errors.NotADirectory) {
    return new SettingError(
      "DATA_DIR",
      dataDir,
      `is not usable: a part of the path is a file, not a directory (${detail}); choose another DATA_DIR`,
    );
  }
  if (error instanceof Deno.errors.NotCapable) {
    return new SettingError(
      "DATA_DIR",
      dataDir,
      `is outside the paths this process may use (${detail}); start it with \`deno task start\`, which grants DATA_DIR`,
    );
  }
  if (error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.AlreadyExists) {
    return new SettingError(
      "DATA_DIR",
      dataDir,
      `is not writable (${detail}); give this user write access or choose another DATA_DIR`,
    );
  }
  return new StartupIoError(
    "DATA_DIR",
    dataDir,
    `could not be read or written: ${detail}; check the disk and that file, or restore from a backup`,
  );
}
