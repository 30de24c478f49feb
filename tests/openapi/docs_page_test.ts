import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { DOCS_CSP, docsPage, escapeHtml } from "../../src/openapi/docs_page.ts";
import { EMAIL_PATTERN, VISIBLE_PATTERN } from "../../src/customers/customer_schemas.ts";
import { API_DOCUMENT } from "../support/api_document.ts";

Deno.test("escapeHtml neutralises every character that could open markup or an attribute", () => {
  assert.equal(
    escapeHtml(`<a href="x" title='y'>&</a>`),
    "&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;",
  );
});

Deno.test("the docs page runs no script, loads nothing and its one style matches the CSP hash", async () => {
  const response = docsPage({ ...API_DOCUMENT })();
  assert.equal(response.headers.get("content-security-policy"), DOCS_CSP);
  const html = await response.text();
  assert.doesNotMatch(html, /<script|\son[a-z]+=|\bsrc=|style="/i);
  assert.doesNotMatch(html, /https?:\/\/(?!127\.0\.0\.1:8000)/, "an absolute URL to elsewhere");
  const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1]);
  assert.equal(styles.length, 1);
  const hash = createHash("sha256").update(styles[0]).digest("base64");
  assert.ok(DOCS_CSP.includes(`style-src 'sha256-${hash}'`), DOCS_CSP);
});

Deno.test("the docs page shows a string's own rules and the patterns added under allOf", async () => {
  const html = await docsPage({ ...API_DOCUMENT })().text();
  const email = escapeHtml(
    `string; maxLength 254; pattern ${EMAIL_PATTERN}; pattern ^[^@]{1,64}@; format email`,
  );
  assert.ok(html.includes(email), "the email field's summary");
  assert.ok(html.includes(escapeHtml(`pattern ${VISIBLE_PATTERN}`)), "the name's visible rule");
});
