/**
 * Ties the server's life to its launcher's: the launcher holds a stdin pipe it never writes, so
 * when it dies (even by SIGKILL) the pipe closes and the server stops instead of lingering.
 */
/** Calls `onGone` once stdin reaches its end, if the launcher said stdin is its pipe. */
export function watchParent(onGone: () => void): void {
  if (Deno.env.get("CUSTOMER_API_PARENT_PIPE") !== "1") return;
  (async () => {
    try {
      for await (const _ of Deno.stdin.readable) {
        // The launcher never writes; anything read is ignored.
      }
    } catch {
      // A broken pipe means the same as its end: the launcher is gone.
    }
    onGone();
  })();
}
