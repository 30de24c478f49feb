import assert from "node:assert/strict";
import { bookmarkFrame, eventFrame, HEARTBEAT_FRAME } from "../../src/feed/sse_frames.ts";

Deno.test("an event frame is id, event and one data line of the public event, ended by a blank line", () => {
  const frame = eventFrame({
    seq: 131,
    type: "customer.deleted",
    time: "2026-01-02T03:04:05.678Z",
    id: "01JDQ8Z5K3M4N5P6Q7R8S9T0VW",
    version: 3,
    actor: "alice",
    request_id: "req-1",
    request_hash: "secret-hash",
    dataJson: null,
  });
  assert.equal(
    frame,
    "id: 131\nevent: customer.deleted\ndata: " +
      '{"seq":131,"type":"customer.deleted","time":"2026-01-02T03:04:05.678Z",' +
      '"customer_id":"01JDQ8Z5K3M4N5P6Q7R8S9T0VW","version":3,"actor":"alice",' +
      '"request_id":"req-1","data":null}\n\n',
  );
  assert.ok(!frame.includes("secret-hash"));
});

Deno.test("a bookmark frame carries the newest seq read as its id and as last_seq", () => {
  assert.equal(bookmarkFrame(42), 'id: 42\nevent: bookmark\ndata: {"last_seq":42}\n\n');
});

Deno.test("a heartbeat is a comment line that EventSource ignores", () => {
  assert.match(HEARTBEAT_FRAME, /^:[^\n]*\n\n$/);
});
