/**
 * Customers made by the real domain (validation and decide) from seeded random input that is odd
 * but valid: unicode, JSON escapes, quotes, lookalike JSON in strings, missing optional fields.
 */
import type { Customer } from "../../src/domain/customer.ts";
import { COUNTRY_CODES } from "../../src/domain/country_codes.ts";
import { decide } from "../../src/domain/decide.ts";
import { isValidEmail } from "../../src/domain/email_address.ts";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const ATEXT = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+/=?^_`{|}~-";
/** Pieces of text that JSON escapes, that case-map oddly, or that look like the text's own JSON. */
const ODD = [
  '"',
  "\\",
  "\\u0041",
  "\n",
  "\t",
  "\u0000",
  "\u001f",
  "\u007f",
  "\u2028",
  "😀",
  "👩‍💻",
  "é",
  "e\u0301",
  "ß",
  "ẞ",
  "İ",
  "ı",
  "K", // Kelvin sign, lower case "k"
  "Ω", // Ohm sign
  "ϴ",
  "Σ",
  "ς",
  "ǅ",
  "Ꭰ",
  "中文",
  "עברית",
  '","email":"fake@example.com',
  ',"version":7}',
  '{"id":"01ARZ3NDEKTSV4RRFFQ69G5FAV"}',
  "__proto__",
  "</script>",
];
/** Control characters: free-form metadata may hold them, names and address fields may not. */
const CONTROLS = ["\n", "\t", "\u0000", "\u001f", "\u007f"];
/** The odd pieces a name or an address field may hold. */
const ODD_TEXT = ODD.filter((piece) => !CONTROLS.includes(piece));
const COUNTRIES = [...COUNTRY_CODES];

/** Random choices from one seeded source. */
export class CustomerGenerator {
  #random: () => number;

  constructor(random: () => number) {
    this.#random = random;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.#random() * n);
  }

  /** One element of the list. */
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)];
  }

  /** An odd but valid customer, made by decide from a create command. */
  customer(): Customer {
    const body: Record<string, unknown> = { name: this.#name(), email: this.#email() };
    if (this.int(3) > 0) {
      body.phone = this.int(4) === 0 ? null : `+${this.#digits(2 + this.int(14))}`;
    }
    if (this.int(3) > 0) body.address = this.int(4) === 0 ? null : this.#address();
    if (this.int(3) > 0) body.metadata = this.#metadata();
    const time = this.#timestamp();
    const state = { get: () => undefined, emailOwner: () => undefined };
    const event = decide({ type: "CreateCustomer", body }, state, {
      now: () => time,
      newId: () => this.#ulid(),
    });
    // Versions from 1 to 15 digits, log-uniform, as updates would leave them.
    const version = Math.max(1, Math.floor(10 ** (this.#random() * 15)));
    return { ...event.data!, updated_at: this.int(2) === 0 ? time : this.#timestamp(), version };
  }

  /** Text of 1 to `max` code points mixing plain letters and odd pieces (`pieces`). */
  text(max: number, pieces: readonly string[] = ODD_TEXT): string {
    let text = "";
    let points = 0;
    const want = 1 + this.int(max);
    while (points < want) {
      const piece = this.int(3) === 0
        ? this.pick(pieces)
        : this.pick(["a", "B", "z", " ", "-", "."]);
      const length = [...piece].length;
      if (points + length > max) break;
      text += piece;
      points += length;
    }
    return text === "" ? "x" : text;
  }

  /** A name that survives trimming: odd text between two plain letters. */
  #name(): string {
    return `${this.pick(["A", "é", "Σ", "İ", "K"])}${this.text(150)}${this.pick(["z", "ß", "Ω"])}`;
  }

  /** A valid email: a dot-atom local part of any atext, a DNS domain, any case. */
  #email(): string {
    for (;;) {
      const atoms = Array.from(
        { length: 1 + this.int(3) },
        () => this.#chars(ATEXT, 1 + this.int(8)),
      );
      const labels = Array.from(
        { length: 1 + this.int(3) },
        () => this.#chars("abcXYZ019", 1 + this.int(10)),
      );
      const top = this.int(5) === 0
        ? `xn--${this.#chars("abc123", 4)}`
        : this.#chars("comORGde", 2 + this.int(4));
      const email = `${atoms.join(".")}@${[...labels, top].join(".")}`;
      if (isValidEmail(email)) return email;
    }
  }

  /** Some address fields (missing, null or odd text) and maybe a country. */
  #address(): Record<string, string | null> {
    const address: Record<string, string | null> = {};
    for (const field of ["line1", "line2", "city", "region", "postal_code"]) {
      if (this.int(2) === 0) address[field] = this.int(5) === 0 ? null : this.text(60);
    }
    if (this.int(2) === 0) address.country = this.pick(COUNTRIES);
    return address;
  }

  /** Up to 50 entries, keys and values odd text or names that look like the customer's own. */
  #metadata(): Record<string, string> {
    const metadata: Record<string, string> = {};
    const count = this.int(4) === 0 ? 50 : this.int(6);
    for (let i = 0; i < count; i++) {
      const key = this.int(4) === 0
        ? this.pick(["__proto__", "version", "id", "0", "12", "email"])
        : this.text(40, ODD);
      Object.defineProperty(metadata, key, {
        value: this.text(this.int(10) === 0 ? 500 : 40, ODD),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return metadata;
  }

  /** A well-formed ULID. */
  #ulid(): string {
    return this.#chars("01234567", 1) + this.#chars(CROCKFORD, 25);
  }

  /** An RFC 3339 UTC timestamp with milliseconds, between 2000 and 2034. */
  #timestamp(): string {
    return new Date(Date.UTC(2000, 0, 1) + this.int(2 ** 40)).toISOString();
  }

  /** n decimal digits. */
  #digits(n: number): string {
    return this.#chars("0123456789", n);
  }

  /** n characters drawn from the alphabet. */
  #chars(alphabet: string, n: number): string {
    let out = "";
    for (let i = 0; i < n; i++) out += alphabet[this.int(alphabet.length)];
    return out;
  }
}
