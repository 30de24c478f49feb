/** The OpenAPI document describes the routes, problems and limits the code really has. */
import assert from "node:assert/strict";
import { testWebhookModule } from "../support/webhook_module.ts";
import { createHandler } from "../../src/app.ts";
import { LIMITS } from "../../src/domain/validation.ts";
import { createAuthenticator } from "../../src/auth/authenticator.ts";
import { SECRET_ALGORITHMS } from "../../src/auth/key_sources.ts";
import { MAX_PAGE_LIMIT as MAX_LIMIT } from "../../src/http/paging.ts";
import { API_DOCUMENT } from "../support/api_document.ts";
import { customerModule } from "../../src/customers/customer_routes.ts";
import { feedModule } from "../../src/feed/feed_routes.ts";
import { StreamTokens } from "../../src/feed/stream_tokens.ts";
import { METHODS } from "../../src/openapi/openapi_operation.ts";
import {
  PROBLEM_TYPES,
  problemHeaders,
  problemMembers,
  type ProblemSlug,
  problemType,
} from "../../src/http/problem_types.ts";
import { CustomerProjection } from "../../src/read_model/projection.ts";
import { CustomerService } from "../../src/customers/customer_service.ts";
import { JsonlEventStore } from "../../src/store/jsonl/jsonl_store.ts";

// deno-lint-ignore no-explicit-any -- the document is walked as plain JSON
type Json = any;
const DOC: Json = API_DOCUMENT;
const SRC = new URL("../../src/", import.meta.url);
const SOME_ID = "01JDQ8Z5K3M4N5P6Q7R8S9T0VW";

