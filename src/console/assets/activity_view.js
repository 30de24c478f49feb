/**
 * Activity: the change feed live, newest first, filtered by type and customer. Only the newest
 * events stay on screen, so the page keeps up with a busy feed without growing.
 */
import { field, h, messageArea, timeText } from "./dom.js";
import { EVENT_TYPES, openFeed } from "./event_stream.js";

/** Rows kept on screen. */
export const WINDOW = 200;
/** Events before the newest shown on opening. */
const BACKLOG = 50;
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/i;

function eventRow(event) {
  const type = event.type.replace("customer.", "");
  return h(
    "tr",
    { "data-seq": event.seq },
    h("td", { "data-label": "Seq" }, event.seq),
    h("td", { "data-label": "Time" }, timeText(event.time)),
    h("td", { "data-label": "Type" }, h("span", { class: `tag ${type}` }, type)),
    h(
      "td",
      { "data-label": "Customer" },
      event.type === "customer.deleted" ? h("code", {}, event.customer_id) : h(
        "a",
        { href: `#/customers/${encodeURIComponent(event.customer_id)}` },
        event.data?.name ?? event.customer_id,
      ),
    ),
    h("td", { "data-label": "Version" }, event.version),
    h("td", { "data-label": "Actor" }, event.actor ?? "—"),
  );
}

export function activityView(ctx) {
  const status = messageArea("status");
  const alert = messageArea("alert");
  const boxes = EVENT_TYPES.map((type) => {
    const id = `type-${type.replace(".", "-")}`;
    const box = h("input", { type: "checkbox", id, value: type, checked: true });
    return {
      box,
      element: h(
        "div",
        { class: "check" },
        box,
        h("label", { for: id }, type.replace("customer.", "")),
      ),
    };
  });
  const customer = field({
    label: "Customer ID",
    name: "customer_id",
    autocomplete: "off",
    spellcheck: "false",
  });
  const tbody = h("tbody");
  const counter = h("p", { class: "meta", "aria-hidden": "true" });
  let received = 0;
  let feed = null;

  const filters = h(
    "form",
    { class: "toolbar filters", novalidate: true, "aria-label": "Filters" },
    h("fieldset", { class: "inline" }, h("legend", {}, "Event types"), boxes.map((b) => b.element)),
    customer.element,
    h("div", { class: "actions" }, h("button", { type: "submit" }, "Apply filters")),
  );
  filters.addEventListener("submit", (event) => {
    event.preventDefault();
    start();
  });

  const element = h(
    "section",
    { class: "view" },
    h("h1", { tabindex: -1 }, "Activity"),
    h(
      "p",
      {},
      `Changes as they are committed, newest first, from the ${BACKLOG} before opening; ` +
        `the latest ${WINDOW} stay on screen.`,
    ),
    filters,
    alert.element,
    status.element,
    counter,
    h(
      "table",
      { class: "list feed" },
      h("caption", { class: "visually-hidden" }, "Events"),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["Seq", "Time", "Type", "Customer", "Version", "Actor"].map((name) =>
            h("th", { scope: "col" }, name)
          ),
        ),
      ),
      tbody,
    ),
  );

  function render(batch, skipped, lastSeq) {
    received += batch.length + skipped;
    const rows = document.createDocumentFragment();
    const shown = batch.length > WINDOW ? batch.slice(-WINDOW) : batch;
    for (let i = shown.length - 1; i >= 0; i--) rows.append(eventRow(shown[i]));
    tbody.prepend(rows);
    while (tbody.childElementCount > WINDOW) tbody.lastElementChild.remove();
    counter.textContent = `${received} events since opened · up to seq ${lastSeq}`;
  }

  function start() {
    feed?.stop();
    alert.say("");
    customer.invalid(null);
    const types = boxes.filter((b) => b.box.checked).map((b) => b.box.value);
    const customerId = customer.control.value.trim();
    if (types.length === 0) {
      alert.say("Choose at least one event type.");
      return;
    }
    if (customerId !== "" && !ULID.test(customerId)) {
      customer.invalid("A customer ID has 26 letters and digits.");
      customer.control.focus();
      return;
    }
    tbody.replaceChildren();
    received = 0;
    counter.textContent = "";
    feed = openFeed(ctx.api, {
      types: types.length === EVENT_TYPES.length ? [] : types,
      customerId: customerId === "" ? undefined : customerId.toUpperCase(),
      window: WINDOW,
      backlog: BACKLOG,
      onBatch: render,
      onState: (state, seq) =>
        status.say(
          state === "live"
            ? `Live, from seq ${seq + 1}.`
            : state === "gap"
            ? `Events up to seq ${seq} are past retention; showing what is kept.`
            : state === "reconnecting"
            ? "Connection lost; reconnecting…"
            : "Connecting…",
          state,
        ),
    });
  }

  start();
  return { element, title: "Activity", leave: () => feed?.stop() };
}
