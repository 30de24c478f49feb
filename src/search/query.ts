import type { TextField } from "../read_model/customer_fields.ts";

/** What a clause compares: a text field, a metadata key, the id, or a time. */
export type QueryField =
  | { kind: "text"; name: TextField }
  | { kind: "metadata"; key: string }
  | { kind: "id" }
  | { kind: "time"; name: "created_at" | "updated_at" };

/** `field:value` (null: no value), or `field~value`; the value case-folded (trigrams.ts). */
export interface MatchClause {
  kind: "match";
  field: Exclude<QueryField, { kind: "time" }>;
  op: ":" | "~";
  value: string | null;
}

/** A time clause, as the half-open range of epoch ms [from, to) it admits. */
export interface TimeClause {
  kind: "time";
  name: "created_at" | "updated_at";
  from: number;
  to: number;
}

/** A parsed search expression. */
export type QueryNode =
  | MatchClause
  | TimeClause
  | { kind: "and"; nodes: QueryNode[] }
  | { kind: "or"; nodes: QueryNode[] }
  | { kind: "not"; node: QueryNode };

/** The fields a clause may name, as written in a query (metadata['key'] aside). */
export const QUERY_FIELDS: Readonly<Record<string, QueryField>> = {
  id: { kind: "id" },
  name: { kind: "text", name: "name" },
  email: { kind: "text", name: "email" },
  phone: { kind: "text", name: "phone" },
  "address.line1": { kind: "text", name: "address.line1" },
  "address.line2": { kind: "text", name: "address.line2" },
  "address.city": { kind: "text", name: "address.city" },
  "address.region": { kind: "text", name: "address.region" },
  "address.postal_code": { kind: "text", name: "address.postal_code" },
  "address.country": { kind: "text", name: "address.country" },
  created_at: { kind: "time", name: "created_at" },
  updated_at: { kind: "time", name: "updated_at" },
};

/** Most clauses in one query, and most characters. */
export const MAX_CLAUSES = 20;
export const MAX_QUERY_LENGTH = 1000;
/** The fewest characters a `~` value may have. */
export const MIN_SUBSTRING = 3;
