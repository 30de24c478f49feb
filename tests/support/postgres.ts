/** A PostgreSQL schema of its own for one test, on the tests' server (trust on loopback). */
import { createPool } from "../../src/store/postgres/pg_connection.ts";

/**
 * Database `test` as user postgres on PGHOST:PGPORT (libpq's variables, 127.0.0.1:5432 unless
 * set). `deno task test` probes it and starts an embedded PostgreSQL when nothing answers there.
 */
export const DEFAULT_TEST_DATABASE_URL = `postgres://postgres@${
  Deno.env.get("PGHOST") || "127.0.0.1"
}:${Deno.env.get("PGPORT") || "5432"}/test`;

/** The server the tests use; TEST_DATABASE_URL overrides the default. */
export const TEST_DATABASE_URL = Deno.env.get("TEST_DATABASE_URL") ?? DEFAULT_TEST_DATABASE_URL;

/** A fresh schema: `url` connects with it as the search_path; drop() removes it. */
export interface TestSchema {
  name: string;
  url: string;
  /** Runs SQL on the server (with the schema's name spelled out where needed). */
  query(sql: string): Promise<Record<string, unknown>[]>;
  drop(): Promise<void>;
}

/** Creates an empty schema with a unique name. */
export async function createTestSchema(): Promise<TestSchema> {
  const name = `t_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = createPool(TEST_DATABASE_URL, 1, () => {});
  await admin.query(`CREATE SCHEMA ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${name}`);
  return {
    name,
    url: url.toString(),
    query: async (sql) => (await admin.query(sql)).rows,
    drop: async () => {
      await admin.query(`DROP SCHEMA ${name} CASCADE`);
      await admin.end();
    },
  };
}
