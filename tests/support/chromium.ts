/**
 * Debian's headless Chromium (`apt-get install chromium`) driven by puppeteer-core, for the tests
 * of the pages the service serves: /docs and /console.
 */
import puppeteer, { type Browser, type Page } from "puppeteer-core";

export const CHROMIUM = "/usr/bin/chromium";

/** True when Chromium is not installed; browser tests are then skipped with a warning. */
export const chromiumMissing = await Deno.stat(CHROMIUM).then(() => false, () => true);

/** Quiet, offline, sandbox-free (containers run as root): nothing but the page under test. */
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

/** A browser in a fresh profile; disposing of it closes it and removes the profile. */
export interface TestBrowser extends AsyncDisposable {
  browser: Browser;
  close(): Promise<void>;
}

/** Launches Chromium with a temporary profile. */
export async function launchChromium(): Promise<TestBrowser> {
  const userDataDir = await Deno.makeTempDir({ prefix: "customer-api-chromium-" });
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir,
    args: CHROMIUM_ARGS,
  });
  let closing: Promise<void> | undefined;
  const close = () =>
    closing ??= (async () => {
      await browser.close();
      await Deno.remove(userDataDir, { recursive: true }).catch(() => {});
    })();
  return { browser, close, [Symbol.asyncDispose]: close };
}

/** What went wrong on a page: console errors, uncaught errors and failed requests. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${(error as Error).message}`));
  page.on("requestfailed", (request) => {
    problems.push(`request failed (${request.failure()?.errorText}): ${request.url()}`);
  });
  return problems;
}
