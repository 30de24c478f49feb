import { exampleCustomer } from "../support/customers.ts";
import assert from "node:assert/strict";
import type { CustomerCommand, ExpectedVersions } from "../../src/domain/commands.ts";
import { type Customer, emailKey } from "../../src/domain/customer.ts";
import { type CustomerState, decide, type DecideContext } from "../../src/domain/decide.ts";
import {
  CustomerNotFoundError,
  EmailTakenError,
  ValidationError,
  VersionMismatchError,
} from "../../src/domain/errors.ts";
import { type CustomerEvent, evolve } from "../../src/domain/events.ts";

const NOW = "2026-11-22T08:30:00.000Z";
const CREATED_AT = "2026-11-21T10:00:00.000Z";
const ADA_ID = "01JDQ8Z5K3M4N5P6Q7R8S9T0VW";
const GRACE_ID = "01JDQ8Z5K3M4N5P6Q7R8S9T0VX";
const NEW_ID = "01JDQ9A0B1C2D3E4F5G6H7J8K9";
const UNKNOWN_ID = "01JDQ8Z5K3M4N5P6Q7R8S9T0ZZ";

/** A small in-memory state: live customers by id and email key. */
function stateOf(...customers: Customer[]): CustomerState {
  const byId = new Map(customers.map((customer) => [customer.id, customer]));
  const byEmail = new Map(customers.map((customer) => [emailKey(customer.email), customer.id]));
  return { get: (id) => byId.get(id), emailOwner: (key) => byEmail.get(key) };
}

/** A context whose clock is fixed and whose ids come from a fixed list, in order. */
function fixedContext(...ids: string[]): DecideContext {
  const queue = ids.length > 0 ? [...ids] : [NEW_ID];
  return {
    now: () => NOW,
    newId: () => queue.shift() ?? assert.fail("decide asked for more ids than expected"),
  };
}

function ada(): Customer {
  return exampleCustomer({
    id: ADA_ID,
    metadata: { crm_id: "A-1042", tier: "gold" },
    created_at: CREATED_AT,
    updated_at: "2026-11-21T12:00:00.000Z",
    version: 3,
  });
}

function grace(): Customer {
  return {
    id: GRACE_ID,
    name: "Grace Hopper",
    email: "grace@example.com",
    phone: null,
    address: null,
    metadata: {},
    created_at: CREATED_AT,
    updated_at: CREATED_AT,
    version: 1,
  };
}

/** The error class decide throws for a command, failing if it returns an event instead. */
function decideError(command: CustomerCommand, state: CustomerState): unknown {
  try {
    decide(command, state, fixedContext());
  } catch (error) {
    return error;
  }
  assert.fail(`expected ${command.type} to be refused`);
}

function violationsOf(command: CustomerCommand, state: CustomerState) {
  const error = decideError(command, state);
  assert.ok(error instanceof ValidationError, `expected a ValidationError, got ${error}`);
  return error.violations;
}

// --- create ---

Deno.test("create yields customer.created version 1 with the new id and both timestamps now", () => {
  const event = decide(
    { type: "CreateCustomer", body: { name: " Ada Lovelace ", email: "Ada@Example.com" } },
    stateOf(),
    fixedContext(NEW_ID),
  );
  assert.deepEqual(event, {
    type: "customer.created",
    id: NEW_ID,
    version: 1,
    time: NOW,
    data: {
      id: NEW_ID,
      name: "Ada Lovelace",
      email: "Ada@Example.com",
      phone: null,
      address: null,
      metadata: {},
      created_at: NOW,
      updated_at: NOW,
      version: 1,
    },
  });
});

