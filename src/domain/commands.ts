/** The versions a client accepts (from If-Match): "*" is any; an empty list matches nothing. */
export type ExpectedVersions = "*" | readonly number[];

/** Create a customer from a request body. */
export interface CreateCustomer {
  type: "CreateCustomer";
  body: unknown;
}

/** Replace every mutable field of a customer. */
export interface ReplaceCustomer {
  type: "ReplaceCustomer";
  id: string;
  body: unknown;
  expectedVersions?: ExpectedVersions;
}

/** Merge-patch a customer (RFC 7396). */
export interface PatchCustomer {
  type: "PatchCustomer";
  id: string;
  patch: unknown;
  expectedVersions?: ExpectedVersions;
}

/** Delete a customer. */
export interface DeleteCustomer {
  type: "DeleteCustomer";
  id: string;
  expectedVersions?: ExpectedVersions;
}

/** Everything a client can ask of the customer registry, in the imperative. */
export type CustomerCommand = CreateCustomer | ReplaceCustomer | PatchCustomer | DeleteCustomer;
