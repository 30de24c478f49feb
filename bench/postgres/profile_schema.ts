/**
 * What the PostgreSQL profiling tools share: a schema of their own (dropped after), a signing
 * secret and a token, the database URL that points servers at the schema, a data directory, and
 * the profile directory, whose new file (the profile the run wrote) newProfile() names.
 */
import { SignJWT } from "jose";
import { createPool } from "../../src/store/postgres/pg_connection.ts";
import { randomSecret } from "../support/service_token.ts";
import { DATABASE_URL } from "./postgres_bench.ts";

/** What a profiling run works with. */
export interface ProfileSchema {
  /** DATABASE_URL for the servers: the schema on the search path. */
  url: string;
  secret: string;
  /** A token signed with the secret, with the scopes asked for. */
  token: string;
  dataDir: string;
  /** The path of the profile written in `dir` since the run began. */
  newProfile: () => string;
}

/** Runs `body` on a fresh schema `bench_<name>_<time>`, then drops it. */
export async function withProfileSchema(
  name: string,
  dir: string,
  scope: string,
  body: (setup: ProfileSchema) => Promise<void>,
): Promise<void> {
  const schema = `bench_${name}_${Date.now()}`;
  const admin = createPool(DATABASE_URL, 1, () => {});
  const dataDir = await Deno.makeTempDir({ prefix: `pg-${name}-data-` });
  await admin.query(`CREATE SCHEMA ${schema}`);
  try {
    const secret = randomSecret();
    const token = await new SignJWT({ scope })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" }).setSubject("bench").setIssuedAt()
      .setExpirationTime("1h").sign(new TextEncoder().encode(secret));
    const url = new URL(DATABASE_URL);
    url.searchParams.set("options", `-c search_path=${schema}`);
    await Deno.mkdir(dir, { recursive: true });
    const before = new Set([...Deno.readDirSync(dir)].map((entry) => entry.name));
    const newProfile = () =>
      `${dir}/${[...Deno.readDirSync(dir)].find((entry) => !before.has(entry.name))!.name}`;
    await body({ url: url.toString(), secret, token, dataDir, newProfile });
  } finally {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
    await Deno.remove(dataDir, { recursive: true });
  }
}