Deno.test("create ignores read-only fields sent in the body", () => {
  const body = {
    id: UNKNOWN_ID,
    name: "Ada",
    email: "ada@example.com",
    created_at: "2000-01-01T00:00:00.000Z",
    updated_at: "2000-01-01T00:00:00.000Z",
    version: 42,
  };
  const event = decide({ type: "CreateCustomer", body }, stateOf(), fixedContext(NEW_ID));
  assert.equal(event.id, NEW_ID);
  assert.equal(event.version, 1);
  assert.equal(event.data?.id, NEW_ID);
  assert.equal(event.data?.created_at, NOW);
  assert.equal(event.data?.updated_at, NOW);
  assert.equal(event.data?.version, 1);
});

Deno.test("create with an invalid body throws a ValidationError listing every violation", () => {
  assert.deepEqual(
    violationsOf({ type: "CreateCustomer", body: { name: "", phone: "0207" } }, stateOf()),
    [
      { pointer: "/name", detail: "must be 1 to 200 characters after trimming" },
      { pointer: "/email", detail: "is required" },
      { pointer: "/phone", detail: "must be null or an E.164 number: + then 2 to 15 digits" },
    ],
  );
});

Deno.test("create with an email a live customer uses, in any case, throws EmailTakenError", () => {
  const error = decideError(
    { type: "CreateCustomer", body: { name: "Impostor", email: "ADA@example.COM" } },
    stateOf(ada()),
  );
  assert.ok(error instanceof EmailTakenError);
  assert.equal(error.message, 'The email "ADA@example.COM" is already used by another customer');
});

// --- replace ---

Deno.test("replace keeps id and created_at, bumps version, sets updated_at, and nulls omitted fields", () => {
  const event = decide(
    {
      type: "ReplaceCustomer",
      id: ADA_ID,
      body: { name: "Augusta Ada King", email: "augusta@example.com" },
    },
    stateOf(ada()),
    fixedContext(),
  );
  assert.deepEqual(event, {
    type: "customer.updated",
    id: ADA_ID,
    version: 4,
    time: NOW,
    data: {
      id: ADA_ID,
      name: "Augusta Ada King",
      email: "augusta@example.com",
      phone: null,
      address: null,
      metadata: {},
      created_at: CREATED_AT,
      updated_at: NOW,
      version: 4,
    },
  });
});

Deno.test("replace ignores read-only fields, so a client can PUT back what it got", () => {
  const body = { ...ada(), id: GRACE_ID, version: 99, created_at: NOW, name: "Ada King" };
  const event = decide(
    { type: "ReplaceCustomer", id: ADA_ID, body },
    stateOf(ada()),
    fixedContext(),
  );
  assert.deepEqual(event!.data, {
    ...ada(),
    name: "Ada King",
    updated_at: NOW,
    version: 4,
  });
});

Deno.test("replace keeping the customer's own email, even in another case, is allowed", () => {
  for (const email of ["ada@example.com", "ADA@Example.com"]) {
    const event = decide(
      { type: "ReplaceCustomer", id: ADA_ID, body: { name: "Ada", email } },
      stateOf(ada(), grace()),
      fixedContext(),
    );
    assert.equal(event!.type, "customer.updated");
    assert.equal(event!.data?.email, email);
  }
});

Deno.test("replace or patch keeping the customer's own email does not look the email up", () => {
  const state = stateOf(ada());
  const noLookup = { ...state, emailOwner: () => assert.fail("the own email was looked up") };
  const commands: CustomerCommand[] = [
    { type: "ReplaceCustomer", id: ADA_ID, body: { name: "Ada", email: "ADA@example.com" } },
    { type: "PatchCustomer", id: ADA_ID, patch: { name: "Ada" } },
  ];
  for (const command of commands) {
    assert.equal(decide(command, noLookup, fixedContext())!.type, "customer.updated");
  }
});

Deno.test("replace with another live customer's email throws EmailTakenError", () => {
  const error = decideError(
    { type: "ReplaceCustomer", id: ADA_ID, body: { name: "Ada", email: "Grace@Example.com" } },
    stateOf(ada(), grace()),
  );
  assert.ok(error instanceof EmailTakenError);
});

