import assert from "node:assert/strict";
import { CustomerProjection } from "../../src/read_model/projection.ts";
import { ownAllTexts } from "../../src/read_model/own_texts.ts";

const text = (id: string, name: string) =>
  JSON.stringify({ id, name, email: `${name.toLowerCase()}@example.com`, version: 1 });

Deno.test("owning the texts keeps every live customer as it was, in order, and skips deleted ones", async () => {
  const projection = new CustomerProjection();
  const ids = Array.from(
    { length: 25 },
    (_, i) => `01JDQ8Z5K3M4N5P6Q7R8S9T${String(i).padStart(3, "0")}`,
  );
  // Slices of one big text, as a replay makes them.
  const chunk = ids.map((id, i) => text(id, `Björn${i}`)).join("\n");
  let at = 0;
  for (const id of ids) {
    const end = chunk.indexOf("\n", at);
    projection.apply(id, 1, chunk.slice(at, end === -1 ? undefined : end));
    at = end + 1;
  }
  projection.remove(ids[3]);
  const before = projection.all();
  const changes = projection.changes;

  assert.equal(projection.ownTexts(0, 10), 10, "goes on after the batch");
  assert.equal(projection.ownTexts(20, 10), -1, "the last batch ends it");
  await ownAllTexts(projection, 7);

  const after = projection.all();
  assert.deepEqual(after, before, "same ids, versions, emails and texts");
  assert.equal(after.length, 24);
  assert.equal(projection.changes, changes, "not a change: kept list pages stay valid");
  assert.equal(projection.emailOwner("björn5@example.com"), ids[5]);
  assert.deepEqual(projection.list({ limit: 2, after: ids[2] }).items.map((r) => r.id), [
    ids[4],
    ids[5],
  ]);
});
