/** Contract §1 and §6: state survives SIGTERM and SIGKILL; the log and lock guard the data. */
import assert from "node:assert/strict";
import {
  ApiClient,
  type ApiResponse,
  assertProblem,
  type Customer,
  fullCustomer,
  newCustomer,
} from "../support/api.ts";
import { readEvents, readSequenceNumbers } from "../support/event_log.ts";
import { makeDataDir, removeDir, startServer, type TestServer } from "../support/server.ts";
import { makeToken } from "../support/tokens.ts";

const MERGE_PATCH = "application/merge-patch+json";

interface Seen {
  status: number;
  etag: string | null;
  body: unknown;
}

/** What must survive a restart; a problem's body differs per request (request_id). */
const seen = (res: ApiResponse): Seen => ({
  status: res.status,
  etag: res.headers.get("etag"),
  body: res.status === 200 ? res.body : null,
});

async function client(server: TestServer): Promise<ApiClient> {
  return new ApiClient(server.url, await makeToken());
}

/** first, first + 1, …, last. */
function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

Deno.test("customers are identical after SIGTERM and a restart", async () => {
  const dataDir = await makeDataDir();
  try {
    const ids: string[] = [];
    const deleted: Customer[] = [];
    const before = new Map<string, Seen>();
    let listBefore: Customer[];

    const first = await startServer({ dataDir });
    try {
      const api = await client(first);
      for (let i = 0; i < 10; i++) ids.push((await api.create(fullCustomer())).id);
      for (const id of ids.slice(0, 2)) {
        const res = await api.put(`/api/customers/${id}`, { json: newCustomer() });
        assert.equal(res.status, 200, res.text);
      }
      for (const id of [ids[2], ids[3], ids[3], ids[4]]) {
        const res = await api.patch(`/api/customers/${id}`, {
          json: { address: { city: "Paris" }, metadata: { tier: null, seen: "yes" } },
          contentType: MERGE_PATCH,
        });
        assert.equal(res.status, 200, res.text);
      }
      for (const id of ids.slice(7)) {
        deleted.push((await api.get(`/api/customers/${id}`)).body);
        assert.equal((await api.delete(`/api/customers/${id}`)).status, 204);
      }
      for (const id of ids) before.set(id, seen(await api.get(`/api/customers/${id}`)));
      listBefore = await api.listAll();
    } finally {
      const stopped = await first.stop("SIGTERM");
      assert.equal(stopped.code, 0, `SIGTERM exit code; stderr: ${stopped.stderr}`);
    }

    const second = await startServer({ dataDir });
    try {
      const api = await client(second);
      for (const id of ids) {
        assert.deepEqual(seen(await api.get(`/api/customers/${id}`)), before.get(id), id);
      }
      for (const gone of deleted) assertProblem(await api.get(`/api/customers/${gone.id}`), 404);
      assert.deepEqual(await api.listAll(), listBefore);

      const reused = await api.create(newCustomer({ email: deleted[0].email.toUpperCase() }));
      assert.ok(!ids.includes(reused.id), "an id was reused");
      assertProblem(
        await api.post("/api/customers", { json: newCustomer({ email: listBefore[0].email }) }),
        409,
      );
      const next = await api.patch(`/api/customers/${ids[3]}`, {
        json: { name: "After Restart" },
        contentType: MERGE_PATCH,
      });
      assert.equal(next.status, 200, next.text);
      assert.equal(next.body.version, (before.get(ids[3])!.body as Customer).version + 1);
      const stale = await api.put(`/api/customers/${ids[0]}`, {
        json: newCustomer(),
        headers: { "if-match": '"1"' },
      });
      assertProblem(stale, 412);
    } finally {
      const stopped = await second.stop();
      assert.equal(stopped.code, 0, stopped.stderr);
    }
  } finally {
    await removeDir(dataDir);
  }
});

Deno.test("a second server on the same DATA_DIR refuses to start", async () => {
  const server = await startServer();
  try {
    await assert.rejects(
      () => startServer({ dataDir: server.dataDir }),
      /exited with code [1-9]/,
    );
    const api = await client(server);
    assert.equal((await api.post("/api/customers", { json: newCustomer() })).status, 201);
  } finally {
    await server.dispose();
  }
});

