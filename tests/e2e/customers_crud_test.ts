/** Contract §3–§4: create, read, replace, merge-patch and delete one customer over real HTTP. */
import assert from "node:assert/strict";
import {
  ApiClient,
  assertEtag,
  assertJsonType,
  assertProblem,
  type Customer,
  fullCustomer,
  newCustomer,
  TIMESTAMP_PATTERN,
  ULID_PATTERN,
  UNKNOWN_ID,
} from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

const MERGE_PATCH = "application/merge-patch+json";

Deno.test("customer lifecycle over HTTP", async (t) => {
  const server = await startServer();
  try {
    const api = new ApiClient(server.url, await makeToken());

    await t.step('POST answers 201 with the customer, Location, ETag "1" and JSON', async () => {
      const input = fullCustomer();
      const res = await api.post("/api/customers", { json: input });
      assert.equal(res.status, 201, res.text);
      assertJsonType(res);
      const customer: Customer = res.body;
      assert.match(customer.id, ULID_PATTERN);
      assert.equal(res.headers.get("location"), `/api/customers/${customer.id}`);
      assertEtag(res, 1);
      assert.equal(customer.name, input.name);
      assert.equal(customer.email, input.email);
      assert.equal(customer.phone, input.phone);
      assert.deepEqual(customer.address, input.address);
      assert.deepEqual(customer.metadata, input.metadata);
      assert.match(customer.created_at, TIMESTAMP_PATTERN);
      assert.equal(customer.updated_at, customer.created_at);
      assert.ok(Math.abs(Date.parse(customer.created_at) - Date.now()) < 60_000, "created_at now");
      assert.equal(customer.version, 1);
      assert.deepEqual(
        Object.keys(customer).sort(),
        [
          "address",
          "created_at",
          "email",
          "id",
          "metadata",
          "name",
          "phone",
          "updated_at",
          "version",
        ],
      );
    });

    await t.step(
      "POST trims the name and defaults phone/address to null, metadata to {}",
      async () => {
        const input = newCustomer({ name: "  Ada Lovelace \t" });
        const customer = await api.create(input);
        assert.equal(customer.name, "Ada Lovelace");
        assert.equal(customer.phone, null);
        assert.equal(customer.address, null);
        assert.deepEqual(customer.metadata, {});
      },
    );

    await t.step(
      "POST ignores read-only fields (id, version, timestamps) sent in the body",
      async () => {
        const input = newCustomer({
          id: UNKNOWN_ID,
          version: 42,
          created_at: "2000-01-01T00:00:00.000Z",
          updated_at: "2000-01-01T00:00:00.000Z",
        });
        const res = await api.post("/api/customers", { json: input });
        assert.equal(res.status, 201, res.text);
        assert.notEqual(res.body.id, UNKNOWN_ID);
        assert.equal(res.body.version, 1);
        assertEtag(res, 1);
        assert.notEqual(res.body.created_at, "2000-01-01T00:00:00.000Z");
        assert.notEqual(res.body.updated_at, "2000-01-01T00:00:00.000Z");
      },
    );

    await t.step('GET of a customer answers 200 with the same body and ETag "1"', async () => {
      const created = await api.create(fullCustomer());
      const res = await api.get(`/api/customers/${created.id}`);
      assert.equal(res.status, 200, res.text);
      assertJsonType(res);
      assertEtag(res, 1);
      assert.deepEqual(res.body, created);
    });

    await t.step("HEAD of a customer answers like GET with an empty body", async () => {
      const created = await api.create(newCustomer());
      const get = await api.get(`/api/customers/${created.id}`);
      const head = await api.head(`/api/customers/${created.id}`);
      assert.equal(head.status, 200);
      assert.equal(head.text, "");
      assert.equal(head.headers.get("etag"), get.headers.get("etag"));
      assert.equal(head.headers.get("content-type"), get.headers.get("content-type"));
    });

    await t.step("HEAD of the list answers like GET with an empty body", async () => {
      const get = await api.get("/api/customers?limit=1");
      const head = await api.head("/api/customers?limit=1");
      assert.equal(head.status, 200);
      assert.equal(head.text, "");
      assert.equal(head.headers.get("content-type"), get.headers.get("content-type"));
      assert.equal(head.headers.get("link"), get.headers.get("link"));
    });

    await t.step("HEAD of an unknown customer answers 404 with an empty body", async () => {
      const head = await api.head(`/api/customers/${UNKNOWN_ID}`);
      assert.equal(head.status, 404);
      assert.equal(head.text, "");
    });

    await t.step(
      "PUT replaces every mutable field: left-out optionals become null and {}",
      async () => {
        const created = await api.create(fullCustomer());
        const replacement = newCustomer({ name: "Replaced Name" });
        const res = await api.put(`/api/customers/${created.id}`, { json: replacement });
        assert.equal(res.status, 200, res.text);
        assertJsonType(res);
        assertEtag(res, 2);
        const updated: Customer = res.body;
        assert.equal(updated.id, created.id);
        assert.equal(updated.name, "Replaced Name");
        assert.equal(updated.email, replacement.email);
        assert.equal(updated.phone, null);
        assert.equal(updated.address, null);
        assert.deepEqual(updated.metadata, {});
        assert.equal(updated.version, 2);
        assert.equal(updated.created_at, created.created_at);
        assert.match(updated.updated_at, TIMESTAMP_PATTERN);
        assert.ok(updated.updated_at >= created.updated_at, "updated_at moves forward");
        const after = await api.get(`/api/customers/${created.id}`);
        assert.deepEqual(after.body, updated);
        assertEtag(after, 2);
      },
    );

    await t.step(
      "PUT of exactly what GET returned changes nothing: 200, same version (no noise)",
      async () => {
        const created = await api.create(fullCustomer());
        const got = await api.get(`/api/customers/${created.id}`);
        const res = await api.put(`/api/customers/${created.id}`, { json: got.body });
        assert.equal(res.status, 200, res.text);
        assertEtag(res, 1);
        assert.deepEqual(res.body, got.body);
      },
    );

    await t.step("PUT may keep the customer's own email in another case", async () => {
      const created = await api.create(newCustomer());
      const res = await api.put(`/api/customers/${created.id}`, {
        json: { name: created.name, email: created.email.toUpperCase() },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.version, 2);
    });

    await t.step(
      "PATCH (merge-patch+json) merges nested address fields, keeping the rest",
      async () => {
        const created = await api.create(fullCustomer());
        const res = await api.patch(`/api/customers/${created.id}`, {
          json: { address: { city: "Paris", country: "FR" } },
          contentType: MERGE_PATCH,
        });
        assert.equal(res.status, 200, res.text);
        assertJsonType(res);
        assertEtag(res, 2);
        assert.deepEqual(res.body.address, { ...created.address, city: "Paris", country: "FR" });
        assert.equal(res.body.name, created.name);
        assert.equal(res.body.email, created.email);
        assert.equal(res.body.phone, created.phone);
        assert.deepEqual(res.body.metadata, created.metadata);
        assert.equal(res.body.version, 2);
        assert.equal(res.body.created_at, created.created_at);
        const after = await api.get(`/api/customers/${created.id}`);
        assert.deepEqual(after.body, res.body);
      },
    );

    await t.step(
      "PATCH with null removes a field, an address line, and a metadata key",
      async () => {
        const created = await api.create(fullCustomer({ metadata: { keep: "1", drop: "2" } }));
        const res = await api.patch(`/api/customers/${created.id}`, {
          json: { phone: null, address: { line2: null }, metadata: { drop: null } },
          contentType: MERGE_PATCH,
        });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.phone, null);
        assert.equal(res.body.address.line2 ?? null, null);
        assert.equal(res.body.address.line1, created.address?.line1);
        assert.equal(res.body.address.city, created.address?.city);
        assert.deepEqual(res.body.metadata, { keep: "1" });

        const cleared = await api.patch(`/api/customers/${created.id}`, {
          json: { address: null },
          contentType: MERGE_PATCH,
        });
        assert.equal(cleared.status, 200, cleared.text);
        assert.equal(cleared.body.address, null);
        assert.equal(cleared.body.version, 3);
        assertEtag(cleared, 3);
      },
    );

    await t.step("PATCH accepts application/json and application/json; charset=utf-8", async () => {
      const created = await api.create(newCustomer());
      for (
        const [index, contentType] of ["application/json", "application/json; charset=utf-8"]
          .entries()
      ) {
        const res = await api.patch(`/api/customers/${created.id}`, {
          json: { metadata: { step: String(index) } },
          contentType,
        });
        assert.equal(res.status, 200, `${contentType}: ${res.text}`);
        assert.deepEqual(res.body.metadata, { step: String(index) });
        assert.equal(res.body.version, index + 2);
      }
    });

    await t.step(
      "PATCH that changes the email frees the old one and takes the new one",
      async () => {
        const first = await api.create(newCustomer());
        const newEmail = newCustomer().email;
        const res = await api.patch(`/api/customers/${first.id}`, {
          json: { email: newEmail },
          contentType: MERGE_PATCH,
        });
        assert.equal(res.status, 200, res.text);
        await api.create(newCustomer({ email: first.email }));
        const taken = await api.post("/api/customers", { json: newCustomer({ email: newEmail }) });
        assertProblem(taken, 409);
      },
    );

    await t.step("DELETE answers 204 with no body; afterwards GET and DELETE are 404", async () => {
      const created = await api.create(newCustomer());
      const res = await api.delete(`/api/customers/${created.id}`);
      assert.equal(res.status, 204);
      assert.equal(res.text, "");
      assertProblem(await api.get(`/api/customers/${created.id}`), 404);
      assertProblem(await api.delete(`/api/customers/${created.id}`), 404);
      assertProblem(
        await api.put(`/api/customers/${created.id}`, { json: newCustomer() }),
        404,
      );
      assertProblem(
        await api.patch(`/api/customers/${created.id}`, { json: {}, contentType: MERGE_PATCH }),
        404,
      );
      const listed = await api.listAll();
      assert.ok(!listed.some((c) => c.id === created.id), "deleted customer still listed");
    });

    await t.step("after DELETE the email is free again in any case, under a new id", async () => {
      const created = await api.create(newCustomer({ email: "Free.Again@Example.com" }));
      assert.equal((await api.delete(`/api/customers/${created.id}`)).status, 204);
      const again = await api.create(newCustomer({ email: "free.again@EXAMPLE.com" }));
      assert.notEqual(again.id, created.id);
      assert.equal(again.version, 1);
    });

    await t.step("PUT, PATCH and DELETE of a well-formed unknown id answer 404", async () => {
      const path = `/api/customers/${UNKNOWN_ID}`;
      assertProblem(await api.get(path), 404);
      assertProblem(await api.put(path, { json: newCustomer() }), 404);
      assertProblem(await api.patch(path, { json: { name: "X" }, contentType: MERGE_PATCH }), 404);
      assertProblem(await api.delete(path), 404);
    });
  } finally {
    await server.dispose();
  }
});
