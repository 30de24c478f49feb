/**
 * The access token: kept in this tab's sessionStorage only (never a cookie, localStorage or a URL
 * the server sees), and the scopes it grants, read from its payload to decide what to offer.
 */

const KEY = "customer-api.console.token";

export const READ = "customers:read";
export const WRITE = "customers:write";
export const WEBHOOKS = "webhooks:manage";

/**
 * A token handed over as `#token=…` (the development banner prints such a link); the address bar
 * is cleared of it at once, before anything else runs.
 */
export function takeTokenFromAddress() {
  const match = /^#token=([^&]*)/.exec(location.hash);
  if (!match) return null;
  history.replaceState(null, "", `${location.pathname}${location.search}#/`);
  try {
    return decodeURIComponent(match[1]).trim() || null;
  } catch {
    return null;
  }
}

/** The token of this tab's session, if any. */
export function storedToken() {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

/** Keeps the token for this tab. */
export function keepToken(token) {
  sessionStorage.setItem(KEY, token);
}

/** Forgets the token. */
export function forgetToken() {
  sessionStorage.removeItem(KEY);
}

/**
 * The scopes a JWT grants (`scope`, space-separated, or `scp`, a string or an array). Only read to
 * choose what to offer: the server decides what is allowed.
 */
export function scopesOf(token) {
  try {
    const payload = token.split(".")[1].replaceAll("-", "+").replaceAll("_", "/");
    const claims = JSON.parse(atob(payload.padEnd(Math.ceil(payload.length / 4) * 4, "=")));
    const granted = claims.scope ?? claims.scp ?? "";
    const list = Array.isArray(granted) ? granted : String(granted).split(" ");
    return new Set(list.filter((scope) => typeof scope === "string" && scope !== ""));
  } catch {
    return new Set();
  }
}

/** The signed-in caller: the token and what its scopes allow. */
export function sessionFor(token) {
  const scopes = scopesOf(token);
  return {
    token,
    scopes,
    can: (scope) => scopes.has(scope),
  };
}