Deno.test("writes answered 2xx survive SIGKILL right after the answer", async () => {
  const dataDir = await makeDataDir();
  try {
    let created: Customer;
    let burst: Customer[];
    let patched: Customer;
    let removedId: string;
    const first = await startServer({ dataDir });
    try {
      const api = await client(first);
      const victim = await api.create(newCustomer());
      removedId = victim.id;
      burst = await Promise.all(Array.from({ length: 20 }, () => api.create(fullCustomer())));
      const res = await api.patch(`/api/customers/${burst[0].id}`, {
        json: { name: "Patched Before Kill" },
        contentType: MERGE_PATCH,
      });
      assert.equal(res.status, 200, res.text);
      patched = res.body;
      assert.equal((await api.delete(`/api/customers/${removedId}`)).status, 204);
      created = await api.create(newCustomer());
    } finally {
      await first.stop("SIGKILL");
    }

    const second = await startServer({ dataDir });
    try {
      const api = await client(second);
      const got = await api.get(`/api/customers/${created.id}`);
      assert.equal(got.status, 200, "the customer created just before SIGKILL is gone");
      assert.deepEqual(got.body, created);
      for (const customer of burst.slice(1)) {
        assert.deepEqual((await api.get(`/api/customers/${customer.id}`)).body, customer);
      }
      assert.deepEqual((await api.get(`/api/customers/${patched.id}`)).body, patched);
      assertProblem(await api.get(`/api/customers/${removedId}`), 404);
    } finally {
      await second.dispose();
    }
  } finally {
    await removeDir(dataDir);
  }
});

Deno.test("a torn last log line is cut off with a warning and later writes stay sound", async () => {
  const dataDir = await makeDataDir();
  try {
    const customers: Customer[] = [];
    // SIGKILL, as a crash would: nothing gets a chance to snapshot or tidy the log.
    const first = await startServer({ dataDir });
    try {
      const api = await client(first);
      for (let i = 0; i < 3; i++) customers.push(await api.create(newCustomer()));
    } finally {
      await first.stop("SIGKILL");
    }
    const { file } = (await readEvents(dataDir)).at(-1)!;
    await Deno.writeTextFile(file, '{"seq":4,"type":"customer.created","id":"01', { append: true });

    const second = await startServer({ dataDir });
    try {
      const api = await client(second);
      for (const c of customers) {
        assert.deepEqual((await api.get(`/api/customers/${c.id}`)).body, c);
      }
      customers.push(await api.create(newCustomer()));
    } finally {
      const stopped = await second.stop("SIGKILL");
      assert.match(
        stopped.stdout + stopped.stderr,
        /warn/i,
        "no warning about the torn line was printed",
      );
    }
    const seqs = await readSequenceNumbers(dataDir);
    assert.deepEqual(seqs, range(seqs[0], 4), "the log is not gap-free up to seq 4");

    const third = await startServer({ dataDir });
    try {
      const api = await client(third);
      assert.deepEqual(await api.listAll(), customers);
    } finally {
      await third.dispose();
    }
  } finally {
    await removeDir(dataDir);
  }
});

Deno.test("damage before the last log line makes the server refuse to start, saying where", async (t) => {
  const corruptions: [string, (lines: string[], at: number) => void][] = [
    ["an edited middle line (checksum)", (lines, at) => {
      assert.ok(lines[at].includes("Customer"), "test expects the name in the event data");
      lines[at] = lines[at].replace("Customer", "Kustomer");
    }],
    ["a half middle line", (lines, at) => {
      lines[at] = lines[at].slice(0, lines[at].length / 2);
    }],
    ["a missing middle line (sequence gap)", (lines, at) => {
      lines.splice(at, 1);
    }],
  ];
  for (const [what, corrupt] of corruptions) {
    await t.step(`refuses to start on ${what}`, async () => {
      const dataDir = await makeDataDir();
      try {
        // SIGKILL leaves every event after the newest snapshot, so all of them get replayed.
        const first = await startServer({ dataDir });
        try {
          const api = await client(first);
          for (let i = 0; i < 3; i++) await api.create(newCustomer());
        } finally {
          await first.stop("SIGKILL");
        }
        const events = await readEvents(dataDir);
        const middle = events[events.length - 2];
        const lines = (await Deno.readTextFile(middle.file)).split("\n");
        corrupt(lines, middle.line - 1);
        await Deno.writeTextFile(middle.file, lines.join("\n"));
        const name = middle.file.slice(middle.file.lastIndexOf("/") + 1);
        await assert.rejects(
          () => startServer({ dataDir }),
          (error: Error) => {
            assert.match(error.message, /exited with code [1-9]/);
            assert.ok(error.message.includes(name), `the message does not name ${name}`);
            return true;
          },
        );
      } finally {
        await removeDir(dataDir);
      }
    });
  }
});
