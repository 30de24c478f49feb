/**
 * Which IP addresses a webhook may be delivered to: public unicast only. Every class that could
 * reach the server or its network is refused, also inside IPv6 forms carrying an IPv4 address.
 */

/** Why an address is refused, or null when it is public. */
export type AddressClass =
  | "unspecified"
  | "loopback"
  | "private"
  | "shared (CGNAT)"
  | "link-local"
  | "unique-local"
  | "multicast"
  | "reserved"
  | "invalid";

const V4_BLOCKS: [string, number, AddressClass][] = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared (CGNAT)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "reserved"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "reserved"],
  ["198.51.100.0", 24, "reserved"],
  ["203.0.113.0", 24, "reserved"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];

/** The 32-bit value of a dotted IPv4 address, or undefined when it is not one. */
export function parseIpv4(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part) || Number(part) > 255) return undefined;
    value = value * 256 + Number(part);
  }
  return value;
}

/** The eight 16-bit groups of an IPv6 address (a zone id is ignored), or undefined. */
export function parseIpv6(text: string): number[] | undefined {
  const address = text.replace(/^\[|\]$/g, "").split("%")[0].toLowerCase();
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string): number[] | undefined => {
    if (part === "") return [];
    const groups: number[] = [];
    const pieces = part.split(":");
    for (const [i, piece] of pieces.entries()) {
      if (i === pieces.length - 1 && piece.includes(".")) {
        const v4 = parseIpv4(piece);
        if (v4 === undefined) return undefined;
        groups.push(Math.floor(v4 / 65536), v4 % 65536);
      } else if (/^[0-9a-f]{1,4}$/.test(piece)) groups.push(parseInt(piece, 16));
      else return undefined;
    }
    return groups;
  };
  const head = groupsOf(halves[0]);
  const tail = halves.length === 2 ? groupsOf(halves[1]) : [];
  if (head === undefined || tail === undefined) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const missing = 8 - head.length - tail.length;
  return missing < 1 ? undefined : [...head, ...new Array(missing).fill(0), ...tail];
}

function classifyV4(value: number): AddressClass | null {
  if (value === 0xffffffff) return "reserved";
  for (const [base, bits, kind] of V4_BLOCKS) {
    const size = 2 ** (32 - bits);
    const start = parseIpv4(base)!;
    if (value >= start && value < start + size) return kind;
  }
  return null;
}

const v4Of = (high: number, low: number) => high * 65536 + low;

function classifyV6(g: number[]): AddressClass | null {
  const zeroUntil = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUntil(8)) return "unspecified";
  if (zeroUntil(7) && g[7] === 1) return "loopback";
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible) reach the IPv4 address they carry.
  if (zeroUntil(5) && g[5] === 0xffff) return classifyV4(v4Of(g[6], g[7]));
  if (zeroUntil(6)) return classifyV4(v4Of(g[6], g[7])) ?? "reserved";
  // NAT64 (64:ff9b::/96, 64:ff9b:1::/48) and 6to4 (2002::/16) carry an IPv4 address too.
  if (g[0] === 0x64 && g[1] === 0xff9b) return classifyV4(v4Of(g[6], g[7])) ?? null;
  if (g[0] === 0x2002) return classifyV4(v4Of(g[1], g[2]));
  if ((g[0] & 0xfe00) === 0xfc00) return "unique-local";
  if ((g[0] & 0xffc0) === 0xfe80) return "link-local";
  if ((g[0] & 0xffc0) === 0xfec0) return "unique-local";
  if ((g[0] & 0xff00) === 0xff00) return "multicast";
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "reserved";
  if (g[0] === 0x0100 && zeroUntil(4)) return "reserved";
  return null;
}

/** Why a webhook must not be delivered to this address, or null when it is public unicast. */
export function refusedAddressClass(address: string): AddressClass | null {
  const v4 = parseIpv4(address);
  if (v4 !== undefined) return classifyV4(v4);
  const v6 = parseIpv6(address);
  return v6 === undefined ? "invalid" : classifyV6(v6);
}
