import assert from "node:assert/strict";
import { QuietTrigger } from "../../src/lib/quiet_trigger.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("the action waits while pokes keep coming and runs once they pause", async () => {
  let runs = 0;
  const trigger = new QuietTrigger(400, () => runs++);
  try {
    for (let i = 0; i < 10; i++) {
      trigger.poke();
      await sleep(20);
    }
    assert.equal(runs, 0, "ran during the pokes");
    await sleep(1200);
    assert.equal(runs, 1);
  } finally {
    trigger.cancel();
  }
});

Deno.test("cancel forgets a pending run", async () => {
  let runs = 0;
  const trigger = new QuietTrigger(20, () => runs++);
  trigger.poke();
  trigger.cancel();
  await sleep(100);
  assert.equal(runs, 0);
});
