/**
 * Array parameters of the group commit, written as PostgreSQL text here: the driver quotes and
 * escapes every element with two regular expressions, and a group's ids, times and numbers need
 * neither, while its event data, which would need most, travels as lines instead.
 */

/** Elements written bare: no quote, backslash, comma, brace or space to escape. */
const BARE = /^[\w.:+@-]+$/;

/** `{a,b,NULL}`: a text[] literal, quoting only the elements that need it. */
export function textArray(values: readonly (string | null)[]): string {
  let text = "{";
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (i > 0) text += ",";
    if (value === null) text += "NULL";
    else if (BARE.test(value) && value.toUpperCase() !== "NULL") text += value;
    else text += `"${value.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  }
  return text + "}";
}

/** `{1,2,3}`: an int[] literal. */
export function intArray(values: readonly number[]): string {
  return `{${values.join(",")}}`;
}

/**
 * The values as lines, each null an empty line, for `string_to_array($n, E'\n', '')`; undefined
 * when that cannot carry them (a value with a line break or empty, or one null alone, which would
 * read back as no element). JSON text never holds a raw line break.
 */
export function lines(values: readonly (string | null)[]): string | undefined {
  if (values.length === 1 && values[0] === null) return undefined;
  for (const value of values) {
    if (value !== null && (value === "" || value.includes("\n"))) return undefined;
  }
  return values.map((value) => value ?? "").join("\n");
}
