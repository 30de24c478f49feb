/** A tiny HTTP client and contract assertions for black-box tests against a running server. */
import assert from "node:assert/strict";
import { recordContract } from "./contract.ts";

/** What a test sees of a response: its body is always fully read. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  // deno-lint-ignore no-explicit-any -- parsed JSON is walked freely by tests
  body: any;
}

/** One request's knobs. */
export interface RequestOptions {
  /** Serialised with JSON.stringify; Content-Type defaults to application/json. */
  json?: unknown;
  /** A raw body; no Content-Type is added unless `contentType` says so. */
  body?: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array<ArrayBuffer>>;
  /** `null` sends no Content-Type at all. */
  contentType?: string | null;
  headers?: Record<string, string>;
  /** Overrides the client's token; `null` sends no Authorization. */
  token?: string | null;
}

/** Sends requests to one server, with one default bearer token. */
export class ApiClient {
  constructor(readonly baseUrl: string, readonly token: string | null) {}

  /** Sends one request and reads the whole response. */
  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers = new Headers(options.headers);
    const token = options.token === undefined ? this.token : options.token;
    if (token !== null && !headers.has("authorization")) {
      headers.set("authorization", `Bearer ${token}`);
    }
    let body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array<ArrayBuffer>> | undefined;
    let contentType = options.contentType;
    if (options.json !== undefined) {
      body = new TextEncoder().encode(JSON.stringify(options.json));
      if (contentType === undefined) contentType = "application/json";
    } else if (typeof options.body === "string") {
      // Bytes, not a string: fetch would otherwise invent a text/plain Content-Type.
      body = new TextEncoder().encode(options.body);
    } else {
      body = options.body;
    }
    if (contentType) headers.set("content-type", contentType);
    const url = new URL(path, this.baseUrl);
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    // Every response an end-to-end test receives is checked against the OpenAPI document.
    recordContract(method, url, { status: res.status, headers: res.headers, text });
    let parsed: unknown;
    try {
      parsed = text === "" ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed };
  }

  get(path: string, options?: RequestOptions): Promise<ApiResponse> {
    return this.request("GET", path, options);
  }
  head(path: string, options?: RequestOptions): Promise<ApiResponse> {
    return this.request("HEAD", path, options);
  }
  post(path: string, options?: RequestOptions): Promise<ApiResponse> {
    return this.request("POST", path, options);
  }
  put(path: string, options?: RequestOptions): Promise<ApiResponse> {
    return this.request("PUT", path, options);
  }
  patch(path: string, options?: RequestOptions): Promise<ApiResponse> {
    return this.request("PATCH", path, options);
  }
  delete(path: string, options?: RequestOptions): Promise<ApiResponse> {
    return this.request("DELETE", path, options);
  }

  /** POSTs a customer and insists on 201. */
  async create(input: Record<string, unknown>, headers?: Record<string, string>) {
    const res = await this.post("/api/customers", { json: input, headers });
    assert.equal(res.status, 201, `create ${JSON.stringify(input)} → ${res.status} ${res.text}`);
    return res.body as Customer;
  }

  /** GETs the whole filtered collection by following `next_cursor` page by page. */
  async listAll(query: Record<string, string> = {}, limit = 100): Promise<Customer[]> {
    const all: Customer[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10_000; page++) {
      const params = new URLSearchParams({ ...query, limit: String(limit) });
      if (cursor !== null) params.set("cursor", cursor);
      const res = await this.get(`/api/customers?${params}`);
      assert.equal(res.status, 200, res.text);
      assert.ok(res.body.data.length <= limit, `page longer than limit ${limit}`);
      all.push(...res.body.data);
      cursor = res.body.next_cursor;
      if (cursor === null) return all;
    }
    throw new Error("Pagination did not end within 10 000 pages");
  }
}

/** The customer resource of contract §3. */
export interface Customer {
  id: string;
  name: string;
  email: string;
  phone: string | null;
  address: Record<string, string | null> | null;
  metadata: Record<string, string>;
  created_at: string;
  updated_at: string;
  version: number;
}

/** Contract §3: upper-case Crockford base32, 26 characters. */
export const ULID_PATTERN = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
/** Contract §3: RFC 3339 UTC with milliseconds. */
export const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** A well-formed ULID that no server will have handed out in this century. */
export const UNKNOWN_ID = "01ARZ3NDEKTSV4RRFFQ69G5FAV";

let counter = 0;
const RUN = crypto.randomUUID().slice(0, 8);

/** A valid, unique customer body; `overrides` replace or add fields. */
export function newCustomer(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter++;
  return {
    name: `Customer ${counter}`,
    email: `customer-${RUN}-${counter}@example.com`,
    ...overrides,
  };
}

/** A valid customer body using every optional field. */
export function fullCustomer(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return newCustomer({
    phone: "+442079460958",
    address: {
      line1: "12 St James's Square",
      line2: "Floor 2",
      city: "London",
      region: "Westminster",
      postal_code: "SW1Y 4JH",
      country: "GB",
    },
    metadata: { crm_id: "A-1042", tier: "gold" },
    ...overrides,
  });
}

/** Asserts `Content-Type: application/json; charset=utf-8`. */
export function assertJsonType(res: ApiResponse): void {
  const type = res.headers.get("content-type") ?? "";
  assert.match(type, /^application\/json;\s*charset=utf-8$/i, `content-type was "${type}"`);
}

/** Asserts an RFC 9457 problem with the given status, as contract §5 shapes it. */
export function assertProblem(res: ApiResponse, status: number): void {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.text}`);
  const type = res.headers.get("content-type") ?? "";
  assert.match(type, /^application\/problem\+json\b/i, `content-type was "${type}"`);
  assert.ok(res.body && typeof res.body === "object", `problem body is not JSON: ${res.text}`);
  for (const field of ["type", "title", "detail", "request_id"]) {
    assert.equal(typeof res.body[field], "string", `problem.${field} missing in ${res.text}`);
  }
  assert.equal(res.body.status, status, `problem.status differs from HTTP status: ${res.text}`);
  assert.equal(res.body.request_id, res.headers.get("x-request-id"), "request_id ≠ X-Request-Id");
}

/** Asserts a 422 whose `errors` name exactly these JSON pointers (order free, duplicates ok). */
export function assertValidationPointers(res: ApiResponse, pointers: string[]): void {
  assertProblem(res, 422);
  assert.ok(Array.isArray(res.body.errors), `no errors array: ${res.text}`);
  for (const error of res.body.errors) {
    assert.equal(typeof error.pointer, "string", `error without pointer: ${res.text}`);
    assert.equal(typeof error.detail, "string", `error without detail: ${res.text}`);
  }
  const seen = [...new Set(res.body.errors.map((e: { pointer: string }) => e.pointer))].sort();
  assert.deepEqual(seen, [...new Set(pointers)].sort(), res.text);
}

/** Asserts the ETag of a response is the strong `"<version>"`. */
export function assertEtag(res: ApiResponse, version: number): void {
  assert.equal(res.headers.get("etag"), `"${version}"`);
}

/** Runs `task` over `items` with at most `width` in flight; results keep the input order. */
export async function inParallel<T, R>(
  items: T[],
  width: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}
