/** A rate: `limit` requests per `windowSeconds`, with bursts up to `burst`. */
export interface RatePolicy {
  limit: number;
  windowSeconds: number;
  burst: number;
}

export interface RateDecision {
  allowed: boolean;
  remaining: number;
  /** Seconds until a token is available again (0 when allowed). */
  retryAfter: number;
}

/** Parses RATE_LIMIT such as "100/s", "6000/m" or "100000/h"; the burst defaults to the limit. */
export function parseRatePolicy(text: string, burst?: number): RatePolicy {
  const match = /^([1-9][0-9]{0,8})\/([smh])$/.exec(text.trim());
  if (match === null) {
    throw new Error(`RATE_LIMIT "${text}" must look like 100/s, 6000/m or 100000/h`);
  }
  const limit = Number(match[1]);
  return { limit, windowSeconds: { s: 1, m: 60, h: 3600 }[match[2]]!, burst: burst ?? limit };
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Token buckets per subject; idle subjects are forgotten first when the map is full. */
export class RateLimiter {
  #buckets = new Map<string, Bucket>();
  #perMs: number;
  constructor(
    readonly policy: RatePolicy,
    // A monotonic clock: a wall clock stepping back (NTP) must not take tokens away.
    private readonly clock: () => number = () => performance.now(),
    private readonly maxSubjects = 100_000,
  ) {
    this.#perMs = policy.limit / (policy.windowSeconds * 1000);
  }

  take(subject: string): RateDecision {
    const now = this.clock();
    let bucket = this.#buckets.get(subject);
    if (bucket === undefined) {
      if (this.#buckets.size >= this.maxSubjects) {
        this.#buckets.delete(this.#buckets.keys().next().value!);
      }
      bucket = { tokens: this.policy.burst, at: now };
    } else {
      this.#buckets.delete(subject);
      const elapsed = Math.max(0, now - bucket.at);
      bucket.tokens = Math.min(this.policy.burst, bucket.tokens + elapsed * this.#perMs);
      bucket.at = now;
    }
    // Re-inserting keeps the map ordered from least to most recently used.
    this.#buckets.set(subject, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true, remaining: Math.floor(bucket.tokens), retryAfter: 0 };
    }
    return {
      allowed: false,
      remaining: 0,
      retryAfter: Math.ceil((1 - bucket.tokens) / this.#perMs / 1000),
    };
  }

  /** The RateLimit-Policy and RateLimit header values (draft-ietf-httpapi-ratelimit-headers). */
  headers(decision: RateDecision): Record<string, string> {
    const { limit, windowSeconds } = this.policy;
    const reset = decision.allowed ? 0 : decision.retryAfter;
    return {
      "ratelimit-policy": `"default";q=${limit};w=${windowSeconds}`,
      "ratelimit": `"default";r=${decision.remaining};t=${reset}`,
    };
  }
}
