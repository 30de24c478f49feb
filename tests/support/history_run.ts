/**
 * One run of the history check: the workload (history_workload.ts) against one JSONL server or
 * three replicas on PostgreSQL, while the run kills servers with kill -9 (and restarts them as
 * the README says) and cuts replicas' database connections; then the checker's report.
 */
import { checkHistory, type HistoryReport } from "./history_checker.ts";
import { finalState, headOf, readWholeFeed, runWorkload, unionFeed } from "./history_workload.ts";
import { createTestSchema } from "./postgres.ts";
import { ReplicaSet } from "./replica_set.ts";
import { makeDataDir, removeDir, startServer, type TestServer } from "./server.ts";
import { makeToken } from "./tokens.ts";

/** How long, how hard, and with which faults. */
export interface RunOptions {
  seconds: number;
  clients?: number;
  customers?: number;
  ifMatchShare?: number;
  /** A fault every this many ms (0: none). */
  faultEveryMs?: number;
}

/** The checker's report and the faults the run made, in order. */
export interface RunResult extends HistoryReport {
  faults: string[];
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Three replicas on a fresh schema; faults alternate kill -9 (restart after 1 s) and a 3 s cut. */
export async function historyOnReplicas(options: RunOptions): Promise<RunResult> {
  const schema = await createTestSchema();
  const token = await makeToken();
  const set = await ReplicaSet.start(3, schema.url, token);
  const faults: string[] = [];
  try {
    const targets = () => set.live.map((replica) => replica.server!.url);
    const until = performance.now() + options.seconds * 1000;
    const faulting = (async () => {
      for (
        let n = 0;
        options.faultEveryMs && performance.now() < until - options.faultEveryMs;
        n++
      ) {
        await pause(options.faultEveryMs);
        const index = Math.floor(Math.random() * set.replicas.length);
        if (n % 2 === 0) {
          faults.push(`kill -9 replica ${index}`);
          await set.kill(index);
          await pause(1000);
          await set.restart(index);
        } else {
          faults.push(`cut replica ${index} from the database for 3 s`);
          set.replicas[index].proxy.cut();
          await pause(3000);
          set.replicas[index].proxy.restore();
        }
      }
    })();
    const run = await runWorkload({ ...workload(options), targets, token, until });
    await faulting;
    return { ...await collect(run, targets(), token), faults };
  } finally {
    await set.dispose();
    await schema.drop();
  }
}

/** One server on a JSONL DATA_DIR; each fault is kill -9 and a restart on the same directory. */
export async function historyOnJsonl(options: RunOptions): Promise<RunResult> {
  const dataDir = await makeDataDir();
  const token = await makeToken();
  let server: TestServer | undefined = await startServer({ dataDir });
  const faults: string[] = [];
  try {
    const targets = () => server === undefined ? [] : [server.url];
    const until = performance.now() + options.seconds * 1000;
    const faulting = (async () => {
      while (options.faultEveryMs && performance.now() < until - options.faultEveryMs) {
        await pause(options.faultEveryMs);
        faults.push("kill -9 and restart");
        const dying = server!;
        server = undefined;
        await dying.stop("SIGKILL");
        server = await startServer({ dataDir });
      }
    })();
    const run = await runWorkload({ ...workload(options), targets, token, until });
    await faulting;
    return { ...await collect(run, targets(), token), faults };
  } finally {
    await server?.dispose();
    await removeDir(dataDir);
  }
}

function workload(options: RunOptions) {
  return {
    clients: options.clients ?? 24,
    customers: options.customers ?? 6,
    ifMatchShare: options.ifMatchShare ?? 0.3,
    runId: `h${Date.now().toString(36)}`,
  };
}

async function collect(
  run: Awaited<ReturnType<typeof runWorkload>>,
  targets: string[],
  token: string,
) {
  const head = await headOf(targets, token);
  const feed = await readWholeFeed(targets[0], token, head);
  const ids = new Set(feed.events.map((event) => event.customer_id));
  const finals = [];
  for (const target of targets) finals.push(await finalState(target, token, head, ids));
  const followed = run.followed.filter((event) => event.seq >= feed.start);
  return checkHistory(run.ops, unionFeed(feed.events, followed), finals, feed.start);
}
