/** `deno task migrate`'s copy runs with DATA_DIR, the database's host:port and three variables. */
import assert from "node:assert/strict";
import { migratePermissionFlags, PermissionPathError } from "../../src/ops/permissions.ts";

Deno.test("the copy of migrate may touch DATA_DIR (made absolute) and reach the database's host and port only", () => {
  assert.deepEqual(
    migratePermissionFlags(
      "../state",
      "postgres://app:secret@db.internal:6432/customers",
      "/srv/api",
    ),
    [
      "--no-prompt",
      "--allow-env=DATA_DIR,DATABASE_URL,IDEMPOTENCY_MAX_KEYS,SEGMENT_MAX_BYTES",
      "--allow-read=/srv/state",
      "--allow-write=/srv/state",
      "--allow-net=db.internal:6432",
    ],
  );
  assert.equal(
    migratePermissionFlags("/data", "postgres:///customers", "/").at(-1),
    "--allow-net=localhost:5432",
  );
  assert.throws(() => migratePermissionFlags("/a,b", "postgres://db/x", "/"), PermissionPathError);
});
