import assert from "node:assert/strict";
import { pacedTurn } from "../../src/lib/paced_turn.ts";

/** A clock that turns advance by what the other work of each turn took. */
function fakeLoop(othersMs: number[]) {
  let clock = 0;
  let turns = 0;
  const turn = () => {
    clock += othersMs[Math.min(turns++, othersMs.length - 1)];
    return Promise.resolve();
  };
  return { now: () => clock, turn, turns: () => turns };
}

Deno.test("a paced turn ends after one turn when nothing else waited", async () => {
  const loop = fakeLoop([0.03]);
  await pacedTurn(0.5, 3, loop.now, loop.turn)();
  assert.equal(loop.turns(), 1);
});

Deno.test("while other work keeps the thread busy, it gets othersPerSlice slices' time", async () => {
  const loop = fakeLoop([0.4]);
  await pacedTurn(0.5, 3, loop.now, loop.turn)();
  // 1.5 ms of others at 0.4 ms a turn: four turns.
  assert.equal(loop.turns(), 4);
  assert.ok(loop.now() >= 1.5);
});

Deno.test("a busy thread that falls quiet ends the turn at once", async () => {
  const loop = fakeLoop([0.4, 0.4, 0.02, 0.4]);
  await pacedTurn(0.5, 3, loop.now, loop.turn)();
  assert.equal(loop.turns(), 3);
});
