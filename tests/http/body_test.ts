import assert from "node:assert/strict";
import { ValidationError } from "../../src/domain/errors.ts";
import { MAX_JSON_DEPTH, readJsonBody } from "../../src/http/body.ts";
import {
  BodyTimeoutError,
  BodyTooLargeError,
  MalformedBodyError,
  UnsupportedMediaTypeError,
} from "../../src/http/errors.ts";

const JSON_ONLY = ["application/json"];
const PATCH_TYPES = ["application/merge-patch+json", "application/json"];
const LIMIT = 64;

function post(body: BodyInit | null, headers: Record<string, string> = {}): Request {
  return new Request("http://x/api/customers", { method: "POST", body, headers });
}

function jsonPost(body: BodyInit | null, contentType = "application/json"): Request {
  return post(body, { "content-type": contentType });
}

/** A body stream of `chunks` chunks of `size` bytes each, recording how far it was read. */
function chunkedBody(size: number, chunks: number, byte = 0x20) {
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulled === chunks) return controller.close();
      seen.pulled++;
      controller.enqueue(new Uint8Array(size).fill(byte));
    },
    cancel() {
      seen.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, seen };
}

Deno.test("a JSON body with application/json is parsed into its value", async () => {
  const value = await readJsonBody(jsonPost('{"name":"Ada","n":[1,2]}'), JSON_ONLY, LIMIT);
  assert.deepEqual(value, { name: "Ada", n: [1, 2] });
});

Deno.test("a missing Content-Type is refused with UnsupportedMediaTypeError naming the types", async () => {
  const request = post(new TextEncoder().encode("{}"));
  assert.equal(request.headers.get("content-type"), null);
  await assert.rejects(
    readJsonBody(request, PATCH_TYPES, LIMIT),
    (error: unknown) => {
      assert.ok(error instanceof UnsupportedMediaTypeError);
      assert.equal(
        error.message,
        "Content-Type is missing; send application/merge-patch+json or application/json",
      );
      assert.deepEqual(error.accepted, PATCH_TYPES);
      return true;
    },
  );
});

Deno.test("a wrong Content-Type is refused with UnsupportedMediaTypeError quoting it", async () => {
  await assert.rejects(
    readJsonBody(jsonPost("{}", "text/plain;charset=UTF-8"), JSON_ONLY, LIMIT),
    (error: unknown) => {
      assert.ok(error instanceof UnsupportedMediaTypeError);
      assert.equal(
        error.message,
        'Content-Type "text/plain;charset=UTF-8" is not accepted; send application/json',
      );
      return true;
    },
  );
});

Deno.test("a media type that only starts like an accepted one is refused", async () => {
  for (const type of ["application/jsonx", "application/json-patch+json", "json", ""]) {
    await assert.rejects(
      readJsonBody(jsonPost("{}", type), JSON_ONLY, LIMIT),
      UnsupportedMediaTypeError,
      `Content-Type "${type}"`,
    );
  }
});

Deno.test("application/merge-patch+json is refused where only application/json is accepted", async () => {
  await assert.rejects(
    readJsonBody(jsonPost("{}", "application/merge-patch+json"), JSON_ONLY, LIMIT),
    UnsupportedMediaTypeError,
  );
  assert.deepEqual(
    await readJsonBody(jsonPost("{}", "application/merge-patch+json"), PATCH_TYPES, LIMIT),
    {},
  );
});

Deno.test("media type parameters are allowed (application/json; charset=utf-8)", async () => {
  const request = jsonPost('{"a":1}', "application/json; charset=utf-8");
  assert.deepEqual(await readJsonBody(request, JSON_ONLY, LIMIT), { a: 1 });
});

Deno.test("the media type is compared case-insensitively and without surrounding spaces", async () => {
  for (const type of ["Application/JSON", "APPLICATION/JSON;Charset=UTF-8", " application/json "]) {
    assert.deepEqual(await readJsonBody(jsonPost("[true]", type), JSON_ONLY, LIMIT), [true]);
  }
});

Deno.test("the media type is checked before the body is read", async () => {
  const { stream, seen } = chunkedBody(8, 1);
  await assert.rejects(
    readJsonBody(post(stream, { "content-type": "text/plain" }), JSON_ONLY, LIMIT),
    UnsupportedMediaTypeError,
  );
  assert.equal(seen.pulled, 0);
});

Deno.test("a declared Content-Length over the limit is 413 without reading the body", async () => {
  const { stream, seen } = chunkedBody(LIMIT + 1, 1);
  const request = post(stream, {
    "content-type": "application/json",
    "content-length": String(LIMIT + 1),
  });
  await assert.rejects(
    readJsonBody(request, JSON_ONLY, LIMIT),
    (error: unknown) => {
      assert.ok(error instanceof BodyTooLargeError);
      assert.equal(error.message, `The request body is larger than ${LIMIT} bytes`);
      return true;
    },
  );
  assert.equal(seen.pulled, 0);
  assert.equal(seen.cancelled, true);
});

Deno.test("a body streamed without Content-Length is cut off once it passes the limit", async () => {
  // 16 KB offered: the reader must stop at the limit instead of buffering it all.
  const { stream, seen } = chunkedBody(16, 1000);
  const request = post(stream, { "content-type": "application/json" });
  assert.equal(request.headers.get("content-length"), null);
  await assert.rejects(readJsonBody(request, JSON_ONLY, LIMIT), BodyTooLargeError);
  assert.equal(seen.pulled, LIMIT / 16 + 1);
  assert.equal(seen.cancelled, true);
});

