const NOTHING = new Uint8Array(0);

/**
 * Resolves after the event loop has polled pending I/O, so long work that awaits it between
 * slices lets other requests in. In Deno 2.9 neither setImmediate nor a resolved promise does
 * (requests waited about 60 ms behind 1 ms slices) and a zero setTimeout waits 1–2 ms; an op that
 * runs off the thread (an empty digest, about 50 µs) does.
 */
export async function nextTurn(): Promise<void> {
  await crypto.subtle.digest("SHA-1", NOTHING);
}
