import type { Customer } from "../domain/customer.ts";

/**
 * The q filter: a case-insensitive search of the JSON text finds candidates without allocating;
 * only those are parsed to check the name and email themselves.
 */
export function nameOrEmailMatcher(q: string | undefined): (record: { json: string }) => boolean {
  if (q === undefined) return () => true;
  const needle = q.toLowerCase();
  // JSON escapes some characters; a needle that needs escaping is searched for as JSON would write it.
  const escaped = JSON.stringify(q).slice(1, -1).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const candidate = new RegExp(escaped, "i");
  return (record) => {
    if (!candidate.test(record.json)) return false;
    const customer = JSON.parse(record.json) as Customer;
    return customer.name.toLowerCase().includes(needle) ||
      customer.email.toLowerCase().includes(needle);
  };
}
