import {
  MAX_CLAUSES,
  MAX_QUERY_LENGTH,
  MIN_SUBSTRING,
  QUERY_FIELDS,
  type QueryField,
  type QueryNode,
} from "./query.ts";
import { InvalidQueryError } from "./query_errors.ts";
import { parseTimeValue } from "./query_time.ts";
import { folded } from "../read_model/trigrams.ts";

const OPERATORS = [">=", "<=", ">", "<", ":", "~"] as const;
type Operator = typeof OPERATORS[number];
const FIELD_NAME = /[A-Za-z_][A-Za-z0-9_.]*/y;
const BARE_VALUE = /[^\s()]+/y;
const FIELD_LIST = `${Object.keys(QUERY_FIELDS).join(", ")} or metadata['key']`;

/**
 * Parses a search expression (the query language of docs/api.md): clauses joined by AND, OR or
 * spaces (AND), AND binding tighter, `-` negating, parentheses grouping. Undefined when blank.
 */
export function parseQuery(text: string): QueryNode | undefined {
  if (text.length > MAX_QUERY_LENGTH) {
    throw new InvalidQueryError(
      [...text.slice(0, MAX_QUERY_LENGTH)].length,
      `expected the end: a query has at most ${MAX_QUERY_LENGTH} characters`,
    );
  }
  if (text.trim() === "") return undefined;
  const parser = new Parser(text);
  const node = parser.or();
  parser.end();
  return node;
}

class Parser {
  #at = 0;
  #clauses = 0;

  constructor(readonly text: string) {}

