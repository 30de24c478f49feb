/**
 * How the console's files are served (contract §12): without a token, under a strict CSP with
 * nosniff and no referrer, with their media types and ETags, small, and not at all with
 * CONSOLE=off.
 */
import assert from "node:assert/strict";
import { ApiClient } from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

const ASSETS = new URL("../../src/console/assets/", import.meta.url);
const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
};
/** The budget of contract §12's issue: every console file together, uncompressed. */
const MAX_TOTAL_BYTES = 150 * 1024;

/** The paths the page and its scripts load: `/console/…` links, and `./…` module imports. */
function referencedPaths(text: string): string[] {
  const links = [...text.matchAll(/(?:href|src)="(\/console\/[^"]+)"/g)].map((m) => m[1]);
  const imports = [...text.matchAll(/(?:from\s+|import\()"\.\/([^"]+)"/g)]
    .map((m) => `/console/${m[1]}`);
  return [...links, ...imports];
}

/** Every console path, found by following the page's references from `/console`. */
async function crawl(base: string): Promise<Map<string, Response & { bytes: Uint8Array }>> {
  const found = new Map<string, Response & { bytes: Uint8Array }>();
  const queue = ["/console"];
  while (queue.length > 0) {
    const path = queue.shift()!;
    if (found.has(path)) continue;
    const response = await fetch(`${base}${path}`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    found.set(path, Object.assign(response, { bytes }));
    queue.push(...referencedPaths(new TextDecoder().decode(bytes)));
  }
  return found;
}

Deno.test("every console file is served without a token, with a strict CSP, nosniff, no referrer, its type and an ETag", async () => {
  await using server = await startServer();
  const files = await crawl(server.url);
  const onDisk = [...Deno.readDirSync(ASSETS)].map((entry) => entry.name)
    .filter((name) => name !== "index.html").map((name) => `/console/${name}`);
  assert.deepEqual(
    [...files.keys()].filter((path) => path !== "/console").sort(),
    onDisk.sort(),
    "the page does not load exactly the files in src/console/assets",
  );
  let total = 0;
  for (const [path, response] of files) {
    assert.equal(response.status, 200, path);
    const extension = path === "/console" ? "html" : path.split(".").pop()!;
    assert.equal(response.headers.get("content-type"), TYPES[extension], path);
    const csp = response.headers.get("content-security-policy") ?? "";
    const directives = new Map(
      csp.split(";").map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name, values.join(" ")]),
    );
    assert.equal(directives.get("default-src"), "'self'", path);
    assert.equal(directives.get("script-src"), "'self'", path);
    assert.equal(directives.get("style-src"), "'self'", path);
    assert.equal(directives.get("frame-ancestors"), "'none'", path);
    assert.equal(directives.get("base-uri"), "'none'", path);
    assert.ok(!/unsafe-(inline|eval)/.test(csp), `${path}: ${csp}`);
    assert.equal(response.headers.get("x-content-type-options"), "nosniff", path);
    assert.equal(response.headers.get("referrer-policy"), "no-referrer", path);
    const etag = response.headers.get("etag");
    assert.match(etag ?? "", /^"[^"]+"$/, path);
    const again = await fetch(`${server.url}${path}`, { headers: { "if-none-match": etag! } });
    await again.body?.cancel();
    assert.equal(again.status, 304, path);
    assert.equal(again.headers.get("content-security-policy"), csp, path);
    total += response.bytes.length;
  }
  console.log(`console files: ${files.size}, ${total} bytes uncompressed`);
  assert.ok(total <= MAX_TOTAL_BYTES, `${total} bytes`);
  const missing = await fetch(`${server.url}/console/missing.js`);
  await missing.body?.cancel();
  assert.equal(missing.status, 404);
});

Deno.test("with CONSOLE=off the console answers 404 and the API still serves", async () => {
  await using server = await startServer({ env: { CONSOLE: "off" } });
  for (const path of ["/console", "/console/app.js"]) {
    const response = await fetch(`${server.url}${path}`);
    await response.body?.cancel();
    assert.equal(response.status, 404, path);
    assert.equal(response.headers.get("content-type"), "application/problem+json", path);
  }
  const api = new ApiClient(server.url, await makeToken());
  assert.equal((await api.get("/api/customers")).status, 200);
  const { stdout } = await server.stop();
  assert.match(stdout, /"console":"off"/);
});
