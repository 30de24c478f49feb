import assert from "node:assert/strict";
import { loadConfig } from "../../src/config.ts";
import {
  CONTAINER_PATHS,
  LOCAL_PATHS,
  SERVER_ENV_VARS,
  serverPermissionFlags,
} from "../../src/ops/permissions.ts";
import { execForm, only, parseDockerfile } from "../support/dockerfile.ts";
import { newSigningKey } from "../support/jwks.ts";
import { TEST_SECRET } from "../support/tokens.ts";

const ROOT = new URL("../../", import.meta.url);
const dockerfile = parseDockerfile(await Deno.readTextFile(new URL("Dockerfile", ROOT)));
const tasks: Record<string, string> =
  JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))).tasks;
const containerFlags = serverPermissionFlags(CONTAINER_PATHS);
const localFlags = serverPermissionFlags(LOCAL_PATHS);

Deno.test("the Dockerfile runs the server under exactly the flags of src/ops/permissions.ts", () => {
  const cmd = execForm(only(dockerfile, "CMD", "app").args);
  assert.deepEqual(cmd, ["deno", "run", "--cached-only", ...containerFlags, "src/main.ts"]);
});

Deno.test("the Dockerfile's compiled binary embeds the same permission flags", () => {
  const compiles = dockerfile.filter((i) =>
    i.stage === "compile" && i.keyword === "RUN" && i.args.startsWith("deno compile")
  );
  assert.equal(compiles.length, 1);
  const words = compiles[0].args.split("&&")[0].trim().split(/\s+/);
  const output = ["--output", "/out/customer-api"];
  assert.deepEqual(words, [
    "deno",
    "compile",
    "--frozen",
    ...output,
    ...containerFlags,
    "src/main.ts",
  ]);
});

Deno.test("deno task start, dev and compile use the same flags, with ./data and ./config", () => {
  const flags = localFlags.join(" ");
  assert.equal(tasks.start, `deno run ${flags} src/main.ts`);
  assert.equal(tasks.dev, `deno run --watch ${flags} src/main.ts`);
  assert.equal(tasks.compile, `deno compile --output dist/customer-api ${flags} src/main.ts`);
});

Deno.test("the container and the local flags differ only in the data and config paths", () => {
  const local = localFlags.map((flag) => flag.replaceAll("./data", "/data"))
    .map((flag) => flag.replaceAll("./config", "/config"));
  assert.deepEqual(local, containerFlags);
});

Deno.test("--allow-env names every variable the server reads, and no other", async () => {
  const read = new Set<string>();
  const record = (vars: Record<string, string>) => (name: string) => {
    read.add(name);
    return vars[name];
  };
  // Each key source once, with every optional feature on, so conditional reads happen too.
  const features = {
    RATE_LIMIT: "100/s",
    RATE_LIMIT_BURST: "10",
    CORS_ORIGINS: "https://a.example",
  };
  const sources: Record<string, string>[] = [
    {},
    { JWT_SECRET: TEST_SECRET },
    { JWKS_FILE: "/config/jwks.json" },
    { JWKS_URL: "https://idp.example/jwks" },
  ];
  for (const source of sources) loadConfig(record({ ...source, ...features }));
  for (const name of await literalEnvReads()) read.add(name);
  const allowed = new Set<string>(SERVER_ENV_VARS);
  assert.deepEqual([...read].filter((name) => !allowed.has(name)).sort(), [], "read, not allowed");
  assert.deepEqual([...allowed].filter((name) => !read.has(name)).sort(), [], "allowed, not read");
});

