import assert from "node:assert/strict";
import { Deadline, watchedCount } from "../../src/http/body_deadline.ts";
import { BodyTimeoutError } from "../../src/http/errors.ts";

Deno.test("finished body reads leave the deadline watch at once", async () => {
  let most = 0;
  for (let i = 0; i < 5_000; i++) {
    const deadline = new Deadline(30_000);
    await deadline.race(Promise.resolve(i));
    most = Math.max(most, watchedCount());
    deadline.stop();
  }
  assert.equal(most, 1, `${most} deadlines were watched at once`);
  assert.equal(watchedCount(), 0);
});

Deno.test("reads still going on stay watched and time out while many others finish", async () => {
  const slow = new Deadline(50);
  const read = slow.race(new Promise<never>(() => {}));
  for (let i = 0; i < 2_000; i++) new Deadline(30_000).stop();
  await assert.rejects(read, BodyTimeoutError);
  await new Promise((resolve) => setTimeout(resolve, 250));
  assert.equal(watchedCount(), 0);
});
