/**
 * The architecture as a test: which folder of src/ may import which, read from the import
 * statements of every file, and no import cycles.
 */
import assert from "node:assert/strict";
import {
  cyclesOf,
  type Import,
  importsUnder,
  sourceFiles,
  specifiersOf,
} from "./support/import_graph.ts";

const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname).replace(/\/$/, "");

/** One dependency rule: `breaks` says whether an import from one file to a target breaks it. */
interface Rule {
  name: string;
  breaks: (from: string, to: string) => boolean;
}

const under = (folder: string, path: string) => path.startsWith(`src/${folder}/`);
const inSrc = (path: string) => path.startsWith("src/");
const backendOf = (path: string) => /^src\/store\/([^/]+)\//.exec(path)?.[1];

/**
 * The layers of src/, ground first: a file imports only from its own layer or the ones below, so
 * no import points up (a feature's errors into the HTTP kernel, say).
 */
const LAYERS: readonly (readonly string[])[] = [
  ["domain/", "lib/"],
  ["store/", "read_model/", "search/"],
  ["http/"],
  ["openapi/", "config.ts", "settings/"],
  ["ops/"],
  ["auth/"],
  ["customers/", "feed/", "console/", "app.ts"],
  ["webhooks/"],
  ["cli/", "main.ts"],
];

/** The layer of a file of src/ (undefined for a package or a file outside src/). */
function layerOf(path: string): number | undefined {
  if (!inSrc(path)) return undefined;
  const rest = path.slice("src/".length);
  const layer = LAYERS.findIndex((parts) => parts.some((part) => rest.startsWith(part)));
  return layer === -1 ? undefined : layer;
}

/** The rules, inner layers first. */
const RULES: readonly Rule[] = [
  {
    name: "domain/ imports nothing outside domain/ (no package either)",
    breaks: (from, to) => under("domain", from) && !under("domain", to),
  },
  {
    name: "store/ (the port and every backend) imports no service, read model, HTTP or root file",
    breaks: (from, to) =>
      under("store", from) &&
      (["customers", "read_model", "http"].some((folder) => under(folder, to)) ||
        to === "src/app.ts" || to === "src/main.ts"),
  },
  {
    name: "a store backend imports no other backend",
    breaks: (from, to) =>
      backendOf(from) !== undefined && backendOf(to) !== undefined &&
      backendOf(from) !== backendOf(to),
  },
  {
    name: "lib/ imports nothing from the rest of src/",
    breaks: (from, to) => under("lib", from) && inSrc(to) && !under("lib", to),
  },
  {
    name:
      "no import points up a layer (domain, lib < store, read_model, search < http < openapi, config, settings " +
      "< ops < auth < customers, feed, console, app < webhooks < cli, main)",
    breaks: (from, to) => {
      const [a, b] = [layerOf(from), layerOf(to)];
      return a !== undefined && b !== undefined && b > a;
    },
  },
];

/**
 * Imports allowed against a rule, each with its reason; none today. An entry that no longer
 * happens fails the test as well, so the list cannot go stale.
 */
const KNOWN_VIOLATIONS: readonly string[] = [];

/** The edges of the graph that break the rule, as "from → to". */
function violations(rule: Rule, imports: readonly Import[]): string[] {
  return imports.filter(({ from, to }) => rule.breaks(from, to)).map(({ from, to }) =>
    `${from} → ${to}`
  );
}

const imports = await importsUnder(ROOT, "src");

Deno.test("src/ has only main.ts, config.ts and app.ts at its root", async () => {
  const root: string[] = [];
  for await (const entry of Deno.readDir(`${ROOT}/src`)) {
    if (!entry.isDirectory) root.push(entry.name);
  }
  assert.deepEqual(root.sort(), ["app.ts", "config.ts", "main.ts"]);
});

for (const rule of RULES) {
  Deno.test(`import rule: ${rule.name}`, () => {
    const found = violations(rule, imports);
    const unexpected = found.filter((edge) => !KNOWN_VIOLATIONS.includes(edge));
    assert.deepEqual(unexpected, [], `imports breaking "${rule.name}":\n${unexpected.join("\n")}`);
  });
}

Deno.test("every entry of KNOWN_VIOLATIONS still happens (remove those that do not)", () => {
  const found = RULES.flatMap((rule) => violations(rule, imports));
  const stale = KNOWN_VIOLATIONS.filter((edge) => !found.includes(edge));
  assert.deepEqual(
    stale,
    [],
    `no longer violated, remove from KNOWN_VIOLATIONS:\n${stale.join("\n")}`,
  );
});

Deno.test("src/ has no import cycles", () => {
  const cycles = cyclesOf(imports.filter((edge) => inSrc(edge.to)));
  assert.deepEqual(cycles.map((cycle) => cycle.join(" → ")), []);
});

