import assert from "node:assert/strict";
import { applyMergePatch } from "../../src/domain/merge_patch.ts";

/** Freezes a JSON value and everything inside it, so any mutation throws. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

// Every example of RFC 7396 Appendix A: [original, patch, result].
const APPENDIX_A: [unknown, unknown, unknown][] = [
  [{ a: "b" }, { a: "c" }, { a: "c" }],
  [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
  [{ a: "b" }, { a: null }, {}],
  [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
  [{ a: ["b"] }, { a: "c" }, { a: "c" }],
  [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
  [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
  [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
  [["a", "b"], ["c", "d"], ["c", "d"]],
  [{ a: "b" }, ["c"], ["c"]],
  [{ a: "foo" }, null, null],
  [{ a: "foo" }, "bar", "bar"],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: "b", c: null }, { a: "b" }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

for (const [index, [original, patch, result]] of APPENDIX_A.entries()) {
  Deno.test(
    `RFC 7396 Appendix A example ${index + 1}: ${JSON.stringify(original)} patched with ${
      JSON.stringify(patch)
    } is ${JSON.stringify(result)}`,
    () => {
      assert.deepEqual(applyMergePatch(original, patch), result);
    },
  );
}

Deno.test("RFC 7396 section 3 example: nested members merge, null removes, arrays replace", () => {
  const target = {
    title: "Goodbye!",
    author: { givenName: "John", familyName: "Doe" },
    tags: ["example", "sample"],
    content: "This will be unchanged",
  };
  const patch = {
    title: "Hello!",
    phoneNumber: "+01-123-456-7890",
    author: { familyName: null },
    tags: ["example"],
  };
  assert.deepEqual(applyMergePatch(target, patch), {
    title: "Hello!",
    author: { givenName: "John" },
    tags: ["example"],
    content: "This will be unchanged",
    phoneNumber: "+01-123-456-7890",
  });
});

Deno.test("a nested object patch merges into the existing nested object, keeping other members", () => {
  const target = { address: { city: "London", country: "GB", line1: "12 St James's Square" } };
  const patch = { address: { city: "Paris", country: "FR" } };
  assert.deepEqual(applyMergePatch(target, patch), {
    address: { city: "Paris", country: "FR", line1: "12 St James's Square" },
  });
});

Deno.test("merging reaches several levels deep", () => {
  const target = { a: { b: { c: 1, d: 2 }, e: 3 } };
  assert.deepEqual(applyMergePatch(target, { a: { b: { c: 10, f: 4 } } }), {
    a: { b: { c: 10, d: 2, f: 4 }, e: 3 },
  });
});

Deno.test("a null member removes the key, and removing an absent key changes nothing", () => {
  assert.deepEqual(applyMergePatch({ phone: "+442079460958", name: "Ada" }, { phone: null }), {
    name: "Ada",
  });
  assert.deepEqual(applyMergePatch({ name: "Ada" }, { phone: null }), { name: "Ada" });
});

Deno.test("an array in the patch replaces the target array instead of merging element-wise", () => {
  assert.deepEqual(applyMergePatch({ tags: [1, 2, 3] }, { tags: [4] }), { tags: [4] });
  assert.deepEqual(applyMergePatch({ tags: [{ a: 1 }] }, { tags: [{ b: 2 }] }), {
    tags: [{ b: 2 }],
  });
});

Deno.test("an object patch over a scalar member replaces it with the patch, nulls dropped", () => {
  assert.deepEqual(applyMergePatch({ a: "x" }, { a: { b: 1, c: null } }), { a: { b: 1 } });
});

Deno.test("an empty object patch returns an equal copy of an object target", () => {
  const target = { a: 1, b: { c: 2 } };
  const result = applyMergePatch(target, {});
  assert.deepEqual(result, target);
  assert.notEqual(result, target);
});

Deno.test("neither the target nor the patch is mutated", () => {
  const target = { a: "b", nested: { keep: 1, drop: 2, change: 3 }, list: [1, 2] };
  const patch = {
    a: null,
    nested: { drop: null, change: 30, add: { deep: null, x: 1 } },
    list: [3],
  };
  const targetCopy = structuredClone(target);
  const patchCopy = structuredClone(patch);
  const result = applyMergePatch(deepFreeze(target), deepFreeze(patch));
  assert.deepEqual(result, { nested: { keep: 1, change: 30, add: { x: 1 } }, list: [3] });
  assert.deepEqual(target, targetCopy);
  assert.deepEqual(patch, patchCopy);
});

Deno.test("a __proto__ key in the patch becomes an own data property, not the prototype", () => {
  const patch = JSON.parse('{"__proto__":{"polluted":"yes"}}');
  const result = applyMergePatch({ a: 1 }, patch) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(result), Object.prototype);
  assert.equal(Object.hasOwn(result, "__proto__"), true);
  assert.equal(result.polluted, undefined);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(JSON.stringify(result), '{"a":1,"__proto__":{"polluted":"yes"}}');
});

Deno.test("a __proto__ key merges into an own __proto__ member and null removes it", () => {
  const target = JSON.parse('{"__proto__":{"a":1}}');
  const merged = applyMergePatch(target, JSON.parse('{"__proto__":{"b":2}}'));
  assert.equal(JSON.stringify(merged), '{"__proto__":{"a":1,"b":2}}');
  const removed = applyMergePatch(target, JSON.parse('{"__proto__":null}'));
  assert.equal(JSON.stringify(removed), "{}");
  assert.equal(Object.getPrototypeOf(removed), Object.prototype);
});

Deno.test("a __proto__ patch against a target without that key does not merge into Object.prototype", () => {
  // Object.prototype must not be treated as the existing member and merged into the result.
  const result = applyMergePatch({}, JSON.parse('{"__proto__":{"x":1}}'));
  assert.equal(JSON.stringify(result), '{"__proto__":{"x":1}}');
  const inner = (result as Record<string, unknown>)["__proto__"];
  assert.deepEqual(Object.keys(inner as object), ["x"]);
  assert.equal(Object.getPrototypeOf(inner), Object.prototype);
});
