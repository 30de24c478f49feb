import { fnv1a30, FNV_OFFSET, FNV_PRIME } from "../lib/fnv_hash.ts";

/**
 * Live customers by email key, kept as small integers only: the 30-bit hash of the email key
 * leads to the hash of the customer's id (text_table.ts), so the index holds no string per
 * customer (an email key string cost about 48 bytes), and a map keyed by small integers finds an
 * entry without reading key strings scattered over the heap. Hashes shared by several customers
 * hold an array; a lookup checks each candidate's own email through `ownerUnder`, so a collision
 * never answers the wrong customer.
 */
export class EmailIndex {
  #byHash = new Map<number, number | number[]>();
  #ownerUnder: (idHash: number, key: string) => string | undefined;

  /**
   * `ownerUnder` gives the id of the live customer whose id has hash `idHash` and whose email key
   * is `key`, if there is one.
   */
  constructor(ownerUnder: (idHash: number, key: string) => string | undefined) {
    this.#ownerUnder = ownerUnder;
  }

  /** The id of the live customer with this email key (see emailKey), if any. */
  owner(key: string): string | undefined {
    const found = this.#byHash.get(emailHash(key));
    if (found === undefined) return undefined;
    if (typeof found === "number") return this.#ownerUnder(found, key);
    for (const idHash of found) {
      const owner = this.#ownerUnder(idHash, key);
      if (owner !== undefined) return owner;
    }
    return undefined;
  }

  /** Adds a customer (by its id's hash) under an email (any case). */
  add(email: string, idHash: number): void {
    const hash = emailHash(email);
    const found = this.#byHash.get(hash);
    if (found === undefined) this.#byHash.set(hash, idHash);
    else if (typeof found === "number") this.#byHash.set(hash, [found, idHash]);
    else found.push(idHash);
  }

  /** Removes a customer (by its id's hash) from under an email (any case). */
  remove(email: string, idHash: number): void {
    const hash = emailHash(email);
    const found = this.#byHash.get(hash);
    if (found === idHash) this.#byHash.delete(hash);
    else if (Array.isArray(found)) {
      const at = found.indexOf(idHash);
      if (at !== -1) found.splice(at, 1);
      if (found.length === 1) this.#byHash.set(hash, found[0]);
    }
  }
}

/**
 * FNV-1a of the email's key (its lower case, emailKey's rule), to 30 bits: a small integer on
 * every V8 build. ASCII is lower-cased on the way; a text with any other character is hashed as
 * toLowerCase gives it, whose Unicode rules (İ becomes two characters) the loop does not repeat.
 */
export function emailHash(email: string): number {
  let hash = FNV_OFFSET;
  for (let i = 0; i < email.length; i++) {
    let c = email.charCodeAt(i);
    if (c >= 0x80) return fnv1a30(email.toLowerCase());
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    hash = Math.imul(hash ^ c, FNV_PRIME);
  }
  return hash & 0x3fffffff;
}
