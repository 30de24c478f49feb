/**
 * Loads a page in Debian's headless Chromium through playwright-core and prints what it saw as
 * one JSON line: `deno run --allow-all tests/support/docs_browser.ts <url>`. It runs as its own
 * process because playwright-core reads /proc/sys when imported, which Deno allows only with
 * --allow-all, more than the test task grants. Import only its types from tests.
 */
import { chromium } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** What the browser saw of one page. */
export interface PageVisit {
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

async function visit(url: string): Promise<PageVisit> {
  const userDataDir = await Deno.makeTempDir({ prefix: "customer-api-chromium-" });
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  try {
    const page = context.pages()[0] ?? await context.newPage();
    const problems: string[] = [];
    const requested: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console error: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("request", (request) => requested.push(request.url()));
    page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()}`));
    const response = await page.goto(url, { waitUntil: "load" });
    // Late console messages (a CSP violation, a missing favicon) arrive after "load".
    await page.waitForTimeout(300);
    const operations = [];
    for (const section of await page.locator("section.op").all()) {
      operations.push({
        operation: await section.getAttribute("data-operation") ?? "",
        visible: await section.isVisible(),
        text: await section.innerText(),
      });
    }
    return {
      status: response?.status() ?? 0,
      headers: response?.headers() ?? {},
      title: await page.title(),
      problems,
      requested,
      operations,
    };
  } finally {
    await context.close();
    await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
  }
}

if (import.meta.main) {
  console.log(JSON.stringify(await visit(Deno.args[0])));
}