/** Runs `body` with the real request handler over a real, empty store. */
async function withHandler(
  body: (handler: (r: Request) => Response | Promise<Response>) => Promise<void>,
  publicUrl?: string,
) {
  const dir = await Deno.makeTempDir({ prefix: "customer-openapi-test-" });
  const store = await JsonlEventStore.open(dir);
  try {
    const service = new CustomerService({
      store,
      projection: new CustomerProjection(),
      clock: Date.now,
      newId: () => SOME_ID,
    });
    await service.snapshots.replay();
    const key = new TextEncoder().encode("openapi-test-secret-0123456789-abcdefghij");
    const feed = feedModule({
      store,
      onCommit: (listener) => service.addCommitListener(listener),
      isLive: (id) => service.snapshots.isLive(id),
      tokens: new StreamTokens(key),
      retentionMs: 86_400_000,
      maxStreams: 10,
    });
    await body(createHandler({
      modules: [
        customerModule({ service, maxBodyBytes: 1024 }),
        feed.module,
        testWebhookModule(store),
      ],
      authenticate: createAuthenticator({ key, algorithms: SECRET_ALGORITHMS }),
      publicUrl,
    }));
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function operations(): { path: string; method: string; op: Json }[] {
  return Object.entries(DOC.paths).flatMap(([path, item]: [string, Json]) =>
    METHODS.filter((method) => item[method] !== undefined)
      .map((method) => ({ path, method, op: item[method] }))
  );
}

Deno.test("GET /api/openapi.json serves the document as UTF-8 JSON, and /docs serves HTML", async () => {
  await withHandler(async (handler) => {
    const json = await handler(new Request("http://x/api/openapi.json"));
    assert.equal(json.status, 200);
    assert.equal(json.headers.get("content-type"), "application/json; charset=utf-8");
    assert.deepEqual(await json.json(), {
      ...JSON.parse(JSON.stringify(API_DOCUMENT)),
      servers: [{ url: "http://x", description: "The address this document was fetched from." }],
    });
    const docs = await handler(new Request("http://x/docs"));
    assert.equal(docs.status, 200);
    assert.equal(docs.headers.get("content-type"), "text/html; charset=utf-8");
    assert.ok(docs.headers.get("content-security-policy")?.includes("default-src 'none'"));
    assert.match(await docs.text(), /^<!doctype html>/);
  });
});

Deno.test("the document's servers entry is the request's origin, or PUBLIC_URL when set", async () => {
  const serversOf = async (handler: (r: Request) => Response | Promise<Response>, url: string) =>
    (await (await handler(new Request(url))).json()).servers.map((s: Json) => s.url);
  await withHandler(async (handler) => {
    assert.deepEqual(await serversOf(handler, "http://127.0.0.1:40123/api/openapi.json"), [
      "http://127.0.0.1:40123",
    ]);
    assert.deepEqual(await serversOf(handler, "https://api.example.com/api/openapi.json"), [
      "https://api.example.com",
    ]);
  });
  await withHandler(async (handler) => {
    assert.deepEqual(await serversOf(handler, "http://127.0.0.1:40123/api/openapi.json"), [
      "https://example.org/customers",
    ]);
  }, "https://example.org/customers");
  assert.equal(DOC.servers, undefined, "the built document has no fixed servers entry");
});

Deno.test("every route of the router is documented with exactly the methods it allows", async () => {
  // The public routes are rows of app.ts, the API's rows of the modules main.ts plugs in.
  const sources = [
    "app.ts",
    "customers/customer_routes.ts",
    "feed/feed_routes.ts",
    "webhooks/webhook_routes.ts",
  ];
  const text = (await Promise.all(sources.map((file) => Deno.readTextFile(new URL(file, SRC)))))
    .join("\n");
  const routed = [...text.matchAll(/pathname: "([^"]+)"/g)]
    .map((match) => match[1].replace(/:([a-z]+)/g, "{$1}"));
  assert.ok(routed.length >= 7, `found only ${routed.length} routes in ${sources.join(", ")}`);
  assert.deepEqual([...routed].sort(), Object.keys(DOC.paths).sort());
  await withHandler(async (handler) => {
    for (const path of routed) {
      const url = `http://x${path.replace("{id}", SOME_ID).replace("{n}", "1")}`;
      // An unknown method makes the router name every method it has for the path.
      const response = await handler(new Request(url, { method: "PROPFIND" }));
      await response.body?.cancel();
      assert.equal(response.status, 405, path);
      const allowed = response.headers.get("allow")!.split(", ").map((m) => m.toLowerCase());
      const documented = METHODS.filter((method) => DOC.paths[path][method] !== undefined);
      assert.deepEqual(allowed.sort(), [...documented].sort(), `methods of ${path}`);
    }
  });
});

/** Every problem response of the document, with the slugs it names. */
function problemResponseObjects(): { where: string; response: Json; slugs: ProblemSlug[] }[] {
  const responses = [
    ...operations().flatMap(({ path, method, op }) =>
      Object.entries(op.responses).map(([status, r]) => [`${method} ${path} ${status}`, r])
    ),
    ...Object.entries(DOC["x-unmatched-requests"].responses)
      .map(([status, r]) => [`x-unmatched-requests ${status}`, r]),
  ] as [string, Json][];
  return responses.flatMap(([where, response]) => {
    const schema = response.content?.["application/problem+json"]?.schema;
    if (schema === undefined) return [];
    const slugs = schema.properties.type.enum.map((type: string) => type.split(":").pop());
    return [{ where, response, slugs }];
  });
}

Deno.test("each problem response documents the headers and members its problems send", () => {
  for (const { where, response, slugs } of problemResponseObjects()) {
    const { always, sometimes } = problemHeaders(slugs);
    // Answers to unmatched requests inline their headers (linters see no use from an extension).
    const inline = where.startsWith("x-unmatched-requests");
    for (const name of always) {
      if (inline) assert.equal(response.headers[name]?.required, true, `${where} ${name}`);
      else assert.equal(response.headers[name]?.$ref, `#/components/headers/${name}`, where);
    }
    for (const name of sometimes) assert.equal(response.headers[name]?.required, false, where);
    const schema = response.content["application/problem+json"].schema;
    for (const slug of slugs.filter((slug) => problemMembers(slug).length > 0)) {
      assert.equal(schema.if.properties.type.const, problemType(slug), where);
      assert.deepEqual(schema.then.required, problemMembers(slug), where);
    }
  }
});

Deno.test("every header a problem sends is a shared header or inlined where only it is sent", () => {
  const { always, sometimes } = problemHeaders(Object.keys(PROBLEM_TYPES) as ProblemSlug[]);
  const unmatched = Object.values(DOC["x-unmatched-requests"].responses as Record<string, Json>);
  for (const name of [...always, ...sometimes]) {
    const inlined = unmatched.some((response) => response.headers?.[name]?.schema !== undefined);
    assert.ok(DOC.components.headers[name] || inlined, `${name} is documented nowhere`);
  }
  assert.ok(sometimes.length >= 4, "found too few headers in the problem table");
});

Deno.test("every problem type is documented on some response with its status", () => {
  const documented = new Set<string>();
  const responses = [
    ...operations().flatMap(({ op }) => Object.entries(op.responses)),
    ...Object.entries(DOC["x-unmatched-requests"].responses) as [string, Json][],
  ] as [string, Json][];
  for (const [status, response] of responses) {
    const schema = response.content?.["application/problem+json"]?.schema;
    if (schema === undefined) continue;
    for (const type of schema.properties.type.enum) {
      const slug = type.slice(type.lastIndexOf(":") + 1) as keyof typeof PROBLEM_TYPES;
      assert.equal(type, problemType(slug));
      assert.equal(schema.properties.status.const, PROBLEM_TYPES[slug].status, type);
      if (/^\d{3}$/.test(status)) assert.equal(Number(status), PROBLEM_TYPES[slug].status, type);
      documented.add(slug);
    }
  }
  assert.deepEqual([...documented].sort(), Object.keys(PROBLEM_TYPES).sort());
});

Deno.test("each operation lists every status that applies to it", () => {
  for (const { path, method, op } of operations()) {
    const statuses = new Set(Object.keys(op.responses));
    const expect = (status: string, why: string) =>
      assert.ok(statuses.has(status), `${method.toUpperCase()} ${path} lacks ${status} (${why})`);
    const parameters = (op.parameters ?? []).map((p: Json) => p.$ref.split("/").pop());
    expect("500", "anything unexpected");
    if (path.startsWith("/api/customers")) {
      for (const status of ["401", "403", "429", "503"]) expect(status, "a token is needed");
    }
    if (path.includes("{id}")) expect("404", "the customer may not exist");
    if (op.requestBody !== undefined) {
      for (const status of ["400", "413", "415", "422"]) expect(status, "it reads a body");
    }
    // A stream token is the one POST that writes nothing to the log.
    if (["post", "put", "patch", "delete"].includes(method) && !path.startsWith("/api/events")) {
      for (const status of ["503", "507"]) expect(status, "it writes to the log");
    }
    if (parameters.includes("If-Match")) expect("412", "it takes If-Match");
    if (parameters.includes("If-None-Match")) expect("304", "it takes If-None-Match");
    if (parameters.includes("limit")) expect("400", "it takes query parameters");
    if (parameters.includes("Idempotency-Key")) expect("409", "a key may be in flight");
    if (op.requestBody?.content["application/json"]?.schema.$ref?.endsWith("CustomerInput")) {
      expect("409", "the email may be taken");
    }
  }
});

Deno.test("the document quotes the validator's and the list's limits", () => {
  const { Customer, CustomerInput, Address } = DOC.components.schemas;
  assert.equal(Customer.properties.name.maxLength, LIMITS.nameMax);
  assert.equal(CustomerInput.properties.email.maxLength, LIMITS.emailMax);
  assert.equal(Address.properties.line1.maxLength, LIMITS.addressFieldMax);
  assert.equal(CustomerInput.properties.metadata.maxProperties, LIMITS.metadataKeysMax);
  assert.equal(DOC.components.parameters.limit.schema.maximum, MAX_LIMIT);
});

Deno.test("every parameter and header states required; each filter, what empty means", () => {
  for (const [name, header] of Object.entries(DOC.components.headers) as [string, Json][]) {
    assert.equal(typeof header.required, "boolean", `header ${name} states whether it is required`);
  }
  for (const [name, parameter] of Object.entries(DOC.components.parameters) as [string, Json][]) {
    assert.equal(typeof parameter.required, "boolean", `${name} states whether it is required`);
    assert.equal(parameter.required, parameter.in === "path", name);
  }
  for (const filter of ["email", "q"]) {
    assert.match(DOC.components.parameters[filter].description, /Empty .* means no filter/);
  }
  assert.equal(DOC.components.parameters.email.schema.maxLength, LIMITS.emailMax);
});

Deno.test("every GET and HEAD of customers, the feed and history takes Min-Log-Seq and lists its 400 and 503", () => {
  const ref = { $ref: "#/components/parameters/Min-Log-Seq" };
  const reads = Object.entries(DOC.paths as Record<string, Json>)
    .filter(([path]) => path.startsWith("/api/customers") || path === "/api/events")
    .flatMap(([path, item]) =>
      ["get", "head"].map((method) => [`${method} ${path}`, item[method]])
    );
  assert.ok(reads.length >= 8, `found ${reads.length} read operations`);
  for (const [name, operation] of reads as [string, Json][]) {
    assert.ok(operation.parameters.some((p: Json) => p.$ref === ref.$ref), `${name} takes it`);
    assert.ok(operation.responses["400"], `${name} lists 400 for a malformed value`);
    const busy = JSON.stringify(operation.responses["503"]?.content ?? {});
    if (!name.startsWith("head")) {
      assert.match(busy, /replica-behind/, `${name} lists replica-behind`);
    }
  }
  assert.match(DOC.components.parameters["Min-Log-Seq"].schema.pattern, /\^\[0-9\]/);
});

Deno.test("no pattern in the document uses a lookahead or lookbehind", () => {
  const patterns = JSON.stringify(DOC).match(/"pattern":"(?:[^"\\]|\\.)*"/g) ?? [];
  assert.ok(patterns.length > 10, `found only ${patterns.length} patterns`);
  for (const pattern of patterns) assert.doesNotMatch(pattern, /\(\?<?[=!]/, pattern);
});

Deno.test("the PATCH schema has the create schema's rules, nullable where merge patch allows", () => {
  const { CustomerInput, CustomerPatch } = DOC.components.schemas;
  const input = CustomerInput.properties;
  const patch = CustomerPatch.properties;
  assert.deepEqual(patch.name, input.name, "name: same rules, not nullable");
  assert.deepEqual(patch.email, input.email, "email: same rules, not nullable");
  assert.deepEqual(patch.phone, input.phone);
  assert.deepEqual(patch.address, input.address);
  const { additionalProperties: value, description: _, ...metadata } = patch.metadata;
  const { additionalProperties: inputValue, description: __, ...inputMetadata } = input.metadata;
  assert.deepEqual(metadata, inputMetadata);
  assert.deepEqual(value, { ...inputValue, type: ["string", "null"] });
  assert.equal(CustomerPatch.additionalProperties, false);
});

Deno.test("operation ids are unique and every operation is secured as contract §2 says", () => {
  const ids = operations().map(({ op }) => op.operationId);
  assert.equal(new Set(ids).size, ids.length);
  for (const { path, method, op } of operations()) {
    const scopes = op.security.flatMap((s: Record<string, string[]>) => Object.values(s).flat());
    const expected = path.startsWith("/api/webhooks")
      ? ["webhooks:manage"]
      : path.startsWith("/api/events")
      ? ["customers:read"]
      : !path.startsWith("/api/customers")
      ? []
      : ["get", "head"].includes(method) || path.includes("/history") || path.includes("/versions")
      ? ["customers:read"]
      : ["customers:write"];
    assert.deepEqual(scopes, expected, `${method} ${path}`);
  }
});
