import { ID_AT, ID_LENGTH } from "./text_table.ts";

/** The searchable text fields, by number: a customer's values come in this order. */
export const TEXT_FIELDS = [
  "name",
  "email",
  "phone",
  "address.line1",
  "address.line2",
  "address.city",
  "address.region",
  "address.postal_code",
  "address.country",
] as const;

export type TextField = typeof TEXT_FIELDS[number];

/** A text field's number in TEXT_FIELDS. */
export const fieldNumber = (field: TextField): number => TEXT_FIELDS.indexOf(field);

/** Where a canonical text's name value starts, and the address keys in their order. */
export const NAME_AT = ID_AT + ID_LENGTH + '","name":"'.length - 1;
export const ADDRESS_KEYS = [
  '"line1":',
  '"line2":',
  '"city":',
  '"region":',
  '"postal_code":',
  '"country":',
];
const METADATA_END = '},"created_at":"';

/**
 * Where the text fields of a customer's canonical JSON text (customer_text.ts) are, up to field
 * `last`: per field the indexes of its opening and closing quotes, or -1 and -1 for null.
 */
export function fieldSpans(json: string, spans: Int32Array, last = TEXT_FIELDS.length - 1): void {
  let at = NAME_AT;
  for (let f = 0; f <= last; f++) {
    if (f === 1) at += ',"email":'.length;
    else if (f === 2) at += ',"phone":'.length;
    else if (f === 3) {
      at += ',"address":'.length;
      if (json.charCodeAt(at) === 0x6e) {
        spans.fill(-1, 6, 2 * (last + 1));
        return;
      }
      at += 1 + ADDRESS_KEYS[0].length;
    } else if (f > 3) at += 1 + ADDRESS_KEYS[f - 3].length;
    if (json.charCodeAt(at) === 0x6e) {
      spans[2 * f] = spans[2 * f + 1] = -1;
      at += 4;
      continue;
    }
    const end = stringEnd(json, at);
    spans[2 * f] = at;
    spans[2 * f + 1] = end;
    at = end + 1;
  }
}

const SPANS = new Int32Array(2 * TEXT_FIELDS.length);

/**
 * The text fields' values of a customer's canonical JSON text (customer_text.ts), in TEXT_FIELDS
 * order, null where absent; read by position, unparsed but for escaped strings.
 */
export function readTextFields(json: string, out: (string | null)[] = []): (string | null)[] {
  fieldSpans(json, SPANS);
  for (let f = 0; f < TEXT_FIELDS.length; f++) {
    out[f] = SPANS[2 * f] === -1 ? null : stringBetween(json, SPANS[2 * f], SPANS[2 * f + 1]);
  }
  out.length = TEXT_FIELDS.length;
  return out;
}

/** One text field's value (TEXT_FIELDS number), reading the text only up to it. */
export function readTextField(json: string, field: number): string | null {
  fieldSpans(json, SPANS, field);
  return SPANS[2 * field] === -1
    ? null
    : stringBetween(json, SPANS[2 * field], SPANS[2 * field + 1]);
}

/** A canonical text's name. */
export function readName(json: string): string {
  return stringBetween(json, NAME_AT, stringEnd(json, NAME_AT));
}

/** True when two canonical texts have the same text fields (compared in place, unread). */
export function sameFields(a: string, b: string): boolean {
  const end = a.indexOf(',"metadata":{', NAME_AT);
  if (end !== b.indexOf(',"metadata":{', NAME_AT)) return false;
  for (let i = NAME_AT; i < end; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return false;
  return true;
}

/** A customer's metadata, parsed from its canonical text's `metadata` member alone. */
export function readMetadata(json: string): Record<string, string> {
  return JSON.parse(metadataText(json));
}

/** The JSON text of a canonical text's `metadata` object. */
export function metadataText(json: string): string {
  const end = json.lastIndexOf(METADATA_END);
  const start = json.lastIndexOf(',"metadata":{', end) + ',"metadata":'.length;
  return json.slice(start, end + 1);
}

/** `created_at` and `updated_at` of a canonical text, in epoch milliseconds. */
export function readTimes(json: string): [created: number, updated: number] {
  const created = json.lastIndexOf(METADATA_END) + METADATA_END.length;
  const updated = json.indexOf('"', created) + ',"updated_at":"'.length + 1;
  return [isoMs(json, created), isoMs(json, updated)];
}

/** `created_at` or `updated_at` of a canonical text, in epoch milliseconds, with no array made. */
export function readTime(json: string, updated: boolean): number {
  const created = json.lastIndexOf(METADATA_END) + METADATA_END.length;
  return isoMs(json, updated ? json.indexOf('"', created) + ',"updated_at":"'.length + 1 : created);
}

/** The epoch ms of the timestamp starting at `at` (ISO 8601 as toISOString writes it, fast). */
export function isoMs(json: string, at: number): number {
  if (json.charCodeAt(at + 23) === 0x5a && json.charCodeAt(at + 10) === 0x54) {
    return Date.UTC(
      digits(json, at, 4),
      digits(json, at + 5, 2) - 1,
      digits(json, at + 8, 2),
      digits(json, at + 11, 2),
      digits(json, at + 14, 2),
      digits(json, at + 17, 2),
      digits(json, at + 20, 3),
    );
  }
  return Date.parse(json.slice(at, json.indexOf('"', at)));
}

function digits(json: string, at: number, length: number): number {
  let value = 0;
  for (let i = at; i < at + length; i++) value = value * 10 + json.charCodeAt(i) - 48;
  return value;
}

/** The index of the closing quote of the JSON string whose opening quote is at `quote`. */
function stringEnd(json: string, quote: number): number {
  let end = json.indexOf('"', quote + 1);
  while (json.charCodeAt(end - 1) === 0x5c) {
    let backslashes = 1;
    while (json.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) break;
    end = json.indexOf('"', end + 1);
  }
  return end;
}

/** The value of the JSON string between the quotes at `quote` and `end`. */
function stringBetween(json: string, quote: number, end: number): string {
  const raw = json.slice(quote + 1, end);
  return raw.includes("\\") ? JSON.parse(json.slice(quote, end + 1)) : raw;
}
