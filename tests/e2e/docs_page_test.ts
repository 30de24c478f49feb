/** GET /docs in real headless Chromium: it loads cleanly, alone, and shows every operation. */
import assert from "node:assert/strict";
import { ApiClient } from "../support/api.ts";
import type { PageVisit } from "../support/docs_browser.ts";
import { startServer } from "../support/server.ts";

const CHROMIUM = "/usr/bin/chromium";
const REPO_ROOT = decodeURIComponent(new URL("../../", import.meta.url).pathname);
const METHODS = ["get", "head", "post", "put", "patch", "delete"];

const missing = await Deno.stat(CHROMIUM).then(() => false, () => true);
if (missing) {
  console.warn(`SKIPPED the /docs browser test: ${CHROMIUM} is missing (apt-get install chromium)`);
}

/** Visits `url` in a fresh Chromium profile, driven from a child process. */
async function visitInChromium(url: string): Promise<PageVisit> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", "tests/support/docs_browser.ts", url],
    cwd: REPO_ROOT,
    stdin: "null",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  if (!output.success) {
    const stderr = new TextDecoder().decode(output.stderr);
    throw new Error(`The browser run failed (exit ${output.code}):\n${stderr}\n${stdout}`);
  }
  return JSON.parse(stdout.trim().split("\n").pop()!);
}

Deno.test({
  name: "/docs loads in headless Chromium with no console errors, nothing from elsewhere, " +
    "and shows every operation of the OpenAPI document",
  ignore: missing,
  async fn() {
    await using server = await startServer();
    const document = (await new ApiClient(server.url, null).get("/api/openapi.json")).body;
    const page = await visitInChromium(`${server.url}/docs`).catch(async (error) => {
      const { code, stdout, stderr } = await server.stop();
      throw new Error(`${error.message}\n--- server (exit ${code}) ---\n${stderr}\n${stdout}`);
    });

    assert.equal(page.status, 200);
    assert.equal(page.headers["content-type"], "text/html; charset=utf-8");
    assert.match(page.headers["content-security-policy"], /default-src 'none'/);
    assert.deepEqual(page.problems, [], "the page logged errors");
    const origin = new URL(server.url).origin;
    const foreign = page.requested.filter((url) => !url.startsWith(`${origin}/`));
    assert.deepEqual(foreign, [], "the page loaded something from elsewhere");
    assert.match(page.title, /customer-api/);

    const shown = new Map(page.operations.map((op) => [op.operation, op]));
    let operations = 0;
    for (const [path, item] of Object.entries(document.paths) as [string, Operations][]) {
      for (const method of METHODS.filter((m) => item[m] !== undefined)) {
        operations++;
        const op = item[method];
        const section = shown.get(`${method} ${path}`);
        assert.ok(section?.visible, `${method.toUpperCase()} ${path} is not shown`);
        // A parameter's name, not its component's key (the feed's `after` is `feed_after`).
        const parameters = [...item.parameters ?? [], ...op.parameters ?? []]
          .map((parameter) => document.components.parameters[parameter.$ref.split("/").pop()].name);
        const expected = [method.toUpperCase(), path, op.summary, ...parameters];
        for (const text of [...expected, ...Object.keys(op.responses)]) {
          assert.ok(section.text.includes(text), `${method} ${path} does not show "${text}"`);
        }
      }
    }
    assert.ok(operations >= 16, `only ${operations} operations in the document`);
    assert.equal(page.operations.length, operations, "the page shows operations not documented");
  },
});

// deno-lint-ignore no-explicit-any -- the served document is walked as plain JSON
type Operations = Record<string, any>;
