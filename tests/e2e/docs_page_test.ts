/** GET /docs in real headless Chromium: it loads cleanly, alone, and shows every operation. */
import assert from "node:assert/strict";
import { ApiClient } from "../support/api.ts";
import { CHROMIUM_MISSING, launchChromium, watchProblems } from "../support/chromium.ts";
import { startServer } from "../support/server.ts";
import { skipIf } from "../support/skips.ts";

const METHODS = ["get", "head", "post", "put", "patch", "delete"];

/** What the browser saw of one page. */
interface PageVisit {
  status: number;
  headers: Record<string, string>;
  title: string;
  /** Console errors, uncaught page errors and failed requests. */
  problems: string[];
  /** Every URL the page requested, the page itself included. */
  requested: string[];
  /** Each `section.op`: its `data-operation` ("get /path"), visibility and text. */
  operations: { operation: string; visible: boolean; text: string }[];
}

/** Visits `url` in a fresh Chromium profile. */
async function visitInChromium(url: string): Promise<PageVisit> {
  await using chromium = await launchChromium();
  const page = await chromium.browser.newPage();
  const problems = watchProblems(page);
  const requested: string[] = [];
  page.on("request", (request) => requested.push(request.url()));
  const response = await page.goto(url, { waitUntil: "load" });
  // Late console messages (a CSP violation, a missing favicon) arrive after "load".
  await new Promise((resolve) => setTimeout(resolve, 300));
  const operations = await page.$$eval("section.op", (sections) =>
    sections.map((section) => ({
      operation: section.getAttribute("data-operation") ?? "",
      visible: section.checkVisibility(),
      text: (section as unknown as { innerText: string }).innerText,
    })));
  return {
    status: response?.status() ?? 0,
    headers: response?.headers() ?? {},
    title: await page.title(),
    problems,
    requested,
    operations,
  };
}

Deno.test(skipIf(CHROMIUM_MISSING, {
  name: "/docs loads in headless Chromium with no console errors, nothing from elsewhere, " +
    "and shows every operation of the OpenAPI document",
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
}));

// deno-lint-ignore no-explicit-any -- the served document is walked as plain JSON
type Operations = Record<string, any>;
