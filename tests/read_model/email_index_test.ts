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

/** Customers as the projection holds them: by their id's hash, several under one hash. */
type Customers = Map<number, { id: string; email: string }[]>;

/** An index over `customers`, which the test changes along with the index. */
function indexOver(customers: Customers): EmailIndex {
  const index = new EmailIndex((idHash, key) =>
    customers.get(idHash)?.find((customer) => emailKey(customer.email) === key)?.id
  );
  for (const [hash, list] of customers) for (const { email } of list) index.add(email, hash);
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
  const customers: Customers = new Map([
    [1, [{ id: "A", email: a }]],
    [2, [{ id: "B", email: b }]],
    [3, [{ id: "C", email: "c@example.com" }]],
  ]);
  const index = indexOver(customers);
  assert.equal(index.owner(a), "A");
  assert.equal(index.owner(b), "B");
  assert.equal(index.owner("c@example.com"), "C");
  index.remove(a, 1);
  customers.delete(1);
  assert.equal(index.owner(a), undefined);
  assert.equal(index.owner(b), "B");
  index.remove(b, 2);
  customers.delete(2);
  assert.equal(index.owner(b), undefined);
  index.add(b, 2);
  customers.set(2, [{ id: "B", email: b }]);
  assert.equal(index.owner(b), "B");
});

Deno.test("customers whose ids share a hash and whose emails share one are told apart, one removal at a time", () => {
  const [a, b] = collidingEmails();
  const customers: Customers = new Map([[7, [{ id: "A", email: a }, { id: "B", email: b }]]]);
  const index = indexOver(customers);
  assert.equal(index.owner(a), "A");
  assert.equal(index.owner(b), "B");
  index.remove(a, 7);
  customers.set(7, [{ id: "B", email: b }]);
  assert.equal(index.owner(a), undefined);
  assert.equal(index.owner(b), "B", "one removal takes one entry of the shared hash");
});

Deno.test("an unknown key that shares a hash with a live one is not owned", () => {
  const [a, b] = collidingEmails();
  const index = indexOver(new Map([[1, [{ id: "A", email: a }]]]));
  assert.equal(index.owner(b), undefined, "the candidate's own email differs");
  assert.equal(index.owner("nobody@example.com"), undefined);
});

Deno.test("keys are looked up in lower case, as emailKey makes them; non-ASCII ones too", () => {
  const index = indexOver(
    new Map([
      [1, [{ id: "A", email: "Ada@Example.com" }]],
      [2, [{ id: "K", email: "\u212Aelvin@x.io" }]],
      [3, [{ id: "I", email: "İnci@x.io" }]],
    ]),
  );
  assert.equal(index.owner("ada@example.com"), "A");
  assert.equal(index.owner(emailKey("ADA@EXAMPLE.COM")), "A");
  assert.equal(index.owner(emailKey("\u212Aelvin@x.io")), "K");
  assert.equal(index.owner("kelvin@x.io"), "K", "the Kelvin sign's lower case is a plain k");
  assert.equal(index.owner(emailKey("İnci@x.io")), "I");
});
