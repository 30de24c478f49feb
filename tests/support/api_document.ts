import { CUSTOMER_API } from "../../src/customers/customer_openapi.ts";
import { FEED_API } from "../../src/feed/feed_openapi.ts";
import { buildOpenApiDocument } from "../../src/openapi/openapi.ts";
import { WEBHOOK_API } from "../../src/webhooks/webhook_openapi.ts";

/** The OpenAPI document the server serves: the modules src/main.ts plugs in, in its order. */
export const API_DOCUMENT: Readonly<Record<string, unknown>> = buildOpenApiDocument([
  CUSTOMER_API,
  FEED_API,
  WEBHOOK_API,
]);
