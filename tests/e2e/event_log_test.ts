/** Contract §6: what an event in the JSONL log records, readable on disk as soon as 2xx arrives. */
import assert from "node:assert/strict";
import { ApiClient, newCustomer } from "../support/api.ts";
import { readEvents } from "../support/event_log.ts";
import { startServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

async function eventsOf(dataDir: string, customerId: string): Promise<string[]> {
  const events = await readEvents(dataDir);
  return events.filter(({ raw }) => raw.includes(customerId)).map(({ raw }) => raw);
}

Deno.test("each write is one event on disk naming type, actor, request and key", async () => {
  const server = await startServer();
  try {
    const api = new ApiClient(server.url, await makeToken({ sub: "auditor-7" }));
    const input = newCustomer({ name: "Logged Customer" });
    const created = await api.post("/api/customers", {
      json: input,
      headers: { "idempotency-key": "log-key-1", "x-request-id": "log-req-1" },
    });
    assert.equal(created.status, 201, created.text);
    const id: string = created.body.id;
    let events = await eventsOf(server.dataDir, id);
    assert.equal(events.length, 1, "the 201 came before its event was in the log");

    const patched = await api.patch(`/api/customers/${id}`, {
      json: { name: "Renamed Customer" },
      contentType: "application/merge-patch+json",
      headers: { "x-request-id": "log-req-2" },
    });
    assert.equal(patched.status, 200, patched.text);
    const deleted = await api.delete(`/api/customers/${id}`, {
      headers: { "x-request-id": "log-req-3" },
    });
    assert.equal(deleted.status, 204);

    events = await eventsOf(server.dataDir, id);
    assert.equal(events.length, 3, events.join("\n"));
    const parsed = events.map((line) => JSON.parse(line));
    assert.deepEqual(parsed.map((e) => typeof e.seq), ["number", "number", "number"]);
    assert.ok(parsed[0].seq < parsed[1].seq && parsed[1].seq < parsed[2].seq, "seq ascends");
    const expectations: [string, string[]][] = [
      ["created", ["customer.created", "auditor-7", "log-req-1", "log-key-1", "Logged Customer"]],
      ["updated", ["customer.updated", "auditor-7", "log-req-2", "Renamed Customer"]],
      ["deleted", ["customer.deleted", "auditor-7", "log-req-3"]],
    ];
    for (const [index, [what, needles]] of expectations.entries()) {
      for (const needle of needles) {
        assert.ok(events[index].includes(`"${needle}"`), `${what} event lacks "${needle}"`);
      }
    }
  } finally {
    await server.dispose();
  }
});
