/**
 * Ties the server's life to its launcher's. The launcher gives the server a stdin pipe it never
 * writes and sets CUSTOMER_API_PARENT_PIPE=1; when the launcher dies, even by SIGKILL, the pipe
 * closes, and the server stops gracefully instead of lingering with the data directory locked.
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
