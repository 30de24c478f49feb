import { pooledRandom } from "./random_pool.ts";

/** Crockford's base32, as ULIDs spell it. */
const ENCODING = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** Every pair of base32 characters, by the 10 bits it encodes: four lookups spell 40 bits. */
const PAIRS: string[] = [];
for (const high of ENCODING) for (const low of ENCODING) PAIRS.push(high + low);
/** The random part is two 40-bit halves (8 characters each), exact in a double. */
const HALF = 2 ** 40;
const TOP_10 = 2 ** 30;

/**
 * A monotonic ULID factory, as the ulid package's monotonicFactory answers, spelling ids from a
 * table of character pairs instead of one by one (`bench --only=http` measures POST).
 * `random` answers one random byte as a fraction of 256 (tests fix it).
 */
export function monotonicUlid(
  random: () => number = pooledRandom(),
  clock: () => number = Date.now,
): () => string {
  let lastTime = -1;
  let high = 0;
  let low = 0;
  /** The time and the random part's high half, spelled: what ids of one millisecond share. */
  let prefix = "";
  const randomHalf = () => {
    let half = 0;
    for (let i = 0; i < 5; i++) half = half * 256 + Math.floor(random() * 256);
    return half;
  };
  return () => {
    const now = clock();
    if (now > lastTime) {
      if (!Number.isSafeInteger(now) || now >= 2 ** 48) {
        throw new RangeError(`A ULID cannot encode the time ${now}`);
      }
      lastTime = now;
      high = randomHalf();
      low = randomHalf();
      prefix = spellTime(now) + spell40(high);
    } else if (lastTime < 0) {
      throw new RangeError(`A ULID cannot encode the time ${now}`);
    } else if (++low === HALF) {
      low = 0;
      if (++high === HALF) throw new RangeError("The ULID random part cannot increase further");
      prefix = spellTime(lastTime) + spell40(high);
    }
    return prefix + spell40(low);
  };
}

/** 48 bits of milliseconds as 10 characters (the first encodes only 3 bits). */
function spellTime(ms: number): string {
  const top = Math.floor(ms / HALF); // the highest 8 bits
  return ENCODING[top >> 5] + ENCODING[top & 31] + spell40(ms % HALF);
}

/** A number below 2^40 as 8 characters. */
function spell40(value: number): string {
  const upper = Math.floor(value / TOP_10); // 10 bits
  const rest = value % TOP_10; // 30 bits, a small integer
  return PAIRS[upper] + PAIRS[rest >>> 20] + PAIRS[(rest >>> 10) & 1023] + PAIRS[rest & 1023];
}
