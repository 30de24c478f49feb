import assert from "node:assert/strict";
import { ApiPressure } from "../../src/ops/api_pressure.ts";

/** A pressure gauge over counters the test moves: requests, CPU µs and the clock in ms. */
function gauge() {
  const state = { requests: 0, cpu: 0, now: 0 };
  const pressure = new ApiPressure(
    () => state.requests,
    1000,
    0.5,
    () => state.cpu,
    () => state.now,
  );
  const window = (requests: number, cpuMs: number) => {
    state.requests += requests;
    state.cpu += cpuMs * 1000;
    state.now += 50;
    return pressure.busy();
  };
  return { state, pressure, window };
}

Deno.test("the API is busy when it answers 1,000 requests/s or more while the process uses half a core", () => {
  const { window } = gauge();
  assert.equal(window(60, 40), true);
  assert.equal(window(50, 25), true);
  // Many requests on little CPU: the machine has room, background work may go on.
  assert.equal(window(60, 10), false);
  // Much CPU but few requests: that is the background work itself catching up.
  assert.equal(window(5, 50), false);
  assert.equal(window(0, 0), false);
});

Deno.test("between windows the last verdict stands, without a new look", () => {
  const { state, pressure, window } = gauge();
  assert.equal(window(100, 50), true);
  state.now += 10;
  assert.equal(pressure.busy(), true);
  state.now += 40;
  assert.equal(pressure.busy(), false);
});
