/** The scopes of contract §2; WEBHOOKS_SCOPE manages webhook endpoints. */
export const READ_SCOPE = "customers:read";
export const WRITE_SCOPE = "customers:write";
export const WEBHOOKS_SCOPE = "webhooks:manage";
