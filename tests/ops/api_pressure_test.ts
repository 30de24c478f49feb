import assert from "node:assert/strict";
import { ApiPressure } from "../../src/ops/api_pressure.ts";

/** A pressure gauge over counters the test moves: request seconds, CPU µs and the clock in ms. */
function gauge() {
  const state = { requestTime: 0, cpu: 0, now: 0 };
  const pressure = new ApiPressure(
    () => state.requestTime,
    6,
    0.1,
    () => state.cpu,
    () => state.now,
  );
  /** One 50 ms window in which `underWay` requests were under way on average. */
  const window = (underWay: number, cpuMs: number) => {
    state.requestTime += underWay * 0.05;
    state.cpu += cpuMs * 1000;
    state.now += 50;
    return pressure.busy();
  };
  return { state, pressure, window };
}

Deno.test("the API is busy while, over the last 200 ms, 6 or more requests are under way on average and the process uses a tenth of a core", () => {
  const { window } = gauge();
  // The verdict is the median of the last four 50 ms looks: two looks of a burst make it busy.
  assert.equal(window(16, 45), false);
  assert.equal(window(16, 45), true);
  assert.equal(window(6, 5), true);
  assert.equal(window(6, 5), true);
  // Few requests at a time: they do not queue, background work may go on.
  for (let i = 0; i < 3; i++) window(2, 50);
  assert.equal(window(2, 50), false);
  // Requests queue but the CPU idles: a slow disk, which background work does not slow.
  for (let i = 0; i < 3; i++) window(10, 2);
  assert.equal(window(10, 2), false);
  assert.equal(window(0, 0), false);
});

Deno.test("one slow look under a steady load does not make the API busy; a sustained queue does", () => {
  const { window } = gauge();
  // A steady load below saturation, with a slow look now and then (a collection, no CPU for a
  // moment, a late fsync).
  const steady = [3, 4, 24, 3, 2, 4, 36, 5, 3, 4, 2, 67, 4, 2, 3, 3];
  for (const underWay of steady) assert.equal(window(underWay, 40), false, `${underWay}`);
  assert.equal(window(12, 40), false);
  assert.equal(window(14, 40), true);
  assert.equal(window(11, 40), true);
  // The queue is gone: after three quiet looks background work goes on again.
  assert.equal(window(1, 40), true);
  assert.equal(window(1, 40), true);
  assert.equal(window(1, 40), false);
});

Deno.test("between windows the last verdict stands, without a new look", () => {
  const { state, pressure, window } = gauge();
  window(10, 50), window(10, 50);
  assert.equal(window(10, 50), true);
  state.now += 10;
  state.requestTime += 1;
  assert.equal(pressure.busy(), true);
  // The next look (50 ms after the last) counts the second spent meanwhile: still busy.
  state.now += 40;
  assert.equal(pressure.busy(), true);
  for (let i = 0; i < 3; i++) window(0, 0);
  assert.equal(pressure.busy(), false);
});
