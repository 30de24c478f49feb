/**
 * A customer's history: every version oldest first, with its time and actor, and for each
 * changed field the old and the new value.
 */
import { button, h, messageArea, timeText } from "./dom.js";

/** Versions per request; the API's largest page. */
const PAGE = 1000;
const SKIPPED = new Set(["id", "created_at", "updated_at", "version"]);

/** A customer as `field → text` with nested objects flattened (`address.city`, `metadata.x`). */
export function flatten(data, prefix = "", into = new Map()) {
  if (data === null || data === undefined) return into;
  for (const [key, value] of Object.entries(data)) {
    if (prefix === "" && SKIPPED.has(key)) continue;
    const name = prefix === "" ? key : `${prefix}.${key}`;
    if (value !== null && typeof value === "object") flatten(value, name, into);
    else if (value !== null && value !== undefined) into.set(name, String(value));
  }
  return into;
}

/** The fields that differ between two flattened versions, in a stable order. */
export function changes(before, after) {
  const names = [...new Set([...before.keys(), ...after.keys()])];
  return names.filter((name) => before.get(name) !== after.get(name)).map((name) => ({
    name,
    old: before.get(name),
    new: after.get(name),
  }));
}

const VERB = {
  "customer.created": "created",
  "customer.updated": "updated",
  "customer.deleted": "deleted",
};

function versionEntry(event, previous, first) {
  const before = flatten(previous?.data);
  const after = flatten(event.data);
  const changed = changes(before, after);
  const starts = first && event.version > 1;
  return h(
    "li",
    { class: "version" },
    h("h3", {}, `Version ${event.version} · ${VERB[event.type] ?? event.type}`),
    h(
      "p",
      { class: "meta" },
      timeText(event.time),
      " · by ",
      h("span", { class: "actor" }, event.actor ?? "unknown"),
      ` · seq ${event.seq}`,
    ),
    starts
      ? h(
        "p",
        { class: "hint" },
        "History starts here: older versions are past the retention period.",
      )
      : null,
    changed.length === 0 ? h("p", { class: "hint" }, "No field changed.") : h(
      "table",
      { class: "changes" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "Field"),
          h("th", { scope: "col" }, starts ? "Before" : "Old"),
          h("th", { scope: "col" }, "New"),
        ),
      ),
      h(
        "tbody",
        {},
        changed.map((change) =>
          h(
            "tr",
            {},
            h("th", { scope: "row", "data-label": "Field" }, change.name),
            h(
              "td",
              { class: "old", "data-label": "Old" },
              starts ? "(not shown)" : change.old ?? "—",
            ),
            h("td", { class: "new", "data-label": "New" }, change.new ?? "—"),
          )
        ),
      ),
    ),
  );
}

/** The history section; `reload()` reads it again (after an edit). */
export function historySection(ctx, id) {
  const list = h("ol", { class: "versions" });
  const alert = messageArea("alert");
  const more = button("Load more versions", () => load(false));
  more.hidden = true;
  const state = { after: 0, last: null, count: 0, loads: 0, left: false };
  const element = h(
    "section",
    { class: "history", "aria-labelledby": `history-${id}` },
    h("h2", { id: `history-${id}` }, "History"),
    alert.element,
    list,
    more,
  );

  async function load(fresh) {
    const mine = ++state.loads;
    if (fresh) Object.assign(state, { after: 0, last: null, count: 0 });
    const params = new URLSearchParams({ limit: String(PAGE) });
    if (state.after > 0) params.set("after", String(state.after));
    try {
      const { body } = await ctx.api.get(
        `/api/customers/${encodeURIComponent(id)}/history?${params}`,
      );
      if (mine !== state.loads || state.left) return;
      if (fresh) list.replaceChildren();
      for (const event of body.data) {
        list.append(versionEntry(event, state.last, state.count === 0));
        state.last = event;
        state.after = event.version;
        state.count++;
      }
      more.hidden = !body.has_more;
      alert.say("");
    } catch (error) {
      if (mine !== state.loads || state.left) return;
      alert.say(error.problem?.detail ?? error.message);
    }
  }

  load(true);
  return {
    element,
    reload: () => load(true),
    leave: () => (state.left = true),
  };
}
