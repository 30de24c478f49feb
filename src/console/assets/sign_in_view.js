/** The sign-in form: an access token, checked against the API before the session starts. */
import { field, h, messageArea } from "./dom.js";
import { createApi } from "./api.js";
import { READ, sessionFor, WEBHOOKS } from "./session.js";

/** A path the token's scopes may read, to check that the API accepts the token. */
function probePath(session) {
  if (!session.can(READ) && session.can(WEBHOOKS)) return "/api/webhooks?limit=1";
  return "/api/customers?limit=1";
}

/** The view; `message` is why the last session ended, if it did not end by signing out. */
export function signInView({ onToken, message }) {
  const alert = messageArea("alert");
  const tokenField = field({
    label: "Access token",
    name: "token",
    type: "password",
    autocomplete: "off",
    spellcheck: "false",
    required: true,
    hint: "A JWT from your identity provider, or from `deno task token` in development. " +
      "It is kept in this browser tab only, until you sign out or close the tab.",
  });
  const submit = h("button", { type: "submit", class: "primary" }, "Sign in");
  const form = h(
    "form",
    { class: "card narrow", novalidate: true, "aria-labelledby": "sign-in-title" },
    h("h1", { id: "sign-in-title", tabindex: -1 }, "Sign in"),
    h(
      "p",
      {},
      "The console for the people who look after customers: find a customer, read their " +
        "history, watch changes live and check webhooks.",
    ),
    alert.element,
    tokenField.element,
    h("div", { class: "actions" }, submit),
  );
  if (message) alert.say(message);

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const token = tokenField.control.value.trim();
    if (token === "") {
      tokenField.invalid("Paste a token to sign in.");
      tokenField.control.focus();
      return;
    }
    tokenField.invalid(null);
    alert.say("");
    submit.disabled = true;
    const session = sessionFor(token);
    try {
      await createApi(session, () => {}).get(probePath(session));
      onToken(token);
    } catch (error) {
      // A token lacking a scope (403) may still serve the views its other scopes allow.
      if (error.status === 403) return onToken(token);
      alert.say(error.problem?.detail ?? error.message);
      tokenField.invalid(error.status === 401 ? "This token was refused." : null);
      tokenField.control.focus();
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}
