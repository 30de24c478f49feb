/**
 * Customers: search (plain text as the list's `q`; text with `:` or `~` as a `query`
 * expression), a table of name, email and phone, cursor paging.
 */
import { button, field, h, messageArea } from "./dom.js";
import { WRITE } from "./session.js";

/** Rows per page: the API's default page. */
const PAGE = 100;

/** One table row; the label of each cell is shown beside it on narrow screens. */
function row(customer) {
  return h(
    "tr",
    {},
    h(
      "td",
      { "data-label": "Name" },
      h("a", { href: `#/customers/${encodeURIComponent(customer.id)}` }, customer.name),
    ),
    h("td", { "data-label": "Email" }, customer.email),
    h("td", { "data-label": "Phone" }, customer.phone ?? "—"),
  );
}

export function customersView(ctx) {
  const state = { q: "", cursors: [null], page: 0, next: null, loads: 0, left: false };
  const alert = messageArea("alert");
  const status = messageArea("status");
  const search = field({
    label: "Search",
    name: "q",
    type: "search",
    autocomplete: "off",
    hint: 'A name or email, or an expression such as phone:null or name~"love"',
  });
  search.control.setAttribute("placeholder", "Name or email");
  const tbody = h("tbody");
  const previous = button("Previous page", () => turn(-1));
  const next = button("Next page", () => turn(1));
  const formSlot = h("div");
  const canWrite = ctx.session.can(WRITE);
  const newButton = canWrite ? button("New customer", openForm, "primary") : null;
  const flash = ctx.flash;
  ctx.flash = null;

  const element = h(
    "section",
    { class: "view" },
    h("div", { class: "title-row" }, h("h1", { tabindex: -1 }, "Customers"), newButton),
    alert.element,
    formSlot,
    h(
      "form",
      { class: "toolbar", role: "search", onsubmit: (e) => (e.preventDefault(), reload()) },
      search.element,
    ),
    status.element,
    h(
      "table",
      { class: "list" },
      h("caption", { class: "visually-hidden" }, "Customers"),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "Name"),
          h("th", { scope: "col" }, "Email"),
          h("th", { scope: "col" }, "Phone"),
        ),
      ),
      tbody,
    ),
    h("nav", { class: "pager", "aria-label": "Pages" }, previous, next),
  );
  if (flash) status.say(flash);

  let typing;
  search.control.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(reload, 250);
  });

  function reload() {
    state.q = search.control.value.trim();
    state.cursors = [null];
    state.page = 0;
    load();
  }

  function turn(step) {
    if (step > 0 && state.next === null) return;
    if (step > 0) state.cursors[state.page + 1] = state.next;
    state.page = Math.max(0, state.page + step);
    load();
  }

  async function load() {
    const mine = ++state.loads;
    const params = new URLSearchParams({ limit: String(PAGE) });
    // An expression goes as `query`; other text as `q`, the substring of name or email.
    if (state.q !== "") params.set(/[:~]/.test(state.q) ? "query" : "q", state.q);
    const cursor = state.cursors[state.page];
    if (cursor) params.set("cursor", cursor);
    previous.disabled = true;
    next.disabled = true;
    try {
      const { body } = await ctx.api.get(`/api/customers?${params}`);
      if (mine !== state.loads || state.left) return;
      alert.say("");
      search.invalid(null);
      show(body.data);
      state.next = body.next_cursor;
    } catch (error) {
      if (mine !== state.loads || state.left) return;
      // A query the API cannot read is the field's error, shown beside it.
      const query = error.problem?.errors?.find((e) => e.pointer === "/query");
      if (query) search.invalid(query.detail);
      else alert.say(error.problem?.detail ?? error.message);
    }
    previous.disabled = state.page === 0;
    next.disabled = state.next === null;
  }

  function show(customers) {
    const started = performance.now();
    const rows = document.createDocumentFragment();
    for (const customer of customers) rows.append(row(customer));
    tbody.replaceChildren(rows);
    performance.measure("console:customers-rows", { start: started, end: performance.now() });
    // The first rows' paint, for whoever measures the console (a task after the frame).
    if (performance.getEntriesByName("console:customers-first").length === 0) {
      performance.mark("console:customers-first");
      requestAnimationFrame(() => setTimeout(() => performance.mark("console:customers-painted")));
    }
    const first = state.page * PAGE + 1;
    const found = state.q === "" ? "" : ` matching "${state.q}"`;
    status.say(
      customers.length === 0
        ? `No customers${found}.`
        : `Customers ${first}–${first + customers.length - 1}${found}.`,
    );
  }

  function openForm() {
    // The form's module is loaded when first asked for: most visits only look.
    import("./customer_form.js").then(({ customerForm }) => {
      const form = customerForm({
        customer: null,
        title: "New customer",
        onSubmit: async (body) => {
          const { body: created } = await ctx.api.post("/api/customers", body);
          ctx.flash = `Created ${created.name}.`;
          location.hash = `#/customers/${encodeURIComponent(created.id)}`;
        },
        onCancel: () => {
          formSlot.replaceChildren();
          newButton.focus();
        },
      });
      formSlot.replaceChildren(form.element);
      form.focus();
    });
  }

  load();
  return { element, title: "Customers", leave: () => (state.left = true) };
}
