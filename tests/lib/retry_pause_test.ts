import assert from "node:assert/strict";
import { retryPauseMs } from "../../src/lib/retry_pause.ts";

Deno.test("a retry waits 250 ms after the first failure, twice as long after each next, at most 5 s", () => {
  assert.deepEqual([0, 1, 2, 3, 4, 5, 10].map(retryPauseMs), [
    250,
    500,
    1000,
    2000,
    4000,
    5000,
    5000,
  ]);
});
