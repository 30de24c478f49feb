/** Key pairs and key-set servers for JWKS tests: what a real identity provider publishes. */
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { ALL_SCOPES } from "./tokens.ts";

/** The asymmetric algorithms a key set may use (contract §2). */
export type KeyAlg = "RS256" | "PS256" | "ES256" | "EdDSA" | "Ed25519";

/** A key pair as an identity provider holds it, with its public JWK ready to publish. */
export interface SigningKey {
  kid: string;
  alg: KeyAlg;
  privateKey: CryptoKey;
  /** The public half as a JWK with `kid` and `use: "sig"`. */
  publicJwk: JWK;
  /** The private half as a JWK (with `d`), for tests that publish a key they must not. */
  privateJwk: JWK;
}

/** Generates a key pair for `alg` named `kid`. */
export async function newSigningKey(alg: KeyAlg, kid: string): Promise<SigningKey> {
  const { publicKey, privateKey } = alg === "EdDSA"
    ? await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true })
    : await generateKeyPair(alg, { extractable: true });
  return {
    kid,
    alg,
    privateKey,
    publicJwk: { ...await exportJWK(publicKey), kid, use: "sig" },
    privateJwk: { ...await exportJWK(privateKey), kid, use: "sig" },
  };
}

/** What a test may vary in a token signed by a key pair. */
export interface SignOptions {
  /** Claims added to (or replacing) `scope`, `sub`, `iat`, `exp` and a random `jti`. */
  claims?: Record<string, unknown>;
  /** Protected-header fields added to (or replacing) `alg`, `kid` and `typ`. */
  header?: Record<string, unknown>;
  ttlSeconds?: number;
}

/** Signs a JWT with the key; every call gives a distinct token (random `jti`). */
export function signWith(key: SigningKey, options: SignOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    scope: ALL_SCOPES,
    sub: "jwks-tester",
    iat: now,
    exp: now + (options.ttlSeconds ?? 3600),
    jti: crypto.randomUUID(),
    ...options.claims,
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: "JWT", ...options.header })
    .sign(key.privateKey);
}

/** A local HTTP server publishing a key set, counting every request it gets. */
export interface KeySetServer {
  /** The key set's URL. */
  readonly url: string;
  readonly port: number;
  /** Requests received so far, whatever their path. */
  readonly hits: number;
  /** Publishes another body from now on (a rotation, or something broken). */
  serve(body: unknown): void;
  /** Answers every request with this status from now on (an IdP in trouble). */
  failWith(status: number): void;
  /** Stops listening; further fetches get "connection refused". */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Serves `{ keys }` (or any JSON body) at `/jwks.json` on 127.0.0.1; port 0 picks a free one. */
export function serveKeySet(body: unknown, port = 0): KeySetServer {
  let current = body;
  let status = 200;
  let hits = 0;
  let stopped: Promise<void> | undefined;
  const server = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, () => {
    hits++;
    if (status !== 200) return new Response("unavailable", { status });
    return Response.json(current);
  });
  const stop = () => stopped ??= server.shutdown();
  return {
    url: `http://127.0.0.1:${server.addr.port}/jwks.json`,
    port: server.addr.port,
    get hits() {
      return hits;
    },
    serve(next: unknown) {
      current = next;
      status = 200;
    },
    failWith(next: number) {
      status = next;
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** A JWKS body holding the public keys of `keys`. */
export function keySetOf(...keys: SigningKey[]): { keys: JWK[] } {
  return { keys: keys.map((key) => key.publicJwk) };
}
