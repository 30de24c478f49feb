import { nextTurn } from "./next_turn.ts";

/** A turn back this fast found the event loop with nothing else to do (an idle one is ~30 µs). */
const QUIET_MS = 0.15;

/**
 * The turn between slices of long background work: it ends once a turn finds nothing else
 * waiting, or once other work has run `othersPerSlice` slices' time; so the work takes at most
 * 1 / (1 + othersPerSlice) of a busy thread and all of an idle one.
 */
export function pacedTurn(
  sliceMs: number,
  othersPerSlice: number,
  now: () => number = () => performance.now(),
  turn: () => Promise<void> = nextTurn,
): () => Promise<void> {
  const enough = othersPerSlice * sliceMs;
  return async () => {
    let others = 0;
    while (others < enough) {
      const started = now();
      await turn();
      const took = now() - started;
      if (took < QUIET_MS) return;
      others += took;
    }
  };
}
