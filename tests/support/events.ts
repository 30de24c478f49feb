/** Customer events for store tests: valid ULIDs and whole customers, varied by a number. */
import type { Customer } from "../../src/domain/customer.ts";
import type { NewEvent } from "../../src/store/event_store.ts";

/** A customer with only the given fields set, the rest empty, created and updated at `time`. */
export function plainCustomer(
  fields: { id: string; name: string; email: string; version: number; time: string },
): Customer {
  const { id, name, email, version, time } = fields;
  return {
    id,
    name,
    email,
    phone: null,
    address: null,
    metadata: {},
    created_at: time,
    updated_at: time,
    version,
  };
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A valid ULID that differs for every n. */
export function ulid(n: number): string {
  let tail = "";
  for (let i = 0; i < 4; i++, n = Math.floor(n / 32)) tail = CROCKFORD[n % 32] + tail;
  return `01JDQ8Z5K3M4N5P6Q7R8S9${tail}`;
}

function customer(id: string, version: number, n: number) {
  const time = new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString();
  return {
    id,
    name: `Kundin ${n} Jürgens`,
    email: `c${n}@example.com`,
    phone: n % 2 === 0 ? null : `+49 30 ${n}`,
    address: null,
    metadata: { n: String(n) },
    created_at: time,
    updated_at: time,
    version,
  };
}

const META = { actor: "store-test", request_id: "req-store-test" };

/** customer.created for customer id `ulid(n)`. */
export function created(n: number): NewEvent {
  const id = ulid(n);
  const data = customer(id, 1, n);
  return { type: "customer.created", id, version: 1, time: data.created_at, data, ...META };
}

/** created(n) with another email. */
export function createdWith(n: number, email: string): NewEvent {
  const event = created(n);
  return { ...event, data: { ...event.data!, email } } as NewEvent;
}

/** customer.updated of customer n to `version`. */
export function updated(n: number, version: number): NewEvent {
  const id = ulid(n);
  const data = customer(id, version, n + version * 1000);
  return { type: "customer.updated", id, version, time: data.updated_at, data, ...META };
}

/** customer.deleted of customer n at `version`. */
export function deleted(n: number, version: number): NewEvent {
  const id = ulid(n);
  const time = new Date(Date.UTC(2025, 0, 2)).toISOString();
  return { type: "customer.deleted", id, version, time, data: null, ...META };
}
