import assert from "node:assert/strict";
import { decodeUtf8 } from "../../src/lib/utf8.ts";

const fatal = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

Deno.test("decodeUtf8 gives what the fatal TextDecoder gives for valid UTF-8, U+FFFD and a BOM too", () => {
  for (
    const text of ["", "plain ascii", "Björn Ærø 🎉 日本", "a real \uFFFD replacement", "\uFEFFbom"]
  ) {
    const bytes = encoder.encode(text);
    assert.equal(decodeUtf8(bytes), fatal.decode(bytes));
  }
});

Deno.test("decodeUtf8 throws where the fatal TextDecoder throws, even beside a real U+FFFD", () => {
  const bad = [
    [0xff],
    [0x61, 0xc3], // a truncated two-byte sequence
    [0xed, 0xa0, 0x80], // an encoded surrogate
    [0xc0, 0x80], // an overlong NUL
    [...encoder.encode("ok \uFFFD "), 0xfe],
  ];
  for (const bytes of bad) {
    assert.throws(() => fatal.decode(new Uint8Array(bytes)), TypeError);
    assert.throws(() => decodeUtf8(new Uint8Array(bytes)), TypeError);
  }
});
