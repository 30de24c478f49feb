/**
 * The searches the search benchmark sends, made from customers read back from the server: each
 * request distinct (its own value, and a limit from 51 to 100), so no page is answered from the
 * page cache.
 */
import type { Customer } from "../../src/domain/customer.ts";
import { seededRandom } from "../support/prng.ts";

/** The selective searches of the goals, by kind. */
export const SELECTIVE = ["email", "phone", "crm_id", "name5"] as const;
export type Selective = typeof SELECTIVE[number];

/** Reads `count` customers, picked at random from `ids`, through GET one. */
export async function sampleCustomers(
  url: string,
  token: string,
  ids: string[],
  count: number,
): Promise<Customer[]> {
  const random = seededRandom(17);
  const customers: Customer[] = [];
  for (let i = 0; i < count; i++) {
    const id = ids[Math.floor(random() * ids.length)];
    const response = await fetch(`${url}/api/customers/${id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (response.status === 200) customers.push(await response.json());
    else await response.body?.cancel();
  }
  return customers;
}

const path = (query: string, n: number) =>
  `/api/customers?query=${encodeURIComponent(query)}&limit=${51 + (n % 50)}`;

/** One request path per sampled customer that has the field, for a kind of selective search. */
export function selectivePaths(kind: Selective, customers: Customer[]): string[] {
  const random = seededRandom(23);
  const paths: string[] = [];
  for (const [n, customer] of customers.entries()) {
    if (kind === "email") paths.push(path(`email:${customer.email}`, n));
    else if (kind === "phone" && customer.phone !== null) {
      paths.push(path(`phone:"${customer.phone}"`, n));
    } else if (kind === "crm_id" && customer.metadata.crm_id !== undefined) {
      paths.push(path(`metadata['crm_id']:${customer.metadata.crm_id}`, n));
    } else if (kind === "name5") {
      // Five characters of the surname, from anywhere in it.
      const surname = customer.name.slice(customer.name.indexOf(" ") + 1);
      const at = Math.floor(random() * (surname.length - 4));
      paths.push(path(`name~"${surname.slice(at, at + 5)}"`, n));
    }
  }
  return paths;
}

/** The same lookups as the list could answer them before `query`: email exactly, a name by q. */
export function previousPaths(kind: Selective, customers: Customer[]): string[] | undefined {
  if (kind === "email") {
    return customers.map((c, n) =>
      `/api/customers?email=${encodeURIComponent(c.email)}&limit=${51 + (n % 50)}`
    );
  }
  if (kind !== "name5") return undefined;
  return selectivePaths("name5", customers).map((p) => {
    const query = new URLSearchParams(p.slice(p.indexOf("?") + 1)).get("query")!;
    return `/api/customers?q=${encodeURIComponent(query.slice(6, -1))}&limit=100`;
  });
}

/**
 * A search no index narrows that matches nothing, so it visits every customer: no email lacks
 * "example" in the fixture, and the name clause makes each one new.
 */
export function unnarrowablePath(n: number): string {
  return path(`-email~"example" -name:"nobody ${n}"`, n);
}
