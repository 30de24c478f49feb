/**
 * Contract §6 from outside: the single-writer lock, a full disk, erasure of deleted customers,
 * snapshots, and the verify and compact tasks, all against the real server on real directories.
 */
import assert from "node:assert/strict";
import {
  ApiClient,
  type ApiResponse,
  assertProblem,
  type Customer,
  fullCustomer,
  newCustomer,
} from "../support/api.ts";
import {
  copyTree,
  listFiles,
  logLines,
  readTree,
  replayDone,
  runCompact,
  runVerify,
  scanTree,
  serverPids,
} from "../support/data_dir.ts";
import {
  makeDataDir,
  removeDir,
  runUntilExit,
  type StartOptions,
  startServer,
  type TestServer,
} from "../support/server.ts";
import { skipIf } from "../support/skips.ts";
import { makeToken } from "../support/tokens.ts";

const MERGE_PATCH = "application/merge-patch+json";

async function client(server: TestServer): Promise<ApiClient> {
  return new ApiClient(server.url, await makeToken());
}

/** Runs body against a started server and always stops it; a SIGTERM must exit 0. */
async function withServer<T>(
  options: StartOptions,
  body: (api: ApiClient, server: TestServer) => Promise<T>,
  signal: Deno.Signal = "SIGTERM",
): Promise<{ result: T; stdout: string }> {
  const server = await startServer(options);
  let result: T;
  try {
    result = await body(await client(server), server);
  } catch (error) {
    await server.stop("SIGKILL");
    throw error;
  }
  const stopped = await server.stop(signal);
  if (signal === "SIGTERM") assert.equal(stopped.code, 0, `SIGTERM exit; ${stopped.stderr}`);
  return { result, stdout: stopped.stdout };
}

/** Writes a few creates, updates and deletes; returns the number of events written. */
async function writeEvents(api: ApiClient, creates: number): Promise<number> {
  const made: Customer[] = [];
  for (let i = 0; i < creates; i++) made.push(await api.create(fullCustomer()));
  for (const c of made.slice(0, 3)) {
    const res = await api.put(`/api/customers/${c.id}`, { json: newCustomer() });
    assert.equal(res.status, 200, res.text);
  }
  for (const c of made.slice(3, 6)) {
    const res = await api.patch(`/api/customers/${c.id}`, {
      json: { metadata: { touched: "yes" } },
      contentType: MERGE_PATCH,
    });
    assert.equal(res.status, 200, res.text);
  }
  for (const c of made.slice(-2)) {
    assert.equal((await api.delete(`/api/customers/${c.id}`)).status, 204);
  }
  return creates + 3 + 3 + 2;
}

/** Flips one byte in the middle of a file, inside a record line. */
async function damage(path: string): Promise<void> {
  const bytes = await Deno.readFile(path);
  bytes[bytes.length >> 1] ^= 0x01;
  await Deno.writeFile(path, bytes);
}

async function snapshotFiles(dataDir: string): Promise<string[]> {
  return (await listFiles(dataDir)).filter((path) => path.includes("/snapshots/snapshot-"));
}

// --- single writer -------------------------------------------------------------------------

Deno.test("a second server on the same DATA_DIR exits non-zero at once naming the first's PID, and the first keeps serving", async () => {
  const server = await startServer();
  try {
    const api = await client(server);
    const customer = await api.create(fullCustomer());
    const pids = await serverPids(server.dataDir);
    assert.equal(pids.length, 1, `expected one server process, found ${pids}`);

    const second = await runUntilExit({ dataDir: server.dataDir }, 10_000);
    assert.notEqual(second.code, null, "the second server was still running after 10 s");
    assert.notEqual(second.code, 0);
    assert.ok(second.ms < 5_000, `the second server took ${second.ms} ms to give up`);
    assert.match(second.stderr, new RegExp(`\\b${pids[0]}\\b`), `no PID in: ${second.stderr}`);

    const got = await api.get(`/api/customers/${customer.id}`);
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(got.body, customer);
    await api.create(newCustomer());
  } finally {
    await server.dispose();
  }
});

// --- full disk -----------------------------------------------------------------------------

