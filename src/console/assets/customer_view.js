/**
 * One customer: its fields, Edit (sent with If-Match; a 412 shows the newer version and saves
 * nothing), Delete after a confirmation, and its history.
 */
import { ifMatch, versionOf } from "./api.js";
import { button, h, messageArea, timeText } from "./dom.js";
import { customerForm } from "./customer_form.js";
import { historySection } from "./history.js";
import { WRITE } from "./session.js";

/** An address on one line, its empty parts left out. */
function addressText(address) {
  if (!address) return "—";
  const parts = ["line1", "line2", "city", "region", "postal_code", "country"]
    .map((key) => address[key])
    .filter((part) => part !== null && part !== undefined && part !== "");
  return parts.length === 0 ? "—" : parts.join(", ");
}

function details(customer) {
  const entry = (term, value) => [h("dt", {}, term), h("dd", {}, value)];
  const metadata = Object.entries(customer.metadata ?? {});
  return h(
    "dl",
    { class: "details" },
    entry("Email", customer.email),
    entry("Phone", customer.phone ?? "—"),
    entry("Address", addressText(customer.address)),
    entry(
      "Metadata",
      metadata.length === 0 ? "—" : h(
        "ul",
        { class: "plain" },
        metadata.map(([k, v]) => h("li", {}, h("code", {}, k), ` ${v}`)),
      ),
    ),
    entry("Created", timeText(customer.created_at)),
    entry("Updated", timeText(customer.updated_at)),
    entry("Version", customer.version),
    entry("ID", h("code", {}, customer.id)),
  );
}

export function customerView(ctx, id) {
  const path = `/api/customers/${encodeURIComponent(id)}`;
  const canWrite = ctx.session.can(WRITE);
  const state = { customer: null, version: undefined, left: false };
  const heading = h("h1", { tabindex: -1 }, "Customer");
  const alert = messageArea("alert");
  const status = messageArea("status");
  const actions = h("div", { class: "actions" });
  const body = h("div", {});
  const history = historySection(ctx, id);
  const flash = ctx.flash;
  ctx.flash = null;
  const element = h(
    "section",
    { class: "view" },
    h("p", { class: "crumbs" }, h("a", { href: "#/customers" }, "← All customers")),
    h("div", { class: "title-row" }, heading, actions),
    alert.element,
    status.element,
    body,
    history.element,
  );
  if (flash) status.say(flash);

  async function load() {
    const response = await ctx.api.get(path);
    if (state.left) return;
    state.customer = response.body;
    state.version = versionOf(response) ?? response.body.version;
    show();
  }

  function show() {
    heading.textContent = state.customer.name;
    document.title = `${state.customer.name} · customer-api console`;
    body.replaceChildren(details(state.customer));
    actions.replaceChildren(
      ...canWrite ? [button("Edit", edit), button("Delete", confirmDelete, "danger")] : [],
    );
  }

  function edit() {
    status.say("");
    alert.say("");
    const form = customerForm({
      customer: state.customer,
      title: `Edit ${state.customer.name}`,
      onSubmit: async (sent) => {
        try {
          const response = await ctx.api.put(path, sent, ifMatch(state.version));
          state.customer = response.body;
          state.version = versionOf(response) ?? response.body.version;
          show();
          status.say(`Saved. This is version ${state.version}.`);
          heading.focus();
          history.reload();
        } catch (error) {
          if (error.status !== 412 && error.status !== 404) throw error;
          error.handled = true;
          await changedMeanwhile(error);
        }
      },
      onCancel: () => {
        show();
        actions.querySelector("button")?.focus();
      },
    });
    actions.replaceChildren();
    body.replaceChildren(form.element);
    form.focus();
  }

  /** Someone else changed or deleted the customer: show what is there now, overwrite nothing. */
  async function changedMeanwhile(error) {
    const seen = state.version;
    try {
      await load();
    } catch (reload) {
      if (reload.status !== 404) throw reload;
      body.replaceChildren();
      actions.replaceChildren();
      alert.say("This customer was deleted meanwhile. Nothing was saved.");
      return;
    }
    alert.say(
      error.status === 412
        ? `Someone else changed this customer meanwhile (version ${seen} is now ${state.version}). ` +
          "Nothing was saved: the newer version is shown; edit it again to make your change."
        : "Nothing was saved.",
    );
    history.reload();
    heading.focus();
  }

  function confirmDelete() {
    const yes = button("Yes, delete", remove, "danger");
    const box = h(
      "div",
      { class: "confirm", role: "group", "aria-label": "Confirm delete" },
      h("p", {}, `Delete ${state.customer.name}? Their history goes with them.`),
      h("div", { class: "actions" }, yes, button("Cancel", show)),
    );
    actions.replaceChildren(box);
    yes.focus();
  }

  async function remove() {
    try {
      await ctx.api.delete(path, ifMatch(state.version));
      ctx.flash = `Deleted ${state.customer.name}.`;
      location.hash = "#/customers";
    } catch (error) {
      if (error.status === 412 || error.status === 404) {
        await changedMeanwhile(error);
        return;
      }
      show();
      alert.say(error.problem?.detail ?? error.message);
    }
  }

  load().catch((error) => {
    if (state.left) return;
    heading.textContent = error.status === 404 ? "No such customer" : "Customer";
    alert.say(error.problem?.detail ?? error.message);
    history.element.hidden = true;
  });
  return {
    element,
    title: "Customer",
    leave: () => {
      state.left = true;
      history.leave();
    },
  };
}
