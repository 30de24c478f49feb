import assert from "node:assert/strict";
import { decodeUtf8 } from "../../src/lib/utf8.ts";

const strict = new TextDecoder("utf-8", { fatal: true });
const bytes = (...values: number[]) => new Uint8Array(values);
const utf8 = (text: string) => new TextEncoder().encode(text);

Deno.test("decodeUtf8 decodes what the fatal decoder decodes, to the same text", () => {
  for (
    const input of [
      utf8(""),
      utf8('{"name":"Ada"}'),
      utf8("Björn Chloé"), // one byte per character in the string
      utf8("Hiro 広 🚀"), // two per character
      utf8("a real \uFFFD stays"), // a replacement character that was sent
      bytes(0xef, 0xbb, 0xbf, 0x41), // a byte order mark, dropped by both
      bytes(0xef, 0xbf, 0xbd),
    ]
  ) {
    assert.equal(decodeUtf8(input), strict.decode(input));
  }
});

Deno.test("decodeUtf8 throws a TypeError on malformed UTF-8, as the fatal decoder does", () => {
  for (
    const input of [
      bytes(0x41, 0xff, 0x42), // a byte that never occurs
      bytes(0x41, 0xc3), // a character cut off
      bytes(0xc3, 0x28), // a bad continuation
      bytes(0xed, 0xa0, 0x80), // a surrogate
      bytes(0xc0, 0xaf), // an overlong encoding
      new Uint8Array([...utf8("Björn "), 0xe2, 0x82]), // cut off after a one-byte text
    ]
  ) {
    assert.throws(() => strict.decode(input), TypeError);
    assert.throws(() => decodeUtf8(input), TypeError);
  }
});

Deno.test("decodeUtf8 decodes a view of a larger buffer, not the buffer", () => {
  const whole = utf8('xx{"a":"é"}yy');
  assert.equal(decodeUtf8(whole.subarray(2, whole.length - 2)), '{"a":"é"}');
});
Deno.test("decodeUtf8 gives what the fatal decoder gives for valid UTF-8, U+FFFD and a BOM too", () => {
  for (
    const text of ["", "plain ascii", "Björn Ærø 🎉 日本", "a real \uFFFD replacement", "\uFEFFbom"]
  ) {
    const bytes = utf8(text);
    assert.equal(decodeUtf8(bytes), strict.decode(bytes));
  }
});

Deno.test("decodeUtf8 throws where the fatal decoder throws, even beside a real U+FFFD", () => {
  const bad = [
    [0xff],
    [0x61, 0xc3], // a truncated two-byte sequence
    [0xed, 0xa0, 0x80], // an encoded surrogate
    [0xc0, 0x80], // an overlong NUL
    [...utf8("ok \uFFFD "), 0xfe],
  ];
  for (const bytes of bad) {
    assert.throws(() => strict.decode(new Uint8Array(bytes)), TypeError);
    assert.throws(() => decodeUtf8(new Uint8Array(bytes)), TypeError);
  }
});