Deno.test("a streamed body whose Content-Length understates its size is still cut off", async () => {
  const { stream } = chunkedBody(16, 10);
  const request = post(stream, { "content-type": "application/json", "content-length": "2" });
  await assert.rejects(readJsonBody(request, JSON_ONLY, LIMIT), BodyTooLargeError);
});

Deno.test("a body of exactly the limit in several chunks is read and parsed", async () => {
  // 4 chunks of 16 spaces, the last ending in "[]": 64 bytes of valid JSON.
  const chunks = [...Array(4)].map(() => new Uint8Array(16).fill(0x20));
  chunks[3][14] = 0x5b;
  chunks[3][15] = 0x5d;
  const stream = ReadableStream.from(chunks);
  const request = post(stream, { "content-type": "application/json" });
  assert.deepEqual(await readJsonBody(request, JSON_ONLY, LIMIT), []);
});

Deno.test("invalid UTF-8 is a MalformedBodyError saying so", async () => {
  const bytes = new Uint8Array([0x22, 0xff, 0xfe, 0x22]);
  await assert.rejects(
    readJsonBody(jsonPost(bytes), JSON_ONLY, LIMIT),
    (error: unknown) => {
      assert.ok(error instanceof MalformedBodyError);
      assert.equal(error.message, "The request body is not valid UTF-8");
      return true;
    },
  );
});

Deno.test("a UTF-8 sequence split across chunks is decoded correctly", async () => {
  const text = new TextEncoder().encode('"Zoë"');
  const stream = ReadableStream.from([text.subarray(0, 4), text.subarray(4)]);
  assert.deepEqual(
    await readJsonBody(post(stream, { "content-type": "application/json" }), JSON_ONLY, LIMIT),
    "Zoë",
  );
});

Deno.test("invalid JSON is a MalformedBodyError saying so", async () => {
  for (const body of ["{", "{'a':1}", "{} {}", "NaN", "undefined"]) {
    await assert.rejects(
      readJsonBody(jsonPost(body), JSON_ONLY, LIMIT),
      (error: unknown) => {
        assert.ok(error instanceof MalformedBodyError, body);
        assert.equal(error.message, "The request body is not valid JSON");
        return true;
      },
    );
  }
});

Deno.test("an empty body is a MalformedBodyError, with or without a body stream", async () => {
  for (const body of ["", null]) {
    await assert.rejects(
      readJsonBody(jsonPost(body), JSON_ONLY, LIMIT),
      (error: unknown) => {
        assert.ok(error instanceof MalformedBodyError);
        assert.equal(error.message, "The request body is not valid JSON");
        return true;
      },
    );
  }
});

Deno.test("a body nested 32 levels deep is accepted", async () => {
  assert.equal(MAX_JSON_DEPTH, 32);
  const body = '{"a":'.repeat(31) + "[1]" + "}".repeat(31);
  const value = await readJsonBody(jsonPost(body), JSON_ONLY, 1024);
  assert.equal(JSON.stringify(value), body);
});

Deno.test("a body nested 33 levels deep is a ValidationError at the root", async () => {
  for (
    const body of ["[".repeat(33) + "]".repeat(33), '{"a":'.repeat(32) + "{}" + "}".repeat(32)]
  ) {
    await assert.rejects(readJsonBody(jsonPost(body), JSON_ONLY, 1024), (error: unknown) => {
      assert.ok(error instanceof ValidationError);
      assert.deepEqual(error.violations, [
        { pointer: "", detail: "must not be nested deeper than 32 levels" },
      ]);
      return true;
    });
  }
});

Deno.test("a body nested far deeper than the limit is refused without overflowing the stack", async () => {
  const body = "[".repeat(30_000) + "]".repeat(30_000);
  await assert.rejects(readJsonBody(jsonPost(body), JSON_ONLY, 65536), ValidationError);
});

Deno.test("JSON scalars and null are returned as they are, for the caller to judge", async () => {
  assert.equal(await readJsonBody(jsonPost("null"), JSON_ONLY, LIMIT), null);
  assert.equal(await readJsonBody(jsonPost(" 42 "), JSON_ONLY, LIMIT), 42);
});

/** A body that sends `{` and then nothing more, until cancelled. */
function stalledBody() {
  const seen = { cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("{"));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

Deno.test("a body that stops arriving fails with BodyTimeoutError after the timeout, and is cancelled", async () => {
  const { stream, seen } = stalledBody();
  const started = performance.now();
  await assert.rejects(
    readJsonBody(jsonPost(stream), JSON_ONLY, LIMIT, 100),
    (error: Error) =>
      error instanceof BodyTimeoutError &&
      error.message === "The request body did not arrive within 100 ms",
  );
  const ms = performance.now() - started;
  assert.ok(ms >= 90 && ms < 2000, `gave up after ${Math.round(ms)} ms`);
  assert.ok(seen.cancelled, "the stalled stream was not cancelled");
});

Deno.test("a body read before the timeout is parsed, and the timeout passing later fails nothing", async () => {
  const body = await readJsonBody(jsonPost('{"a":1}'), JSON_ONLY, LIMIT, 50);
  assert.deepEqual(body, { a: 1 });
  // An unhandled rejection from the expired deadline would fail this test here.
  await new Promise((resolve) => setTimeout(resolve, 100));
});
