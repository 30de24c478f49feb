/** The console's files, imported as text: in the module graph, needing no file permission. */
import page from "./assets/index.html" with { type: "text" };
import style from "./assets/console.css" with { type: "text" };
import formStyle from "./assets/forms.css" with { type: "text" };
import viewStyle from "./assets/views.css" with { type: "text" };
import icon from "./assets/favicon.svg" with { type: "text" };
import app from "./assets/app.js" with { type: "text" };
import api from "./assets/api.js" with { type: "text" };
import session from "./assets/session.js" with { type: "text" };
import dom from "./assets/dom.js" with { type: "text" };
import signIn from "./assets/sign_in_view.js" with { type: "text" };
import customers from "./assets/customers_view.js" with { type: "text" };
import customer from "./assets/customer_view.js" with { type: "text" };
import customerForm from "./assets/customer_form.js" with { type: "text" };
import history from "./assets/history.js" with { type: "text" };
import activity from "./assets/activity_view.js" with { type: "text" };
import eventStream from "./assets/event_stream.js" with { type: "text" };
import webhooks from "./assets/webhooks_view.js" with { type: "text" };
import webhook from "./assets/webhook_view.js" with { type: "text" };

const JS = "text/javascript; charset=utf-8";

/** One file of the console: its text and its media type. */
export interface ConsoleFile {
  text: string;
  type: string;
}

/** The page, served at `/console`. */
export const CONSOLE_PAGE: ConsoleFile = { text: page, type: "text/html; charset=utf-8" };

/** The files the page loads, by name under `/console/`. */
export const CONSOLE_ASSETS: Readonly<Record<string, ConsoleFile>> = {
  "console.css": { text: style, type: "text/css; charset=utf-8" },
  "forms.css": { text: formStyle, type: "text/css; charset=utf-8" },
  "views.css": { text: viewStyle, type: "text/css; charset=utf-8" },
  "favicon.svg": { text: icon, type: "image/svg+xml" },
  "app.js": { text: app, type: JS },
  "api.js": { text: api, type: JS },
  "session.js": { text: session, type: JS },
  "dom.js": { text: dom, type: JS },
  "sign_in_view.js": { text: signIn, type: JS },
  "customers_view.js": { text: customers, type: JS },
  "customer_view.js": { text: customer, type: JS },
  "customer_form.js": { text: customerForm, type: JS },
  "history.js": { text: history, type: JS },
  "activity_view.js": { text: activity, type: JS },
  "event_stream.js": { text: eventStream, type: JS },
  "webhooks_view.js": { text: webhooks, type: JS },
  "webhook_view.js": { text: webhook, type: JS },
};
