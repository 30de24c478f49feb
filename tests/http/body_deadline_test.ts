import assert from "node:assert/strict";
import { Deadline, watchedCount } from "../../src/http/body_deadline.ts";
import { BodyTimeoutError } from "../../src/http/errors.ts";

Deno.test("finished body reads leave the deadline watch within a few hundred, not at the sweep", async () => {
  let most = 0;
  for (let i = 0; i < 5_000; i++) {
    const deadline = new Deadline(30_000);
    await deadline.race(Promise.resolve(i));
    deadline.stop();
    most = Math.max(most, watchedCount());
  }
  // Kept until the 100 ms sweep (as before), all 5,000 were watched at once.
  assert.ok(most <= 512, `${most} deadlines were watched at once`);
  // The sweep that follows ends the watch.
  await new Promise((resolve) => setTimeout(resolve, 250));
  assert.equal(watchedCount(), 0);
});

Deno.test("reads still going on stay watched and time out when many finished ones are dropped", async () => {
  const slow = new Deadline(50);
  const read = slow.race(new Promise<never>(() => {}));
  for (let i = 0; i < 2_000; i++) new Deadline(30_000).stop();
  await assert.rejects(read, BodyTimeoutError);
  await new Promise((resolve) => setTimeout(resolve, 250));
  assert.equal(watchedCount(), 0);
});
