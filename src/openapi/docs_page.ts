import { createHash } from "node:crypto";
import { METHODS } from "./openapi_operation.ts";

// deno-lint-ignore no-explicit-any -- the document is rendered as untyped JSON
type Json = any;

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:1rem 2rem;color:#1b1f24}
h1{margin-bottom:0}h2{border-bottom:2px solid #d0d7de;margin-top:2.5rem}
code{background:#f3f4f6;border-radius:3px;padding:0 .25em;font-size:90%}
table{border-collapse:collapse;margin:.5rem 0;width:100%}
th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}.op{border:1px solid #d0d7de;border-radius:6px;margin:1rem 0;padding:0 1rem}
.method{border-radius:4px;color:#fff;display:inline-block;font-weight:700;min-width:4.5rem;
padding:0 .4rem;text-align:center}.get{background:#0969da}.head{background:#6e7781}
.post{background:#1a7f37}.put{background:#9a6700}.patch{background:#8250df}
.delete{background:#cf222e}.path{font-family:ui-monospace,monospace;font-size:110%}
nav li{list-style:none}nav a{text-decoration:none}.muted{color:#57606a}td p{margin:0}
`.trim();
const STYLE_HASH = createHash("sha256").update(STYLE).digest("base64");
/** Only the one inline style may apply; nothing may load, run, frame the page or be posted. */
export const DOCS_CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; ` +
  "img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Escapes text, then renders the `code` spans and paragraphs of the document's Markdown. */
function prose(text: string | undefined): string {
  if (text === undefined) return "";
  return text.split(/\n\n+/).map((paragraph) =>
    `<p>${escapeHtml(paragraph).replace(/`([^`]+)`/g, "<code>$1</code>")}</p>`
  ).join("");
}

function resolve(doc: Json, value: Json): Json {
  if (typeof value?.$ref !== "string") return value;
  return resolve(
    doc,
    value.$ref.slice(2).split("/").reduce((node: Json, key: string) => node[key], doc),
  );
}

/** A one-line summary of a schema: its type or component name and its main constraints. */
function schemaText(schema: Json): string {
  if (schema === undefined) return "";
  if (typeof schema.$ref === "string") return schema.$ref.split("/").pop();
  // An allOf of bare patterns only adds rules to this schema (patterns that need no lookahead).
  const extraPatterns = schema.allOf?.every((part: Json) => Object.keys(part).join() === "pattern");
  if (schema.allOf && !extraPatterns) return schema.allOf.map(schemaText).join(" & ");
  if (schema.anyOf) return schema.anyOf.map(schemaText).join(" | ");
  const parts = [[schema.type ?? "any"].flat().join(" | ")];
  if (schema.enum) {
    parts.push(
      schema.enum.length > 12 ? `one of ${schema.enum.length} values` : schema.enum
        .map((value: unknown) => JSON.stringify(value)).join(", "),
    );
  }
  for (const key of ["minimum", "maximum", "minLength", "maxLength", "maxProperties", "default"]) {
    if (schema[key] !== undefined) parts.push(`${key} ${schema[key]}`);
  }
  for (const part of [schema, ...schema.allOf ?? []]) {
    if (part.pattern) parts.push(`pattern ${part.pattern}`);
  }
  if (schema.format) parts.push(`format ${schema.format}`);
  return parts.join("; ");
}

function table(head: string[], rows: string[][]): string {
  if (rows.length === 0) return "";
  const cells = (row: string[], tag: string) => row.map((c) => `<${tag}>${c}</${tag}>`).join("");
  return `<table><thead><tr>${cells(head, "th")}</tr></thead><tbody>${
    rows.map((row) => `<tr>${cells(row, "td")}</tr>`).join("")
  }</tbody></table>`;
}

const code = (text: string) => `<code>${escapeHtml(text)}</code>`;

function responsesTable(doc: Json, responses: Json): string {
  return table(
    ["status", "meaning", "body", "headers"],
    Object.entries(responses).map(([status, ref]) => {
      const response = resolve(doc, ref);
      const media = Object.entries(response.content ?? {}).map(([type, value]: [string, Json]) =>
        `${code(type)} ${escapeHtml(schemaText(value.schema))}`
      );
      return [
        `<strong>${status}</strong>`,
        prose(response.description),
        media.join("<br>") || '<span class="muted">none</span>',
        Object.keys(response.headers ?? {}).map(code).join(" "),
      ];
    }),
  );
}

function operationSection(
  doc: Json,
  path: string,
  method: string,
  op: Json,
  shared: Json[],
): string {
  const parameters = [...shared, ...op.parameters ?? []].map((p) => resolve(doc, p)).map((
    p: Json,
  ) => [
    code(p.name),
    escapeHtml(p.in),
    p.required ? "yes" : "no",
    escapeHtml(schemaText(p.schema)),
    prose(p.description),
  ]);
  const scopes = (op.security ?? []).flatMap((s: Json) => Object.values(s).flat());
  const body = op.requestBody === undefined ? "" : `<h4>Request body</h4>${
    table(
      ["media type", "schema"],
      Object.entries(op.requestBody.content).map(([type, value]: [string, Json]) => [
        code(type),
        escapeHtml(schemaText(value.schema)),
      ]),
    )
  }`;
  return `<section class="op" id="${escapeHtml(op.operationId)}" data-operation="${method} ${
    escapeHtml(path)
  }"><h3><span class="method ${method}">${method.toUpperCase()}</span> <span class="path">${
    escapeHtml(path)
  }</span> — ${escapeHtml(op.summary)}</h3>${prose(op.description)}<p>Authorization: ${
    scopes.length > 0 ? `bearer token with scope ${scopes.map(code).join(", ")}` : "none"
  }</p>${parameters.length > 0 ? "<h4>Parameters</h4>" : ""}${
    table(["name", "in", "required", "schema", "description"], parameters)
  }${body}<h4>Responses</h4>${responsesTable(doc, op.responses)}</section>`;
}

function schemaSection(name: string, schema: Json): string {
  const required = new Set(schema.required ?? []);
  const rows = Object.entries(schema.properties ?? {}).map(([field, value]: [string, Json]) => [
    code(field),
    required.has(field) ? "yes" : "no",
    escapeHtml(schemaText(value)),
    prose(value.description),
  ]);
  return `<section id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>${
    prose(schema.description)
  }${table(["field", "required", "schema", "description"], rows)}</section>`;
}

function render(doc: Json): string {
  const operations: string[] = [];
  const toc: string[] = [];
  for (const [path, item] of Object.entries(doc.paths) as [string, Json][]) {
    for (const method of METHODS) {
      const op = item[method];
      if (op === undefined) continue;
      operations.push(operationSection(doc, path, method, op, item.parameters ?? []));
      toc.push(
        `<li><a href="#${
          escapeHtml(op.operationId)
        }"><span class="method ${method}">${method.toUpperCase()}</span> <span class="path">${
          escapeHtml(path)
        }</span></a> ${escapeHtml(op.summary)}</li>`,
      );
    }
  }
  const auth = Object.entries(doc.components.securitySchemes).map(([name, s]: [string, Json]) =>
    `<p>${code(name)}: ${escapeHtml(`${s.type} ${s.scheme} (${s.bearerFormat})`)}</p>${
      prose(s.description)
    }`
  );
  const schemas = Object.entries(doc.components.schemas).map(([name, s]) => schemaSection(name, s));
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(doc.info.title)} ${escapeHtml(doc.info.version)} — API reference</title>
<style>${STYLE}</style></head><body><header><h1>${escapeHtml(doc.info.title)}</h1>
<p class="muted">Version ${escapeHtml(doc.info.version)} · OpenAPI ${escapeHtml(doc.openapi)} ·
the machine-readable document is at <a href="/api/openapi.json">/api/openapi.json</a></p>
${prose(doc.info.summary)}${prose(doc.info.description)}</header>
<nav><h2>Operations</h2><ul>${toc.join("")}</ul></nav><main><h2>Authentication</h2>${
    auth.join("")
  }<h2>Endpoints</h2>${operations.join("")}<h2>Requests no operation describes</h2>${
    prose(doc["x-unmatched-requests"].description)
  }${responsesTable(doc, doc["x-unmatched-requests"].responses)}<h2>Schemas</h2>${
    schemas.join("")
  }</main></body></html>\n`;
}

/** GET /docs: the reference page, rendered from the document on its first request. */
export function docsPage(document: Record<string, unknown>): () => Response {
  let page: string | undefined;
  return () =>
    new Response(page ??= render(document), {
      headers: {
        "content-type": "text/html; charset=utf-8",
        "content-security-policy": DOCS_CSP,
        "referrer-policy": "no-referrer",
        "x-frame-options": "DENY",
      },
    });
}
