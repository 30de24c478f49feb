import type {
  CreateCustomer,
  CustomerCommand,
  DeleteCustomer,
  ExpectedVersions,
} from "./commands.ts";
import { type Customer, type CustomerInput, emailKey, mutableFields } from "./customer.ts";
import {
  CustomerNotFoundError,
  EmailTakenError,
  ValidationError,
  VersionMismatchError,
} from "./errors.ts";
import type { CustomerEvent } from "./events.ts";
import { applyMergePatch } from "./merge_patch.ts";
import { isPlainObject, mergePatchViolations, parseCustomerInput } from "./validation.ts";
import { READ_ONLY_FIELDS } from "./customer.ts";

/** What decide needs to know about the current state. */
export interface CustomerState {
  get(id: string): Customer | undefined;
  /** The id of the live customer using this email key (see emailKey), if any. */
  emailOwner(key: string): string | undefined;
}

/** Where decide gets the time and new ids from, so tests can fix both. */
export interface DecideContext {
  /** The current time as an RFC 3339 UTC timestamp with milliseconds. */
  now(): string;
  newId(): string;
}

/** Decides the event a create or delete causes, or throws the domain error that forbids it. */
export function decide(
  command: CreateCustomer | DeleteCustomer,
  state: CustomerState,
  context: DecideContext,
): CustomerEvent;
/** Decides which event a command causes, or throws; undefined when it changes nothing. */
export function decide(
  command: CustomerCommand,
  state: CustomerState,
  context: DecideContext,
): CustomerEvent | undefined;
export function decide(
  command: CustomerCommand,
  state: CustomerState,
  context: DecideContext,
): CustomerEvent | undefined {
  switch (command.type) {
    case "CreateCustomer": {
      const input = parseCustomerInput(command.body);
      assertEmailFree(state, input.email, undefined);
      const time = context.now();
      const id = context.newId();
      const data = customer(id, input, time, time, 1);
      return { type: "customer.created", id, version: 1, time, data };
    }
    case "ReplaceCustomer": {
      const current = liveCustomer(state, command.id, command.expectedVersions);
      return updated(state, current, parseCustomerInput(command.body), context);
    }
    case "PatchCustomer": {
      const current = liveCustomer(state, command.id, command.expectedVersions);
      if (!isPlainObject(command.patch)) {
        throw new ValidationError([{
          pointer: "",
          detail: "must be a JSON object (a merge patch)",
        }]);
      }
      const patch = { ...command.patch };
      for (const field of READ_ONLY_FIELDS) delete patch[field];
      return updated(state, current, parsePatched(current, patch), context);
    }
    case "DeleteCustomer": {
      const current = liveCustomer(state, command.id, command.expectedVersions);
      const version = current.version + 1;
      return { type: "customer.deleted", id: current.id, version, time: context.now(), data: null };
    }
  }
}

/**
 * The customer after a merge patch: the patch's own fields must follow the rules (even where a
 * `null` makes them a no-op), then so must the result; all violations are reported at once.
 */
function parsePatched(current: Customer, patch: Record<string, unknown>): CustomerInput {
  const violations = mergePatchViolations(patch);
  try {
    const input = parseCustomerInput(applyMergePatch(mutableFields(current), patch));
    if (violations.length === 0) return input;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    violations.push(...error.violations);
  }
  const unique = new Map(violations.map((v) => [`${v.pointer}\u0000${v.detail}`, v]));
  throw new ValidationError([...unique.values()]);
}

function liveCustomer(
  state: CustomerState,
  id: string,
  expected: ExpectedVersions | undefined,
): Customer {
  const customer = state.get(id);
  if (customer === undefined) throw new CustomerNotFoundError(id);
  if (expected !== undefined && expected !== "*" && !expected.includes(customer.version)) {
    throw new VersionMismatchError(customer.version);
  }
  return customer;
}

function updated(
  state: CustomerState,
  current: Customer,
  input: CustomerInput,
  context: DecideContext,
): CustomerEvent | undefined {
  // No noise: a change to the same fields is no change (contract §8).
  if (sameValue(mutableFields(current), input)) return undefined;
  // A customer's own email is its own: only another email needs looking up.
  if (emailKey(input.email) !== emailKey(current.email)) {
    assertEmailFree(state, input.email, current.id);
  }
  const version = current.version + 1;
  const time = context.now();
  const data = customer(current.id, input, current.created_at, time, version);
  return { type: "customer.updated", id: current.id, version, time, data };
}

/** A customer from its input in canonical member order, spelled out (a spread copies slowly). */
function customer(
  id: string,
  input: CustomerInput,
  createdAt: string,
  updatedAt: string,
  version: number,
): Customer {
  return {
    id,
    name: input.name,
    email: input.email,
    phone: input.phone,
    address: input.address,
    metadata: input.metadata,
    created_at: createdAt,
    updated_at: updatedAt,
    version,
  };
}

function assertEmailFree(state: CustomerState, email: string, self: string | undefined): void {
  const owner = state.emailOwner(emailKey(email));
  if (owner !== undefined && owner !== self) throw new EmailTakenError(email);
}

/** Deep equality of JSON values; object member order does not count. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left).filter((key) => left[key] !== undefined);
  if (keys.length !== Object.keys(right).filter((key) => right[key] !== undefined).length) {
    return false;
  }
  return keys.every((key) => sameValue(left[key], right[key]));
}
