/**
 * Leaves the database as quiet for the next part of the PostgreSQL benchmark as the first part
 * found it: the tables a part wrote are vacuumed now rather than by autovacuum while the next part
 * runs, and a checkpoint writes out the pages the part left dirty. CHECKPOINT needs a superuser (or
 * pg_checkpoint); without that right, the vacuum alone.
 */
import type { PgPool } from "../../src/store/postgres/pg_connection.ts";

/** Vacuums every table of `schema`, then checkpoints. */
export async function quietDatabase(admin: PgPool, schema: string): Promise<void> {
  const { rows } = await admin.query<{ tablename: string }>(
    "SELECT tablename FROM pg_tables WHERE schemaname = $1",
    [schema],
  );
  for (const { tablename } of rows) await admin.query(`VACUUM ${schema}.${tablename}`);
  await admin.query("CHECKPOINT").catch(() => {});
}
