/**
 * The console is fast: its customers view paints within 300 ms with 10,000 customers in the
 * store, a page of 100 rows renders within 50 ms, and Activity keeps up with 500 events/s while
 * keeping a bounded window of rows.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { writeEventLog } from "../../bench/support/event_log_fixture.ts";
import { ApiClient } from "../support/api.ts";
import { CHROMIUM_MISSING, launchChromium } from "../support/chromium.ts";
import { named, until } from "../support/console_page.ts";
import { makeDataDir, removeDir, startServer } from "../support/server.ts";
import { skipIf } from "../support/skips.ts";
import { makeToken } from "../support/tokens.ts";

const EVENTS_FOR_10K_LIVE = 13_500;
const RATE = 500;
const BURST_SECONDS = 2;
/** Activity's window of rows (src/console/assets/activity_view.js). */
const WINDOW = 200;

/** A User Timing entry's start, or its duration for a measure, in the page. */
async function timings(page: Page) {
  return await page.evaluate(`({
    first: performance.getEntriesByName("console:customers-first")[0]?.startTime,
    painted: performance.getEntriesByName("console:customers-painted")[0]?.startTime,
    fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime,
    rows: performance.getEntriesByName("console:customers-rows").map((m) => m.duration),
  })`) as { first: number; painted: number; fcp: number; rows: number[] };
}

/** Opens the console at the customers view and answers its timings once the rows are painted. */
async function loadCustomersView(page: Page, base: string, token: string) {
  await page.goto(`${base}/healthz`);
  await page.goto(`${base}/console#token=${token}`);
  // A mark changes no DOM, so mutation polling could miss it: polled every 10 ms instead.
  await until(
    page,
    "rows painted",
    `performance.getEntriesByName("console:customers-painted").length > 0`,
    5000,
    10,
  );
  assert.equal(await page.$$eval("tbody tr", (rows) => rows.length), 100);
  return await timings(page);
}

/** Creates `count` customers at `rate` per second, each batch of a tick at once. */
async function writeAtRate(api: ApiClient, count: number, rate: number, tag: string) {
  const tickMs = 50;
  const perTick = rate * tickMs / 1000;
  const started = performance.now();
  let lastSeq = 0;
  for (let sent = 0; sent < count; sent += perTick) {
    const due = started + (sent / perTick) * tickMs;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    const answers = await Promise.all(
      Array.from({ length: Math.min(perTick, count - sent) }, (_, i) =>
        api.post("/api/customers", {
          json: { name: `Burst ${tag} ${sent + i}`, email: `burst-${tag}-${sent + i}@example.com` },
        })),
    );
    for (const answer of answers) {
      assert.equal(answer.status, 201, answer.text);
      lastSeq = Math.max(lastSeq, Number(answer.headers.get("log-seq")));
    }
  }
  return { lastSeq, seconds: (performance.now() - started) / 1000 };
}

Deno.test(skipIf(CHROMIUM_MISSING, {
  name: "with 10,000 customers the customers view paints within 300 ms, 100 rows render within " +
    "50 ms, and Activity keeps up with 500 events/s in a bounded window",
  async fn(t) {
    const dataDir = await makeDataDir();
    try {
      const fixture = await writeEventLog(dataDir, EVENTS_FOR_10K_LIVE);
      assert.ok(fixture.live >= 10_000, `only ${fixture.live} live customers`);
      await using server = await startServer({ dataDir });
      await using chromium = await launchChromium();
      const token = await makeToken();
      const page = await chromium.browser.newPage();
      await page.setViewport({ width: 1280, height: 800 });

      await t.step(
        "first paint of the customers view ≤ 300 ms, with the browser's cache off",
        async () => {
          // The browser's own start (its first renderer for the origin) is not the console's cost.
          await page.goto(`${server.url}/healthz`);
          await page.setCacheEnabled(false);
          const loads = [];
          // The best of five: a shared test machine may stall any one load.
          for (let i = 0; i < 5; i++) loads.push(await loadCustomersView(page, server.url, token));
          await page.setCacheEnabled(true);
          await loadCustomersView(page, server.url, token);
          const cached = await loadCustomersView(page, server.url, token);
          const ms = (values: number[]) => values.map((v) => v.toFixed(0)).join(", ");
          console.log(
            `customers view (${fixture.live} customers), no cache: first contentful paint ` +
              `${ms(loads.map((l) => l.fcp))} ms, rows painted ${
                ms(loads.map((l) => l.painted))
              } ` +
              `ms; cached: rows painted ${cached.painted.toFixed(0)} ms`,
          );
          const best = Math.min(...loads.map((load) => load.painted));
          assert.ok(best <= 300, `${best} ms`);
        },
      );

      await t.step("a page of 100 rows renders within 50 ms (the median of six)", async () => {
        const durations: number[] = [];
        for (let i = 0; i < 5; i++) {
          const before = await page.$eval("tbody tr a", (a) => a.textContent);
          await (await named(page, "button", "Next page")).click();
          await until(
            page,
            "the next page",
            `document.querySelector("tbody tr a")?.textContent !== ${JSON.stringify(before)}`,
          );
        }
        durations.push(...(await timings(page)).rows);
        const median = [...durations].sort((a, b) => a - b)[Math.floor(durations.length / 2)];
        console.log(`100 rows rendered in ${durations.map((d) => d.toFixed(1)).join(", ")} ms`);
        assert.ok(median <= 50, `median ${median} ms`);
      });

      await t.step(
        "Activity keeps up with 500 events/s and keeps at most its window of rows",
        async () => {
          const api = new ApiClient(server.url, token);
          await (await named(page, "link", "Activity")).click();
          await until(
            page,
            "live",
            `document.querySelector('[role="status"]')?.textContent.startsWith("Live")`,
          );
          const cdp = await page.createCDPSession();
          const counts = async () => {
            await cdp.send("HeapProfiler.collectGarbage");
            const { nodes } = await cdp.send("Memory.getDOMCounters");
            const { usedSize } = await cdp.send("Runtime.getHeapUsage");
            return { nodes, heap: usedSize };
          };
          const rounds = [];
          for (const tag of ["a", "b"]) {
            const { lastSeq, seconds } = await writeAtRate(api, RATE * BURST_SECONDS, RATE, tag);
            const written = performance.now();
            await until(
              page,
              `seq ${lastSeq} shown`,
              `document.querySelector('tr[data-seq="${lastSeq}"]') !== null`,
              1000,
            );
            const lag = performance.now() - written;
            const rows = await page.$$eval("table.feed tbody tr", (trs) => trs.length);
            rounds.push({ rate: RATE * BURST_SECONDS / seconds, lag, rows, ...await counts() });
          }
          console.log(
            "Activity at 500 events/s: " +
              rounds.map((r) =>
                `${r.rate.toFixed(0)}/s written, last shown ${r.lag.toFixed(0)} ms after, ` +
                `${r.rows} rows, ${r.nodes} DOM nodes, ${(r.heap / 1e6).toFixed(1)} MB heap`
              ).join("; "),
          );
          for (const round of rounds) assert.equal(round.rows, WINDOW);
          // Twice the events, no more nodes and no growing heap: the window bounds both.
          assert.ok(rounds[1].nodes <= rounds[0].nodes * 1.05, JSON.stringify(rounds));
          assert.ok(rounds[1].heap <= rounds[0].heap * 1.25, JSON.stringify(rounds));
        },
      );
    } finally {
      await removeDir(dataDir);
    }
  },
}));
