/**
 * The webhook pair of the PostgreSQL benchmark, on one replica with 10 endpoints on a loopback
 * receiver: closed-loop creates with no endpoint, with 10, and with none again (the "on" burst is
 * judged against the mean of the two around it, so what each burst leaves behind weighs on both
 * sides alike), the burst's own deliveries timed from commit to arrival as they happen, and creates
 * paced at a rate the endpoints can take, whose deliveries are timed the same way.
 */
import { paced, register, unregister, withReceiver } from "../webhooks/webhook_load.ts";
import type { WrkResult } from "../support/wrk.ts";

/** One round's figures. */
export interface WebhookRound {
  /** The mean of the bursts before and after "on". */
  off: number;
  on: number;
  /** Commit-to-arrival latencies (ms) of the deliveries of the "on" burst's events. */
  burst: number[];
  /** Those of the paced run. */
  paced: number[];
  /** Every endpoint got every event of the paced run. */
  complete: boolean;
  /** When not complete: per endpoint, the distinct events it got and those out of order. */
  missing?: string;
}

/** What one round needs: a replica's URL, a token and a closed-loop burst of creates. */
export interface WebhookTarget {
  url: string;
  token: string;
  endpoints: number;
  rate: number;
  seconds: number;
  burst: () => Promise<WrkResult>;
}

/** One round: off, on, off, then the paced run; deliveries drained after each. */
export async function webhookRound(target: WebhookTarget, round: number): Promise<WebhookRound> {
  const { url, token, endpoints, rate, seconds } = target;
  let off = 0, on = 0, complete = false;
  // wrk stops with creates under way: they commit after it, and must not reach the next endpoints.
  const burst = async () => {
    const { rps } = await target.burst();
    await quiet(url);
    return rps;
  };
  const report = await withReceiver(async (port) => {
    const withEndpoints = async () => {
      const ids = await register(url, token, endpoints, port, `b${round}-`);
      on = await burst();
      await settle(url);
      await unregister(url, token, ids);
    };
    const before = await burst();
    await withEndpoints();
    off = (before + await burst()) / 2;
    const ids = await register(url, token, endpoints, port, `p${round}-`);
    await paced(url, token, rate, seconds);
    await settle(url);
    await unregister(url, token, ids);
  });
  const paths = Object.entries(report.paths).filter(([path]) => path.startsWith(`/p${round}-`));
  complete = paths.length === endpoints &&
    paths.every(([, p]) => p.distinct === rate * seconds && p.outOfOrder === 0);
  const missing = complete ? undefined : `${paths.length} endpoints; ` +
    paths.map(([path, p]) => `${path}: ${p.distinct} distinct, ${p.outOfOrder} out of order`)
      .join("; ");
  return {
    missing,
    off,
    on,
    burst: report.latencies[`/b${round}`] ?? [],
    paced: report.latencies[`/p${round}`] ?? [],
    complete,
  };
}

/** Waits until no event was appended for 100 ms (at most ten seconds). */
async function quiet(url: string): Promise<void> {
  const appended = async () => {
    const text = await (await fetch(`${url}/metrics`)).text();
    const count = /^events_appended_total ([0-9]+)$/m.exec(text)?.[1];
    if (count === undefined) throw new Error("postgres: /metrics has no events_appended_total");
    return count;
  };
  const until = performance.now() + 10_000;
  for (let last = await appended(); performance.now() < until;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await appended();
    if (now === last) return;
    last = now;
  }
  throw new Error("postgres: creates were still being appended ten seconds after the burst");
}

/** Waits until no endpoint has a backlog (at most three minutes: a burst of 64 clients leaves one). */
async function settle(url: string): Promise<void> {
  const until = performance.now() + 180_000;
  while (performance.now() < until) {
    const text = await (await fetch(`${url}/metrics`)).text();
    const backlogs = [...text.matchAll(/^webhook_backlog_events\{[^}]*\} ([0-9]+)$/gm)];
    if (backlogs.every((match) => match[1] === "0")) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("postgres: the webhook backlog did not drain within three minutes");
}
