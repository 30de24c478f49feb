/**
 * The customer form: one labelled field per writable attribute. The API validates; its 422 marks
 * each offending field `aria-invalid` with the API's message beside it.
 */
import { field, h, messageArea } from "./dom.js";

const ADDRESS_PARTS = [
  ["line1", "Address line 1"],
  ["line2", "Address line 2"],
  ["city", "City"],
  ["region", "Region"],
  ["postal_code", "Postal code"],
  ["country", "Country", "Two letters, such as GB or DE."],
];

/** `key=value` lines of a customer's metadata. */
function metadataText(metadata) {
  return Object.entries(metadata ?? {}).map(([key, value]) => `${key}=${value}`).join("\n");
}

/**
 * The form for a new customer (`customer` null) or an edit. `onSubmit(body)` sends it and
 * rejects with the API's error, which the form then shows.
 */
export function customerForm({ customer, title, onSubmit, onCancel }) {
  const alert = messageArea("alert");
  const fields = {
    name: field({
      label: "Name",
      name: "name",
      pointer: "/name",
      value: customer?.name,
      required: true,
      autocomplete: "off",
    }),
    email: field({
      label: "Email",
      name: "email",
      type: "email",
      pointer: "/email",
      value: customer?.email,
      required: true,
      autocomplete: "off",
    }),
    phone: field({
      label: "Phone",
      name: "phone",
      type: "tel",
      pointer: "/phone",
      value: customer?.phone,
      hint: "International format, such as +442079460958.",
      autocomplete: "off",
    }),
  };
  const address = {};
  for (const [key, label, hint] of ADDRESS_PARTS) {
    address[key] = field({
      label,
      name: key,
      pointer: `/address/${key}`,
      value: customer?.address?.[key],
      hint,
      autocomplete: "off",
    });
  }
  const metadata = field({
    label: "Metadata",
    name: "metadata",
    pointer: "/metadata",
    multiline: true,
    value: metadataText(customer?.metadata),
    hint: "One key=value per line.",
  });
  const all = [...Object.values(fields), ...Object.values(address), metadata];
  const save = h("button", { type: "submit", class: "primary" }, "Save");
  const titleId = `form-title-${Math.random().toString(36).slice(2)}`;
  const form = h(
    "form",
    { class: "card", novalidate: true, "aria-labelledby": titleId },
    h("h2", { id: titleId }, title),
    alert.element,
    h("div", { class: "grid" }, Object.values(fields).map((f) => f.element)),
    h(
      "fieldset",
      {},
      h("legend", {}, "Address"),
      h("div", { class: "grid" }, Object.values(address).map((f) => f.element)),
    ),
    metadata.element,
    h(
      "div",
      { class: "actions" },
      save,
      h("button", { type: "button", onclick: () => onCancel() }, "Cancel"),
    ),
  );

  /** The request body, or null when a field cannot be sent as it is (marked then). */
  function body() {
    const text = (f) => f.control.value.trim();
    const parts = {};
    for (const [key, f] of Object.entries(address)) if (text(f) !== "") parts[key] = text(f);
    const entries = {};
    for (const line of metadata.control.value.split("\n")) {
      if (line.trim() === "") continue;
      const at = line.indexOf("=");
      if (at < 1) {
        metadata.invalid(`"${line.trim()}" is not key=value.`);
        return null;
      }
      entries[line.slice(0, at).trim()] = line.slice(at + 1).trim();
    }
    return {
      name: fields.name.control.value,
      email: text(fields.email),
      phone: text(fields.phone) === "" ? null : text(fields.phone),
      address: Object.keys(parts).length === 0 ? null : parts,
      metadata: entries,
    };
  }

  /** Marks the fields a problem names; what no field holds goes to the alert. */
  function showProblem(error) {
    const problem = error.problem ?? {};
    const unplaced = [];
    for (const { pointer, detail } of problem.errors ?? []) {
      const target = all
        .filter((f) =>
          pointer === f.control.dataset.pointer ||
          pointer?.startsWith(`${f.control.dataset.pointer}/`)
        )
        .sort((a, b) => b.control.dataset.pointer.length - a.control.dataset.pointer.length)[0];
      if (target) target.invalid(detail);
      else unplaced.push(`${pointer || "body"}: ${detail}`);
    }
    const marked = all.filter((f) => f.control.getAttribute("aria-invalid") === "true");
    const lead = marked.length > 0
      ? `Nothing was saved: correct the ${marked.length === 1 ? "marked field" : "marked fields"}.`
      : `Nothing was saved: ${problem.detail ?? error.message}`;
    alert.say([lead, ...unplaced].join(" "));
    (marked[0]?.control ?? form.querySelector("input")).focus();
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    for (const f of all) f.invalid(null);
    alert.say("");
    const sent = body();
    if (sent === null) {
      alert.say("Nothing was saved: correct the marked field.");
      metadata.control.focus();
      return;
    }
    save.disabled = true;
    try {
      await onSubmit(sent);
    } catch (error) {
      if (error.handled) return;
      showProblem(error);
    } finally {
      save.disabled = false;
    }
  });

  return { element: form, focus: () => fields.name.control.focus() };
}