Deno.test("each rule reports an import that breaks it and passes one that keeps it", () => {
  const cases: [Rule, Import, Import][] = [
    [RULES[4], { from: "src/http/problem_types.ts", to: "src/feed/feed_errors.ts" }, {
      from: "src/feed/feed_problems.ts",
      to: "src/http/problem_types.ts",
    }],
    [RULES[0], { from: "src/domain/customer.ts", to: "src/http/errors.ts" }, {
      from: "src/domain/decide.ts",
      to: "src/domain/customer.ts",
    }],
    [RULES[0], { from: "src/domain/customer.ts", to: "ulid" }, {
      from: "src/domain/events.ts",
      to: "src/domain/customer.ts",
    }],
    [RULES[1], { from: "src/store/jsonl/replay.ts", to: "src/customers/customer_service.ts" }, {
      from: "src/store/jsonl/replay.ts",
      to: "src/domain/events.ts",
    }],
    [RULES[1], { from: "src/store/event_store.ts", to: "src/read_model/projection.ts" }, {
      from: "src/store/event_store.ts",
      to: "src/store/store_errors.ts",
    }],
    [RULES[1], { from: "src/store/postgres/pg_store.ts", to: "src/http/problem.ts" }, {
      from: "src/store/postgres/pg_store.ts",
      to: "src/store/event_store.ts",
    }],
    [RULES[1], { from: "src/store/jsonl/lock_file.ts", to: "src/main.ts" }, {
      from: "src/store/jsonl/lock_file.ts",
      to: "src/lib/fs_util.ts",
    }],
    [RULES[2], { from: "src/store/postgres/pg_store.ts", to: "src/store/jsonl/event_codec.ts" }, {
      from: "src/store/jsonl/replay.ts",
      to: "src/store/jsonl/segments.ts",
    }],
    [RULES[3], { from: "src/lib/bytes.ts", to: "src/ops/log.ts" }, {
      from: "src/lib/fs_util.ts",
      to: "node:path",
    }],
  ];
  for (const [rule, bad, good] of cases) {
    assert.deepEqual(violations(rule, [bad, good]), [`${bad.from} → ${bad.to}`], rule.name);
  }
  const cycle = [
    { from: "src/a.ts", to: "src/b.ts" },
    { from: "src/b.ts", to: "src/c.ts" },
    { from: "src/c.ts", to: "src/a.ts" },
    { from: "src/c.ts", to: "src/d.ts" },
  ];
  assert.deepEqual(cyclesOf(cycle), [["src/a.ts", "src/b.ts", "src/c.ts", "src/a.ts"]]);
  assert.deepEqual(cyclesOf([{ from: "src/a.ts", to: "src/a.ts" }]), [["src/a.ts", "src/a.ts"]]);
  assert.deepEqual(cyclesOf(cycle.slice(0, 2)), []);
});

Deno.test("the import reader reads every import and re-export form, and no prose", () => {
  const source = [
    'import a from "./a.ts";',
    'import type { B } from "../b.ts";',
    "import {\n  // why\n  c,\n  d as e,\n} from './c.ts';",
    'import * as f from "npm:f";',
    'import "./side_effect.ts";',
    'export { g } from "./g.ts";',
    'export * from "./h.ts";',
    'const i = await import("./i.ts");',
    '/**\n * Read from "not/an/import.ts".\n */',
    "export const text = \"import x from './not.ts'\";",
    'export interface J {\n  /** Comes from "nowhere.ts" */\n  k: string;\n}',
  ].join("\n");
  assert.deepEqual(specifiersOf(source), [
    "./a.ts",
    "../b.ts",
    "./c.ts",
    "npm:f",
    "./side_effect.ts",
    "./g.ts",
    "./h.ts",
    "./i.ts",
  ]);
});

Deno.test("the import reader finds exactly the imports deno itself sees in src/", async () => {
  const files = await sourceFiles(ROOT, "src");
  const dir = await Deno.makeTempDir({ prefix: "architecture-" });
  try {
    const entry = `${dir}/all.ts`;
    await Deno.writeTextFile(
      entry,
      files.map((file) => `import "file://${ROOT}/${file}";\n`).join(""),
    );
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", `${ROOT}/deno.json`, entry],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(output.success, new TextDecoder().decode(output.stderr));
    const seen = denoImports(JSON.parse(new TextDecoder().decode(output.stdout)));
    const read = new Set(imports.map(({ from, to }) => `${from} → ${to}`));
    assert.deepEqual([...read].sort(), [...seen].sort());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

interface DenoInfo {
  modules: {
    specifier: string;
    dependencies?: {
      specifier: string;
      code?: { specifier: string };
      type?: { specifier: string };
    }[];
  }[];
}

/** The src/ edges of `deno info --json`: local targets repo-relative, packages as written. */
function denoImports(info: DenoInfo): Set<string> {
  const prefix = `file://${ROOT}/`;
  const edges = new Set<string>();
  for (const module of info.modules) {
    if (!module.specifier.startsWith(`${prefix}src/`)) continue;
    const from = module.specifier.slice(prefix.length);
    for (const dependency of module.dependencies ?? []) {
      const resolved = (dependency.code ?? dependency.type)!.specifier;
      const to = resolved.startsWith(prefix) ? resolved.slice(prefix.length) : dependency.specifier;
      edges.add(`${from} → ${to}`);
    }
  }
  return edges;
}
