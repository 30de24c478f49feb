import {
  fieldNumber,
  readMetadata,
  readTextFields,
  readTimes,
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
    const raw = (this.#fields ??= readTextFields(this.text))[fieldNumber(field.name)];
    if (value === null) return raw === null;
    if (raw === null) return false;
    return op === ":" ? folded(raw) === value : folded(raw).includes(value);
  }
}