/** Names in `Deno.env.get("X")` and `env("X")`/`f(env, "X")` in the modules main.ts imports. */
async function literalEnvReads(): Promise<string[]> {
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "src/main.ts"],
    cwd: ROOT,
    stdout: "piped",
  }).output();
  assert.equal(info.code, 0, "deno info failed");
  const modules: { specifier: string }[] =
    JSON.parse(new TextDecoder().decode(info.stdout)).modules;
  const local = modules.map((m) => m.specifier).filter((s) => s.startsWith(`${ROOT.href}src/`));
  assert.ok(local.length > 10, `main.ts imports only ${local.length} local modules?`);
  const names: string[] = [];
  for (const specifier of local) {
    const text = await Deno.readTextFile(new URL(specifier));
    assert.doesNotMatch(text, /Deno\.env\.toObject/, `${specifier} reads the whole environment`);
    const reads = /(?:Deno\.env\.get\(|\benv\(|\(\s*env,)\s*"([A-Za-z_][A-Za-z0-9_]*)"/g;
    for (const match of text.matchAll(reads)) names.push(match[1]);
  }
  return names;
}

Deno.test("deno task start's flags serve from ./data and read a JWKS_FILE only under ./config", async (t) => {
  const cwd = await Deno.makeTempDir({ prefix: "customer-api-start-" });
  try {
    await t.step("it starts, serves /healthz, writes ./data and stops on SIGTERM", async () => {
      const server = await spawnStartTask(cwd, { JWT_SECRET: TEST_SECRET });
      assert.ok(server.url, `no "listening" line:\n${server.stderr()}`);
      const response = await fetch(`${server.url}/healthz`);
      await response.body?.cancel();
      assert.equal(response.status, 200);
      server.child.kill("SIGTERM");
      assert.equal(await server.exited, 0, server.stderr());
      assert.ok((await Deno.stat(`${cwd}/data/log`)).isDirectory);
    });

    const key = await newSigningKey("ES256", "k1");
    const jwks = JSON.stringify({ keys: [key.publicJwk] });
    await t.step(
      "a JWKS_FILE outside ./data and ./config refuses to start, naming the flag",
      async () => {
        await Deno.mkdir(`${cwd}/elsewhere`);
        await Deno.writeTextFile(`${cwd}/elsewhere/jwks.json`, jwks);
        const server = await spawnStartTask(cwd, { JWKS_FILE: "./elsewhere/jwks.json" });
        assert.equal(server.url, undefined);
        assert.equal(await server.exited, 78);
        assert.match(server.stderr(), /JWKS_FILE "\.\/elsewhere\/jwks\.json" cannot be read/);
        assert.match(server.stderr(), /--allow-read/);
      },
    );

    await t.step("a JWKS_FILE under ./config is read", async () => {
      await Deno.mkdir(`${cwd}/config`);
      await Deno.writeTextFile(`${cwd}/config/jwks.json`, jwks);
      const server = await spawnStartTask(cwd, { JWKS_FILE: "./config/jwks.json" });
      assert.ok(server.url, `no "listening" line:\n${server.stderr()}`);
      server.child.kill("SIGTERM");
      assert.equal(await server.exited, 0, server.stderr());
    });
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
});

interface Spawned {
  child: Deno.ChildProcess;
  /** The URL of the "listening" line, or undefined if the process ended without one. */
  url: string | undefined;
  stderr(): string;
  /** Resolves to the exit code once the process has ended and both pipes are drained. */
  exited: Promise<number>;
}

/** Runs the `start` task's command in `cwd` (so ./data is `cwd`'s), with the repo's config. */
async function spawnStartTask(cwd: string, vars: Record<string, string>): Promise<Spawned> {
  const [deno, run, ...rest] = tasks.start.split(/\s+/);
  assert.deepEqual([deno, run, rest.at(-1)], ["deno", "run", "src/main.ts"]);
  const env = Deno.env.toObject();
  for (const name of SERVER_ENV_VARS) delete env[name];
  const config = ["--config", new URL("deno.json", ROOT).pathname];
  const child = new Deno.Command(Deno.execPath(), {
    args: [run, ...config, ...rest.slice(0, -1), new URL("src/main.ts", ROOT).pathname],
    cwd,
    env: { ...env, PORT: "0", HOST: "127.0.0.1", NO_COLOR: "1", ...vars },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let errText = "";
  const errDrained = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (errText += chunk) }),
  );
  let announce: (url: string | undefined) => void = () => {};
  const listening = new Promise<string | undefined>((resolve) => announce = resolve);
  // stdout is drained for the whole life of the process, so it never blocks on a full pipe.
  const outDrained = (async () => {
    let pending = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      pending += chunk;
      let end: number;
      while ((end = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 1);
        if (line.includes('"listening"')) announce(JSON.parse(line).url);
      }
    }
    announce(undefined);
  })();
  const exited = Promise.all([child.status, errDrained, outDrained]).then(([status]) =>
    status.code
  );
  const url = await listening;
  if (url === undefined) await exited;
  return { child, url, stderr: () => errText, exited };
}
