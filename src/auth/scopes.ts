/** The scopes of contract §2. */
export const READ_SCOPE = "customers:read";
export const WRITE_SCOPE = "customers:write";
