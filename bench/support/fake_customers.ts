/** Deterministic, valid, realistic-looking customers, ids and request metadata for fixtures. */
import type { Address, Customer } from "../../src/domain/customer.ts";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
// A line each keeps `deno fmt` from spreading the name lists over twenty lines.
const FIRST = "Ada Björn Chloé Dmitri Emeka Fatima Grace Hiro Ines Jonas".split(" ");
const LAST = "Lovelace Andersson Dubois Ivanov Okafor Haddad Hopper Tanaka".split(" ");
const CITIES: [string, string, string][] = [
  ["Berlin", "BE", "DE"],
  ["Lyon", "ARA", "FR"],
  ["Austin", "TX", "US"],
  ["Osaka", "27", "JP"],
  ["Leeds", "ENG", "GB"],
  ["Utrecht", "UT", "NL"],
];
/** Given names of many languages, and syllables that surnames are made of (tens of thousands). */
const GIVEN =
  ("Ada Björn Chloé Dmitri Emeka Fatima Grace Hiro Ines Jonas Kofi Lena Mateo Nadia Omar " +
    "Priya Quentin Rosa Sven Tamar Uma Viktor Wen Ximena Yusuf Zoë Aiko Bruno Carmen Dario").split(
      " ",
    );
const SYLLABLES = ("ka lo ve ri sa mon del tor ber an ni vi gar hol ste fen mar qui zu bel " +
  "dra kin ot rup wes lin ab cor mel ty").split(" ");

/** Name number `n` of a fixture with varied names: a given name and a made-up surname. */
export function variedName(n: number): string {
  const given = GIVEN[n % GIVEN.length];
  let rest = (Math.floor(n / GIVEN.length) + 7) * 2654435761 % 1_000_003;
  let surname = "";
  for (let i = 0; i < 3 + (rest % 2); i++, rest = Math.floor(rest / SYLLABLES.length)) {
    surname += SYLLABLES[rest % SYLLABLES.length];
  }
  return `${given} ${surname[0].toUpperCase()}${surname.slice(1)}`;
}

/** The names as they appear in email addresses: ASCII, lower case. */
const ascii = (names: string[]) =>
  names.map((name) => name.normalize("NFD").replace(/[^A-Za-z]/g, "").toLowerCase());
const FIRST_ASCII = ascii(FIRST);
const LAST_ASCII = ascii(LAST);

/**
 * Customer number `n` at `version`: the email holds `n` (so emails are distinct) and updates
 * change email, phone or address in turn. Passes the API's validation. `names`: 80 names shared
 * by all (plain) or some 2,000,000 (varied, for searches by name).
 */
export function fakeCustomer(
  n: number,
  id: string,
  created: string,
  updated: string,
  version: number,
  random: () => number,
  names: "plain" | "varied" = "plain",
): Customer {
  const f = n % FIRST.length;
  const l = Math.floor(n / FIRST.length) % LAST.length;
  const domain = version % 3 === 0 ? "mail.example.org" : "example.com";
  const [city, region, country] = CITIES[(n + Math.floor(version / 3)) % CITIES.length];
  const address: Address | null = n % 5 < 3
    ? {
      line1: `${(n % 997) + version} ${LAST[l]} Street`,
      line2: n % 4 === 0 ? `Apt ${n % 120}` : null,
      city,
      region,
      postal_code: String(10000 + (n % 89999)),
      country,
    }
    : null;
  const metadata: Record<string, string> = {};
  if (n % 2 === 0) metadata.plan = random() < 0.3 ? "pro" : "free";
  if (n % 3 === 0) metadata.crm_id = `CRM-${String(n).padStart(8, "0")}`;
  return {
    id,
    name: names === "varied" ? variedName(n) : `${FIRST[f]} ${LAST[l]}`,
    email: `${FIRST_ASCII[f]}.${LAST_ASCII[l]}.${n}${version > 1 ? `.${version}` : ""}@${domain}`,
    phone: n % 10 < 7 ? `+49${30_000_000 + ((n * 7 + version) % 69_999_999)}` : null,
    address,
    metadata,
    created_at: created,
    updated_at: updated,
    version,
  };
}

/** A ULID for time `ms` with 80 random bits; distinct times keep ids in creation order. */
export function fakeUlid(ms: number, random: () => number): string {
  let time = "";
  for (let i = 0, t = ms; i < 10; i++, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
  let rest = "";
  for (let i = 0; i < 16; i++) rest += CROCKFORD[Math.floor(random() * 32)];
  return time + rest;
}

/** A version 4 UUID, as a request id. */
export function fakeUuid(random: () => number): string {
  const hex = () => Math.floor(random() * 0x1_0000_0000).toString(16).padStart(8, "0");
  const a = hex() + hex() + hex() + hex();
  const part = (from: number, to: number) => a.slice(from, to);
  return `${part(0, 8)}-${part(8, 12)}-4${part(13, 16)}-a${part(17, 20)}-${part(20, 32)}`;
}

/** 43 characters, the length of a base64url SHA-256 request hash. */
export function fakeHash(random: () => number): string {
  let out = "";
  for (let i = 0; i < 43; i++) out += CROCKFORD[Math.floor(random() * 32)];
  return out;
}
