/**
 * A consumer that follows the change feed ends with exactly the server's customers: 32 writers
 * create, update and delete for 20 s while the server is restarted once.
 */
import assert from "node:assert/strict";
import { ApiClient, newCustomer } from "../support/api.ts";
import { makeDataDir, removeDir, startServer, type TestServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

const WRITERS = 32;
const SECONDS = Number(Deno.env.get("FEED_CONSUMER_SECONDS") ?? 20);
const MERGE_PATCH = "application/merge-patch+json";

/** A port that was free a moment ago: both lives of the server listen on it. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends a request; a refused connection (the server restarting) counts as a failed write. */
async function attempt(send: () => Promise<{ status: number }>): Promise<number> {
  try {
    return (await send()).status;
  } catch {
    await pause(20);
    return 0;
  }
}

Deno.test("a feed consumer's replica equals GET /api/customers after 32 writers and a restart", async () => {
  const dataDir = await makeDataDir();
  const port = freePort();
  const settings = { PORT: String(port) };
  let server: TestServer | undefined = await startServer({ dataDir, env: settings });
  try {
    const api = new ApiClient(server.url, await makeToken({ sub: "writer" }));
    const deadline = performance.now() + SECONDS * 1000;
    let writing = true;
    let acknowledged = 0;

    const writer = async (n: number) => {
      const mine: string[] = [];
      for (let i = 0; writing; i++) {
        const roll = (i * 7 + n) % 10;
        if (mine.length === 0 || roll < 5) {
          const res = await attempt(() =>
            api.post("/api/customers", {
              json: newCustomer({ email: `w${n}-${i}-${crypto.randomUUID()}@example.com` }),
            }).then((r) => {
              if (r.status === 201) mine.push((r.body as { id: string }).id);
              return r;
            })
          );
          if (res === 201) acknowledged++;
        } else if (roll < 8) {
          const id = mine[i % mine.length];
          const res = await attempt(() =>
            api.patch(`/api/customers/${id}`, {
              json: { metadata: { step: String(i) } },
              contentType: MERGE_PATCH,
            })
          );
          if (res === 200) acknowledged++;
        } else {
          const id = mine.splice(i % mine.length, 1)[0];
          const res = await attempt(() => api.delete(`/api/customers/${id}`));
          if (res === 204) acknowledged++;
          else if (res !== 404) mine.push(id);
        }
      }
    };

    // The consumer keeps a replica: the customer's data by id, dropped on a delete.
    const replica = new Map<string, unknown>();
    let after = 0;
    let following = true;
    const consume = async () => {
      while (following) {
        let res;
        try {
          res = await api.get(`/api/events?after=${after}&limit=1000&wait=1`);
        } catch {
          await pause(50);
          continue;
        }
        if (res.status !== 200) {
          await pause(50);
          continue;
        }
        for (const event of res.body.data) {
          assert.ok(event.seq > after, `seq ${event.seq} after ${after}`);
          if (event.type === "customer.deleted") replica.delete(event.customer_id);
          else replica.set(event.customer_id, event.data);
          after = event.seq;
        }
        after = res.body.last_seq;
      }
    };

    const writers = Array.from({ length: WRITERS }, (_, n) => writer(n));
    const consumer = consume();
    await pause(SECONDS * 500);
    // The restart: SIGTERM, then a new server on the same DATA_DIR and port.
    assert.equal((await server.stop("SIGTERM")).code, 0);
    server = await startServer({ dataDir, env: settings });
    await pause(Math.max(0, deadline - performance.now()));
    writing = false;
    await Promise.all(writers);

    // Catch up to the position the final list reflects, then compare.
    const head = Number((await api.get("/api/customers?limit=1")).headers.get("log-seq"));
    while (after < head) await pause(50);
    following = false;
    await consumer;
    const customers = await api.listAll({}, 1000);
    assert.ok(acknowledged > 500, `only ${acknowledged} writes were acknowledged`);
    assert.equal(replica.size, customers.length);
    for (const customer of customers) {
      assert.deepEqual(replica.get(customer.id), customer, `customer ${customer.id}`);
    }
  } finally {
    await server?.dispose();
    await removeDir(dataDir);
  }
});
