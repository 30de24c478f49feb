/**
 * `deno task bench --only=feed`: what the change feed costs (issue 13 point 6): Server-Sent Events
 * latency and write throughput (bench/sse_bench.ts), then paging and memory with a long history
 * (bench/feed_history_bench.ts).
 */
import { runFeedHistoryBench } from "./feed_history_bench.ts";
import { runSseBench } from "./sse_bench.ts";

/** Runs both parts; `quick` shortens the SSE runs and uses 100,000 events instead of 1,000,000. */
export async function runFeedBench(options: { quick?: boolean } = {}): Promise<void> {
  await runSseBench({ quick: options.quick });
  await runFeedHistoryBench({ quick: options.quick });
}
