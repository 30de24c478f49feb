import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { newSecret, signatureHeader } from "../../src/webhooks/signing.ts";

const BODY = '{"seq":7,"type":"customer.created","data":{"name":"Zoë"}}';

/** Whether `header`, signed at `timestamp`, verifies with `secret` (the receiver is told that time). */
function verifies(secret: string, header: string, timestamp: number): boolean {
  try {
    new Webhook(secret).verify(BODY, {
      "webhook-id": "evt_7",
      "webhook-timestamp": String(timestamp),
      "webhook-signature": header,
    });
    return true;
  } catch {
    return false;
  }
}

Deno.test("signatures verify with the standardwebhooks library, from text or from bytes, many times over", () => {
  const secret = newSecret();
  const timestamp = Math.floor(Date.now() / 1000);
  const fromText = signatureHeader([secret], "evt_7", timestamp, BODY);
  const fromBytes = signatureHeader([secret], "evt_7", timestamp, new TextEncoder().encode(BODY));
  assert.equal(fromBytes, fromText);
  assert.match(fromText, /^v1,[A-Za-z0-9+/]{43}=$/);
  assert.ok(verifies(secret, fromText, timestamp));
  // The key state is kept per secret: signing again gives the same answer.
  assert.equal(signatureHeader([secret], "evt_7", timestamp, BODY), fromText);
  assert.ok(!verifies(newSecret(), fromText, timestamp));
  // A receiver told another time does not accept the signature.
  assert.ok(!verifies(secret, fromText, timestamp - 1));
});

Deno.test("during a rotation both secrets sign, space-separated, and each verifies alone", () => {
  const [current, old] = [newSecret(), newSecret()];
  const timestamp = Math.floor(Date.now() / 1000);
  const header = signatureHeader([current, old], "evt_7", timestamp, BODY);
  assert.equal(header.split(" ").length, 2);
  assert.ok(verifies(current, header, timestamp));
  assert.ok(verifies(old, header, timestamp));
});
