import assert from "node:assert/strict";
import { emailKey } from "../../src/domain/customer.ts";
import { emailHash, EmailIndex } from "../../src/read_model/email_index.ts";

/** Two distinct email keys with one hash, found by search (the same pair every run). */
function collidingEmails(): [string, string] {
  const seen = new Map<number, string>();
  for (let i = 0;; i++) {
    const email = `user${i}@example.com`;
    const other = seen.get(emailHash(email));
    if (other !== undefined) return [other, email];
    seen.set(emailHash(email), email);
  }
}

/** An index over a plain map of id → email, as the projection gives it. */
function indexOver(emails: Map<string, string>): EmailIndex {
  const index = new EmailIndex((id) => {
    const email = emails.get(id);
    return email === undefined ? undefined : emailKey(email);
  });
  for (const [id, email] of emails) index.add(email, id);
  return index;
}

Deno.test("the hash is that of the email's key: any case of an email hashes alike", () => {
  for (
    const email of ["Ada@Example.COM", "ÅSA@EXAMPLE.SE", "İnci@example.com", "\u212Aelvin@x.io"]
  ) {
    assert.equal(emailHash(email), emailHash(emailKey(email)), email);
    assert.ok(Number.isInteger(emailHash(email)) && emailHash(email) >= 0);
    assert.ok(emailHash(email) < 2 ** 30);
  }
  assert.notEqual(emailHash("ada@example.com"), emailHash("ada@example.co"));
});

Deno.test("emails that share a hash each find their own owner, before and after the other goes", () => {
  const [a, b] = collidingEmails();
  assert.equal(emailHash(a), emailHash(b));
  const emails = new Map([["A", a], ["B", b], ["C", "c@example.com"]]);
  const index = indexOver(emails);
  assert.equal(index.owner(a), "A");
  assert.equal(index.owner(b), "B");
  assert.equal(index.owner("c@example.com"), "C");
  index.remove(a, "A");
  emails.delete("A");
  assert.equal(index.owner(a), undefined);
  assert.equal(index.owner(b), "B");
  index.remove(b, "B");
  emails.delete("B");
  assert.equal(index.owner(b), undefined);
  index.add(b, "B");
  emails.set("B", b);
  assert.equal(index.owner(b), "B");
});

Deno.test("an unknown key that shares a hash with a live one is not owned", () => {
  const [a, b] = collidingEmails();
  const index = indexOver(new Map([["A", a]]));
  assert.equal(index.owner(b), undefined, "the candidate's own email differs");
  assert.equal(index.owner("nobody@example.com"), undefined);
});

Deno.test("keys are looked up in lower case, as emailKey makes them; non-ASCII ones too", () => {
  const emails = new Map([["A", "Ada@Example.com"], ["K", "\u212Aelvin@x.io"], ["I", "İnci@x.io"]]);
  const index = indexOver(emails);
  assert.equal(index.owner("ada@example.com"), "A");
  assert.equal(index.owner(emailKey("ADA@EXAMPLE.COM")), "A");
  assert.equal(index.owner(emailKey("\u212Aelvin@x.io")), "K");
  assert.equal(index.owner("kelvin@x.io"), "K", "the Kelvin sign's lower case is a plain k");
  assert.equal(index.owner(emailKey("İnci@x.io")), "I");
});
