/** Contract §4: ETag, If-None-Match on reads (304) and If-Match on writes (412). */
import assert from "node:assert/strict";
import {
  ApiClient,
  type ApiResponse,
  assertEtag,
  assertProblem,
  fullCustomer,
  newCustomer,
} from "../support/api.ts";
import { startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

const MERGE_PATCH = "application/merge-patch+json";

Deno.test("conditional requests", async (t) => {
  const server = await startServer();
  try {
    const api = new ApiClient(server.url, await makeToken());

    /** A customer at version 2, so that `"1"` is a stale ETag. */
    const updatedCustomer = async () => {
      const created = await api.create(fullCustomer());
      const res = await api.patch(`/api/customers/${created.id}`, {
        json: { name: "Second Version" },
        contentType: MERGE_PATCH,
      });
      assert.equal(res.status, 200, res.text);
      return res.body as typeof created;
    };
    const assertUnchanged = async (id: string, expected: unknown) => {
      const after = await api.get(`/api/customers/${id}`);
      assert.equal(after.status, 200, after.text);
      assert.deepEqual(after.body, expected);
      assertEtag(after, 2);
    };
    const assertNotModified = (res: ApiResponse, version: number) => {
      assert.equal(res.status, 304, res.text);
      assert.equal(res.text, "");
      assertEtag(res, version);
    };

    await t.step("GET with If-None-Match of the current ETag answers 304, no body", async () => {
      const customer = await updatedCustomer();
      const res = await api.get(`/api/customers/${customer.id}`, {
        headers: { "if-none-match": '"2"' },
      });
      assertNotModified(res, 2);
    });

    await t.step("HEAD with If-None-Match of the current ETag answers 304", async () => {
      const customer = await updatedCustomer();
      const res = await api.head(`/api/customers/${customer.id}`, {
        headers: { "if-none-match": '"2"' },
      });
      assertNotModified(res, 2);
    });

    await t.step(
      'If-None-Match uses weak comparison: W/"2" and a list holding it → 304',
      async () => {
        const customer = await updatedCustomer();
        for (const value of ['W/"2"', '"7", "2"', "*"]) {
          const res = await api.get(`/api/customers/${customer.id}`, {
            headers: { "if-none-match": value },
          });
          assertNotModified(res, 2);
        }
      },
    );

    await t.step("GET with a stale If-None-Match answers 200 with the body", async () => {
      const customer = await updatedCustomer();
      const res = await api.get(`/api/customers/${customer.id}`, {
        headers: { "if-none-match": '"1"' },
      });
      assert.equal(res.status, 200);
      assertEtag(res, 2);
      assert.deepEqual(res.body, customer);
    });

    await t.step("PUT with a stale If-Match answers 412 and changes nothing", async () => {
      const customer = await updatedCustomer();
      const res = await api.put(`/api/customers/${customer.id}`, {
        json: newCustomer(),
        headers: { "if-match": '"1"' },
      });
      assertProblem(res, 412);
      await assertUnchanged(customer.id, customer);
    });

    await t.step("PATCH with a stale If-Match answers 412 and changes nothing", async () => {
      const customer = await updatedCustomer();
      const res = await api.patch(`/api/customers/${customer.id}`, {
        json: { name: "Lost Update" },
        contentType: MERGE_PATCH,
        headers: { "if-match": '"1"' },
      });
      assertProblem(res, 412);
      await assertUnchanged(customer.id, customer);
    });

    await t.step("DELETE with a stale If-Match answers 412 and the customer stays", async () => {
      const customer = await updatedCustomer();
      const res = await api.delete(`/api/customers/${customer.id}`, {
        headers: { "if-match": '"1"' },
      });
      assertProblem(res, 412);
      await assertUnchanged(customer.id, customer);
    });

    await t.step('If-Match uses strong comparison: a weak W/"2" never matches → 412', async () => {
      const customer = await updatedCustomer();
      const res = await api.patch(`/api/customers/${customer.id}`, {
        json: { name: "Weak" },
        contentType: MERGE_PATCH,
        headers: { "if-match": 'W/"2"' },
      });
      assertProblem(res, 412);
      await assertUnchanged(customer.id, customer);
    });

    await t.step("PUT with the current If-Match answers 200 and the next ETag", async () => {
      const customer = await updatedCustomer();
      const res = await api.put(`/api/customers/${customer.id}`, {
        json: newCustomer(),
        headers: { "if-match": '"2"' },
      });
      assert.equal(res.status, 200, res.text);
      assertEtag(res, 3);
    });

    await t.step("PATCH with the current If-Match (alone, in a list, or *) succeeds", async () => {
      const customer = await updatedCustomer();
      for (const [index, value] of ['"2"', '"9", "3"', "*"].entries()) {
        const res = await api.patch(`/api/customers/${customer.id}`, {
          json: { name: `Matched ${index}` },
          contentType: MERGE_PATCH,
          headers: { "if-match": value },
        });
        assert.equal(res.status, 200, `If-Match ${value}: ${res.text}`);
        assertEtag(res, index + 3);
      }
    });

    await t.step("DELETE with the current If-Match answers 204", async () => {
      const customer = await updatedCustomer();
      const res = await api.delete(`/api/customers/${customer.id}`, {
        headers: { "if-match": '"2"' },
      });
      assert.equal(res.status, 204, res.text);
      assertProblem(await api.get(`/api/customers/${customer.id}`), 404);
    });
  } finally {
    await server.dispose();
  }
});
