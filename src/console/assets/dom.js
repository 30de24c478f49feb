/**
 * Builds DOM elements. Children that are not nodes become text nodes, so a value from the API is
 * always shown as text and never parsed as markup.
 */

/** An element with attributes (`on…` ones are listeners) and children. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "class") element.className = value;
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

/** Appends children: nodes as they are, anything else as text; null and false are skipped. */
export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : String(child));
  }
}

let counter = 0;

/** An id unique in the page, for label `for` and `aria-describedby`. */
export function uid(prefix) {
  return `${prefix}-${++counter}`;
}

/** A live message area; `say` replaces its text. An alert is read at once, a status politely. */
export function messageArea(role) {
  const element = h("p", { role, class: role === "alert" ? "alert" : "status" });
  return {
    element,
    say(text, tone) {
      element.textContent = text ?? "";
      element.dataset.tone = tone ?? "";
    },
  };
}

/** A labelled text field with a hint and room for an error message beside it. */
export function field(
  { label, name, type = "text", value = "", hint, pointer, multiline, ...rest },
) {
  const id = uid(name);
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = `${id}-error`;
  const control = multiline
    ? h("textarea", { id, name, rows: 3, "aria-describedby": [hintId, errorId].join(" ").trim() })
    : h("input", { id, name, type, "aria-describedby": [hintId, errorId].join(" ").trim() });
  for (const [attribute, setting] of Object.entries(rest)) {
    if (setting !== undefined && setting !== false) {
      control.setAttribute(attribute, setting === true ? "" : String(setting));
    }
  }
  control.value = value ?? "";
  if (pointer) control.dataset.pointer = pointer;
  const error = h("p", { id: errorId, class: "field-error" });
  const wrapper = h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    control,
    hint ? h("p", { id: hintId, class: "hint" }, hint) : null,
    error,
  );
  return {
    element: wrapper,
    control,
    /** Marks the field invalid with the message, or clears it with none. */
    invalid(message) {
      if (message) control.setAttribute("aria-invalid", "true");
      else control.removeAttribute("aria-invalid");
      error.textContent = message ?? "";
    },
  };
}

/** A date and time from the API, shown in the reader's locale, with the exact value kept. */
export function timeText(iso) {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return h("time", { datetime: iso, title: iso }, date.toLocaleString());
}

/** A button; `kind` is primary, danger or quiet (the default look is secondary). */
export function button(label, onclick, kind) {
  return h("button", { type: "button", class: kind, onclick }, label);
}
