/** The store is a port the services own: nothing under src/store/ reaches up into a service. */
import assert from "node:assert/strict";

const STORE = new URL("../../src/store/", import.meta.url);
const IMPORT = /^\s*(?:import|export)\b[^;]*?from\s+"([^"]+)"/gm;

async function storeFiles(dir: URL): Promise<URL[]> {
  const files: URL[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) files.push(...await storeFiles(url));
    else if (entry.name.endsWith(".ts")) files.push(url);
  }
  return files;
}

Deno.test("no module under src/store/ imports from customers/, read_model/, http/ or the composition root", async () => {
  const forbidden = /\/src\/(customers|read_model|http|openapi|auth)\/|\/src\/(main|app)\.ts$/;
  const offenders: string[] = [];
  const files = await storeFiles(STORE);
  assert.ok(files.length > 10, "the scan found no store modules");
  for (const file of files) {
    for (const [, specifier] of (await Deno.readTextFile(file)).matchAll(IMPORT)) {
      const target = new URL(specifier, file).pathname;
      if (specifier.startsWith(".") && forbidden.test(target)) {
        offenders.push(`${file.pathname.split("/src/")[1]} → ${specifier}`);
      }
    }
  }
  assert.deepEqual(offenders, []);
});
