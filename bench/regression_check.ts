/**
 * The regression guard of `deno task bench --check`: ratios measured within one run, compared
 * with those stored in bench/baseline.json. Pure functions; bench/check.ts measures and prints.
 */

/** One guarded figure; `better` says which way is an improvement. */
export interface GuardedRatio {
  /** A stable key, e.g. "http.get.service/floor". */
  name: string;
  value: number;
  better: "higher" | "lower";
}

/** What bench/baseline.json holds. */
export interface Baseline {
  /** When and from which commit it was measured, for people reading the file. */
  measured: { at: string; commit: string; note?: string };
  /** The sizes of the run, which --check repeats so that ratios compare like with like. */
  settings: CheckSettings;
  ratios: GuardedRatio[];
}

/** The sizes of a --check run. */
export interface CheckSettings {
  httpRounds: number;
  httpSeconds: number;
  startupEvents: number;
  startupRuns: number;
}

/** A ratio that fell by more than the tolerance, or one the run did not measure. */
export interface RatioFailure {
  name: string;
  baseline: number;
  /** Undefined when the current run has no such ratio. */
  current?: number;
  /** How much worse, as a fraction: 0.3 is 30 % worse. */
  worse?: number;
  message: string;
}

/** A ratio may fall by this fraction before --check fails (25 %). */
export const TOLERANCE = 0.25;

/**
 * The baseline's ratios that the current run fell short of by more than `tolerance`. "Falls"
 * is measured on the better-is-higher scale: a ratio where lower is better (seconds × a
 * baseline, bytes per customer) fails when its inverse falls by more than `tolerance`, i.e.
 * when it grows past baseline ÷ (1 − tolerance). A ratio missing from the run fails too (a
 * benchmark that stopped measuring it must not pass silently); extra current ratios are ignored.
 */
export function compareRatios(
  current: readonly GuardedRatio[],
  baseline: readonly GuardedRatio[],
  tolerance = TOLERANCE,
): RatioFailure[] {
  const failures: RatioFailure[] = [];
  for (const stored of baseline) {
    const now = current.find((ratio) => ratio.name === stored.name);
    if (now === undefined || !Number.isFinite(now.value)) {
      failures.push({
        name: stored.name,
        baseline: stored.value,
        current: now?.value,
        message: `${stored.name}: not measured in this run (baseline ${fmt(stored.value)})`,
      });
      continue;
    }
    // On the better-is-higher scale, how much of the baseline's goodness is left.
    const kept = stored.better === "higher" ? now.value / stored.value : stored.value / now.value;
    const worse = 1 - kept;
    // The epsilon keeps a fall of exactly the tolerance (0.6 against 0.8) from failing on rounding.
    if (worse > tolerance + 1e-9) {
      const limit = stored.better === "higher"
        ? `≥ ${fmt(stored.value * (1 - tolerance))}`
        : `≤ ${fmt(stored.value / (1 - tolerance))}`;
      failures.push({
        name: stored.name,
        baseline: stored.value,
        current: now.value,
        worse,
        message: `${stored.name}: ${fmt(now.value)} against the baseline's ${fmt(stored.value)} ` +
          `(${stored.better} is better), ${(worse * 100).toFixed(0)} % worse; ` +
          `allowed ${limit} (${(tolerance * 100).toFixed(0)} %)`,
      });
    }
  }
  return failures;
}

/** Reads and checks the shape of a baseline file's text. */
export function parseBaseline(text: string, path: string): Baseline {
  const baseline = JSON.parse(text) as Baseline;
  const ok = typeof baseline === "object" && baseline !== null &&
    Array.isArray(baseline.ratios) && typeof baseline.settings === "object" &&
    baseline.ratios.every((r) =>
      typeof r.name === "string" && typeof r.value === "number" &&
      (r.better === "higher" || r.better === "lower")
    );
  if (!ok) throw new Error(`"${path}" is not a baseline written by --check --write-baseline`);
  return baseline;
}

function fmt(value: number): string {
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(3);
}
