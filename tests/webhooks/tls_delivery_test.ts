/**
 * Delivery over TLS to the checked address: TCP goes to the IP that was checked, and the
 * certificate is verified for the URL's host name (SNI), so the name cannot be re-resolved.
 */
import assert from "node:assert/strict";
import { DestinationPolicy } from "../../src/webhooks/destination.ts";
import { postTo } from "../../src/webhooks/http_post.ts";

/** A test CA and a certificate it signed for `name`, made with openssl in a temp dir. */
async function certificateFor(name: string): Promise<{ ca: string; cert: string; key: string }> {
  const dir = await Deno.makeTempDir({ prefix: "webhook-tls-" });
  const openssl = async (...args: string[]) => {
    const { success, stderr } = await new Deno.Command("openssl", {
      args,
      cwd: dir,
      stderr: "piped",
      stdout: "null",
    }).output();
    assert.ok(success, new TextDecoder().decode(stderr));
  };
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  try {
    await openssl(
      "req",
      "-x509",
      ...ec,
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
      "-days",
      "1",
      "-subj",
      "/CN=webhook test CA",
    );
    await openssl("req", ...ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", `/CN=${name}`);
    await Deno.writeTextFile(
      `${dir}/ext.cnf`,
      `subjectAltName=DNS:${name}\nbasicConstraints=CA:FALSE\n`,
    );
    await openssl(
      "x509",
      "-req",
      "-in",
      "leaf.csr",
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "leaf.pem",
      "-days",
      "1",
      "-extfile",
      "ext.cnf",
    );
    return {
      ca: await Deno.readTextFile(`${dir}/ca.pem`),
      cert: await Deno.readTextFile(`${dir}/leaf.pem`),
      key: await Deno.readTextFile(`${dir}/leaf.key`),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("https delivery connects to the checked IP and verifies the certificate for the URL's host", async () => {
  const { ca, cert, key } = await certificateFor("receiver.invalid");
  const hosts: (string | null)[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert, key, onListen: () => {} },
    (req) => {
      hosts.push(req.headers.get("host"));
      return new Response(null, { status: 204 });
    },
  );
  try {
    const port = server.addr.port;
    // Neither name is in any DNS: only the address the policy checked can have been used.
    const policy = new DestinationPolicy(
      true,
      (host) => Promise.resolve(host.endsWith(".invalid") ? ["127.0.0.1"] : []),
    );
    const good = await policy.check(`https://receiver.invalid:${port}/hook`);
    const { outcome, open } = await postTo(good, {}, "{}", 5000, undefined, [ca]);
    open?.conn.close();
    assert.deepEqual(outcome, { status: 204 });
    assert.deepEqual(hosts, [`receiver.invalid:${port}`]);
    // The same IP under another name: the certificate does not match, so nothing is sent.
    const other = await policy.check(`https://other.invalid:${port}/hook`);
    const refused = await postTo(other, {}, "{}", 5000, undefined, [ca]);
    assert.equal(refused.outcome.status, undefined);
    assert.match(refused.outcome.error ?? "", /certificate|name|NotValidForName|invalid peer/i);
    assert.equal(hosts.length, 1);
  } finally {
    await server.shutdown();
  }
});