Deno.test("replace with an invalid body throws a ValidationError", () => {
  assert.deepEqual(
    violationsOf(
      { type: "ReplaceCustomer", id: ADA_ID, body: { name: "Ada", email: "ada@", foo: 1 } },
      stateOf(ada()),
    ),
    [
      { pointer: "/foo", detail: "is not a known field" },
      { pointer: "/email", detail: "must be a valid email address" },
    ],
  );
});

// --- patch ---

function patchAda(patch: unknown, expectedVersions?: ExpectedVersions): CustomerEvent {
  return decide(
    { type: "PatchCustomer", id: ADA_ID, patch, expectedVersions },
    stateOf(ada(), grace()),
    fixedContext(),
  )!;
}

Deno.test("patch merges a nested address, keeping the address fields it does not name", () => {
  const event = patchAda({ address: { city: "Paris", postal_code: "75001", country: "FR" } });
  assert.deepEqual(event, {
    type: "customer.updated",
    id: ADA_ID,
    version: 4,
    time: NOW,
    data: {
      ...ada(),
      address: {
        line1: "12 St James's Square",
        line2: null,
        city: "Paris",
        region: null,
        postal_code: "75001",
        country: "FR",
      },
      updated_at: NOW,
      version: 4,
    },
  });
});

Deno.test("patch adding an address to a customer without one fills the other fields with null", () => {
  const event = decide(
    { type: "PatchCustomer", id: GRACE_ID, patch: { address: { city: "Arlington" } } },
    stateOf(grace()),
    fixedContext(),
  );
  assert.deepEqual(event!.data?.address, {
    line1: null,
    line2: null,
    city: "Arlington",
    region: null,
    postal_code: null,
    country: null,
  });
});

Deno.test("patch changes only the named top-level fields", () => {
  const event = patchAda({ name: "Ada King" });
  assert.deepEqual(event.data, { ...ada(), name: "Ada King", updated_at: NOW, version: 4 });
});

Deno.test("patch merges metadata: new keys are added, null removes a key", () => {
  const event = patchAda({ metadata: { tier: null, region: "EU" } });
  assert.deepEqual(event.data?.metadata, { crm_id: "A-1042", region: "EU" });
});

Deno.test("patch with null removes phone, address and metadata, leaving null, null and {}", () => {
  const event = patchAda({ phone: null, address: null, metadata: null });
  assert.deepEqual(event.data, {
    ...ada(),
    phone: null,
    address: null,
    metadata: {},
    updated_at: NOW,
    version: 4,
  });
});

Deno.test("patch with null on one address field sets just that field to null", () => {
  const event = patchAda({ address: { line1: null } });
  assert.equal(event.data?.address?.line1, null);
  assert.equal(event.data?.address?.city, "London");
});

Deno.test("patch ignores read-only fields it contains", () => {
  const event = patchAda({
    id: GRACE_ID,
    version: 1000,
    created_at: "2000-01-01T00:00:00.000Z",
    updated_at: "2000-01-01T00:00:00.000Z",
    name: "Ada King",
  });
  assert.equal(event.id, ADA_ID);
  assert.deepEqual(event.data, { ...ada(), name: "Ada King", updated_at: NOW, version: 4 });
});

Deno.test("patch with null on a read-only field is ignored too: it changes nothing, no event", () => {
  const event = decide(
    { type: "PatchCustomer", id: ADA_ID, patch: { version: null, id: null } },
    stateOf(ada(), grace()),
    fixedContext(),
  );
  assert.equal(event, undefined);
});

Deno.test("patch with an unknown field throws a ValidationError at /foo", () => {
  assert.deepEqual(
    violationsOf({ type: "PatchCustomer", id: ADA_ID, patch: { foo: "bar" } }, stateOf(ada())),
    [{ pointer: "/foo", detail: "is not a known field" }],
  );
});

