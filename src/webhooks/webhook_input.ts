import { ValidationError, type Violation } from "../domain/errors.ts";
import { isPlainObject } from "../domain/validation.ts";
import { PUBLIC_EVENT_TYPES } from "../feed/public_event.ts";

/** The fields a client sets on a webhook endpoint. */
export interface WebhookInput {
  url: string;
  types: string[];
  description: string;
  enabled: boolean;
}

/** Limits of the endpoint fields. */
export const WEBHOOK_LIMITS = { urlMax: 2048, descriptionMax: 500 } as const;

const SETTABLE = new Set(["url", "types", "description", "enabled"]);
/** Fields the server sets: ignored when sent, so a client can send back what it got. */
const READ_ONLY = new Set([
  "id",
  "status",
  "disabled_reason",
  "last_seq",
  "created_at",
  "updated_at",
  "version",
]);
const TYPES: ReadonlySet<string> = new Set(PUBLIC_EVENT_TYPES);

/** Checks a whole endpoint (a create, or the result of a merge patch); every violation at once. */
export function parseWebhookInput(body: unknown): WebhookInput {
  if (!isPlainObject(body)) {
    throw new ValidationError([{ pointer: "", detail: "must be a JSON object" }]);
  }
  const violations: Violation[] = [];
  for (const key of Object.keys(body)) {
    if (!SETTABLE.has(key) && !READ_ONLY.has(key)) {
      violations.push({ pointer: `/${key}`, detail: "is not a field of a webhook endpoint" });
    }
  }
  const { url, types = [...PUBLIC_EVENT_TYPES], description = "", enabled = true } = body;
  if (typeof url !== "string") {
    violations.push({ pointer: "/url", detail: "is required and must be a string" });
  } else if (url.length > WEBHOOK_LIMITS.urlMax) {
    violations.push({
      pointer: "/url",
      detail: `must be at most ${WEBHOOK_LIMITS.urlMax} characters`,
    });
  } else if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    violations.push({ pointer: "/url", detail: `"${url}" must be an absolute https URL` });
  } else if (new URL(url).username !== "" || new URL(url).password !== "") {
    violations.push({ pointer: "/url", detail: "must not carry a user name or password" });
  }
  if (!Array.isArray(types) || types.length === 0) {
    violations.push({ pointer: "/types", detail: "must be a non-empty array of event types" });
  } else {
    types.forEach((type, i) => {
      if (typeof type !== "string" || !TYPES.has(type)) {
        violations.push({
          pointer: `/types/${i}`,
          detail: `must be one of ${PUBLIC_EVENT_TYPES.join(", ")}`,
        });
      } else if (types.indexOf(type) !== i) {
        violations.push({ pointer: `/types/${i}`, detail: `"${type}" is listed twice` });
      }
    });
  }
  if (typeof description !== "string" || description.length > WEBHOOK_LIMITS.descriptionMax) {
    violations.push({
      pointer: "/description",
      detail: `must be a string of at most ${WEBHOOK_LIMITS.descriptionMax} characters`,
    });
  }
  if (typeof enabled !== "boolean") {
    violations.push({ pointer: "/enabled", detail: "must be true or false" });
  }
  if (violations.length > 0) throw new ValidationError(violations);
  return {
    url: url as string,
    types: types as string[],
    description: description as string,
    enabled: enabled as boolean,
  };
}
