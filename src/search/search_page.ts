/** A page of customers' texts, and whether more match after it. */
export interface SearchPage {
  texts: string[];
  more: boolean;
}

/** How long a scan runs before it lets other work in, and how it does; the limits for tests. */
export interface Slicing {
  sliceMs: number;
  now: () => number;
  nextTurn: () => Promise<void>;
  /** Candidates checked at once up to this many (COLLECT_MAX). */
  collectMax?: number;
  /** A walk gives way to a scan after this many (PROBE_VISITS). */
  probeVisits?: number;
}
