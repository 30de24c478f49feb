/**
 * The baseline of the PostgreSQL benchmark: `pgbench` committing one single-row INSERT per
 * transaction (a row the size of a create's event) with the same client count and duration.
 */

/** Where pgbench connects, and the schema its table goes in. */
export interface PgbenchTarget {
  host: string;
  port: string;
  user: string;
  database: string;
  schema: string;
}

// The size of a bench create's event row (the customer JSON of bench/support/workload.lua, ~300 bytes).
const DATA = JSON.stringify({
  id: "01JBENCH0000000000000000000",
  name: "Bench Customer 123456",
  email: "bench.pgbench.123456@example.com",
  phone: "+49300123456",
  address: {
    line1: "456 Bench Street",
    line2: null,
    city: "Berlin",
    region: "BE",
    postal_code: "10115",
    country: "DE",
  },
  metadata: { source: "bench" },
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  version: 1,
});

/** The table's DDL; the pgbench script inserts one row per transaction into it. */
export function pgbenchTable(schema: string): string {
  return `CREATE TABLE ${schema}.rows (seq bigserial PRIMARY KEY, customer_id text NOT NULL,
    type text NOT NULL, time text NOT NULL, data text NOT NULL)`;
}

/** Runs pgbench; resolves with its transactions per second (initial connections excluded). */
export async function runPgbench(
  target: PgbenchTarget,
  clients: number,
  seconds: number,
): Promise<number> {
  const script = await Deno.makeTempFile({ prefix: "pgbench-", suffix: ".sql" });
  try {
    await Deno.writeTextFile(
      script,
      "\\set n random(1, 1000000000)\n" +
        `INSERT INTO ${target.schema}.rows (customer_id, type, time, data) VALUES ` +
        `('01JBENCH' || :client_id || '-' || :n, 'customer.created', now()::text, ` +
        // repeat(): pgbench would read the JSON's colons as its own variables.
        `repeat('x', ${DATA.length}));\n`,
    );
    const command = new Deno.Command("pgbench", {
      args: [
        "--no-vacuum",
        `--host=${target.host}`,
        `--port=${target.port}`,
        `--username=${target.user}`,
        `--client=${clients}`,
        "--jobs=2",
        `--time=${seconds}`,
        "--protocol=prepared",
        `--file=${script}`,
        target.database,
      ],
      stdout: "piped",
      stderr: "piped",
    });
    const { code, stdout, stderr } = await command.output().catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      throw new Error(
        "The PostgreSQL benchmark needs pgbench (Debian: apt-get install postgresql)",
      );
    });
    const text = new TextDecoder().decode(stdout);
    const tps = /^tps = ([\d.]+) \(without initial connection time\)/m.exec(text);
    if (code !== 0 || tps === null) {
      throw new Error(`pgbench failed (code ${code}):\n${text}${new TextDecoder().decode(stderr)}`);
    }
    return Number(tps[1]);
  } finally {
    await Deno.remove(script);
  }
}