/** Mounts a 2 MiB tmpfs at a new temp dir, or says why it cannot. */
async function mountTmpfs(): Promise<{ dir: string } | { reason: string }> {
  const dir = await Deno.makeTempDir({ prefix: "customer-api-tmpfs-" });
  try {
    const out = await new Deno.Command("mount", {
      args: ["-t", "tmpfs", "-o", "size=2m", "tmpfs", dir],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (out.success) return { dir };
    await Deno.remove(dir);
    return { reason: new TextDecoder().decode(out.stderr).trim() };
  } catch (error) {
    await Deno.remove(dir);
    return { reason: String(error) };
  }
}

async function unmount(dir: string): Promise<void> {
  await new Deno.Command("umount", { args: [dir], stdout: "null", stderr: "null" }).output();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}

/** Why this machine does not let us mount a tmpfs (root in a privileged enough container). */
const TMPFS_MISSING = await (async () => {
  if (Deno.build.os !== "linux") return "tmpfs mounts need Linux";
  try {
    const probe = await mountTmpfs();
    if ("reason" in probe) return `mount -t tmpfs is not permitted here: ${probe.reason}`;
    await unmount(probe.dir);
    return undefined;
  } catch (error) {
    return `mount -t tmpfs is not permitted here: ${error}`;
  }
})();

/** Fills the file system holding dir to the last byte; returns the filler's path. */
async function fillDisk(dir: string): Promise<string> {
  const path = `${dir}/filler`;
  const file = await Deno.open(path, { write: true, create: true });
  try {
    for (let chunk = 1 << 16; chunk >= 1; chunk >>= 2) {
      const bytes = new Uint8Array(chunk).fill(0x78);
      try {
        while (true) await file.write(bytes);
      } catch {
        // Full at this chunk size: go on with smaller ones until not one byte fits.
      }
    }
  } finally {
    file.close();
  }
  return path;
}

Deno.test(skipIf(TMPFS_MISSING, {
  name:
    "a full disk (ENOSPC) answers 507 problem+json, keeps serving reads, corrupts nothing and takes writes again once space is free",
  fn: async () => {
    const mounted = await mountTmpfs();
    if ("reason" in mounted) throw new Error(mounted.reason);
    const dataDir = mounted.dir;
    let server: TestServer | undefined;
    try {
      server = await startServer({ dataDir });
      const api = await client(server);
      const acked: Customer[] = [];
      for (let i = 0; i < 5; i++) acked.push(await api.create(fullCustomer()));
      const filler = await fillDisk(dataDir);

      // A big record cannot fit into the slack of the log's last page.
      const big = () => fullCustomer({ metadata: { a: "x".repeat(500), b: "y".repeat(500) } });
      let refused: ApiResponse | undefined;
      for (let attempt = 0; attempt < 8 && refused === undefined; attempt++) {
        const res = await api.post("/api/customers", { json: big() });
        if (res.status === 201) acked.push(res.body);
        else refused = res;
      }
      assert.ok(refused !== undefined, "8 large creates succeeded on a full disk");
      assert.ok([503, 507].includes(refused.status), `answered ${refused.status}: ${refused.text}`);
      assertProblem(refused, refused.status);

      for (const c of acked) assert.deepEqual((await api.get(`/api/customers/${c.id}`)).body, c);
      assert.deepEqual(await api.listAll(), acked, "the refused create is visible");
      const whileFull = await runVerify(dataDir);
      assert.equal(whileFull.code, 0, `verify while full: ${whileFull.stdout}`);
      assert.doesNotMatch(whileFull.stdout, /DAMAGE|warning/, "the log has a half record");

      await Deno.remove(filler);
      acked.push(await api.create(big()));
      const stopped = await server.stop("SIGTERM");
      assert.equal(stopped.code, 0, stopped.stderr);

      server = await startServer({ dataDir });
      const again = await client(server);
      assert.deepEqual(await again.listAll(), acked);
      await server.stop("SIGTERM");
      const verify = await runVerify(dataDir);
      assert.equal(verify.code, 0, verify.stdout);
      assert.doesNotMatch(verify.stdout, /DAMAGE|warning/);
    } finally {
      await server?.stop("SIGKILL");
      await unmount(dataDir);
    }
  },
}));

// --- erasure -------------------------------------------------------------------------------

const MARK = "Qz7Erasure";
/** A customer whose every personal field holds a value found nowhere else. */
const VICTIM = {
  name: `Zoë Ünterberg-${MARK}`,
  email: `Zoe.${MARK}@erasure-test.example`,
  phone: "+4915550987654",
  address: {
    line1: `Löschweg 77 ${MARK}`,
    line2: `Hinterhaus "${MARK}"`,
    city: `Vergessenstadt-${MARK}`,
    region: `Region/${MARK}`,
    postal_code: "ZX-97531",
    country: "TV",
  },
  metadata: { [`secret_${MARK}`]: `wert\\${MARK}`, [`crm_ref_${MARK}`]: "CRM-4471-ERASE" },
};
const VICTIM_V2 = { ...VICTIM, name: `Zoë Zweitname-${MARK}`, phone: "+4915550123987" };
const VICTIM_PATCH = { metadata: { diagnosis: `Heuschnupfen-${MARK}` } };

/** Every personal value the victim ever had, as it was sent. */
const PERSONAL = [
  VICTIM.name,
  VICTIM_V2.name,
  VICTIM.email,
  VICTIM.phone,
  VICTIM_V2.phone,
  ...Object.values(VICTIM.address).filter((v) => v !== "TV"),
  '"country":"TV"',
  ...Object.keys(VICTIM.metadata),
  ...Object.values(VICTIM.metadata),
  VICTIM_PATCH.metadata.diagnosis,
];

type EraseMode = "while running (ERASE_WITHIN_SECONDS=1)" | "SIGTERM" | "deno task compact";

async function eventuallyErased(dataDir: string, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while ((await scanTree(dataDir, PERSONAL)).length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

for (
  const mode of [
    "while running (ERASE_WITHIN_SECONDS=1)",
    "SIGTERM",
    "deno task compact",
  ] as EraseMode[]
) {
  Deno.test(`after DELETE and compaction (${mode}) no byte of the customer's personal data is left in DATA_DIR and others are intact`, async () => {
    const dataDir = await makeDataDir();
    try {
      // First life: the victim gets several events and lands in a snapshot with the others.
      const { result: before } = await withServer({ dataDir }, async (api) => {
        const others = [await api.create(fullCustomer()), await api.create(fullCustomer())];
        const res = await api.post("/api/customers", {
          json: VICTIM,
          headers: { "idempotency-key": `victim-${MARK}` },
        });
        assert.equal(res.status, 201, res.text);
        const id = res.body.id;
        assert.equal((await api.put(`/api/customers/${id}`, { json: VICTIM_V2 })).status, 200);
        const patched = await api.patch(`/api/customers/${id}`, {
          json: VICTIM_PATCH,
          contentType: MERGE_PATCH,
        });
        assert.equal(patched.status, 200, patched.text);
        others.push(await api.create(fullCustomer()));
        const res2 = await api.patch(`/api/customers/${others[0].id}`, {
          json: { name: "Other Renamed" },
          contentType: MERGE_PATCH,
        });
        others[0] = res2.body;
        return { victimId: id, others };
      });

      const found = new Set((await scanTree(dataDir, PERSONAL)).map((hit) => hit.needle));
      const missing = PERSONAL.filter((value) => !found.has(value));
      assert.deepEqual(missing, [], "precondition: the scan finds every value before the delete");

      const env: Record<string, string> = mode.startsWith("while running")
        ? { ERASE_WITHIN_SECONDS: "1" }
        : {};
      // SIGKILL leaves compaction to the task; SIGTERM compacts on the way out.
      const signal = mode === "SIGTERM" ? "SIGTERM" : "SIGKILL";
      await withServer({ dataDir, env }, async (api) => {
        const res = await api.delete(`/api/customers/${before.victimId}`);
        assert.equal(res.status, 204, res.text);
        assertProblem(await api.get(`/api/customers/${before.victimId}`), 404);
        if (mode.startsWith("while running")) await eventuallyErased(dataDir, 10_000);
      }, signal);
      if (mode === "deno task compact") {
        const compact = await runCompact(dataDir);
        assert.equal(compact.code, 0, `compact: ${compact.stdout}${compact.stderr}`);
      }

      const hits = await scanTree(dataDir, PERSONAL);
      assert.deepEqual(
        hits.map((h) => `"${h.needle}" in ${h.file.slice(dataDir.length)} at ${h.offset}`),
        [],
        "personal data of the deleted customer is still on disk",
      );

      await withServer({ dataDir }, async (api) => {
        assert.deepEqual(await api.listAll(), before.others);
        assertProblem(await api.get(`/api/customers/${before.victimId}`), 404);
      });
      assert.deepEqual(await scanTree(dataDir, PERSONAL), [], "a restart brought data back");
    } finally {
      await removeDir(dataDir);
    }
  });
}

// --- snapshots -----------------------------------------------------------------------------

Deno.test("a restart from a snapshot replays only the tail and yields the same state as a full replay; damaged snapshots fall back with a warning", async (t) => {
  const dataDir = await makeDataDir();
  const fullLog = await makeDataDir();
  const noSnapshots = await makeDataDir();
  try {
    const first = await withServer({ dataDir }, async (api) => {
      const n = await writeEvents(api, 12);
      return { n, state: await api.listAll() };
    });
    const N = first.result.n;
    assert.equal((await snapshotFiles(dataDir)).length, 1, "SIGTERM wrote no snapshot");
    await copyTree(dataDir, fullLog);

    let M = 0;
    const second = await withServer({ dataDir }, async (api) => {
      assert.deepEqual(await api.listAll(), first.result.state);
      M = await writeEvents(api, 8);
      return await api.listAll();
    }, "SIGKILL");
    const afterSnapshot = replayDone(second.stdout);
    assert.equal(afterSnapshot.events, 0, "events were replayed although the snapshot covers all");
    assert.equal(afterSnapshot.snapshot_seq, N);
    assert.ok(afterSnapshot.snapshot_records > 0);
    const state = second.result;

    await copyTree(dataDir, noSnapshots);
    await Deno.remove(`${noSnapshots}/snapshots`, { recursive: true });

    await t.step("after SIGKILL exactly the events since the snapshot are replayed", async () => {
      const third = await withServer({ dataDir }, async (api) => await api.listAll());
      assert.deepEqual(third.result, state);
      const report = replayDone(third.stdout);
      assert.equal(report.events, M);
      assert.equal(report.snapshot_seq, N);
    });

    await t.step(
      "a full replay of the same log without snapshots yields the same state",
      async () => {
        const full = await withServer({ dataDir: noSnapshots }, async (api) => await api.listAll());
        assert.deepEqual(full.result, state);
        const report = replayDone(full.stdout);
        assert.equal(report.snapshot_records, 0);
        assert.equal(report.snapshot_seq, 0);
        assert.ok(report.events > M, `only ${report.events} events replayed`);
      },
    );

    await t.step(
      "a damaged newest snapshot falls back to the older one with a warning",
      async () => {
        const snapshots = await snapshotFiles(dataDir);
        assert.equal(snapshots.length, 2, `expected two snapshots, found ${snapshots}`);
        await damage(snapshots[1]);
        const run = await withServer({ dataDir }, async (api) => await api.listAll());
        assert.deepEqual(run.result, state);
        const warnings = logLines(run.stdout, "Skipping a damaged snapshot");
        assert.equal(warnings.length, 1, run.stdout);
        assert.equal(warnings[0].level, "warn");
        assert.ok(warnings[0].error.includes(snapshots[1].split("/").pop()), warnings[0].error);
        assert.equal(replayDone(run.stdout).snapshot_seq, N);
      },
    );

    await t.step("a damaged only snapshot falls back to the full log with a warning", async () => {
      const [only] = await snapshotFiles(fullLog);
      await damage(only);
      const run = await withServer({ dataDir: fullLog }, async (api) => await api.listAll());
      assert.deepEqual(run.result, first.result.state);
      assert.equal(logLines(run.stdout, "Skipping a damaged snapshot").length, 1, run.stdout);
      const report = replayDone(run.stdout);
      assert.equal(report.snapshot_seq, 0);
      assert.ok(report.events > 0);
    });
  } finally {
    for (const dir of [dataDir, fullLog, noSnapshots]) await removeDir(dir);
  }
});

// --- deno task verify ----------------------------------------------------------------------

Deno.test("deno task verify passes a clean log, names file, line and byte offset of middle damage, warns on a torn tail, and never changes a file", async (t) => {
  const clean = await makeDataDir();
  const scratch: string[] = [];
  try {
    // SIGKILL leaves every event in the log, with no snapshot to hide damage behind.
    await withServer({ dataDir: clean }, (api) => writeEvents(api, 6), "SIGKILL");
    const [segment] = (await listFiles(clean)).filter((p) => p.includes("/log/"));
    const segmentName = segment.slice(segment.lastIndexOf("/") + 1);
    // The variants are format-1 segments (no header): with no torn-batch bound, damage before
    // the last record is damage however near the end (tests/e2e/torn_batch_test.ts has the rest).
    const lines = (await Deno.readTextFile(segment)).split("\n")
      .filter((line) => !line.startsWith('{"log_format"') && !line.startsWith('{"commit"'));

    /** A copy of the clean dir with its segment rewritten by edit; returns the copy. */
    const variant = async (edit: (lines: string[]) => string) => {
      const dir = await makeDataDir();
      scratch.push(dir);
      await copyTree(clean, dir);
      await Deno.writeTextFile(`${dir}/log/${segmentName}`, edit([...lines]));
      return dir;
    };
    /** Runs verify and proves it changed nothing. */
    const verify = async (dir: string) => {
      const before = await readTree(dir);
      const result = await runVerify(dir);
      assert.deepEqual(await readTree(dir), before, "verify changed a file");
      return { ...result, output: result.stdout + result.stderr };
    };
    const offsetOf = (line: number) =>
      new TextEncoder().encode(lines.slice(0, line - 1).map((l) => `${l}\n`).join("")).length;

    await t.step("a clean data directory exits 0", async () => {
      const result = await verify(clean);
      assert.equal(result.code, 0, result.output);
      assert.doesNotMatch(result.output, /DAMAGE|warning/);
    });

    await t.step("damage in the middle exits 1 naming file, line and byte offset", async () => {
      const dir = await variant((l) => {
        l[2] = l[2].replace('"name":"', '"name":"X');
        return l.join("\n");
      });
      const result = await verify(dir);
      assert.equal(result.code, 1, result.output);
      assert.ok(result.output.includes(segmentName), `no file name in: ${result.output}`);
      assert.match(result.output, new RegExp(`line 3 \\(byte offset ${offsetOf(3)}\\)`));
    });

    await t.step(
      "one damaged line is reported once, not again for each valid line after it",
      async () => {
        const dir = await variant((l) => {
          l[1] = l[1].replace('"name":"', '"name":"X');
          return l.join("\n");
        });
        const result = await verify(dir);
        assert.equal(result.code, 1, result.output);
        const damage = result.output.split("\n").filter((line) => line.startsWith("DAMAGE"));
        assert.deepEqual(damage.map((line) => line.match(/line \d+/)?.[0]), ["line 2"]);
      },
    );

    await t.step("every damaged line is reported, not only the first", async () => {
      const dir = await variant((l) => {
        l[1] = l[1].slice(0, 40);
        l[4] = l[4].replace('"seq":5', '"seq":55');
        return l.join("\n");
      });
      const result = await verify(dir);
      assert.equal(result.code, 1, result.output);
      assert.match(result.output, new RegExp(`line 2 \\(byte offset ${offsetOf(2)}\\)`));
      assert.match(result.output, /line 5 \(byte offset \d+\)/);
    });

    await t.step("a torn tail exits 0 with a warning and stays on disk", async () => {
      const dir = await variant((l) => l.join("\n") + l[0].slice(0, 30));
      const result = await verify(dir);
      assert.equal(result.code, 0, result.output);
      assert.match(result.output, /warning/i);
    });
  } finally {
    for (const dir of [clean, ...scratch]) await removeDir(dir);
  }
});

// --- deno task compact ---------------------------------------------------------------------

Deno.test("deno task compact refuses naming the PID while a server holds the lock, and compacts a stopped service", async () => {
  const dataDir = await makeDataDir();
  try {
    let state: Customer[] = [];
    const deletedEmails: string[] = [];
    await withServer({ dataDir }, async (api, server) => {
      const made = [];
      for (let i = 0; i < 5; i++) made.push(await api.create(fullCustomer()));
      for (const c of made.slice(0, 2)) {
        deletedEmails.push(c.email);
        assert.equal((await api.delete(`/api/customers/${c.id}`)).status, 204);
      }
      const [pid] = await serverPids(server.dataDir);
      const before = await readTree(dataDir);
      const refused = await runCompact(dataDir);
      assert.notEqual(refused.code, 0, "compact ran beside a live server");
      assert.match(refused.stderr, new RegExp(`\\b${pid}\\b`), `no PID in: ${refused.stderr}`);
      assert.deepEqual(await readTree(dataDir), before, "a refused compact changed files");
      state = await api.listAll();
      assert.equal(state.length, 3);
    }, "SIGKILL");
    assert.equal((await snapshotFiles(dataDir)).length, 0);

    const compact = await runCompact(dataDir);
    assert.equal(compact.code, 0, compact.stdout + compact.stderr);
    assert.equal(logLines(compact.stdout, "compaction done").length, 1, compact.stdout);
    assert.equal((await snapshotFiles(dataDir)).length, 1);
    assert.deepEqual(await scanTree(dataDir, deletedEmails), []);

    const restarted = await withServer({ dataDir }, async (api) => await api.listAll());
    assert.deepEqual(restarted.result, state);
    assert.equal(replayDone(restarted.stdout).events, 0, "the snapshot does not cover the log");
    const verify = await runVerify(dataDir);
    assert.equal(verify.code, 0, verify.stdout);
  } finally {
    await removeDir(dataDir);
  }
});
