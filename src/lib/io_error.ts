/** Names the operation and file in the JSONL store's I/O errors, keeping their class and `code`. */
/** What was being done to the file when the error came. */
export type IoOperation =
  | "opening"
  | "reading"
  | "writing"
  | "syncing"
  | "renaming"
  | "removing"
  | "truncating"
  | "locking"
  | "listing";

const NAMED = Symbol("io error names its file");

/** Runs `call`; an I/O error it throws is rethrown naming `operation` and `path`. */
export async function io<T>(
  operation: IoOperation,
  path: string,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw nameFile(error, operation, path);
  }
}

/** Adds operation and path to an I/O error's message (once); other errors pass unchanged. */
export function nameFile(error: unknown, operation: IoOperation, path: string): unknown {
  if (!(error instanceof Error) || NAMED in error || !isIoError(error)) return error;
  error.message = `I/O error while ${operation} "${path}": ${error.message}`;
  Object.defineProperty(error, NAMED, { value: true });
  return error;
}

/** Deno's file system errors, and any error with an errno-style code (as tests inject). */
function isIoError(error: Error): boolean {
  if (typeof (error as { code?: unknown }).code === "string") return true;
  return Object.values(Deno.errors).some((kind) => error instanceof kind);
}
