/**
 * Live customers' ids by email key, kept under a 30-bit hash of the key instead of the key itself:
 * a key string per customer cost about 48 bytes and an allocation per event replayed, and a map
 * keyed by small integers finds an entry without reading key strings scattered over the heap
 * (with a million customers that cache miss was most of a replayed event's cost). Keys that share
 * a hash share an entry, an array of ids; a lookup checks each candidate's own email through
 * `emailKeyOf`, so a collision never answers the wrong customer.
 */
export class EmailIndex {
  #byHash = new Map<number, string | string[]>();
  #emailKeyOf: (id: string) => string | undefined;

  /** `emailKeyOf` gives a live customer's email key (lower case), for checking candidates. */
  constructor(emailKeyOf: (id: string) => string | undefined) {
    this.#emailKeyOf = emailKeyOf;
  }

  /** The id of the live customer with this email key (see emailKey), if any. */
  owner(key: string): string | undefined {
    const found = this.#byHash.get(emailHash(key));
    if (found === undefined) return undefined;
    if (typeof found === "string") return this.#emailKeyOf(found) === key ? found : undefined;
    return found.find((id) => this.#emailKeyOf(id) === key);
  }

  /** Adds an id under an email (any case). */
  add(email: string, id: string): void {
    const hash = emailHash(email);
    const found = this.#byHash.get(hash);
    if (found === undefined) this.#byHash.set(hash, id);
    else if (typeof found === "string") this.#byHash.set(hash, [found, id]);
    else found.push(id);
  }

  /** Removes an id from under an email (any case). */
  remove(email: string, id: string): void {
    const hash = emailHash(email);
    const found = this.#byHash.get(hash);
    if (found === id) this.#byHash.delete(hash);
    else if (Array.isArray(found)) {
      const rest = found.filter((other) => other !== id);
      this.#byHash.set(hash, rest.length === 1 ? rest[0] : rest);
    }
  }
}

/**
 * FNV-1a of the email's key (its lower case, emailKey's rule), to 30 bits: a small integer on
 * every V8 build. ASCII is lower-cased on the way; a text with any other character is hashed as
 * toLowerCase gives it, whose Unicode rules (İ becomes two characters) the loop does not repeat.
 */
export function emailHash(email: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < email.length; i++) {
    let c = email.charCodeAt(i);
    if (c >= 0x80) return keyHash(email.toLowerCase());
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    hash = Math.imul(hash ^ c, 0x01000193);
  }
  return hash & 0x3fffffff;
}

/** FNV-1a of a text already lower case, as emailHash computes it for ASCII. */
function keyHash(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash & 0x3fffffff;
}
