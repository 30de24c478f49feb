import type { CustomerCommand, ExpectedVersions } from "./commands.ts";
import { type Customer, type CustomerInput, emailKey, mutableFields } from "./customer.ts";
import {
  CustomerNotFoundError,
  EmailTakenError,
  ValidationError,
  VersionMismatchError,
} from "./errors.ts";
import type { CustomerEvent } from "./events.ts";
import { applyMergePatch } from "./merge_patch.ts";
import { isPlainObject, parseCustomerInput } from "./validation.ts";
import { READ_ONLY_FIELDS } from "./customer.ts";

/** What decide needs to know about the current state. */
export interface CustomerState {
  /** The live customer with this id, if any. */
  get(id: string): Customer | undefined;
  /** The id of the live customer using this email key (see emailKey), if any. */
  emailOwner(key: string): string | undefined;
}

/** Where decide gets the time and new ids from, so tests can fix both. */
export interface DecideContext {
  /** The current time as an RFC 3339 UTC timestamp with milliseconds. */
  now(): string;
  /** A new, never used ULID. */
  newId(): string;
}

/** Decides which events a command causes, or throws the domain error that forbids it. */
export function decide(
  command: CustomerCommand,
  state: CustomerState,
  context: DecideContext,
): CustomerEvent {
  switch (command.type) {
    case "CreateCustomer": {
      const input = parseCustomerInput(command.body);
      assertEmailFree(state, input.email, undefined);
      const time = context.now();
      const id = context.newId();
      const data: Customer = { id, ...input, created_at: time, updated_at: time, version: 1 };
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
      const merged = applyMergePatch(mutableFields(current), patch);
      return updated(state, current, parseCustomerInput(merged), context);
    }
    case "DeleteCustomer": {
      const current = liveCustomer(state, command.id, command.expectedVersions);
      const version = current.version + 1;
      return { type: "customer.deleted", id: current.id, version, time: context.now(), data: null };
    }
  }
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
): CustomerEvent {
  assertEmailFree(state, input.email, current.id);
  const version = current.version + 1;
  const time = context.now();
  const data: Customer = {
    id: current.id,
    ...input,
    created_at: current.created_at,
    updated_at: time,
    version,
  };
  return { type: "customer.updated", id: current.id, version, time, data };
}

function assertEmailFree(state: CustomerState, email: string, self: string | undefined): void {
  const owner = state.emailOwner(emailKey(email));
  if (owner !== undefined && owner !== self) throw new EmailTakenError(email);
}
