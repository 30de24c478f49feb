/** A postal address; every field may be null. */
export interface Address {
  line1: string | null;
  line2: string | null;
  city: string | null;
  region: string | null;
  postal_code: string | null;
  country: string | null;
}

/** The fields a client may set on a customer, normalised. */
export interface CustomerInput {
  name: string;
  email: string;
  phone: string | null;
  address: Address | null;
  metadata: Record<string, string>;
}

/** A stored customer as the API returns it. */
export interface Customer extends CustomerInput {
  id: string;
  created_at: string;
  updated_at: string;
  version: number;
}

/** The fields the server owns; ignored when a client sends them. */
export const READ_ONLY_FIELDS: readonly string[] = ["id", "created_at", "updated_at", "version"];

/** The address fields, in their canonical order. */
export const ADDRESS_FIELDS = [
  "line1",
  "line2",
  "city",
  "region",
  "postal_code",
  "country",
] as const;

/** The mutable part of a customer, as a plain JSON object (the target of a merge patch). */
export function mutableFields(customer: Customer): CustomerInput {
  return {
    name: customer.name,
    email: customer.email,
    phone: customer.phone,
    address: customer.address,
    metadata: customer.metadata,
  };
}

/** The key under which emails are compared for uniqueness. */
export function emailKey(email: string): string {
  return email.toLowerCase();
}

/** True when the string is a well-formed ULID. */
export function isUlid(value: string): boolean {
  return value.length === 26 && ULID.test(value);
}

/** A ULID (26 Crockford base32 characters, upper case) as regular-expression source, anchored. */
export const ULID_PATTERN = "^[0-7][0-9A-HJKMNP-TV-Z]{25}$";

const ULID = new RegExp(ULID_PATTERN);
