/** Issue 5 point 6: the request body limit, 64 KiB by default and configurable by MAX_BODY_BYTES. */
import assert from "node:assert/strict";
import { ApiClient, type ApiResponse, assertProblem, newCustomer } from "../support/api.ts";
import { runUntilExit, startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

const JSON_TYPE = "application/json";
const MERGE_PATCH = "application/merge-patch+json";

/** A valid JSON body of exactly `bytes` bytes: the value, then spaces (JSON allows them). */
function padded(value: unknown, bytes: number): Uint8Array<ArrayBuffer> {
  const text = JSON.stringify(value);
  assert.ok(text.length <= bytes, `${text.length} > ${bytes}`);
  return new TextEncoder().encode(text + " ".repeat(bytes - text.length));
}

/** The same bytes as a stream of 100-byte chunks: no Content-Length, so the server must count. */
function streamed(bytes: Uint8Array<ArrayBuffer>): ReadableStream<Uint8Array<ArrayBuffer>> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + 100));
      at += 100;
    },
  });
}

function assertTooLarge(res: ApiResponse, limit: number): void {
  assertProblem(res, 413);
  assert.equal(res.body.type, "urn:problem-type:customer-api:body-too-large");
  assert.equal(res.body.detail, `The request body is larger than ${limit} bytes`);
}

Deno.test("MAX_BODY_BYTES=2048", async (t) => {
  await using server = await startServer({ env: { MAX_BODY_BYTES: "2048" } });
  const api = new ApiClient(server.url, await makeToken());
  const post = (body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array<ArrayBuffer>>) =>
    api.post("/api/customers", { body, contentType: JSON_TYPE });

  await t.step("a 2000-byte and a 2048-byte body are accepted", async () => {
    for (const size of [2000, 2048]) {
      const res = await post(padded(newCustomer(), size));
      assert.equal(res.status, 201, `${size} bytes: ${res.text}`);
    }
  });

  await t.step("a 2049-byte body is refused with 413 and creates nothing", async () => {
    const before = (await api.listAll()).length;
    assertTooLarge(await post(padded(newCustomer(), 2049)), 2048);
    assert.equal((await api.listAll()).length, before);
  });

  await t.step("the limit holds for a streamed body without Content-Length", async () => {
    assertTooLarge(await post(streamed(padded(newCustomer(), 2049))), 2048);
    const res = await post(streamed(padded(newCustomer(), 2048)));
    assert.equal(res.status, 201, res.text);
  });

  await t.step("PUT and PATCH have the same limit", async () => {
    const customer = await api.create(newCustomer());
    const path = `/api/customers/${customer.id}`;
    const put = await api.put(path, {
      body: padded({ name: "Put", email: customer.email }, 2049),
      contentType: JSON_TYPE,
    });
    assertTooLarge(put, 2048);
    const patch = await api.patch(path, {
      body: padded({ name: "Patch" }, 2049),
      contentType: MERGE_PATCH,
    });
    assertTooLarge(patch, 2048);
    const ok = await api.patch(path, {
      body: padded({ name: "Patch" }, 2048),
      contentType: MERGE_PATCH,
    });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.version, 2, "only the accepted PATCH changed the customer");
  });
});

Deno.test("by default the limit is 64 KiB: 65536 bytes are accepted, 65537 refused", async () => {
  await using server = await startServer();
  const api = new ApiClient(server.url, await makeToken());
  const post = (bytes: number) =>
    api.post("/api/customers", { body: padded(newCustomer(), bytes), contentType: JSON_TYPE });
  assert.equal((await post(65536)).status, 201);
  assertTooLarge(await post(65537), 65536);
});

Deno.test("a MAX_BODY_BYTES below 1 KiB refuses to start, quoting it", async () => {
  const result = await runUntilExit({ env: { MAX_BODY_BYTES: "512" } });
  assert.equal(result.code, 78, result.stderr);
  assert.equal(
    result.stderr.trim(),
    'customer-api cannot start: MAX_BODY_BYTES "512" must be an integer from 1024 to 16777216',
  );
});
