import assert from "node:assert/strict";
import { setImmediate } from "node:timers";
import { nextTurn } from "../../src/lib/next_turn.ts";

const REQUEST = new TextEncoder().encode("GET / HTTP/1.1\r\nhost: localhost\r\n\r\n");

/**
 * Busy 1 ms slices with `yieldTo` between them until a request to a local server is answered.
 * The request is written on a raw connection before the slices start, so only the server's own
 * turns are counted: an in-process fetch client needs turns of its own, and under load it took
 * 51 slices with nextTurn.
 */
async function slicesUntilAnswered(yieldTo: () => Promise<void>): Promise<number> {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("ok"),
  );
  const connection = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
  try {
    const buffer = new Uint8Array(4096);
    // The connection and the server's first answer are set up first; then only the request waits.
    await connection.write(REQUEST);
    await connection.read(buffer);
    let answered = false;
    await connection.write(REQUEST);
    const response = connection.read(buffer).then(() => answered = true);
    let slices = 0;
    while (!answered && slices < 500) {
      const until = performance.now() + 1;
      while (performance.now() < until) { /* a slice of work */ }
      slices++;
      await yieldTo();
    }
    await response;
    return slices;
  } finally {
    connection.close();
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
