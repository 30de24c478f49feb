import { fnv1a30, FNV_OFFSET, FNV_PRIME } from "../lib/fnv_hash.ts";

/**
 * Live customers by email key, kept as integers only: the email key's hash leads to the id's hash,
 * so no string per customer; a lookup checks each candidate's email, so collisions never mislead.
 */
export class EmailIndex {
  #byHash = new Map<number, number | number[]>();
  #ownerUnder: (idHash: number, key: string) => string | undefined;

  /** `ownerUnder` gives the live customer with id hash `idHash` and email key `key`, if any. */
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
 * FNV-1a of the email's key to 30 bits (a small integer); ASCII lower-cased on the way, any other
 * text through toLowerCase, whose Unicode rules the loop does not repeat.
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
