/**
 * The browser console (contract §12) in headless Chromium against the real server: elements are
 * found by their accessible names, every view is checked with axe-core and at 360 px wide.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { ApiClient } from "../support/api.ts";
import { CHROMIUM_MISSING, launchChromium, watchProblems } from "../support/chromium.ts";
import {
  alerts,
  assertFitsNarrowScreen,
  fill,
  hasNamed,
  named,
  screenshot,
  seriousViolations,
  until,
} from "../support/console_page.ts";
import { makeDataDir, removeDir, startServer } from "../support/server.ts";
import { skipIf } from "../support/skips.ts";
import { makeToken } from "../support/tokens.ts";
import { Receiver, verify } from "../support/webhook_receiver.ts";

const EVERYTHING = "customers:read customers:write webhooks:manage";
const XSS_NAME = "<img src=x onerror=alert(1)>";
/** The refusals the steps provoke, and the event stream closed on leaving Activity. */
const PROVOKED = /status of (400|401|412|422)|net::ERR_ABORTED\): \S+\/api\/events\?/;

/** Checks a view as everyone may meet it: no serious accessibility fault, fits 360 px. */
async function assertViewUsable(page: Page, view: string): Promise<void> {
  const violations = await seriousViolations(page);
  assert.deepEqual(violations, [], `axe-core on the ${view} view`);
  await screenshot(page, view);
  await assertFitsNarrowScreen(page, view);
}

/** Opens `/console#…` in a new tab (its own sessionStorage) and waits for `heading`. */
async function openTab(page: Page, url: string, heading: string): Promise<void> {
  await page.setViewport({ width: 1280, height: 800 });
  await page.goto(url);
  await named(page, "heading", heading);
}

