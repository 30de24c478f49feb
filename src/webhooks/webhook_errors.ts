/** No webhook endpoint has the given id. */
export class WebhookNotFoundError extends Error {
  constructor(id: string) {
    super(`No webhook endpoint with id "${id}"`);
    this.name = "WebhookNotFoundError";
  }
}

/** Registering one more endpoint would exceed MAX_WEBHOOKS. */
export class WebhookLimitError extends Error {
  constructor(limit: number) {
    super(`At most ${limit} webhook endpoints may be registered; delete one first`);
    this.name = "WebhookLimitError";
  }
}
