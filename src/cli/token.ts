import { loadConfig } from "../config.ts";
import { ConfigError } from "../settings/config_error.ts";
import { readDevSecret } from "../auth/dev_secret.ts";
import { READ_SCOPE, WEBHOOKS_SCOPE, WRITE_SCOPE } from "../auth/scopes.ts";
import { mintToken, parseTtl } from "../auth/token_mint.ts";
import { exitWith, parseCommandLine } from "./command_line.ts";
import { TOKEN_USAGE } from "./usage.ts";

type TokenOptions = {
  scope: string;
  sub: string;
  ttl: string;
};

/** `deno task token`: prints a token signed with JWT_SECRET or the development secret. */
async function main(values: TokenOptions): Promise<void> {
  const env = (name: string) => Deno.env.get(name);
  if (env("JWKS_FILE") || env("JWKS_URL")) {
    throw new ConfigError(
      "A key set (JWKS_FILE or JWKS_URL) holds public keys only; mint tokens at your identity provider",
    );
  }
  const config = loadConfig(env);
  const secret = config.keySource.kind === "secret"
    ? config.keySource.secret
    : await readDevSecret(config.dataDir);
  if (secret === undefined) {
    throw new ConfigError(
      `No JWT_SECRET is set and ${config.dataDir}/dev-secret does not exist; start the server once in development mode`,
    );
  }
  const ttlSeconds = parseTtl(values.ttl);
  console.log(
    await mintToken(
      secret,
      { sub: values.sub, scope: values.scope, ttlSeconds },
      config.jwtIssuer,
      config.jwtAudience,
    ),
  );
}

if (import.meta.main) {
  const command = parseCommandLine<TokenOptions>(Deno.args, TOKEN_USAGE, {
    scope: { type: "string", default: `${READ_SCOPE} ${WRITE_SCOPE} ${WEBHOOKS_SCOPE}` },
    sub: { type: "string", default: "cli" },
    ttl: { type: "string", default: "1h" },
  });
  if (command.kind === "exit") exitWith(command);
  try {
    await main(command.values);
  } catch (error) {
    console.error(`token: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
}
