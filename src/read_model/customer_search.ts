import type { Customer } from "../domain/customer.ts";

/** The q filter: a search of the JSON text finds candidates unallocated; only they are parsed. */
export function nameOrEmailMatcher(q: string | undefined): (json: string) => boolean {
  if (q === undefined) return () => true;
  const needle = q.toLowerCase();
  // A needle that JSON escapes is searched for as JSON writes it.
  const escaped = JSON.stringify(needle).slice(1, -1).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  // The u and i flags fold case as Unicode does, but for İ (U+0130), whose lower case is two.
  const candidate = new RegExp(escaped, "iu");
  const dottedI = needle.includes("i") || needle.includes("\u0307");
  return (json) => {
    if (!candidate.test(json) && !(dottedI && json.includes("\u0130"))) return false;
    const customer = JSON.parse(json) as Customer;
    return customer.name.toLowerCase().includes(needle) ||
      customer.email.toLowerCase().includes(needle);
  };
}
