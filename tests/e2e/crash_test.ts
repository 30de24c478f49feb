/**
 * Contract §6 under kill -9: 32 concurrent writers, SIGKILL at a random moment, restart on the
 * same DATA_DIR, and every acknowledged write must be there. CRASH_CYCLES sets the number of
 * cycles (default 10; `deno task crash-test` runs 50); CRASH_SEED repeats a run's random choices.
 */
import assert from "node:assert/strict";
import { ApiClient, type Customer } from "../support/api.ts";
import { Writer } from "../support/crash_model.ts";
import { runVerify } from "../support/data_dir.ts";
import { seededRandom, seedFrom } from "../../bench/support/prng.ts";
import { makeDataDir, removeDir, startServer, type TestServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

const WRITERS = 32;
const BYSTANDERS = 2000;
const CYCLES = Number(Deno.env.get("CRASH_CYCLES") ?? "10");

/**
 * Settings for one server life, varied per cycle: small segments and frequent snapshots put
 * rolls, compactions and erasures into the crash window; rare ones leave long tails to replay.
 */
function serverEnv(random: () => number): Record<string, string> {
  const pick = (values: string[]) => values[Math.floor(random() * values.length)];
  return {
    SEGMENT_MAX_BYTES: pick(["4096", "65536"]),
    SNAPSHOT_EVERY: pick(["100", "1000", "100000"]),
    ERASE_WITHIN_SECONDS: pick(["0", "1", "3600"]),
  };
}

/** Every live customer the server holds, by id and by email. */
async function stateOf(api: ApiClient) {
  const all = await api.listAll({}, 100);
  const byId = new Map<string, Customer>(all.map((c) => [c.id, c]));
  const byEmail = new Map<string, Customer>(all.map((c) => [c.email, c]));
  assert.equal(byId.size, all.length, "the list repeats a customer");
  return { all, byId, byEmail };
}

/** Checks the restarted server against every writer's knowledge; returns the live count. */
async function checkAll(server: TestServer, writers: Writer[], context: string): Promise<number> {
  const api = new ApiClient(server.url, await makeToken());
  const { all, byId, byEmail } = await stateOf(api);
  const claimed = new Set<string>();
  for (const writer of writers) writer.check(byId, byEmail, claimed);
  const strays = all.filter((c) => !claimed.has(c.id)).map((c) => `${c.id} <${c.email}>`);
  const failures = writers.flatMap((w) => w.failures);
  if (strays.length > 0) failures.push(`customers nobody created: ${strays.join(", ")}`);
  assert.deepEqual(failures.slice(0, 20), [], `${context}: ${failures.length} broken promise(s)`);
  return all.length;
}

Deno.test(`every acknowledged write survives SIGKILL at random moments (${CYCLES} cycles, ${WRITERS} writers)`, async () => {
  const seed = seedFrom("CRASH_SEED");
  console.log(`crash test: seed ${seed} (repeat with CRASH_SEED=${seed}), ${CYCLES} cycles`);
  const random = seededRandom(seed);
  const writers = Array.from(
    { length: WRITERS },
    (_, i) => new Writer(`w${i}`, seededRandom(seed + i + 1)),
  );
  // Customers nobody touches after creating them make every snapshot take a while.
  const bystanders = new Writer("bystander", seededRandom(seed + WRITERS + 1));
  const everyone = [...writers, bystanders];
  const dataDir = await makeDataDir();
  const started = performance.now();
  let server: TestServer | undefined;
  try {
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      const env = serverEnv(random);
      const context = `cycle ${cycle} with ${JSON.stringify(env)} (CRASH_SEED=${seed})`;
      // A restart must always succeed: startServer throws with the server's output if it does not.
      server = await startServer({ dataDir, env });
      await checkAll(server, everyone, `after the restart before ${context}`);
      const api = new ApiClient(server.url, await makeToken());
      if (cycle === 1) await bystanders.prefill(api, BYSTANDERS);
      // Some kills land during startup compaction, most amid the writes.
      const delay = random() < 0.2 ? random() * 40 : 40 + random() * 900;
      const runs = writers.map((writer) => writer.run(api));
      await new Promise((resolve) => setTimeout(resolve, delay));
      await server.stop("SIGKILL");
      await Promise.all(runs);
    }
    server = await startServer({ dataDir });
    const live = await checkAll(server, everyone, `after the last SIGKILL (CRASH_SEED=${seed})`);
    const stopped = await server.stop("SIGTERM");
    assert.equal(stopped.code, 0, `SIGTERM exit code; stderr: ${stopped.stderr}`);
    server = await startServer({ dataDir });
    await checkAll(server, everyone, `after a clean restart (CRASH_SEED=${seed})`);
    await server.stop("SIGTERM");

    const verify = await runVerify(dataDir);
    assert.equal(verify.code, 0, `deno task verify: ${verify.stdout}${verify.stderr}`);
    const acked = everyone.reduce((sum, w) => sum + w.acknowledged, 0);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`crash test: ${acked} acknowledged writes, ${live} live customers, ${seconds} s`);
  } finally {
    await server?.dispose();
    await removeDir(dataDir);
  }
});
