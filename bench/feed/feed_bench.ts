/**
 * `deno task bench --only=feed`: what the change feed costs: Server-Sent Events
 * latency and write throughput (bench/feed/sse_bench.ts), then paging and memory with a long history
 * (bench/feed/feed_history_bench.ts). `--feed-parts` picks some of them.
 */
import { runFeedHistoryBench } from "./feed_history_bench.ts";
import { runSseBench, SSE_PARTS } from "./sse_bench.ts";

/** The parts of the feed benchmark: the SSE ones (bench/feed/sse_bench.ts) and the history one. */
export const FEED_PARTS = [...SSE_PARTS, "history"] as const;

/** What the feed benchmark may be told. */
export interface FeedBenchOptions {
  /** Shortens the SSE runs and uses 100,000 events instead of 1,000,000. */
  quick?: boolean;
  /** The parts that run (default all): one alone is quicker to iterate on. */
  parts?: readonly (typeof FEED_PARTS[number])[];
  /** Rounds of the idle-stream throughput comparison and of each latency run. */
  rounds?: number;
  /** Another checkout whose server runs the SSE parts too (before a change). */
  beforeRoot?: string;
  /** The stream counts of the latency part. */
  streams?: number[];
}

/** Runs the parts asked for. */
export async function runFeedBench(options: FeedBenchOptions = {}): Promise<void> {
  const parts = options.parts ?? FEED_PARTS;
  const sse = SSE_PARTS.filter((part) => parts.includes(part));
  if (sse.length > 0) {
    await runSseBench({
      quick: options.quick,
      parts: sse,
      rounds: options.rounds,
      beforeRoot: options.beforeRoot,
      streams: options.streams,
    });
  }
  if (parts.includes("history")) await runFeedHistoryBench({ quick: options.quick });
}
