import assert from "node:assert/strict";
import { DeliveryGate } from "../../src/webhooks/delivery_gate.ts";

Deno.test("while the API is not busy every attempt starts at once, without waiting", () => {
  const gate = new DeliveryGate(() => false);
  for (let i = 0; i < 1000; i++) assert.equal(gate.enter(), undefined);
  assert.equal(gate.held, 0);
});

Deno.test("while the API is busy at most 2 attempts start per tick, first come first served", async () => {
  let busy = true;
  const gate = new DeliveryGate(() => busy);
  const started: number[] = [];
  const turns = Array.from({ length: 6 }, (_, i) => {
    const turn = gate.enter();
    if (turn === undefined) started.push(i);
    return turn?.then(() => started.push(i));
  });
  assert.deepEqual(started, [0, 1]);
  // The attempts that had to wait are counted (webhook_attempts_held_total).
  assert.equal(gate.held, 4);
  await turns[2];
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(started, [0, 1, 2, 3]);
  // The API quiet again: the rest go at the next tick, all of them.
  busy = false;
  await Promise.all(turns);
  assert.deepEqual(started, [0, 1, 2, 3, 4, 5]);
  // Four waits of at least one 10 ms tick each.
  assert.ok(gate.waitedSeconds >= 0.04, `${gate.waitedSeconds}`);
  assert.equal(gate.enter(), undefined);
});

Deno.test("release lets every waiting attempt go (at shutdown)", async () => {
  const gate = new DeliveryGate(() => true);
  gate.enter(), gate.enter();
  const waiting = [gate.enter(), gate.enter()];
  gate.release();
  await Promise.all(waiting);
});
