import assert from "node:assert/strict";
import { refusedAddressClass } from "../../src/webhooks/address_policy.ts";

const TABLE: [string, string | null][] = [
  ["8.8.8.8", null],
  ["93.184.215.14", null],
  ["2606:4700:4700::1111", null],
  ["::ffff:8.8.8.8", null],
  ["0.0.0.0", "unspecified"],
  ["::", "unspecified"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["::1", "loopback"],
  ["[::1]", "loopback"],
  ["10.1.2.3", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["172.32.0.1", null],
  ["192.168.1.1", "private"],
  ["100.64.0.1", "shared (CGNAT)"],
  ["100.127.255.255", "shared (CGNAT)"],
  ["100.128.0.1", null],
  ["169.254.169.254", "link-local"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["fc00::1", "unique-local"],
  ["fd12:3456::1", "unique-local"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["ff02::1", "multicast"],
  ["255.255.255.255", "reserved"],
  ["240.0.0.1", "reserved"],
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:10.0.0.1", "private"],
  ["::ffff:169.254.169.254", "link-local"],
  ["::127.0.0.1", "loopback"],
  ["64:ff9b::7f00:1", "loopback"],
  ["64:ff9b::a9fe:a9fe", "link-local"],
  ["64:ff9b::808:808", null],
  ["2002:7f00:1::1", "loopback"],
  ["2002:c0a8:101::1", "private"],
  ["2002:808:808::1", null],
  ["2001:db8::1", "reserved"],
  ["not-an-address", "invalid"],
  ["1.2.3", "invalid"],
  ["01.2.3.4", "invalid"],
  ["1::2::3", "invalid"],
];

for (const [address, expected] of TABLE) {
  Deno.test(`address ${address} is ${expected ?? "public"}`, () => {
    assert.equal(refusedAddressClass(address), expected);
  });
}
