/**
 * The scans that replaced regular expressions (control characters, the visible-character fast
 * path, E.164 phones) answer exactly as the patterns did, on every BMP character alone and on many
 * generated strings that mix ASCII, controls, invisible characters, surrogate pairs and lone
 * surrogates.
 */
import assert from "node:assert/strict";
import {
  CONTROL_CHARS,
  hasControlChar,
  hasVisibleChar,
  INVISIBLE_CHARS,
  SURROGATES,
} from "../../src/domain/text_rules.ts";
import { isE164 } from "../../src/domain/validation.ts";

/** The patterns as text_rules.ts and validation.ts compiled them before the scans. */
const CONTROL = new RegExp(`[${CONTROL_CHARS}]`, "u");
const VISIBLE = new RegExp(`[^${INVISIBLE_CHARS}${SURROGATES}]`, "u");
const E164 = /^\+[0-9]{2,15}$/;

/** A small seeded PRNG (mulberry32), so a failure repeats. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Characters near every edge the rules draw, astral ones and lone surrogates included. */
const EDGES = [
  "\u0000",
  "\t",
  "\n",
  "\r",
  "\u001f",
  " ",
  "!",
  "+",
  "0",
  "9",
  "a",
  "~",
  "\u007f",
  "\u0080",
  "\u0085",
  "\u009f",
  "\u00a0",
  "\u00ad",
  "é",
  "\u034f",
  "\u0600",
  "\u061c",
  "\u115f",
  "\u1680",
  "\u180e",
  "\u2000",
  "\u200b",
  "\u200f",
  "\u2028",
  "\u202f",
  "\u205f",
  "\u2060",
  "\u206f",
  "\u3000",
  "\u3164",
  "李",
  "\ufe0f",
  "\ufeff",
  "\uffa0",
  "\ufffb",
  "\ufffc",
  "\ud800",
  "\udbff",
  "\udc00",
  "\udfff",
  "😀",
  "\u{E0041}",
  "\u{E0001}",
  "\u{1D173}",
  "٣",
  "０",
];

/** Strings of up to `maxLength` characters from `alphabet`, one in `1 / noise` any BMP unit. */
function generated(count: number, alphabet: string[], maxLength: number, noise = 0.2): string[] {
  const random = seeded(count + maxLength);
  const texts: string[] = [];
  for (let n = 0; n < count; n++) {
    let text = "";
    const length = Math.floor(random() * (maxLength + 1));
    for (let i = 0; i < length; i++) {
      text += random() < noise
        ? String.fromCharCode(Math.floor(random() * 0x10000))
        : alphabet[Math.floor(random() * alphabet.length)];
    }
    texts.push(text);
  }
  return texts;
}

Deno.test("hasControlChar and hasVisibleChar answer as the patterns for every BMP unit alone", () => {
  for (let code = 0; code <= 0xffff; code++) {
    const char = String.fromCharCode(code);
    assert.equal(hasControlChar(char), CONTROL.test(char), code.toString(16));
    assert.equal(hasVisibleChar(char), VISIBLE.test(char), code.toString(16));
  }
});

Deno.test("hasControlChar and hasVisibleChar answer as the patterns on generated strings", () => {
  const texts = [...EDGES, ...generated(100_000, EDGES, 8)];
  for (const edge of EDGES) texts.push(`Ada${edge}`, `${edge}Ada`, `${edge}${edge}`, ` ${edge} `);
  for (const text of texts) {
    assert.equal(hasControlChar(text), CONTROL.test(text), JSON.stringify(text));
    assert.equal(hasVisibleChar(text), VISIBLE.test(text), JSON.stringify(text));
  }
});

Deno.test("isE164 accepts and refuses exactly what the pattern did", () => {
  const digits = [..."0123456789"];
  const alphabet = [...digits, ...digits, ...digits, "+", "/", ":", " ", "\n", "a", "٣", "０", "-"];
  const texts = [
    "",
    "+",
    "+1",
    "+12",
    `+${"9".repeat(15)}`,
    `+${"9".repeat(16)}`,
    "+12\n",
    "++12",
    "12",
    "+1 2",
    ...generated(100_000, alphabet, 17, 0.01).map((text) => `+${text}`),
    ...generated(20_000, alphabet, 18),
  ];
  for (let length = 0; length <= 18; length++) texts.push(`+${"0".repeat(length)}`);
  let accepted = 0;
  for (const text of texts) {
    assert.equal(isE164(text), E164.test(text), JSON.stringify(text));
    if (E164.test(text)) accepted++;
  }
  assert.ok(accepted > 100, `only ${accepted} generated phones were valid`);
});
