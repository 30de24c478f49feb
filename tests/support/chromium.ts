/**
 * Headless Chromium driven by puppeteer-core, for the tests of the pages the service serves: /docs
 * and /console (tests/support/chromium_path.ts says which binary).
 */
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { findChromium } from "./chromium_path.ts";

export const CHROMIUM = await findChromium();

/** Why the browser tests cannot run here (for skipIf), or undefined when they can. */
export const CHROMIUM_MISSING = CHROMIUM === undefined
  ? "no Chromium: CHROMIUM is unset and no `chromium` is on PATH"
  : undefined;

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
  if (CHROMIUM === undefined) throw new Error(CHROMIUM_MISSING);
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
