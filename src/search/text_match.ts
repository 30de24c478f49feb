import {
  fieldNumber,
  fieldSpans,
  readMetadata,
  readTextField,
  readTime,
  TEXT_FIELDS,
} from "../read_model/customer_fields.ts";
import { ID_AT, ID_LENGTH } from "../read_model/text_table.ts";
import { folded } from "../read_model/trigrams.ts";
import type { MatchClause, QueryNode } from "./query.ts";

/** Whether a customer's canonical text matches a query: the definition index answers meet. */
export type TextTest = (text: string) => boolean;

/** A query made into a test of texts once per search: no object per call, fields read once. */
export function textTest(node: QueryNode): TextTest {
  const reader = new FieldReader(lastField(node));
  const test = compiled(node, reader);
  return (text) => {
    reader.reset(text);
    return test(text);
  };
}

function compiled(node: QueryNode, reader: FieldReader): TextTest {
  switch (node.kind) {
    case "and": {
      const tests = node.nodes.map((child) => compiled(child, reader));
      return (text) => {
        for (let i = 0; i < tests.length; i++) if (!tests[i](text)) return false;
        return true;
      };
    }
    case "or": {
      const tests = node.nodes.map((child) => compiled(child, reader));
      return (text) => {
        for (let i = 0; i < tests.length; i++) if (tests[i](text)) return true;
        return false;
      };
    }
    case "not": {
      const test = compiled(node.node, reader);
      return (text) => !test(text);
    }
    case "time": {
      const { from, to } = node;
      const updated = node.name === "updated_at";
      return (text) => {
        const at = readTime(text, updated);
        return at >= from && at < to;
      };
    }
  }
  return clauseTest(node, reader);
}

function clauseTest({ field, op, value }: MatchClause, reader: FieldReader): TextTest {
  if (field.kind === "id") {
    if (value === null || value.length !== ID_LENGTH) return () => false;
    return (text) => foldedAt(text, ID_AT, value);
  }
  if (field.kind === "metadata") {
    const key = field.key;
    return (text) => {
      const metadata = readMetadata(text);
      const has = Object.hasOwn(metadata, key);
      return value === null ? !has : has && folded(metadata[key]) === value;
    };
  }
  const number = fieldNumber(field.name);
  return () => reader.matches(number, op, value);
}

/** The highest text field number a query's clauses read (-1: none). */
function lastField(node: QueryNode): number {
  if (node.kind === "and" || node.kind === "or") return Math.max(...node.nodes.map(lastField));
  if (node.kind === "not") return lastField(node.node);
  return node.kind === "match" && node.field.kind === "text" ? fieldNumber(node.field.name) : -1;
}

/** Where the text being tested has its fields, up to the query's last, found once per text. */
class FieldReader {
  readonly #spans = new Int32Array(2 * TEXT_FIELDS.length);
  #text = "";
  #read = false;

  constructor(readonly last: number) {}

  /** Starts on another text (a scan's next customer). */
  reset(text: string): void {
    this.#text = text;
    this.#read = false;
  }

  matches(field: number, op: ":" | "~", value: string | null): boolean {
    const text = this.#text;
    if (!this.#read) {
      fieldSpans(text, this.#spans, this.last);
      this.#read = true;
    }
    const quote = this.#spans[2 * field];
    if (quote === -1) return value === null;
    if (value === null) return false;
    const plain = plainMatch(text, quote + 1, this.#spans[2 * field + 1], op, value);
    if (plain !== undefined) return plain;
    const raw = folded(readTextField(text, field)!);
    return op === ":" ? raw === value : raw.includes(value);
  }
}

/**
 * A text clause decided in place, with no string made, when the value's JSON text from `start`
 * to `end` is plain ASCII (no escape), folded unit by unit; undefined when it is not. A match
 * within a plain start is a match whatever follows: those units fold alike.
 */
function plainMatch(
  json: string,
  start: number,
  end: number,
  op: ":" | "~",
  value: string,
): boolean | undefined {
  const length = value.length;
  if (op === ":" && end - start === length && foldedAt(json, start, value)) return true;
  const first = value.charCodeAt(0);
  for (let at = start; at < end; at++) {
    let unit = json.charCodeAt(at);
    if (unit >= 0x80 || unit === 0x5c) return undefined;
    if (op === ":") continue;
    if (unit >= 0x41 && unit <= 0x5a) unit += 0x20;
    if (unit === first && at + length <= end && foldedAt(json, at, value)) return true;
  }
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
