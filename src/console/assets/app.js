/**
 * The console's entry: signs in (from `#token=…`, this tab's session or the form), then routes
 * `#/customers`, `#/customers/<id>`, `#/activity`, `#/webhooks` and `#/webhooks/<id>` to views.
 */
import { createApi } from "./api.js";
import { h } from "./dom.js";
import {
  forgetToken,
  keepToken,
  READ,
  sessionFor,
  storedToken,
  takeTokenFromAddress,
  WEBHOOKS,
} from "./session.js";
import { customersView } from "./customers_view.js";
import { signInView } from "./sign_in_view.js";

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const signOutButton = document.getElementById("sign-out");

/** The signed-in context views get; null while signed out. */
let context = null;
/** Ends the view on screen (closes its event stream, drops late answers). */
let leaveView = () => {};
let firstView = true;

/** Views by route; the ones loaded on demand keep the first paint small. */
const ROUTES = [
  {
    pattern: /^#\/customers\/?$/,
    scope: READ,
    view: "customers",
    show: (ctx) => customersView(ctx),
  },
  {
    pattern: /^#\/customers\/([^/]+)$/,
    scope: READ,
    view: "customers",
    show: async (ctx, id) => (await import("./customer_view.js")).customerView(ctx, id),
  },
  {
    pattern: /^#\/activity\/?$/,
    scope: READ,
    view: "activity",
    show: async (ctx) => (await import("./activity_view.js")).activityView(ctx),
  },
  {
    pattern: /^#\/webhooks\/?$/,
    scope: WEBHOOKS,
    view: "webhooks",
    show: async (ctx) => (await import("./webhooks_view.js")).webhooksView(ctx),
  },
  {
    pattern: /^#\/webhooks\/([^/]+)$/,
    scope: WEBHOOKS,
    view: "webhooks",
    show: async (ctx, id) => (await import("./webhook_view.js")).webhookView(ctx, id),
  },
];

/** Shows a view's element in place of the last one, and moves focus to its heading. */
function display(element, title) {
  main.replaceChildren(element);
  document.title = `${title} · customer-api console`;
  // The first view keeps focus where the browser put it; later ones announce themselves.
  if (!firstView) (main.querySelector("h1") ?? main).focus();
  firstView = false;
}

/** The landing view for this token's scopes. */
function home(ctx) {
  if (ctx.session.can(READ)) return "#/customers";
  if (ctx.session.can(WEBHOOKS)) return "#/webhooks";
  return null;
}

async function route() {
  if (context === null) return;
  leaveView();
  leaveView = () => {};
  const hash = location.hash;
  for (const link of nav.querySelectorAll("a")) link.removeAttribute("aria-current");
  const found = ROUTES.map((r) => ({ r, match: r.pattern.exec(hash) })).find((x) => x.match);
  if (!found) {
    const target = home(context);
    if (target !== null && hash !== target) {
      location.replace(target);
      return;
    }
    display(noScopeView(), "No access");
    return;
  }
  const { r, match } = found;
  nav.querySelector(`a[data-view="${r.view}"]`)?.setAttribute("aria-current", "page");
  if (!context.session.can(r.scope)) {
    display(noScopeView(r.scope), "No access");
    return;
  }
  const ctx = context;
  const view = await r.show(ctx, ...match.slice(1).map(decodeURIComponent));
  // Another route was taken while this one loaded.
  if (ctx !== context || location.hash !== hash) {
    view.leave?.();
    return;
  }
  leaveView = view.leave ?? (() => {});
  display(view.element, view.title);
}

function noScopeView(scope) {
  const text = scope
    ? `This token does not grant ${scope}, which this view needs.`
    : "This token grants none of the scopes the console uses " +
      "(customers:read, customers:write, webhooks:manage).";
  return h("section", {}, h("h1", { tabindex: -1 }, "No access"), h("p", {}, text));
}

/** Starts the session: keeps the token, offers the views its scopes allow, shows the route. */
function begin(token) {
  keepToken(token);
  const session = sessionFor(token);
  context = {
    session,
    api: createApi(session, (problem) => end(problem.detail ?? "The token was refused.")),
    /** A message for the next view to show once (after a delete, say). */
    flash: null,
  };
  nav.querySelector('a[data-view="customers"]').parentElement.hidden = !session.can(READ);
  nav.querySelector('a[data-view="activity"]').parentElement.hidden = !session.can(READ);
  nav.querySelector('a[data-view="webhooks"]').parentElement.hidden = !session.can(WEBHOOKS);
  nav.hidden = false;
  signOutButton.hidden = false;
  if (!ROUTES.some((r) => r.pattern.test(location.hash))) {
    const target = home(context);
    if (target !== null) history.replaceState(null, "", target);
  }
  route();
}

/** Ends the session (signing out, or a refused token) and shows the sign-in form. */
function end(message) {
  leaveView();
  leaveView = () => {};
  forgetToken();
  context = null;
  nav.hidden = true;
  signOutButton.hidden = true;
  display(signInView({ onToken: begin, message }), "Sign in");
}

signOutButton.addEventListener("click", () => end(null));
addEventListener("hashchange", route);

const handed = takeTokenFromAddress();
const token = handed ?? storedToken();
if (token) begin(token);
else end(null);
