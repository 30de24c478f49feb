import assert from "node:assert/strict";
import { DestinationPolicy, UnsafeDestinationError } from "../../src/webhooks/destination.ts";
import { postTo } from "../../src/webhooks/http_post.ts";
import { Deliverer } from "../../src/webhooks/delivery.ts";
import { endpoint } from "../store/webhook_store_contract.ts";

const fixed = (table: Record<string, string[]>) => (host: string) =>
  Promise.resolve(table[host] ?? []);

Deno.test("only https URLs pass unless private destinations are allowed, which allows http", async () => {
  const strict = new DestinationPolicy(false, fixed({ "hooks.example.com": ["93.184.215.14"] }));
  await assert.rejects(strict.check("http://hooks.example.com/x"), /must use https/);
  assert.equal((await strict.check("https://hooks.example.com/x")).address, "93.184.215.14");
  const open = new DestinationPolicy(true, fixed({ "hooks.example.com": ["127.0.0.1"] }));
  assert.equal((await open.check("http://hooks.example.com/x")).address, "127.0.0.1");
  await assert.rejects(open.check("ftp://hooks.example.com/x"), UnsafeDestinationError);
});

Deno.test("a host is refused when any address it resolves to is not public", async () => {
  const policy = new DestinationPolicy(
    false,
    fixed({ "mixed.example": ["93.184.215.14", "10.0.0.5"], "v6.example": ["::ffff:127.0.0.1"] }),
  );
  await assert.rejects(policy.check("https://mixed.example/"), /private address "10.0.0.5"/);
  await assert.rejects(policy.check("https://v6.example/"), /loopback/);
  await assert.rejects(policy.check("https://[::1]:8443/"), /loopback/);
  await assert.rejects(policy.check("https://169.254.169.254/"), /link-local/);
  await assert.rejects(policy.check("https://nowhere.example/"), /does not resolve/);
});

Deno.test("DNS rebinding: each check resolves afresh and refuses the host once it turns private", async () => {
  const answers = [["93.184.215.14"], ["127.0.0.1"]];
  const policy = new DestinationPolicy(false, () => Promise.resolve(answers.shift() ?? []));
  assert.equal((await policy.check("https://rebind.example/hook")).address, "93.184.215.14");
  await assert.rejects(policy.check("https://rebind.example/hook"), /loopback address/);
});

Deno.test("a delivery connects to the checked address, sending the URL's host in Host", async () => {
  const seen: { host: string | null; path: string }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    seen.push({ host: req.headers.get("host"), path: new URL(req.url).pathname });
    return new Response("ok");
  });
  try {
    // "receiver.invalid" exists in no DNS: only the checked address can have been used.
    const policy = new DestinationPolicy(true, fixed({ "receiver.invalid": ["127.0.0.1"] }));
    const destination = await policy.check(`http://receiver.invalid:${server.addr.port}/in?a=1`);
    const { outcome, open } = await postTo(destination, { "webhook-id": "evt_1" }, "{}", 2000);
    assert.deepEqual(outcome, { status: 200 });
    // The connection stays open for the next delivery to the same checked address.
    const second = await postTo(destination, {}, "{}", 2000, open);
    assert.deepEqual(second.outcome, { status: 200 });
    second.open?.conn.close();
    const expected = { host: `receiver.invalid:${server.addr.port}`, path: "/in" };
    assert.deepEqual(seen, [expected, expected]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("a delivery to a receiver that never answers ends with a timeout error", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  const accepted = (async () => {
    const conn = await listener.accept();
    // Never answers; the delivery must give up by itself.
    await new Promise((resolve) => setTimeout(resolve, 600));
    conn.close();
  })();
  const policy = new DestinationPolicy(true);
  const destination = await policy.check(`http://127.0.0.1:${port}/`);
  const started = Date.now();
  const { outcome } = await postTo(destination, {}, "{}", 200);
  assert.match(outcome.error ?? "", /no answer within 200 ms/);
  assert.ok(Date.now() - started < 550);
  await accepted;
  listener.close();
});

Deno.test("each delivery checks the address again: a host rebound to loopback gets no request", async () => {
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    requests++;
    return new Response(null, { status: 204 });
  });
  try {
    // Public at registration, loopback at delivery: the attempt fails before connecting.
    const answers = [["93.184.215.14"], ["127.0.0.1"]];
    const policy = new DestinationPolicy(false, () => Promise.resolve(answers.shift() ?? []));
    const url = `https://rebind.example:${server.addr.port}/hook`;
    await policy.check(url);
    const deliverer = new Deliverer(policy, 1000);
    const result = await deliverer.attempt(endpoint(1, { url }), {
      id: "evt_1",
      type: "customer.created",
      seq: 1,
      body: "{}",
    });
    assert.equal(result.ok, false);
    assert.match(result.error ?? "", /loopback address "127.0.0.1"/);
    assert.equal(requests, 0);
  } finally {
    await server.shutdown();
  }
});
