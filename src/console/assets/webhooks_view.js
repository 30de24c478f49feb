/** Webhooks (scope webhooks:manage): the endpoints with their status and reason. */
import { h, messageArea } from "./dom.js";

/** A table cell, labelled for narrow screens. */
export const cell = (label, ...content) => h("td", { "data-label": label }, ...content);

/** An endpoint's status, `active` or `disabled`. */
export function statusTag(endpoint) {
  return h("span", { class: `tag ${endpoint.status}` }, endpoint.status);
}

/** The list of endpoints. */
export function webhooksView(ctx) {
  const alert = messageArea("alert");
  const status = messageArea("status");
  const tbody = h("tbody");
  let left = false;
  const element = h(
    "section",
    { class: "view" },
    h("h1", { tabindex: -1 }, "Webhooks"),
    h("p", {}, "Endpoints that receive the change feed. Open one for its deliveries and actions."),
    alert.element,
    status.element,
    h(
      "table",
      { class: "list" },
      h("caption", { class: "visually-hidden" }, "Webhook endpoints"),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["Endpoint", "Status", "Reason", "Types", "Delivered up to"].map((name) =>
            h("th", { scope: "col" }, name)
          ),
        ),
      ),
      tbody,
    ),
  );

  async function load() {
    try {
      const { body } = await ctx.api.get("/api/webhooks?limit=100");
      if (left) return;
      tbody.replaceChildren(...body.data.map((endpoint) =>
        h(
          "tr",
          {},
          cell(
            "Endpoint",
            h("a", { href: `#/webhooks/${encodeURIComponent(endpoint.id)}` }, endpoint.url),
            endpoint.description ? h("span", { class: "meta block" }, endpoint.description) : null,
          ),
          cell("Status", statusTag(endpoint)),
          cell("Reason", endpoint.disabled_reason ?? "—"),
          cell("Types", endpoint.types.join(", ")),
          cell("Delivered up to", `seq ${endpoint.last_seq}`),
        )
      ));
      status.say(
        body.data.length === 0
          ? "No webhook endpoints are registered."
          : `${body.data.length} endpoints.`,
      );
    } catch (error) {
      if (!left) alert.say(error.problem?.detail ?? error.message);
    }
  }
  load();
  return { element, title: "Webhooks", leave: () => (left = true) };
}
