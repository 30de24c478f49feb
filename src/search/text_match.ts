import {
  fieldNumber,
  fieldSpans,
  readMetadata,
  readTextFields,
  readTimes,
  TEXT_FIELDS,
} from "../read_model/customer_fields.ts";
import { ID_AT, ID_LENGTH } from "../read_model/text_table.ts";
import { folded } from "../read_model/trigrams.ts";
import type { QueryNode } from "./query.ts";

/**
 * Whether a customer's canonical text matches a query: the definition every index answer is
 * checked against. Each field is read from the text once, and only if a clause needs it.
 */
export function textMatches(node: QueryNode, text: string): boolean {
  return new CustomerView(text).matches(node);
}

class CustomerView {
  #fields: (string | null)[] | undefined;
  #metadata: Record<string, string> | undefined;
  #times: [number, number] | undefined;

  constructor(readonly text: string) {}

  matches(node: QueryNode): boolean {
    switch (node.kind) {
      case "and":
        return node.nodes.every((child) => this.matches(child));
      case "or":
        return node.nodes.some((child) => this.matches(child));
      case "not":
        return !this.matches(node.node);
      case "time": {
        const [created, updated] = this.#times ??= readTimes(this.text);
        const at = node.name === "created_at" ? created : updated;
        return at >= node.from && at < node.to;
      }
    }
    const { field, op, value } = node;
    if (field.kind === "id") {
      return value !== null && folded(this.text.slice(ID_AT, ID_AT + ID_LENGTH)) === value;
    }
    if (field.kind === "metadata") {
      const metadata = this.#metadata ??= readMetadata(this.text);
      const has = Object.hasOwn(metadata, field.key);
      return value === null ? !has : has && folded(metadata[field.key]) === value;
    }
    const number = fieldNumber(field.name);
    if (this.#fields === undefined) {
      const fast = plainMatch(this.text, number, op, value);
      if (fast !== undefined) return fast;
    }
    const raw = (this.#fields ??= readTextFields(this.text))[number];
    if (value === null) return raw === null;
    if (raw === null) return false;
    return op === ":" ? folded(raw) === value : folded(raw).includes(value);
  }
}

const SPAN = new Int32Array(2 * TEXT_FIELDS.length);

/**
 * A text clause decided in place, with no string made, when the field's JSON text is plain ASCII
 * (no escape), folded unit by unit; undefined when it is not.
 */
function plainMatch(
  json: string,
  field: number,
  op: ":" | "~",
  value: string | null,
): boolean | undefined {
  fieldSpans(json, SPAN, field);
  const [quote, end] = [SPAN[2 * field], SPAN[2 * field + 1]];
  if (quote === -1) return value === null;
  if (value === null) return false;
  let upper = false;
  for (let i = quote + 1; i < end; i++) {
    const unit = json.charCodeAt(i);
    if (unit >= 0x80 || unit === 0x5c) return undefined;
    if (unit >= 0x41 && unit <= 0x5a) upper = true;
  }
  const start = quote + 1;
  const length = value.length;
  if (op === ":") return end - start === length && foldedAt(json, start, value);
  if (!upper) {
    const at = json.indexOf(value, start);
    return at !== -1 && at + length <= end;
  }
  for (let at = start; at + length <= end; at++) if (foldedAt(json, at, value)) return true;
  return false;
}

/** True when the ASCII units of `json` from `at`, folded, begin with `value`. */
function foldedAt(json: string, at: number, value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    let unit = json.charCodeAt(at + i);
    if (unit >= 0x41 && unit <= 0x5a) unit += 0x20;
    if (unit !== value.charCodeAt(i)) return false;
  }
  return true;
}
