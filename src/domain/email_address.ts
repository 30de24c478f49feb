/** The longest email address contract §3 allows (RFC 5321's path limit less the brackets). */
export const EMAIL_MAX = 254;

const EMAIL_LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** True when the string is a plausible email address (ASCII dot-atom local part, DNS domain). */
export function isValidEmail(email: string): boolean {
  if (email.length > EMAIL_MAX) return false;
  const at = email.lastIndexOf("@");
  if (at <= 0 || at > 64) return false;
  if (!EMAIL_LOCAL.test(email.slice(0, at))) return false;
  const labels = email.slice(at + 1).split(".");
  if (labels.length < 2 || email.length - at - 1 > 253) return false;
  if (!labels.every((label) => DOMAIN_LABEL.test(label))) return false;
  return /^[A-Za-z]{2,63}$|^xn--[A-Za-z0-9-]+$/.test(labels[labels.length - 1]);
}
