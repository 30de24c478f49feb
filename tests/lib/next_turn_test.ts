import assert from "node:assert/strict";
import { setImmediate } from "node:timers";
import { nextTurn } from "../../src/lib/next_turn.ts";

/** Busy 1 ms slices with `yieldTo` between them until a request to a local server is answered. */
async function slicesUntilAnswered(yieldTo: () => Promise<void>): Promise<number> {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("ok"),
  );
  try {
    // The connection is set up first, so only the request itself waits for the slices.
    const url = `http://127.0.0.1:${server.addr.port}/`;
    await (await fetch(url)).text();
    let answered = false;
    const request = fetch(url).then((response) => response.text()).then(() => answered = true);
    let slices = 0;
    while (!answered && slices < 500) {
      const until = performance.now() + 1;
      while (performance.now() < until) { /* a slice of work */ }
      slices++;
      await yieldTo();
    }
    await request;
    return slices;
  } finally {
    await server.shutdown();
  }
}

Deno.test("between slices of work, nextTurn lets a waiting HTTP request in", async () => {
  const slices = await slicesUntilAnswered(nextTurn);
  assert.ok(slices <= 10, `the request waited ${slices} slices of 1 ms`);
});

Deno.test("setImmediate does not (why nextTurn is not setImmediate)", async () => {
  const slices = await slicesUntilAnswered(() => new Promise((resolve) => setImmediate(resolve)));
  assert.ok(slices > 10, `the request waited only ${slices} slices of 1 ms`);
});
