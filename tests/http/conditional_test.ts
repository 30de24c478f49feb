import assert from "node:assert/strict";
import { etag, ifNoneMatchHits, parseIfMatch } from "../../src/http/conditional.ts";

Deno.test("the ETag of a version is the strong quoted version number", () => {
  assert.equal(etag(1), '"1"');
  assert.equal(etag(42), '"42"');
});

Deno.test("no If-Match header means no precondition", () => {
  assert.equal(parseIfMatch(null), undefined);
});

Deno.test("If-Match * accepts any version, with surrounding spaces too", () => {
  assert.equal(parseIfMatch("*"), "*");
  assert.equal(parseIfMatch("  * "), "*");
});

Deno.test("If-Match with one strong tag accepts exactly that version", () => {
  assert.deepEqual(parseIfMatch('"3"'), [3]);
});

Deno.test("If-Match with a list of tags accepts each of them, spaces ignored", () => {
  assert.deepEqual(parseIfMatch('"1", "7" ,"12"'), [1, 7, 12]);
});

Deno.test("a weak If-Match tag matches nothing (strong comparison)", () => {
  assert.deepEqual(parseIfMatch('W/"3"'), []);
  assert.deepEqual(parseIfMatch('W/"3", "4"'), [4]);
});

Deno.test("If-Match tags that are not versions of ours match nothing", () => {
  assert.deepEqual(parseIfMatch('"abc"'), []);
  assert.deepEqual(parseIfMatch("3"), []);
  assert.deepEqual(parseIfMatch('"0"'), []);
  assert.deepEqual(parseIfMatch('"01"'), []);
  assert.deepEqual(parseIfMatch('"-1"'), []);
  assert.deepEqual(parseIfMatch('"1.5"'), []);
  assert.deepEqual(parseIfMatch(""), []);
  assert.deepEqual(parseIfMatch('"12345678901234567"'), []);
});

Deno.test("If-Match * inside a list is not the wildcard", () => {
  assert.deepEqual(parseIfMatch('*, "2"'), [2]);
});

Deno.test("no If-None-Match header never hits", () => {
  assert.equal(ifNoneMatchHits(null, 1), false);
});

Deno.test("If-None-Match with the current strong tag hits", () => {
  assert.equal(ifNoneMatchHits('"5"', 5), true);
});

Deno.test("If-None-Match with another version misses", () => {
  assert.equal(ifNoneMatchHits('"4"', 5), false);
  assert.equal(ifNoneMatchHits('"55"', 5), false);
});

Deno.test("If-None-Match uses weak comparison: W/ of the current tag hits", () => {
  assert.equal(ifNoneMatchHits('W/"5"', 5), true);
});

Deno.test("If-None-Match hits when any tag of a list is current", () => {
  assert.equal(ifNoneMatchHits('"1", W/"2" , "5"', 5), true);
  assert.equal(ifNoneMatchHits('"1", "2"', 5), false);
});

Deno.test("If-None-Match * hits any existing version", () => {
  assert.equal(ifNoneMatchHits("*", 9), true);
  assert.equal(ifNoneMatchHits(" * ", 9), true);
});

Deno.test("an unquoted If-None-Match version misses", () => {
  assert.equal(ifNoneMatchHits("5", 5), false);
});