Deno.test(skipIf(CHROMIUM_MISSING, {
  name: "the console signs in, finds, creates, edits, deletes and shows history, Activity and " +
    "webhooks, marks API errors on fields, renders values as text, offers only what the " +
    "token's scopes allow, and passes axe-core at 360 px",
  async fn(t) {
    await using server = await startServer({ env: { WEBHOOK_ALLOW_PRIVATE: "1" } });
    await using chromium = await launchChromium();
    const receiver = new Receiver();
    const token = await makeToken({ scope: EVERYTHING, sub: "console-tester" });
    const api = new ApiClient(server.url, token);
    const origin = new URL(server.url).origin;
    const page = await chromium.browser.newPage();
    const problems = watchProblems(page);
    const foreign: string[] = [];
    const dialogs: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(`${origin}/`)) foreign.push(request.url());
    });
    page.on("dialog", (dialog) => {
      dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      dialog.dismiss();
    });
    const ada = await api.create({
      name: "Ada Lovelace",
      email: "ada@example.com",
      phone: "+442079460958",
    });
    await api.create({ name: "Grace Hopper", email: "grace@example.com" });
    const xss = await api.create({ name: XSS_NAME, email: "xss@example.com" });

    try {
      await t.step(
        "a refused token shows the API's detail in an alert; a good one signs in, kept in sessionStorage only",
        async () => {
          await openTab(page, `${server.url}/console`, "Sign in");
          await assertViewUsable(page, "sign-in");
          await fill(page, "textbox", "Access token", "not-a-token");
          await (await named(page, "button", "Sign in")).click();
          await until(
            page,
            "the refusal is shown",
            `[...document.querySelectorAll('[role="alert"]')].some((a) => a.textContent !== "")`,
          );
          const shown = await alerts(page);
          const refused = await api.get("/api/customers", { token: "not-a-token" });
          assert.ok(shown.some((text) => text.includes(refused.body.detail)), `alerts: ${shown}`);

          // By keyboard alone: the refusal left focus in the field; Enter submits.
          const focused = await page.evaluate("document.activeElement?.name");
          assert.equal(focused, "token", "focus did not return to the token field");
          await page.keyboard.down("Control");
          await page.keyboard.press("A");
          await page.keyboard.up("Control");
          await page.keyboard.type(token);
          await page.keyboard.press("Enter");
          await named(page, "heading", "Customers");
          const stored = await page.evaluate(`({
          session: Object.values(sessionStorage),
          local: localStorage.length,
          cookie: document.cookie,
          url: location.href,
        })`) as { session: string[]; local: number; cookie: string; url: string };
          assert.deepEqual(stored.session, [token]);
          assert.equal(stored.local, 0);
          assert.equal(stored.cookie, "");
          assert.ok(!stored.url.includes(token));
        },
      );

      await t.step(
        "Customers lists name, email and phone; Search narrows it; values render as text",
        async () => {
          await until(page, "three rows", `document.querySelectorAll("tbody tr").length === 3`);
          const rows = await page.$$eval(
            "tbody tr",
            (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)),
          );
          assert.deepEqual(rows, [
            ["Ada Lovelace", "ada@example.com", "+442079460958"],
            ["Grace Hopper", "grace@example.com", "—"],
            [XSS_NAME, "xss@example.com", "—"],
          ]);
          assert.equal(
            await page.$$eval("main img", (images) => images.length),
            0,
            "an API value became markup",
          );
          await assertViewUsable(page, "customers");

          await fill(page, "searchbox", "Search", "hopper");
          await until(
            page,
            "only Grace is listed",
            `document.querySelectorAll("tbody tr").length === 1 && document.querySelector("tbody tr").textContent.includes("Grace Hopper")`,
          );
          await fill(page, "searchbox", "Search", "");
          await until(
            page,
            "all are listed again",
            `document.querySelectorAll("tbody tr").length === 3`,
          );
        },
      );

      await t.step(
        "Search takes an expression as a query, once typing stops, and shows a 400 beside the field",
        async () => {
          const searches: string[] = [];
          const record = (request: { url(): string }) => {
            if (request.url().includes("/api/customers?")) searches.push(request.url());
          };
          page.on("request", record);
          await fill(page, "searchbox", "Search", 'phone:"+442079460958" OR email~"grace"');
          await until(
            page,
            "Ada and Grace are listed",
            `document.querySelectorAll("tbody tr").length === 2 && !document.querySelector("tbody").textContent.includes("xss@")`,
          );
          page.off("request", record);
          assert.equal(searches.length, 1, `one request once typing stopped: ${searches}`);
          assert.equal(
            new URL(searches[0]).searchParams.get("query"),
            'phone:"+442079460958" OR email~"grace"',
          );
          await fill(page, "searchbox", "Search", "name:");
          await until(
            page,
            "the field is marked invalid",
            `document.querySelector('input[type="search"]').getAttribute("aria-invalid") === "true"`,
          );
          const beside = await page.evaluate(
            `document.getElementById(document.querySelector('input[type="search"]')` +
              `.getAttribute("aria-describedby").split(" ").at(-1)).textContent`,
          );
          assert.equal(beside, "offset 5: expected a value after ':'");
          await fill(page, "searchbox", "Search", "");
          await until(
            page,
            "all are listed again, the field valid",
            `document.querySelectorAll("tbody tr").length === 3 && !document.querySelector('input[type="search"]').hasAttribute("aria-invalid")`,
          );
        },
      );

      await t.step(
        "a customer named like markup shows exactly that name, and no dialog opens",
        async () => {
          await page.evaluate(`location.hash = "#/customers/${xss.id}"`);
          await named(page, "heading", XSS_NAME);
          assert.equal(await page.$eval("h1", (h1) => h1.textContent), XSS_NAME);
          assert.equal(await page.$$eval("main img", (images) => images.length), 0);
          await new Promise((resolve) => setTimeout(resolve, 200));
          assert.deepEqual(dialogs, []);
        },
      );

      await t.step(
        "New customer: a bad email's 422 marks the Email field with the API's message; Save then creates",
        async () => {
          await (await named(page, "link", "Customers")).click();
          await (await named(page, "button", "New customer")).click();
          await fill(page, "textbox", "Name", "Edsger Dijkstra");
          await fill(page, "textbox", "Email", "not-an-email");
          await fill(page, "textbox", "Phone", "+31205550100");
          await (await named(page, "button", "Save")).click();
          await until(
            page,
            "the email is marked",
            `document.querySelector('input[name="email"]').getAttribute("aria-invalid") === "true"`,
          );
          const expected = await api.post("/api/customers", {
            json: { name: "x", email: "not-an-email" },
          });
          assert.equal(expected.status, 422);
          const message = expected.body.errors.find((e: { pointer: string }) =>
            e.pointer === "/email"
          ).detail;
          const described = await page.evaluate(`(() => {
            const input = document.querySelector('input[name="email"]');
            return input.getAttribute("aria-describedby").split(" ")
              .map((id) => document.getElementById(id)?.textContent ?? "").join(" ");
          })()`) as string;
          assert.ok(described.includes(message), `"${described}" lacks "${message}"`);
          assert.equal(
            await page.$eval('input[name="name"]', (input) => input.getAttribute("aria-invalid")),
            null,
          );
          assert.ok((await alerts(page)).length > 0, "no alert says that nothing was saved");
          await assertViewUsable(page, "new-customer-422");

          await fill(page, "textbox", "Email", "edsger@example.com");
          await (await named(page, "button", "Save")).click();
          await named(page, "heading", "Edsger Dijkstra");
          const listed = await api.get("/api/customers?email=edsger@example.com");
          assert.equal(listed.body.data.length, 1);
          assert.equal(listed.body.data[0].phone, "+31205550100");
        },
      );

      await t.step(
        "Edit with a stale version: the 412 shows the newer version and overwrites nothing",
        async () => {
          await page.evaluate(`location.hash = "#/customers/${ada.id}"`);
          await named(page, "heading", "Ada Lovelace");
          await (await named(page, "button", "Edit")).click();
          await named(page, "textbox", "Phone");
          const meanwhile = await api.patch(`/api/customers/${ada.id}`, {
            json: { phone: "+442079460000" },
          });
          assert.equal(meanwhile.status, 200);
          await fill(page, "textbox", "Phone", "+15550000001");
          await (await named(page, "button", "Save")).click();
          await until(
            page,
            "the conflict is told",
            `[...document.querySelectorAll('[role="alert"]')].some((a) => a.textContent.includes("version 1 is now 2"))`,
          );
          assert.ok(
            await page.$eval("dl.details", (dl) => dl.textContent?.includes("+442079460000")),
          );
          const now = await api.get(`/api/customers/${ada.id}`);
          assert.equal(now.body.version, 2);
          assert.equal(now.body.phone, "+442079460000");
        },
      );

      await t.step(
        "History shows every version oldest first with old → new for each changed field",
        async () => {
          await until(
            page,
            "two versions",
            `document.querySelectorAll(".versions > li").length === 2`,
          );
          await named(page, "heading", "History");
          const versions = await page.$$eval(".versions > li", (items) =>
            items.map((item) => ({
              title: item.querySelector("h3")?.textContent,
              changes: [...item.querySelectorAll("tbody tr")].map((tr) =>
                [...tr.children].map((c) => c.textContent)
              ),
            })));
          assert.equal(versions[0].title, "Version 1 · created");
          assert.deepEqual(versions[0].changes, [
            ["name", "—", "Ada Lovelace"],
            ["email", "—", "ada@example.com"],
            ["phone", "—", "+442079460958"],
          ]);
          assert.equal(versions[1].title, "Version 2 · updated");
          assert.deepEqual(versions[1].changes, [["phone", "+442079460958", "+442079460000"]]);
          assert.ok(
            await page.$eval(
              ".versions > li:last-child .meta",
              (p) => p.textContent?.includes("console-tester"),
            ),
          );
          await assertViewUsable(page, "customer");
        },
      );

      await t.step("Edit saves with If-Match; Delete asks first, then deletes", async () => {
        await (await named(page, "button", "Edit")).click();
        await fill(page, "textbox", "Name", "Augusta Ada King");
        await (await named(page, "button", "Save")).click();
        await named(page, "heading", "Augusta Ada King");
        assert.equal((await api.get(`/api/customers/${ada.id}`)).body.version, 3);
        await (await named(page, "button", "Delete")).click();
        await (await named(page, "button", "Yes, delete")).click();
        await named(page, "heading", "Customers");
        assert.equal((await api.get(`/api/customers/${ada.id}`)).status, 404);
      });

      await t.step(
        "Activity shows an event written through the API within 1 s, and filters by type and customer",
        async () => {
          await (await named(page, "link", "Activity")).click();
          await named(page, "heading", "Activity");
          await until(
            page,
            "the stream is live",
            `document.querySelector('[role="status"]')?.textContent.startsWith("Live")`,
          );
          const started = performance.now();
          const created = await api.post("/api/customers", {
            json: { name: "Live One", email: "live@example.com" },
          });
          const seq = created.headers.get("log-seq");
          await until(
            page,
            "the event shows",
            `document.querySelector('tr[data-seq="${seq}"]') !== null`,
            1000,
          );
          const ms = performance.now() - started;
          console.log(`Activity: an API write showed after ${ms.toFixed(0)} ms`);
          assert.ok(ms <= 1000, `${ms} ms`);
          await assertViewUsable(page, "activity");

          // Filtered to one customer and to updates: only that customer's update shows.
          const liveId = created.body.id;
          await fill(page, "textbox", "Customer ID", liveId);
          await (await named(page, "checkbox", "created")).click();
          await (await named(page, "button", "Apply filters")).click();
          await until(
            page,
            "live again",
            `document.querySelector('[role="status"]')?.textContent.startsWith("Live")`,
          );
          const other = await api.post("/api/customers", {
            json: { name: "Other", email: "other@example.com" },
          });
          const update = await api.patch(`/api/customers/${liveId}`, {
            json: { name: "Live Two" },
          });
          await until(
            page,
            "the update shows",
            `document.querySelector('tr[data-seq="${update.headers.get("log-seq")}"]') !== null`,
          );
          const shown = await page.$$eval("table.feed tbody tr", (rows) =>
            rows.map((row) => row.textContent));
          assert.equal(shown.length, 1, `shown: ${shown}`);
          assert.ok(shown[0]?.includes("updated") && shown[0].includes("Live Two"), shown[0] ?? "");
          assert.ok(
            !shown.some((text) =>
              text?.includes("Other")
            ),
            `${other.headers.get("log-seq")} shown`,
          );
        },
      );

      await t.step(
        "Webhooks: status and reason, deliveries, Send ping, Rotate secret shown once, Disable and Enable",
        async () => {
          const registered = await api.post("/api/webhooks", {
            json: { url: receiver.url(), description: "CRM sync" },
          });
          assert.equal(registered.status, 201, registered.text);
          await api.create({ name: "Hooked", email: "hooked@example.com" });
          await receiver.waitFor((got) => got.length >= 1);
          await (await named(page, "link", "Webhooks")).click();
          await named(page, "heading", "Webhooks");
          await until(
            page,
            "the endpoint is listed",
            `document.querySelector("tbody")?.textContent.includes("${receiver.url()}")`,
          );
          assert.ok(await page.$eval("tbody", (tbody) => tbody.textContent?.includes("active")));
          await assertViewUsable(page, "webhooks");

          await (await named(page, "link", receiver.url())).click();
          await named(page, "heading", "CRM sync");
          await until(
            page,
            "a delivery is logged",
            `document.querySelector("tbody")?.textContent.includes("customer.created")`,
          );
          await (await named(page, "button", "Send ping")).click();
          await until(
            page,
            "the ping's outcome",
            `document.querySelector('[role="status"]')?.textContent.startsWith("Ping delivered")`,
          );
          const ping = receiver.received.at(-1)!;
          assert.equal(ping.event.type, "webhook.ping");

          await (await named(page, "button", "Rotate secret")).click();
          await until(page, "the new secret", `document.querySelector(".secret-value") !== null`);
          const secret = await page.$eval(".secret-value", (code) => code.textContent ?? "");
          assert.match(secret, /^whsec_/);
          assert.notEqual(secret, registered.body.secret);
          await (await named(page, "button", "Send ping")).click();
          await receiver.waitFor((got) =>
            got.filter((r) => r.event.type === "webhook.ping").length >= 2
          );
          verify(receiver.received.at(-1)!, secret);
          await assertViewUsable(page, "webhook");
          await page.reload();
          await named(page, "heading", "CRM sync");
          assert.equal(await page.$(".secret-value"), null, "the secret is shown again");

          await (await named(page, "button", "Disable")).click();
          await named(page, "button", "Enable");
          assert.equal(
            (await api.get(`/api/webhooks/${registered.body.id}`)).body.status,
            "disabled",
          );
          await (await named(page, "button", "Enable")).click();
          await named(page, "button", "Disable");
          assert.equal(
            (await api.get(`/api/webhooks/${registered.body.id}`)).body.status,
            "active",
          );
        },
      );

      await t.step("Sign out forgets the token", async () => {
        await (await named(page, "button", "Sign out")).click();
        await named(page, "heading", "Sign in");
        assert.equal(await page.evaluate("sessionStorage.length"), 0);
      });

      await t.step("/console#token=… signs in and clears the address bar at once", async () => {
        const tab = await chromium.browser.newPage();
        await openTab(tab, `${server.url}/console#token=${token}`, "Customers");
        assert.equal(tab.url(), `${server.url}/console#/customers`);
        const cdp = await tab.createCDPSession();
        const { entries } = await cdp.send("Page.getNavigationHistory");
        const kept = entries.filter((entry) => entry.url.includes(token));
        assert.deepEqual(kept, [], "the token stays in the tab's history");
        await tab.close();
      });

      await t.step("a read-only token is offered no writes and no webhooks", async () => {
        const reader = await makeToken({ scope: "customers:read" });
        const tab = await chromium.browser.newPage();
        await openTab(tab, `${server.url}/console#token=${reader}`, "Customers");
        await until(tab, "rows", `document.querySelectorAll("tbody tr").length > 0`);
        assert.equal(await hasNamed(tab, "button", "New customer"), false);
        assert.equal(await hasNamed(tab, "link", "Webhooks"), false);
        await tab.evaluate(`location.hash = "#/customers/${xss.id}"`);
        await named(tab, "heading", XSS_NAME);
        await named(tab, "heading", "History");
        assert.equal(await hasNamed(tab, "button", "Edit"), false);
        assert.equal(await hasNamed(tab, "button", "Delete"), false);
        await tab.evaluate(`location.hash = "#/webhooks"`);
        await named(tab, "heading", "No access");
        await tab.close();
      });

      await t.step("nothing came from another origin, nothing failed, no dialog opened", () => {
        assert.deepEqual(foreign, []);
        assert.deepEqual(
          problems.filter((p) => !PROVOKED.test(p)),
          [],
        );
        assert.deepEqual(dialogs, []);
      });

      await t.step("the server's log holds no token and no stream token", async () => {
        const { stdout, stderr } = await server.stop();
        assert.match(stdout, /"route":"\/api\/events"/, "the event stream was not logged at all");
        for (const secret of [token, "access_token", "st1."]) {
          assert.ok(
            !stdout.includes(secret) && !stderr.includes(secret),
            `the log holds ${secret}`,
          );
        }
      });
    } finally {
      await receiver.close();
    }
  },
}));

