/** The served OpenAPI document lints clean with Spectral's `spectral:oas` ruleset. */
import assert from "node:assert/strict";
import { API_DOCUMENT } from "../support/api_document.ts";

const SPECTRAL = "@stoplight/spectral-cli@6.16.3";
const RULESET = decodeURIComponent(new URL("../../.spectral.yaml", import.meta.url).pathname);
// OpenAPI 3.1 lets non-OAuth2 security requirements name roles (our scopes), but this rule
// still expects OAuth2 flows to declare them; it is a warning and the one we accept.
const TOLERATED = /^oas3-operation-security-defined:"customers:(read|write)" must be listed/;

const npx = await new Deno.Command("npx", { args: ["--version"], stdout: "null", stderr: "null" })
  .output().then((output) => output.success, () => false);
if (!npx) console.warn("SKIPPED the Spectral lint: npx is not installed (it comes with Node.js)");

interface SpectralResult {
  code: string;
  message: string;
  severity: number;
  path: string[];
}

Deno.test({
  name: "Spectral (spectral:oas) reports no errors and no unexplained warnings on the document",
  ignore: !npx,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "customer-api-spectral-" });
    try {
      const file = `${dir}/openapi.json`;
      await Deno.writeTextFile(file, JSON.stringify(API_DOCUMENT));
      const output = await new Deno.Command("npx", {
        args: ["-y", SPECTRAL, "lint", "--ruleset", RULESET, "--format", "json", "--quiet", file],
        cwd: dir,
        stdin: "null",
      }).output();
      const stdout = new TextDecoder().decode(output.stdout);
      const stderr = new TextDecoder().decode(output.stderr);
      let results: SpectralResult[];
      try {
        results = JSON.parse(stdout.slice(stdout.indexOf("[")));
      } catch {
        throw new Error(`Spectral printed no results (exit ${output.code}):\n${stderr}\n${stdout}`);
      }
      const describe = (r: SpectralResult) => `${r.code}:${r.message} at ${r.path.join(".")}`;
      const errors = results.filter((r) => r.severity === 0).map(describe);
      assert.deepEqual(errors, [], "Spectral errors");
      const warnings = results.filter((r) => r.severity === 1).map(describe)
        .filter((warning) => !TOLERATED.test(warning));
      assert.deepEqual(warnings, [], "Spectral warnings");
      assert.equal(output.code, 0, stderr);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
