import type { Customer } from "../domain/customer.ts";

/**
 * The q filter: a case-insensitive search of the JSON text finds candidates without allocating;
 * only those are parsed to check the name and email themselves.
 */
export function nameOrEmailMatcher(q: string | undefined): (json: string) => boolean {
  if (q === undefined) return () => true;
  const needle = q.toLowerCase();
  // JSON escapes some characters; a needle that needs escaping is searched for as JSON would write it.
  const escaped = JSON.stringify(needle).slice(1, -1).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // With the u flag, the i flag folds case as Unicode does: every character whose lower case is in
  // the needle matches, but for İ (U+0130), whose lower case is two ("i" and U+0307).
  const candidate = new RegExp(escaped, "iu");
  const dottedI = needle.includes("i") || needle.includes("\u0307");
  return (json) => {
    if (!candidate.test(json) && !(dottedI && json.includes("\u0130"))) return false;
    const customer = JSON.parse(json) as Customer;
    return customer.name.toLowerCase().includes(needle) ||
      customer.email.toLowerCase().includes(needle);
  };
}
