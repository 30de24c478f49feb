/**
 * Drives the browser console (/console) in Chromium the way its users and screen readers find
 * things: by role and accessible name. Also: axe-core, the 360 px check and screenshots.
 */
import assert from "node:assert/strict";
import axe from "axe-core";
import type { Page } from "puppeteer-core";

/** Set to 1 to write a PNG of each view to docs/console/ (for docs/console.md). */
const SCREENSHOTS = Deno.env.get("CONSOLE_SCREENSHOTS") === "1";
/** The views also pictured at 360 px wide. */
const NARROW_PICTURES = new Set(["customers", "customer"]);
const SCREENSHOT_DIR = decodeURIComponent(new URL("../../docs/console/", import.meta.url).pathname);

/** The element with this role and accessible name, once it is there. */
export async function named(
  page: Page,
  role: string,
  name: string,
  timeout = 5000,
) {
  const found = await page.waitForSelector(`::-p-aria([name="${name}"][role="${role}"])`, {
    timeout,
  }).catch(() => null);
  if (found === null) {
    const text = await page.evaluate("document.body.innerText").catch(() => "");
    throw new Error(`No ${role} named "${name}" within ${timeout} ms. The page says:\n${text}`);
  }
  return found!;
}

/** Whether an element with this role and name is on the page now. */
export async function hasNamed(page: Page, role: string, name: string): Promise<boolean> {
  return (await page.$$(`::-p-aria([name="${name}"][role="${role}"])`)).length > 0;
}

/** Replaces a text field's value as a user would: select all, type. */
export async function fill(page: Page, role: string, name: string, text: string): Promise<void> {
  const control = await named(page, role, name);
  await control.click({ count: 3 });
  await page.keyboard.down("Control");
  await page.keyboard.press("A");
  await page.keyboard.up("Control");
  await page.keyboard.press("Backspace");
  if (text !== "") await control.type(text);
}

/** Waits until `predicate` (run in the page) is true, or fails naming `what`. */
export async function until(
  page: Page,
  what: string,
  predicate: string,
  timeout = 5000,
  polling: "mutation" | number = "mutation",
): Promise<void> {
  try {
    await page.waitForFunction(predicate, { timeout, polling });
  } catch {
    const text = await page.evaluate("document.body.innerText").catch(() => "");
    throw new Error(`${what}: not within ${timeout} ms. The page says:\n${text}`);
  }
}

/** The text of the page's alert messages that are not empty. */
export async function alerts(page: Page): Promise<string[]> {
  return await page.$$eval(
    '[role="alert"]',
    (elements) =>
      elements.map((element) => element.textContent ?? "").filter((text) => text !== ""),
  );
}

/** One axe-core violation, as reported. */
export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core on the page and answers its serious and critical violations. Its source goes in
 * through the DevTools protocol, which the page's CSP does not govern; the page itself stays as
 * served.
 */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  const loaded = await page.evaluate("typeof axe === 'object'");
  if (!loaded) await page.evaluate(axe.source);
  const violations = await page.evaluate(`axe.run(document).then((result) =>
    result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((node) => String(node.target)),
    })))`) as Violation[];
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/** How much wider than the viewport the page is, in CSS pixels (0: no horizontal scrolling). */
export async function horizontalOverflow(page: Page): Promise<number> {
  return await page.evaluate("document.documentElement.scrollWidth - innerWidth") as number;
}

/** Checks a view at 360 px wide: no horizontal overflow. Restores the viewport after. */
export async function assertFitsNarrowScreen(page: Page, view: string): Promise<void> {
  const before = page.viewport();
  await page.setViewport({ width: 360, height: 740 });
  try {
    const overflow = await horizontalOverflow(page);
    assert.ok(overflow <= 0, `the ${view} view is ${overflow} px wider than a 360 px screen`);
    if (NARROW_PICTURES.has(view)) await screenshot(page, `${view}-360`);
  } finally {
    if (before) await page.setViewport(before);
  }
}

/** Writes docs/console/<name>.png when CONSOLE_SCREENSHOTS=1. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  await Deno.mkdir(SCREENSHOT_DIR, { recursive: true });
  // Focus rings and the caret are not part of the picture.
  await page.evaluate("document.activeElement?.blur?.()");
  await page.screenshot({ path: `${SCREENSHOT_DIR}${name}.png`, fullPage: true });
}
