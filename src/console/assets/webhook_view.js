/**
 * One webhook endpoint: its details, deliveries log, Send ping, Rotate secret (the new secret
 * shown once), Enable and Disable.
 */
import { ifMatch, versionOf } from "./api.js";
import { button, h, messageArea, timeText } from "./dom.js";
import { cell, statusTag } from "./webhooks_view.js";

function endpointDetails(endpoint) {
  const entry = (term, ...value) => [h("dt", {}, term), h("dd", {}, ...value)];
  return h(
    "dl",
    { class: "details" },
    entry("URL", h("code", {}, endpoint.url)),
    entry("Status", statusTag(endpoint)),
    entry("Reason", endpoint.disabled_reason ?? "—"),
    entry("Types", endpoint.types.join(", ")),
    entry("Description", endpoint.description || "—"),
    entry("Delivered up to", `seq ${endpoint.last_seq}`),
    entry("Created", timeText(endpoint.created_at)),
    entry("Version", endpoint.version),
  );
}

function deliveryRow(attempt) {
  const outcome = attempt.status_code != null
    ? `HTTP ${attempt.status_code}`
    : attempt.error ?? "—";
  const ok = attempt.status_code >= 200 && attempt.status_code < 300;
  return h(
    "tr",
    {},
    cell("Time", timeText(attempt.at)),
    cell("Event", attempt.event_type),
    cell("Seq", attempt.seq),
    cell("Attempt", attempt.attempt),
    cell("Result", h("span", { class: `tag ${ok ? "active" : "disabled"}` }, outcome)),
    cell("Duration", attempt.duration_ms == null ? "—" : `${attempt.duration_ms} ms`),
    cell("Next attempt", attempt.next_attempt_at ? timeText(attempt.next_attempt_at) : "—"),
  );
}

/** One endpoint: details, actions and deliveries log. */
export function webhookView(ctx, id) {
  const path = `/api/webhooks/${encodeURIComponent(id)}`;
  const state = { endpoint: null, version: undefined, left: false };
  const heading = h("h1", { tabindex: -1 }, "Webhook endpoint");
  const alert = messageArea("alert");
  const status = messageArea("status");
  const body = h("div");
  const secret = h("div", { class: "secret", hidden: true });
  const actions = h("div", { class: "actions" });
  const deliveries = h("tbody");
  const element = h(
    "section",
    { class: "view" },
    h("p", { class: "crumbs" }, h("a", { href: "#/webhooks" }, "← All endpoints")),
    heading,
    actions,
    alert.element,
    status.element,
    secret,
    body,
    h(
      "section",
      { "aria-labelledby": "deliveries-title" },
      h(
        "div",
        { class: "title-row" },
        h("h2", { id: "deliveries-title" }, "Deliveries"),
        button("Refresh", () => loadDeliveries()),
      ),
      h(
        "table",
        { class: "list" },
        h("caption", { class: "visually-hidden" }, "Recent delivery attempts, newest first"),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["Time", "Event", "Seq", "Attempt", "Result", "Duration", "Next attempt"].map((name) =>
              h("th", { scope: "col" }, name)
            ),
          ),
        ),
        deliveries,
      ),
    ),
  );

  function show(response) {
    state.endpoint = response.body;
    state.version = versionOf(response) ?? response.body.version;
    const endpoint = state.endpoint;
    heading.textContent = endpoint.description || endpoint.url;
    body.replaceChildren(endpointDetails(endpoint));
    actions.replaceChildren(
      button("Send ping", ping, "primary"),
      button("Rotate secret", rotate),
      endpoint.enabled
        ? button("Disable", () => setEnabled(false), "danger")
        : button("Enable", () => setEnabled(true)),
    );
  }

  async function load() {
    const response = await ctx.api.get(path);
    if (!state.left) show(response);
  }

  async function loadDeliveries() {
    try {
      const { body: answer } = await ctx.api.get(`${path}/deliveries`);
      if (state.left) return;
      deliveries.replaceChildren(...answer.data.map(deliveryRow));
      if (answer.data.length === 0) {
        deliveries.replaceChildren(h("tr", {}, h("td", { colspan: 7 }, "No deliveries yet.")));
      }
    } catch (error) {
      if (!state.left) alert.say(error.problem?.detail ?? error.message);
    }
  }

  /** Runs an action, reporting its failure; a 412 reloads the endpoint first. */
  async function act(run) {
    alert.say("");
    status.say("");
    for (const b of actions.querySelectorAll("button")) b.disabled = true;
    try {
      await run();
    } catch (error) {
      if (error.status === 412) await load().catch(() => {});
      alert.say(
        error.status === 412
          ? "Someone else changed this endpoint meanwhile; the newer version is shown. Try again."
          : error.problem?.detail ?? error.message,
      );
    } finally {
      for (const b of actions.querySelectorAll("button")) b.disabled = false;
    }
  }

  const ping = () =>
    act(async () => {
      const { body: result } = await ctx.api.post(`${path}/ping`);
      const outcome = result.status_code != null ? `HTTP ${result.status_code}` : result.error;
      status.say(
        result.delivered
          ? `Ping delivered: ${outcome} in ${result.duration_ms} ms.`
          : `Ping failed: ${outcome ?? "no answer"} after ${result.duration_ms} ms.`,
        result.delivered ? "good" : "bad",
      );
      await loadDeliveries();
    });

  const rotate = () =>
    act(async () => {
      const response = await ctx.api.post(
        `${path}/rotate-secret`,
        undefined,
        ifMatch(state.version),
      );
      show(response);
      const value = h("code", { class: "secret-value" }, response.body.secret);
      secret.replaceChildren(
        h("h2", {}, "New signing secret"),
        h(
          "p",
          {},
          "Shown this once: copy it to your receiver now. The old secret keeps signing deliveries for 24 hours.",
        ),
        value,
      );
      secret.hidden = false;
      status.say("Secret rotated.", "good");
    });

  const setEnabled = (enabled) =>
    act(async () => {
      show(await ctx.api.patch(path, { enabled }, ifMatch(state.version)));
      status.say(
        enabled ? "Endpoint enabled: delivery resumes where it stopped." : "Endpoint disabled.",
        "good",
      );
      actions.querySelector("button:last-child")?.focus();
    });

  load().then(loadDeliveries).catch((error) => {
    if (state.left) return;
    heading.textContent = error.status === 404 ? "No such endpoint" : "Webhook endpoint";
    alert.say(error.problem?.detail ?? error.message);
  });
  return { element, title: "Webhook endpoint", leave: () => (state.left = true) };
}
