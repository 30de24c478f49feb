/**
 * Startup failures name the cause and the setting at once: one stderr line
 * `customer-api cannot start: VARIABLE "value" …`, exit 78 (a setting) or 74 (I/O), no stack.
 */
import assert from "node:assert/strict";
import { writeEventLog } from "../../bench/support/event_log_fixture.ts";
import { type ExitResult, makeDataDir, removeDir, runUntilExit } from "../support/server.ts";

const EXIT_CONFIG = 78;
const EXIT_IO = 74;

/** The run ended on its own with `code` and one stderr line naming `variable` and `value`. */
function assertRefused(result: ExitResult, code: number, variable: string, value: string): void {
  const output = `stderr:\n${result.stderr}\nstdout:\n${result.stdout}`;
  assert.equal(result.code, code, output);
  const lines = result.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, `expected one stderr line, got:\n${result.stderr}`);
  assert.ok(
    lines[0].startsWith(`customer-api cannot start: ${variable} "${value}" `),
    `the line does not start with the setting:\n${lines[0]}`,
  );
  assert.doesNotMatch(result.stderr, /^\s+at /m, "a stack trace");
  assert.ok(!result.stdout.includes('"msg":"ready"'), "it became ready");
}

Deno.test("a HOST that is not an address refuses to start, naming HOST, without replaying", async () => {
  for (const host of ["999.1.1.1", "not a host"]) {
    const result = await runUntilExit({ env: { HOST: host } });
    assertRefused(result, EXIT_CONFIG, "HOST", host);
    assert.ok(!result.stdout.includes('"msg":"replay done"'), result.stdout);
  }
});

Deno.test("a HOST that is no address of this machine refuses to start, naming HOST", async () => {
  const result = await runUntilExit({ env: { HOST: "192.0.2.1" } });
  assertRefused(result, EXIT_CONFIG, "HOST", "192.0.2.1");
  assert.match(result.stderr, /not an address of this machine/);
});

Deno.test("a busy PORT is reported before the log is replayed", async () => {
  const dataDir = await makeDataDir();
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    // A log that takes about a second to replay: the refusal must not wait for it.
    await writeEventLog(dataDir, 100_000);
    const port = String(taken.addr.port);
    const result = await runUntilExit({ dataDir, env: { PORT: port } });
    assertRefused(result, EXIT_CONFIG, "PORT", port);
    assert.match(result.stderr, /is in use on HOST "127\.0\.0\.1"/);
    assert.ok(!result.stdout.includes('"msg":"replay done"'), "it replayed before binding");
  } finally {
    taken.close();
    await removeDir(dataDir);
  }
});

Deno.test("a DATA_DIR whose parent does not exist is refused and not created", async () => {
  const scratch = await makeDataDir();
  try {
    const dataDir = `${scratch}/missing-parent/data`;
    const result = await runUntilExit({ env: { DATA_DIR: dataDir } });
    assertRefused(result, EXIT_CONFIG, "DATA_DIR", dataDir);
    assert.match(result.stderr, /parent directory ".*missing-parent" does not exist/);
    assert.deepEqual([...Deno.readDirSync(scratch)], [], "something was created");
  } finally {
    await removeDir(scratch);
  }
});

Deno.test("a DATA_DIR below a regular file is refused as not usable", async () => {
  const scratch = await makeDataDir();
  try {
    await Deno.writeTextFile(`${scratch}/file`, "not a directory\n");
    const dataDir = `${scratch}/file/data`;
    const result = await runUntilExit({ env: { DATA_DIR: dataDir } });
    assertRefused(result, EXIT_CONFIG, "DATA_DIR", dataDir);
  } finally {
    await removeDir(scratch);
  }
});

