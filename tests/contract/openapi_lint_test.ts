/**
 * Spectral and Redocly lint the document a real server serves (GET /api/openapi.json) with zero
 * errors and zero warnings, each under the repository's ruleset (.spectral.yaml, redocly.yaml).
 */
import assert from "node:assert/strict";
import { startServer } from "../support/server.ts";

// Pinned, so a new release's new rules cannot turn a green build red overnight.
const SPECTRAL = "@stoplight/spectral-cli@6.16.3";
const REDOCLY = "@redocly/cli@2.77.0";
const ROOT = decodeURIComponent(new URL("../../", import.meta.url).pathname);

interface Output {
  code: number;
  stdout: string;
  stderr: string;
}

/** Fetches the served document into a temp directory, runs `lint` on it, and cleans up. */
async function withServedDocument(lint: (file: string, dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "customer-api-lint-" });
  try {
    await using server = await startServer();
    const response = await fetch(`${server.url}/api/openapi.json`);
    assert.equal(response.status, 200);
    const file = `${dir}/openapi.json`;
    await Deno.writeTextFile(file, await response.text());
    await lint(file, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function npx(args: string[], cwd: string): Promise<Output> {
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command("npx", {
      args: ["-y", ...args],
      cwd,
      stdin: "null",
      env: { NO_COLOR: "1", REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    }).output();
  } catch (error) {
    throw new Error(`The OpenAPI lint needs npx (it comes with Node.js): ${error}`);
  }
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** The JSON a linter printed, which may follow other lines. */
function parsed<T>(output: Output, start: "[" | "{"): T {
  try {
    return JSON.parse(output.stdout.slice(output.stdout.indexOf(start)));
  } catch {
    throw new Error(`The linter printed no results (exit ${output.code}):\n${output.stderr}`);
  }
}

Deno.test("Spectral (spectral:oas) finds no error and no warning in the served document", async () => {
  await withServedDocument(async (file, dir) => {
    const output = await npx(
      [SPECTRAL, "lint", "--ruleset", `${ROOT}.spectral.yaml`, "--format", "json", "--quiet", file],
      dir,
    );
    const results = parsed<{ code: string; message: string; severity: number; path: string[] }[]>(
      output,
      "[",
    );
    // Severity 0 is an error, 1 a warning; hints and infos are advice.
    const problems = results.filter((result) => result.severity <= 1)
      .map((result) => `${result.code}: ${result.message} at ${result.path.join(".")}`);
    assert.deepEqual(problems, [], "Spectral's errors and warnings");
    assert.equal(output.code, 0, output.stderr);
  });
});

Deno.test("Redocly (recommended) finds no error and no warning in the served document", async () => {
  await withServedDocument(async (file, dir) => {
    const output = await npx(
      [REDOCLY, "lint", "--config", `${ROOT}redocly.yaml`, "--format", "json", file],
      dir,
    );
    const report = parsed<{
      problems: { ruleId: string; message: string; location: { pointer: string }[] }[];
    }>(output, "{");
    const problems = report.problems.map((problem) =>
      `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`
    );
    assert.deepEqual(problems, [], "Redocly's errors and warnings");
    assert.equal(output.code, 0, output.stderr);
  });
});