  or(): QueryNode {
    const nodes = [this.and()];
    while (this.#keyword("OR")) nodes.push(this.and());
    return nodes.length === 1 ? nodes[0] : { kind: "or", nodes };
  }

  and(): QueryNode {
    const nodes = [this.unary()];
    for (;;) {
      this.#spaces();
      const next = this.text[this.#at];
      if (next === undefined || next === ")" || this.#isKeyword("OR")) break;
      this.#keyword("AND");
      nodes.push(this.unary());
    }
    return nodes.length === 1 ? nodes[0] : { kind: "and", nodes };
  }

  unary(): QueryNode {
    this.#spaces();
    const start = this.#at;
    const next = this.text[start];
    if (next === undefined) this.#fail(start, "expected a clause");
    if (next === "-") {
      this.#at++;
      return { kind: "not", node: this.unary() };
    }
    if (next === "(") {
      this.#at++;
      const node = this.or();
      this.#spaces();
      if (this.text[this.#at] !== ")") {
        this.#fail(this.#at, `expected ')' to close the '(' at offset ${this.#offset(start)}`);
      }
      this.#at++;
      return node;
    }
    if (next === ")") this.#fail(start, "expected a clause before ')'");
    if (this.#isKeyword("AND") || this.#isKeyword("OR")) {
      this.#fail(start, `expected a clause before '${this.text.slice(start, start + 3).trim()}'`);
    }
    return this.#clause();
  }

  end(): void {
    this.#spaces();
    if (this.#at < this.text.length) this.#fail(this.#at, "unexpected ')' with no '(' open");
  }

  #clause(): QueryNode {
    const start = this.#at;
    const field = this.#field();
    const opAt = this.#at;
    const op = OPERATORS.find((candidate) => this.text.startsWith(candidate, opAt));
    if (op === undefined) {
      this.#fail(opAt, "expected ':', '~', '>', '>=', '<' or '<=' after the field");
    }
    this.#at += op.length;
    const valueAt = this.#at;
    const value = this.#value(op);
    if (++this.#clauses > MAX_CLAUSES) {
      this.#fail(start, `expected at most ${MAX_CLAUSES} clauses in a query`);
    }
    return this.#node(field, this.text.slice(start, opAt), op, value, opAt, valueAt);
  }

  #node(
    field: QueryField,
    fieldName: string,
    op: Operator,
    value: string | null,
    opAt: number,
    valueAt: number,
  ): QueryNode {
    if (field.kind === "time") {
      if (op === "~") this.#fail(opAt, `expected ':', '>', '>=', '<' or '<=' after ${fieldName}`);
      const range = value === null ? undefined : parseTimeValue(value);
      if (range === undefined) {
        this.#fail(valueAt, "expected an RFC 3339 date or time, or Unix seconds");
      }
      const [from, to] = op === ":"
        ? [range.from, range.to]
        : op === ">"
        ? [range.to, Infinity]
        : op === ">="
        ? [range.from, Infinity]
        : op === "<"
        ? [-Infinity, range.from]
        : [-Infinity, range.to];
      return { kind: "time", name: field.name, from, to } as const;
    }
    if (op !== ":" && op !== "~") {
      this.#fail(opAt, `expected ':' or '~' after ${fieldName} ('${op}' is for times)`);
    }
    if (op === "~" && field.kind !== "text") {
      this.#fail(opAt, `expected ':' after ${fieldName} (it has no '~')`);
    }
    const text = op === "~" && value === null ? "null" : value;
    if (op === "~" && [...text!].length < MIN_SUBSTRING) {
      this.#fail(valueAt, `expected at least ${MIN_SUBSTRING} characters after '~'`);
    }
    return { kind: "match", field, op, value: text === null ? null : folded(text) } as const;
  }

  #field(): QueryField {
    const start = this.#at;
    FIELD_NAME.lastIndex = start;
    const name = FIELD_NAME.exec(this.text)?.[0];
    if (name === undefined) this.#fail(start, "expected a field name");
    this.#at += name.length;
    if (name === "metadata") {
      if (this.text[this.#at] !== "[" || !`"'`.includes(this.text[this.#at + 1] ?? "x")) {
        this.#fail(this.#at, "expected ['key'] after metadata");
      }
      this.#at++;
      const key = this.#quoted();
      if (this.text[this.#at] !== "]") this.#fail(this.#at, "expected ']' after the key");
      this.#at++;
      return { kind: "metadata", key };
    }
    const field = QUERY_FIELDS[name];
    if (field === undefined) this.#fail(start, `unknown field "${name}"; use ${FIELD_LIST}`);
    return field;
  }

  /** A quoted value, or a bare word; null for a bare `null` after ':'. */
  #value(op: Operator): string | null {
    const at = this.#at;
    const next = this.text[at];
    if (next === '"' || next === "'") return this.#quoted();
    BARE_VALUE.lastIndex = at;
    const bare = BARE_VALUE.exec(this.text)?.[0];
    if (bare === undefined) this.#fail(at, `expected a value after '${op}'`);
    this.#at += bare.length;
    return bare === "null" ? null : bare;
  }

  #quoted(): string {
    const start = this.#at;
    const quote = this.text[start];
    let out = "";
    for (let at = start + 1;;) {
      const c = this.text[at];
      if (c === undefined) {
        this.#fail(at, `expected ${quote} to close the string at offset ${this.#offset(start)}`);
      }
      if (c === quote) {
        this.#at = at + 1;
        return out;
      }
      if (c === "\\") {
        const escaped = this.text[at + 1];
        if (escaped !== quote && escaped !== "\\") {
          this.#fail(at, `expected \\${quote} or \\\\ (no other escape exists)`);
        }
        out += escaped;
        at += 2;
      } else {
        out += c;
        at++;
      }
    }
  }

  #spaces(): void {
    while (/\s/.test(this.text[this.#at] ?? "")) this.#at++;
  }

  #isKeyword(word: string): boolean {
    const at = this.#at;
    if (this.text.slice(at, at + word.length).toUpperCase() !== word) return false;
    const after = this.text[at + word.length];
    return after === undefined || /[\s(-]/.test(after);
  }

  #keyword(word: string): boolean {
    this.#spaces();
    if (!this.#isKeyword(word)) return false;
    this.#at += word.length;
    return true;
  }

  #offset(at: number): number {
    return [...this.text.slice(0, at)].length;
  }

  #fail(at: number, detail: string): never {
    throw new InvalidQueryError(this.#offset(at), detail);
  }
}
