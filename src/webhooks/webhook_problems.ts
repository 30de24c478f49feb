import { addProblems, on, row } from "../http/problem_types.ts";
import { WebhookLimitError, WebhookNotFoundError } from "./webhook_errors.ts";

/** How the webhooks' errors answer: an unknown endpoint, and too many endpoints. */
addProblems({
  "not-found": row(404, "Not found", on(WebhookNotFoundError)),
  "webhook-limit-reached": row(409, "Too many webhook endpoints", on(WebhookLimitError)),
});
