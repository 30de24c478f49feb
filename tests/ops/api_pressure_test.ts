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

Deno.test("the API is busy while 6 or more requests are under way on average and the process uses a tenth of a core", () => {
  const { window } = gauge();
  assert.equal(window(16, 45), true);
  assert.equal(window(6, 5), true);
  // Few requests at a time: they do not queue, background work may go on.
  assert.equal(window(2, 50), false);
  // Requests queue but the CPU idles: a slow disk, which background work does not slow.
  assert.equal(window(10, 2), false);
  assert.equal(window(0, 0), false);
});

Deno.test("between windows the last verdict stands, without a new look", () => {
  const { state, pressure, window } = gauge();
  assert.equal(window(10, 50), true);
  state.now += 10;
  assert.equal(pressure.busy(), true);
  state.now += 40;
  assert.equal(pressure.busy(), false);
});
