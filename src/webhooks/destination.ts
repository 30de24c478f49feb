import { refusedAddressClass } from "./address_policy.ts";

/** Where a delivery connects: the checked address, with the URL's host for Host and TLS. */
export interface Destination {
  url: URL;
  /** The IP address the connection goes to, checked against the address policy. */
  address: string;
  port: number;
  tls: boolean;
}

/** A webhook URL that may not be delivered to; the message says why. */
export class UnsafeDestinationError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = "UnsafeDestinationError";
  }
}

/** Looks up a host's addresses (Deno.resolveDns by default; tests can pass their own). */
export type Resolver = (hostname: string) => Promise<string[]>;

/** Resolves A and AAAA records with the system's resolver settings. */
export const systemResolver: Resolver = async (hostname) => {
  const lookups = await Promise.allSettled([
    Deno.resolveDns(hostname, "A"),
    Deno.resolveDns(hostname, "AAAA"),
  ]);
  return lookups.flatMap((lookup) => lookup.status === "fulfilled" ? lookup.value : []);
};

/** Maps a webhook URL to the address to connect to, refusing unsafe schemes and addresses. */
export class DestinationPolicy {
  /** Checked destinations of URLs with an IP address for host: no lookup can change them. */
  #literal = new Map<string, Destination>();

  constructor(
    readonly allowPrivate: boolean,
    private readonly resolve: Resolver = systemResolver,
  ) {}

  /** The checked destination of `raw`; throws UnsafeDestinationError naming the reason. */
  async check(raw: string): Promise<Destination> {
    const known = this.#literal.get(raw);
    if (known !== undefined) return known;
    const url = new URL(raw);
    const tls = url.protocol === "https:";
    if (!tls && !(this.allowPrivate && url.protocol === "http:")) {
      throw new UnsafeDestinationError(`url "${raw}" must use https`);
    }
    const port = url.port === "" ? (tls ? 443 : 80) : Number(url.port);
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const literal = refusedAddressClass(host) !== "invalid";
    const addresses = literal ? [host] : await this.resolve(host).catch(() => []);
    if (addresses.length === 0) {
      throw new UnsafeDestinationError(`Host "${host}" does not resolve to an address`);
    }
    if (!this.allowPrivate) {
      for (const address of addresses) {
        const refused = refusedAddressClass(address);
        // Every address must pass: the resolver may rotate through them.
        if (refused !== null) {
          throw new UnsafeDestinationError(
            `Host "${host}" resolves to ${refused} address "${address}"`,
          );
        }
      }
    }
    const destination = { url, address: addresses[0], port, tls };
    if (literal && this.#literal.size < 10_000) this.#literal.set(raw, destination);
    return destination;
  }
}