Deno.test("patch removing a required field throws a ValidationError", () => {
  assert.deepEqual(
    violationsOf({ type: "PatchCustomer", id: ADA_ID, patch: { name: null } }, stateOf(ada())),
    [{ pointer: "/name", detail: "is required" }],
  );
});

Deno.test("patch whose result breaks a rule throws a ValidationError at the merged pointer", () => {
  assert.deepEqual(
    violationsOf(
      { type: "PatchCustomer", id: ADA_ID, patch: { address: { country: "gb", foo: "x" } } },
      stateOf(ada()),
    ),
    [
      { pointer: "/address/foo", detail: "is not a known field" },
      { pointer: "/address/country", detail: "must be an ISO 3166-1 alpha-2 code in upper case" },
    ],
  );
});

Deno.test("patch refuses a field that breaks a rule even when null makes it a no-op", () => {
  const patches: [Record<string, unknown>, string][] = [
    [{ nickname: null }, "/nickname"],
    [{ address: { zip: null } }, "/address/zip"],
    [{ metadata: { ["k".repeat(41)]: null } }, `/metadata/${"k".repeat(41)}`],
    [{ metadata: { "\ud800": null } }, "/metadata/\ud800"],
  ];
  for (const [patch, pointer] of patches) {
    const violations = violationsOf({ type: "PatchCustomer", id: ADA_ID, patch }, stateOf(ada()));
    assert.deepEqual(violations.map((v) => v.pointer), [pointer], JSON.stringify(patch));
  }
});

Deno.test("patch reports a violation of the patch and of its result once, with the result's", () => {
  const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`n${i}`, "v"]));
  assert.deepEqual(
    violationsOf(
      { type: "PatchCustomer", id: ADA_ID, patch: { name: "\ud800", metadata: many } },
      stateOf(ada()),
    ),
    [
      {
        pointer: "/name",
        detail: "must not contain a lone surrogate (an unpaired \\ud800-\\udfff escape)",
      },
      { pointer: "/metadata", detail: "must have at most 50 keys" },
    ],
  );
});

Deno.test("a patch that is not a JSON object throws a ValidationError at pointer ''", () => {
  for (const patch of [["name", "Ada"], "Ada", null, 42, true]) {
    assert.deepEqual(
      violationsOf({ type: "PatchCustomer", id: ADA_ID, patch }, stateOf(ada())),
      [{ pointer: "", detail: "must be a JSON object (a merge patch)" }],
    );
  }
});

Deno.test("a patch with a __proto__ key is an unknown field and pollutes nothing", () => {
  const patch = JSON.parse('{"__proto__":{"name":"Mallory"}}');
  assert.deepEqual(
    violationsOf({ type: "PatchCustomer", id: ADA_ID, patch }, stateOf(ada())),
    [{ pointer: "/__proto__", detail: "is not a known field" }],
  );
  assert.equal(({} as Record<string, unknown>).name, undefined);
});

Deno.test("patch with another live customer's email throws EmailTakenError", () => {
  const error = decideError(
    { type: "PatchCustomer", id: ADA_ID, patch: { email: "GRACE@example.com" } },
    stateOf(ada(), grace()),
  );
  assert.ok(error instanceof EmailTakenError);
});

Deno.test("patch neither mutates the current customer nor the patch", () => {
  const current = ada();
  const patch = { address: { city: "Paris" }, metadata: { tier: null } };
  const currentCopy = structuredClone(current);
  const patchCopy = structuredClone(patch);
  decide({ type: "PatchCustomer", id: ADA_ID, patch }, stateOf(current), fixedContext());
  assert.deepEqual(current, currentCopy);
  assert.deepEqual(patch, patchCopy);
});

// --- delete ---

Deno.test("delete yields customer.deleted with data null and the version bumped", () => {
  const event = decide({ type: "DeleteCustomer", id: ADA_ID }, stateOf(ada()), fixedContext());
  assert.deepEqual(event, {
    type: "customer.deleted",
    id: ADA_ID,
    version: 4,
    time: NOW,
    data: null,
  });
});

