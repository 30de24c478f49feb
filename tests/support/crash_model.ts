/**
 * The crash test's writers and what they know: every acknowledged write, and the one request
 * per writer whose answer a crash swallowed. After a restart the server's state is checked
 * against this knowledge, and the uncertain request is settled by looking at what survived.
 */
import { type ApiClient, type Customer, inParallel } from "./api.ts";

/** The fields a client sets; what a PUT or PATCH result is compared on. */
export type Fields = Pick<Customer, "name" | "email" | "phone" | "address" | "metadata">;

/** A request sent but never answered: it may or may not have become durable. */
type Uncertain =
  | { kind: "create"; fields: Fields }
  | { kind: "update"; id: string; fields: Fields }
  | { kind: "delete"; id: string };

const COUNTRIES = ["DE", "FR", "GB", "US", "JP", "BR", "NZ"];
const MAX_LIVE = 6;

/** The mutable fields of a customer. */
export function fieldsOf(c: Customer): Fields {
  return { name: c.name, email: c.email, phone: c.phone, address: c.address, metadata: c.metadata };
}

/** One client that only touches its own customers, one request at a time. */
export class Writer {
  /** Last acknowledged state of each customer this writer created and has not deleted. */
  readonly live = new Map<string, Customer>();
  /** Customers whose delete was acknowledged (204). */
  readonly deleted = new Set<string>();
  /** Broken promises found: any one fails the test. */
  readonly failures: string[] = [];
  acknowledged = 0;
  #uncertain: Uncertain | null = null;
  #counter = 0;

  constructor(readonly name: string, readonly random: () => number) {}

  /** Sends writes until a request fails (the server was killed) or something unexpected answers. */
  async run(api: ApiClient): Promise<void> {
    while (this.failures.length === 0 && this.#uncertain === null) await this.#step(api);
  }

  /** Creates count customers, 32 at a time, and leaves them alone: a big state slows snapshots. */
  async prefill(api: ApiClient, count: number): Promise<void> {
    await inParallel(Array.from({ length: count }), 32, async () => {
      const fields = this.#newFields();
      await this.#send(
        { kind: "create", fields },
        () => api.post("/api/customers", { json: fields }),
        201,
      );
    });
  }

  async #step(api: ApiClient): Promise<void> {
    const ids = [...this.live.keys()];
    const r = this.random();
    if (ids.length === 0 || (ids.length < MAX_LIVE && r < 0.35)) {
      const fields = this.#newFields();
      await this.#send(
        { kind: "create", fields },
        () => api.post("/api/customers", { json: fields }),
        201,
      );
      return;
    }
    const id = ids[Math.floor(this.random() * ids.length)];
    const before = this.live.get(id)!;
    if (r < 0.6) {
      const fields = this.#newFields();
      await this.#send(
        { kind: "update", id, fields },
        () => api.put(`/api/customers/${id}`, { json: fields }),
        200,
      );
    } else if (r < 0.85) {
      const patch = {
        name: `${this.name} patched ${++this.#counter}`,
        metadata: { step: `${this.#counter}` },
      };
      const fields = {
        ...fieldsOf(before),
        name: patch.name,
        metadata: { ...before.metadata, ...patch.metadata },
      };
      const send = () =>
        api.patch(`/api/customers/${id}`, {
          json: patch,
          contentType: "application/merge-patch+json",
        });
      await this.#send({ kind: "update", id, fields }, send, 200);
    } else {
      await this.#send({ kind: "delete", id }, () => api.delete(`/api/customers/${id}`), 204);
    }
  }

  async #send(
    op: Uncertain,
    request: () => Promise<{ status: number; text: string; body: unknown }>,
    expected: number,
  ): Promise<void> {
    let res;
    try {
      res = await request();
    } catch {
      this.#uncertain = op; // No answer: the crash came first.
      return;
    }
    if (res.status !== expected) {
      this.failures.push(`${op.kind} answered ${res.status}, not ${expected}: ${res.text}`);
      return;
    }
    this.acknowledged++;
    if (op.kind === "delete") {
      this.live.delete(op.id);
      this.deleted.add(op.id);
    } else {
      const customer = res.body as Customer;
      this.live.set(customer.id, customer);
    }
  }

  #newFields(): Fields {
    const n = ++this.#counter;
    const digits = String(Math.floor(this.random() * 1e9)).padStart(9, "0");
    return {
      name: `${this.name} customer ${n}`,
      email: `${this.name}-${n}-${digits}@crash.example`,
      phone: `+49${digits}`,
      address: {
        line1: `${n} Crash Street`,
        line2: null,
        city: "Killville",
        region: `R${n}`,
        postal_code: digits.slice(0, 5),
        country: COUNTRIES[n % COUNTRIES.length],
      },
      metadata: { writer: this.name, step: String(n) },
    };
  }

  /**
   * Checks the state a restarted server holds (`found`, every live customer by id) against
   * what this writer was told, settles the unanswered request, and claims its customers.
   */
  check(found: Map<string, Customer>, byEmail: Map<string, Customer>, claimed: Set<string>): void {
    const fail = (message: string) => this.failures.push(`${this.name}: ${message}`);
    const op = this.#uncertain;
    this.#uncertain = null;
    if (op?.kind === "create") {
      const made = byEmail.get(op.fields.email);
      if (made !== undefined) {
        if (made.version !== 1) fail(`unanswered create ${made.id} has version ${made.version}`);
        if (!same(fieldsOf(made), op.fields)) {
          fail(`unanswered create ${made.id} differs from its request`);
        }
        this.live.set(made.id, made);
      }
    }
    for (const [id, acked] of [...this.live]) {
      const got = found.get(id);
      const pending = op !== null && op.kind !== "create" && op.id === id ? op : null;
      claimed.add(id);
      if (got === undefined) {
        if (pending?.kind === "delete") {
          this.live.delete(id);
          this.deleted.add(id);
          claimed.delete(id);
        } else fail(`acknowledged customer ${id} (version ${acked.version}) is gone`);
      } else if (got.version === acked.version) {
        if (!same(got, acked)) {
          fail(`customer ${id} at version ${got.version} differs from its acknowledged state`);
        }
      } else if (pending?.kind === "update" && got.version === acked.version + 1) {
        if (!same(fieldsOf(got), pending.fields)) {
          fail(`unanswered update of ${id} applied wrongly`);
        }
        this.live.set(id, got);
      } else {
        fail(`customer ${id} has version ${got.version}; acknowledged was ${acked.version}`);
      }
    }
    for (const id of this.deleted) {
      if (!found.has(id)) continue;
      claimed.add(id);
      fail(`customer ${id} is back although its delete was acknowledged`);
    }
  }
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value).sort().map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
  );
}
