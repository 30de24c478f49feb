/** The driver needs no environment variable beyond the server's own settings (its --allow-env). */
import assert from "node:assert/strict";
import { SERVER_ENV_VARS } from "../../../src/ops/permissions.ts";
import { createTestSchema } from "../../support/postgres.ts";

Deno.test("the PostgreSQL store connects, appends and reads with --allow-env limited to the server's settings", async () => {
  const schema = await createTestSchema();
  try {
    const probe = new URL("./narrow_env_probe.ts", import.meta.url).pathname;
    const config = new URL("../../deno.json", import.meta.url).pathname;
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--config",
        config,
        "--allow-net",
        `--allow-env=${SERVER_ENV_VARS.join(",")}`,
        probe,
      ],
      // PG* variables set: the driver must not even look at them (it would be refused).
      env: { DATABASE_URL: schema.url, PGPASSWORD: "x", PGSSLMODE: "require", NO_COLOR: "1" },
      stdin: "null",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, stderr);
    assert.deepEqual(JSON.parse(new TextDecoder().decode(output.stdout)), { appended: 1, read: 1 });
  } finally {
    await schema.drop();
  }
});
