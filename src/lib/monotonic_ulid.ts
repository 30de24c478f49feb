/**
 * ULIDs as `ulid`'s monotonicFactory makes them (the same text for the same clock and random
 * fractions), each made as one flat string. `ulid` builds an id from about thirty short strings
 * (a character prepended at a time, then the time and random parts concatenated): some 380 bytes
 * for the collector per id, and a concatenation left for whoever keeps the id (the feed index
 * does) to flatten. Here the 26 characters are kept as codes and turned into a string once.
 */

/** Crockford's base32 alphabet, as ULIDs spell it. */
const ENCODING = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const CODES = Array.from(ENCODING, (c) => c.charCodeAt(0));
const TIME_LENGTH = 10;
const RANDOM_LENGTH = 16;
/** The largest time a ULID holds: 48 bits of milliseconds. */
const TIME_MAX = 2 ** 48 - 1;

/**
 * A ULID factory: within one millisecond (or when the clock goes back) the random part of the
 * last id is incremented, so ids sort in the order they were made. `random` answers fractions in
 * [0, 1), as `ulid`'s PRNGs do (pooledRandom, say); `clock` answers milliseconds.
 */
export function monotonicUlid(
  random: () => number,
  clock: () => number = Date.now,
): () => string {
  // The current id's character codes: 10 of time, then 16 random ones.
  const codes = new Array<number>(TIME_LENGTH + RANDOM_LENGTH).fill(CODES[0]);
  // Each random character's value (0-31), for incrementing.
  const digits = new Array<number>(RANDOM_LENGTH).fill(0);
  let lastTime = -1;
  return () => {
    const now = clock();
    if (now <= lastTime) increment(codes, digits);
    else {
      if (!Number.isInteger(now) || now < 0 || now > TIME_MAX) {
        throw new RangeError(`A ULID's time must be an integer in [0, 2^48): ${now}`);
      }
      lastTime = now;
      let time = now;
      for (let i = TIME_LENGTH - 1; i >= 0; i--) {
        const digit = time % 32;
        codes[i] = CODES[digit];
        time = (time - digit) / 32;
      }
      // Drawn last character first, as `ulid` prepends each character it draws.
      for (let i = RANDOM_LENGTH - 1; i >= 0; i--) {
        const digit = Math.floor(random() * 32) % 32;
        digits[i] = digit;
        codes[TIME_LENGTH + i] = CODES[digit];
      }
    }
    return String.fromCharCode(...codes);
  };
}

/** Adds one to the random part, as `ulid` does; throws when it is all Z (as `ulid` does too). */
function increment(codes: number[], digits: number[]): void {
  for (let i = RANDOM_LENGTH - 1; i >= 0; i--) {
    if (digits[i] < 31) {
      digits[i]++;
      codes[TIME_LENGTH + i] = CODES[digits[i]];
      return;
    }
    digits[i] = 0;
    codes[TIME_LENGTH + i] = CODES[0];
  }
  throw new RangeError("The ULID's random part cannot be incremented any further");
}