// --- unknown ids and expected versions, for every command on an existing customer ---

function commandsFor(id: string, expectedVersions?: ExpectedVersions): CustomerCommand[] {
  return [
    {
      type: "ReplaceCustomer",
      id,
      body: { name: "Ada", email: "ada@example.com" },
      expectedVersions,
    },
    { type: "PatchCustomer", id, patch: { name: "Ada" }, expectedVersions },
    { type: "DeleteCustomer", id, expectedVersions },
  ];
}

Deno.test("replace, patch and delete of an unknown id throw CustomerNotFoundError", () => {
  for (const command of commandsFor(UNKNOWN_ID)) {
    const error = decideError(command, stateOf(ada()));
    assert.ok(error instanceof CustomerNotFoundError, command.type);
    assert.equal(error.message, `No customer with id "${UNKNOWN_ID}"`);
  }
});

Deno.test("an unknown id is reported as not found even when the body is invalid", () => {
  const error = decideError(
    { type: "ReplaceCustomer", id: UNKNOWN_ID, body: { foo: 1 } },
    stateOf(ada()),
  );
  assert.ok(error instanceof CustomerNotFoundError);
});

Deno.test("expected versions absent, '*', [current] or a list holding current all let the command through", () => {
  for (const expected of [undefined, "*", [3], [1, 3, 7]] as (ExpectedVersions | undefined)[]) {
    for (const command of commandsFor(ADA_ID, expected)) {
      const event = decide(command, stateOf(ada()), fixedContext());
      assert.equal(event!.version, 4, `${command.type} with ${JSON.stringify(expected)}`);
    }
  }
});

Deno.test("a stale expected version throws VersionMismatchError naming the current version", () => {
  for (const command of commandsFor(ADA_ID, [2])) {
    const error = decideError(command, stateOf(ada()));
    assert.ok(error instanceof VersionMismatchError, command.type);
    assert.equal(error.message, 'If-Match does not match the current ETag "3"');
  }
});

Deno.test("an empty list of expected versions matches nothing and throws VersionMismatchError", () => {
  for (const command of commandsFor(ADA_ID, [])) {
    assert.ok(decideError(command, stateOf(ada())) instanceof VersionMismatchError, command.type);
  }
});

// --- evolve ---

Deno.test("evolve turns created and updated events into their data, and deleted into undefined", () => {
  const created = decide(
    { type: "CreateCustomer", body: { name: "Ada", email: "ada@example.com" } },
    stateOf(),
    fixedContext(NEW_ID),
  );
  const afterCreate = evolve(undefined, created);
  assert.deepEqual(afterCreate, created.data);

  const updated = decide(
    { type: "PatchCustomer", id: NEW_ID, patch: { phone: "+12" } },
    stateOf(afterCreate!),
    fixedContext(),
  );
  const afterUpdate = evolve(afterCreate, updated!);
  assert.deepEqual(afterUpdate, { ...afterCreate!, phone: "+12", version: 2 });

  const deleted = decide(
    { type: "DeleteCustomer", id: NEW_ID },
    stateOf(afterUpdate!),
    fixedContext(),
  );
  assert.equal(evolve(afterUpdate, deleted), undefined);
});

Deno.test("a replace or patch that changes nothing decides no event (no noise in the feed)", () => {
  const { id: _id, created_at: _c, updated_at: _u, version: _v, ...fields } = ada();
  const commands: CustomerCommand[] = [
    { type: "ReplaceCustomer", id: ADA_ID, body: fields },
    { type: "PatchCustomer", id: ADA_ID, patch: {} },
    { type: "PatchCustomer", id: ADA_ID, patch: { name: "Ada Lovelace" } },
  ];
  for (const command of commands) {
    assert.equal(decide(command, stateOf(ada()), fixedContext()), undefined, command.type);
  }
});
