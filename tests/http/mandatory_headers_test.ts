import assert from "node:assert/strict";
import { setMandatoryHeaders } from "../../src/http/mandatory_headers.ts";

Deno.test("setMandatoryHeaders sets the request id and nosniff, replacing earlier values", () => {
  const headers = new Headers({ "x-request-id": "old" });
  setMandatoryHeaders(headers, "req-1");
  assert.equal(headers.get("x-request-id"), "req-1");
  assert.equal(headers.get("x-content-type-options"), "nosniff");
});
