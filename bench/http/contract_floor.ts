/**
 * The contract's floor: the least work that still gives the contract's answers for the benchmark's
 * requests. A token verified once and then found by its string, the four mandatory headers, a Map
 * lookup for GET one, a page of 100 joined from stored JSON text, and POST/PUT parsed, appended as
 * one line and group-committed with fdatasync (writes arriving together share one sync) before the
 * answer. No validation beyond that, no routing table, no metrics, no logs.
 * Seeded from SEED (a json-server db file, `{"customers":[…]}`), appending to LOG.
 * `JWT_SECRET=… SEED=db.json LOG=floor.jsonl deno run --allow-net --allow-env --allow-read
 * --allow-write bench/http/contract_floor.ts`; prints `{"port":N}` once it listens.
 */
import { jwtVerify } from "jose";
import { monotonicUlid } from "../../src/lib/monotonic_ulid.ts";

const JSON_TYPE = "application/json; charset=utf-8";
const PREFIX = "/api/customers";

/** Scopes of a verified token and when it expires (seconds since the epoch). */
interface Grant {
  scopes: string;
  exp: number;
}

const secret = new TextEncoder().encode(Deno.env.get("JWT_SECRET") ?? "");
const grants = new Map<string, Grant>();
const texts = new Map<string, string>();
const versions = new Map<string, number>();
const createdAt = new Map<string, string>();
const owners = new Map<string, string>();
const emails = new Map<string, string>();
const order: string[] = [];
const nextId = monotonicUlid();

/** The token's grant, verified on first sight only; undefined when it is not valid. */
async function grantOf(request: Request): Promise<Grant | undefined> {
  const token = request.headers.get("authorization")?.slice(7) ?? "";
  let grant = grants.get(token);
  if (grant === undefined) {
    const verified = await jwtVerify(token, secret, { algorithms: ["HS256"] }).catch(() => null);
    if (verified === null) return undefined;
    grant = { scopes: String(verified.payload.scope ?? ""), exp: verified.payload.exp ?? 0 };
    grants.set(token, grant);
  }
  return grant.exp * 1000 > Date.now() ? grant : undefined;
}

function answer(status: number, body: string, etag?: string, extra?: [string, string]) {
  const headers = new Headers({
    "content-type": status < 400 ? JSON_TYPE : "application/problem+json",
    "x-request-id": crypto.randomUUID(),
    "x-content-type-options": "nosniff",
  });
  if (etag !== undefined) headers.set("etag", etag);
  if (extra !== undefined) headers.set(extra[0], extra[1]);
  return new Response(body, { status, headers });
}

const problem = (status: number, title: string) =>
  answer(status, JSON.stringify({ type: "about:blank", title, status }));

let file: Deno.FsFile;
let pending: { line: string; done: () => void }[] = [];
let syncing = false;

/** Appends a line; resolves once it and every line written with it are on disk. */
function durable(line: string): Promise<void> {
  return new Promise((done) => {
    pending.push({ line, done });
    if (!syncing) void flush();
  });
}

async function flush(): Promise<void> {
  syncing = true;
  while (pending.length > 0) {
    const batch = pending;
    pending = [];
    const bytes = new TextEncoder().encode(batch.map((p) => p.line).join(""));
    for (let at = 0; at < bytes.length;) at += await file.write(bytes.subarray(at));
    await file.syncData();
    for (const p of batch) p.done();
  }
  syncing = false;
}

/** Stores a customer's text and answers with it once the change is durable. */
async function save(status: number, id: string, fields: Record<string, unknown>, now: string) {
  const version = (versions.get(id) ?? 0) + 1;
  const customer = {
    id,
    name: fields.name,
    email: fields.email,
    phone: fields.phone ?? null,
    address: fields.address ?? null,
    metadata: fields.metadata ?? {},
    created_at: createdAt.get(id) ?? now,
    updated_at: now,
    version,
  };
  const text = JSON.stringify(customer);
  await durable(`{"type":"customer.${version === 1 ? "created" : "updated"}","data":${text}}\n`);
  if (version === 1) order.push(id);
  const email = String(fields.email).toLowerCase();
  if (emails.has(id) && emails.get(id) !== email) owners.delete(emails.get(id)!);
  texts.set(id, text), versions.set(id, version), createdAt.set(id, customer.created_at);
  owners.set(email, id), emails.set(id, email);
  const location: [string, string] | undefined = status === 201
    ? ["location", `${PREFIX}/${id}`]
    : undefined;
  return answer(status, text, `"${version}"`, location);
}

async function handle(request: Request): Promise<Response> {
  const grant = await grantOf(request);
  if (grant === undefined) return problem(401, "Unauthorized");
  const path = request.url.slice(request.url.indexOf("/", 8));
  const method = request.method;
  if (!grant.scopes.includes(method === "GET" ? "customers:read" : "customers:write")) {
    return problem(403, "Forbidden");
  }
  if (method === "GET" && path.startsWith(`${PREFIX}?`)) {
    const ids = order.slice(0, 100);
    const more = order.length > 100;
    const body = `{"data":[${ids.map((id) => texts.get(id)).join(",")}],"next_cursor":${
      more ? `"${ids[99]}"` : "null"
    }}`;
    // The first page only (the benchmark's); a cursor would start after its id.
    const link: [string, string] | undefined = more
      ? ["link", `<${path}&cursor=${ids[99]}>; rel="next"`]
      : undefined;
    return answer(200, body, undefined, link);
  }
  const id = path.slice(PREFIX.length + 1);
  if (method === "GET") {
    const text = texts.get(id);
    return text === undefined
      ? problem(404, "Not found")
      : answer(200, text, `"${versions.get(id)}"`);
  }
  if (method !== "POST" && method !== "PUT") return problem(405, "Method not allowed");
  const fields = await request.json().catch(() => null);
  if (fields === null || typeof fields !== "object") return problem(400, "Bad request");
  if (method === "PUT" && !texts.has(id)) return problem(404, "Not found");
  const owner = owners.get(String(fields.email).toLowerCase());
  if (owner !== undefined && owner !== id) return problem(409, "Email taken");
  const now = new Date().toISOString();
  return method === "POST" ? save(201, nextId(), fields, now) : save(200, id, fields, now);
}

if (import.meta.main) {
  const seed = JSON.parse(await Deno.readTextFile(Deno.env.get("SEED")!)).customers;
  for (const c of seed.sort((a: { id: string }, b: { id: string }) => a.id < b.id ? -1 : 1)) {
    order.push(c.id), texts.set(c.id, JSON.stringify(c)), versions.set(c.id, c.version);
    createdAt.set(c.id, c.created_at), owners.set(c.email.toLowerCase(), c.id);
    emails.set(c.id, c.email.toLowerCase());
  }
  file = await Deno.open(Deno.env.get("LOG")!, { append: true, create: true });
  Deno.serve({
    port: Number(Deno.env.get("PORT") ?? "0"),
    hostname: "127.0.0.1",
    onListen: ({ port }) => console.log(JSON.stringify({ port })),
  }, handle);
}
