import assert from "node:assert/strict";
import { compile } from "../../src/http/router.ts";

const PATTERNS = ["/api/customers", "/api/customers/:id", "/healthz", "/a/:x/b/:y"];
const SEGMENTS = [
  "",
  "api",
  "customers",
  "01JDQ8Z5K3M4N5P6Q7R8S9T0VW",
  "a",
  "b",
  "%20",
  "x.y",
  "-",
];

/** Every pathname of up to `depth` segments drawn from SEGMENTS (plus trailing-slash forms). */
function pathnames(depth: number): string[] {
  let level = [""];
  const all: string[] = [];
  for (let d = 0; d < depth; d++) {
    level = level.flatMap((prefix) => SEGMENTS.map((segment) => `${prefix}/${segment}`));
    all.push(...level);
  }
  return all;
}

Deno.test("the segment matcher answers exactly as URLPattern for every simple route and path", () => {
  const inputs = pathnames(4);
  for (const pattern of PATTERNS) {
    const fast = compile(pattern);
    const reference = new URLPattern({ pathname: pattern });
    for (const input of inputs) {
      const expected = reference.exec({ pathname: input })?.pathname.groups ?? null;
      assert.deepEqual(fast(input), expected, `${pattern} against "${input}"`);
    }
  }
});

Deno.test("a pattern beyond literal and :name segments is matched by URLPattern itself", () => {
  const match = compile("/files/:path*");
  assert.deepEqual(match("/files/a/b"), { path: "a/b" });
  assert.equal(match("/other"), null);
});