Deno.test(skipIf(CHROMIUM_MISSING, {
  name: "Activity resumes after the server restarts, with a fresh stream token once the old one " +
    "expired, missing nothing and showing nothing twice",
  async fn() {
    const dataDir = await makeDataDir();
    // The same port across the restart, so the page's origin stays the same.
    const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = String((probe.addr as Deno.NetAddr).port);
    probe.close();
    const env = { PORT: port, STREAM_TOKEN_TTL: "1s" };
    try {
      await using chromium = await launchChromium();
      const token = await makeToken();
      const page = await chromium.browser.newPage();
      let server = await startServer({ dataDir, env });
      try {
        const api = new ApiClient(server.url, token);
        await openTab(page, `${server.url}/console#token=${token}`, "Customers");
        await page.evaluate(`location.hash = "#/activity"`);
        await until(
          page,
          "live",
          `document.querySelector('[role="status"]')?.textContent.startsWith("Live")`,
        );
        await api.create({ name: "Before", email: "before@example.com" });
        await until(page, "the first event", `document.querySelector('tr[data-seq="1"]') !== null`);
        await server.stop();
        // Past the stream token's lifetime: the browser's own retry is refused, a new one is needed.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        server = await startServer({ dataDir, env });
        await api.create({ name: "After", email: "after@example.com" });
        await until(
          page,
          "the event after the restart",
          `document.querySelector('tr[data-seq="2"]') !== null`,
          15_000,
        );
        const seqs = await page.$$eval(
          "table.feed tbody tr",
          (rows) => rows.map((row) => row.getAttribute("data-seq")),
        );
        assert.deepEqual(seqs, ["2", "1"]);
      } finally {
        await server.stop();
      }
    } finally {
      await removeDir(dataDir);
    }
  },
}));
