/**
 * Parameters written into the SQL text as literals, so a parameterised statement can share one
 * simple-protocol round trip with others (e.g. the group write and its COMMIT).
 */
import pg from "pg";

export type SqlValue = string | number | null | readonly (string | number | null)[];

/** One value as a SQL literal; arrays as `ARRAY[…]` (`'{}'` when empty), cast by the statement. */
function literal(value: SqlValue): string {
  if (value === null) return "NULL";
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new Error(`Not an integer parameter: "${value}"`);
    return String(value);
  }
  if (typeof value === "string") return pg.escapeLiteral(value);
  return value.length === 0 ? "'{}'" : `ARRAY[${value.map(literal).join(",")}]`;
}

/** `sql` with each `$n` replaced by the literal of `values[n - 1]` (the values are not rescanned). */
export function inlineParameters(sql: string, values: readonly SqlValue[]): string {
  return sql.replace(/\$(\d+)/g, (_, n: string) => {
    const index = Number(n) - 1;
    if (index >= values.length) throw new Error(`No value for parameter "$${n}"`);
    return literal(values[index]);
  });
}
