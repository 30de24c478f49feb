import assert from "node:assert/strict";
import { readAnswer } from "../../src/webhooks/http_answer.ts";

/** Reads what a raw TCP peer sends (in the given pieces) with readAnswer, into `buffer`. */
async function answerOf(pieces: string[], buffer = new Uint8Array(1024)) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const peer = (async () => {
    const conn = await listener.accept();
    for (const piece of pieces) {
      await conn.write(new TextEncoder().encode(piece));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    conn.close();
  })();
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: listener.addr.port });
  try {
    return await readAnswer(conn, buffer);
  } finally {
    conn.close();
    await peer;
    listener.close();
  }
}

Deno.test("an answer with a declared length that fits leaves the connection reusable", async () => {
  assert.deepEqual(await answerOf(["HTTP/1.1 204 No Content\r\ndate: x\r\n\r\n"]), {
    status: 204,
    reusable: true,
  });
  // The head split across reads, even inside its blank line; then a 2-byte body.
  assert.deepEqual(
    await answerOf(["HTTP/1.1 200 OK\r\ncontent-length: 2\r", "\n\r", "\nok"]),
    { status: 200, reusable: true },
  );
});

Deno.test("an answer without a length, too long, closing or not HTTP is not reused or fails", async () => {
  const chunked = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n";
  assert.deepEqual(await answerOf([chunked]), { status: 200, reusable: false });
  const closing = "HTTP/1.1 500 Oops\r\nconnection: close\r\ncontent-length: 0\r\n\r\n";
  assert.deepEqual(await answerOf([closing]), { status: 500, reusable: false });
  const big = `HTTP/1.1 200 OK\r\ncontent-length: 5000\r\n\r\n${"x".repeat(5000)}`;
  assert.deepEqual(await answerOf([big]), { status: 200, reusable: false });
  assert.deepEqual(await answerOf(["HTTP/1.1 302 Found\r\nlocation: /"]), {
    status: 302,
    reusable: false,
  });
  await assert.rejects(answerOf(["SSH-2.0-OpenSSH\r\n\r\n"]), /not HTTP/);
  await assert.rejects(answerOf([]), /closed before a status line/);
});

Deno.test("a buffer reused from an earlier answer does not leak into the next one", async () => {
  const buffer = new Uint8Array(1024);
  await answerOf(["HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"], buffer);
  await assert.rejects(answerOf([], buffer), /closed before a status line/);
  assert.deepEqual(await answerOf(["HTTP/1.1 410 Gone\r\n\r\n"], buffer), {
    status: 410,
    reusable: false,
  });
});