Deno.test("a DATA_DIR that is a regular file is refused", async () => {
  const scratch = await makeDataDir();
  try {
    const dataDir = `${scratch}/file`;
    await Deno.writeTextFile(dataDir, "not a directory\n");
    const result = await runUntilExit({ env: { DATA_DIR: dataDir } });
    assertRefused(result, EXIT_CONFIG, "DATA_DIR", dataDir);
    assert.match(result.stderr, /is a file, not a directory/);
  } finally {
    await removeDir(scratch);
  }
});

/** Sets or clears the immutable attribute: root ignores file modes, but not this. */
async function chattr(flag: "+i" | "-i", path: string): Promise<void> {
  const { success, stderr } = await new Deno.Command("chattr", { args: [flag, path] }).output();
  if (!success) throw new Error(`chattr ${flag} ${path}: ${new TextDecoder().decode(stderr)}`);
}

Deno.test("an unwritable DATA_DIR, or one that cannot be created, is refused naming it", async () => {
  const immutable = await makeDataDir();
  await chattr("+i", immutable);
  try {
    for (const dataDir of [immutable, `${immutable}/data`]) {
      const result = await runUntilExit({ env: { DATA_DIR: dataDir } });
      assertRefused(result, EXIT_CONFIG, "DATA_DIR", dataDir);
      assert.match(result.stderr, /is not writable \(.*\); give this user write access/);
    }
  } finally {
    await chattr("-i", immutable);
    await removeDir(immutable);
  }
});

Deno.test("an I/O error while reading the snapshots exits 74 naming the file", async () => {
  const dataDir = await makeDataDir();
  try {
    await writeEventLog(dataDir, 10);
    // The snapshots folder is a file: listing it fails with ENOTDIR, an I/O error at replay.
    await Deno.writeTextFile(`${dataDir}/snapshots`, "not a directory\n");
    const result = await runUntilExit({ dataDir });
    assertRefused(result, EXIT_IO, "DATA_DIR", dataDir);
    assert.ok(result.stderr.includes(`${dataDir}/snapshots`), result.stderr);
  } finally {
    await removeDir(dataDir);
  }
});

Deno.test("a damaged log exits 74 naming the segment file", async () => {
  const dataDir = await makeDataDir();
  try {
    const fixture = await writeEventLog(dataDir, 10);
    const bytes = await Deno.readFile(fixture.path);
    bytes[bytes.length >> 1] ^= 0x01;
    await Deno.writeFile(fixture.path, bytes);
    const result = await runUntilExit({ dataDir });
    assertRefused(result, EXIT_IO, "DATA_DIR", dataDir);
    assert.ok(result.stderr.includes(fixture.path), result.stderr);
  } finally {
    await removeDir(dataDir);
  }
});

Deno.test("a missing or unreadable JWKS_FILE is refused naming it", async () => {
  const scratch = await makeDataDir();
  try {
    const missing = `${scratch}/missing-jwks.json`;
    const notJson = `${scratch}/jwks.json`;
    await Deno.writeTextFile(notJson, "{ not json");
    // A directory opens but cannot be read as a file.
    for (const path of [missing, notJson, scratch]) {
      const result = await runUntilExit({ env: { JWT_SECRET: "", JWKS_FILE: path } });
      assertRefused(result, EXIT_CONFIG, "JWKS_FILE", path);
    }
  } finally {
    await removeDir(scratch);
  }
});

Deno.test("a SOCKET in a missing directory, on a regular file or too long is refused naming SOCKET", async () => {
  const scratch = await makeDataDir();
  try {
    const inMissingDir = `${scratch}/missing/api.sock`;
    const file = `${scratch}/plain-file`;
    await Deno.writeTextFile(file, "keep me\n");
    const long = `${scratch}/${"s".repeat(120)}.sock`;
    for (const socket of [inMissingDir, file, long]) {
      const result = await runUntilExit({ env: { SOCKET: socket } });
      assertRefused(result, EXIT_CONFIG, "SOCKET", socket);
    }
    assert.equal(await Deno.readTextFile(file), "keep me\n", "the regular file was touched");
  } finally {
    await removeDir(scratch);
  }
});
