/** The pause before retrying work after `failures` failures in a row: 250 ms, doubling to 5 s. */
export function retryPauseMs(failures: number): number {
  return Math.min(5000, 250 * 2 ** failures);
}
