/** The clock's time as RFC 3339 text; calls in the same millisecond share one formatting. */
export function isoClock(clock: () => number): () => string {
  let lastMs = NaN;
  let lastText = "";
  return () => {
    const ms = clock();
    if (ms !== lastMs) {
      lastText = new Date(ms).toISOString();
      lastMs = ms;
    }
    return lastText;
  };
}
