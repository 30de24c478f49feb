import { MAX_CLAUSES, MAX_QUERY_LENGTH, MIN_SUBSTRING, QUERY_FIELDS } from "../search/query.ts";
import { SORTS } from "../search/list_sort.ts";

const FIELDS = [...Object.keys(QUERY_FIELDS), "metadata['key']"].map((name) => `\`${name}\``);

const GRAMMAR = `A search expression (contract §13). Grammar:

\`\`\`
query    = or
or       = and { "OR" and }
and      = unary { [ "AND" ] unary }         (a space between clauses means AND)
unary    = "-" unary | "(" or ")" | clause
clause   = field ( ":" | "~" | ">" | ">=" | "<" | "<=" ) value
field    = ${FIELDS.join(" | ")}
value    = '"' { char | '\\\\"' | '\\\\\\\\' } '"' | "'" { char | "\\\\'" | '\\\\\\\\' } "'" | bare word
\`\`\`

- \`field:value\` is exact and \`field~value\` a substring (at least ${MIN_SUBSTRING} characters),
  both compared case-insensitively (\`toLowerCase\`); \`field:null\` matches a missing or null
  value (\`"null"\` in quotes is the text).
- \`>\`, \`>=\`, \`<\`, \`<=\` and \`:\` compare \`created_at\` and \`updated_at\` with an RFC 3339
  date-time, a full date (that UTC day) or Unix seconds (that second): \`created_at:2026-11-21\`
  is that whole day, \`created_at>2026-11-21\` after it.
- \`metadata['key']\` takes \`:\` only; \`id\` takes \`:\` only.
- \`-\` negates a clause or a parenthesised group; AND binds tighter than OR; keywords in any case.
- At most ${MAX_CLAUSES} clauses and ${MAX_QUERY_LENGTH} characters.
- Answered from indexes kept with the read model, fresh at the answer's \`Log-Seq\`. A malformed
  expression answers 400 \`invalid-query\` whose \`errors[0].detail\` names the character offset
  and what was expected there. Not together with \`q\` or \`email\` (400).`;

/** The list's `query` and `sort` parameters. */
export const SEARCH_PARAMETERS: Record<string, unknown> = {
  query: {
    name: "query",
    in: "query",
    required: false,
    description: GRAMMAR,
    schema: { type: "string", maxLength: MAX_QUERY_LENGTH },
    examples: {
      email: { summary: "An exact email", value: "email:ada@example.com" },
      crm: { summary: "A CRM's id in metadata", value: "metadata['crm_id']:A-1042" },
      name: {
        summary: "Part of a name, not in London",
        value: 'name~"lovel" -address.city:London',
      },
      mixed: {
        summary: "Grouped, with times",
        value:
          "(address.country:GB OR address.country:IE) AND created_at>=2026-01-01 AND phone:null",
      },
    },
  },
  sort: {
    name: "sort",
    in: "query",
    required: false,
    description: "The order of the list, with or without a query: a field, `-` for descending. " +
      "Ties break by `id` in the same direction; `name` compares the lower-cased name by code " +
      "unit. The cursor carries the order: a cursor of another sort answers 400.",
    schema: { type: "string", enum: [...SORTS], default: "id" },
  },
};
