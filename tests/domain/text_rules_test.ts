import assert from "node:assert/strict";
import {
  codePoints,
  hasControlChar,
  hasLoneSurrogate,
  hasVisibleChar,
  INVISIBLE_CHARS,
  TRIMMED_CHARS,
} from "../../src/domain/text_rules.ts";

/** Every BMP character (surrogates aside) the pattern class matches. */
function bmpMatching(pattern: RegExp): string[] {
  const found: string[] = [];
  for (let code = 0; code <= 0xffff; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const char = String.fromCharCode(code);
    if (pattern.test(char)) found.push(char);
  }
  return found;
}

Deno.test("INVISIBLE_CHARS is exactly the BMP's white space, controls, format and ignorables", () => {
  const unicode = /[\p{White_Space}\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
  assert.deepEqual(bmpMatching(new RegExp(`[${INVISIBLE_CHARS}]`, "u")), bmpMatching(unicode));
});

Deno.test("TRIMMED_CHARS is exactly what String#trim strips", () => {
  const trimmed = bmpMatching(/^\s$/).filter((char) => char.trim() === "");
  assert.deepEqual(bmpMatching(new RegExp(`[${TRIMMED_CHARS}]`, "u")), trimmed);
  assert.equal(trimmed.length, bmpMatching(/\s/).length);
});

Deno.test("a lone surrogate is found anywhere; a surrogate pair is not one", () => {
  for (const text of ["\ud800", "a\udc00", "\ud83d", "😀\ude00"]) {
    assert.equal(hasLoneSurrogate(text), true, JSON.stringify(text));
  }
  for (const text of ["", "Ada", "😀", "\ud83d\ude00x"]) {
    assert.equal(hasLoneSurrogate(text), false);
  }
});

Deno.test("C0 and C1 controls are control characters; format characters are not", () => {
  for (const char of ["\u0000", "\t", "\n", "\u001f", "\u007f", "\u0085", "\u009f"]) {
    assert.equal(hasControlChar(`a${char}b`), true, JSON.stringify(char));
  }
  for (const text of ["Ada", "\u00a0", "\u200b", "\u2028", "😀"]) {
    assert.equal(hasControlChar(text), false, JSON.stringify(text));
  }
});

Deno.test("a visible character is anything but white space, controls and invisible formatting", () => {
  for (const text of ["A", "\u200bA", "é", "李", "😀", ".", "\u0301", "\u{E0041}"]) {
    assert.equal(hasVisibleChar(text), true, JSON.stringify(text));
  }
  for (const text of ["", " ", "\u200b", "\u0000\u0085", "\u3164", "\ufe0f", "\ud800"]) {
    assert.equal(hasVisibleChar(text), false, JSON.stringify(text));
  }
});

Deno.test("length counts code points, so an emoji is one character", () => {
  assert.equal(codePoints("😀a"), 2);
  assert.equal(codePoints(""), 0);
});
