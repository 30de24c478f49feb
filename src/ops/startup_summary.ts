import type { Config } from "../config.ts";
import { DEV_SECRET_FILE } from "../store/jsonl/data_dir_layout.ts";

/** What the summary tells besides the configuration: where it listens, and what happened. */
export interface SummaryFacts {
  url: string;
  customers: number;
  replayMs: number;
  /** The console's address, or undefined when it is off or unreachable by a browser. */
  consoleUrl?: string;
  warnings: readonly string[];
}

/** The short summary a person reads on a terminal once ready: address, data, keys, warnings. */
export function startupSummary(config: Config, facts: SummaryFacts): string[] {
  const lines = [
    `customer-api ready at ${facts.url} (${facts.customers} customers, replayed in ` +
    `${facts.replayMs} ms)`,
    `  store     ${storeText(config)}`,
    `  keys      ${keysText(config)}`,
    `  docs      ${facts.url}/docs`,
    `  console   ${facts.consoleUrl ?? "off"}`,
  ];
  if (facts.warnings.length === 0) lines.push("  warnings  none");
  else {
    lines.push(`  warnings  ${facts.warnings.length}:`);
    for (const warning of facts.warnings) lines.push(`    - ${warning}`);
  }
  return lines;
}

function storeText(config: Config): string {
  if (config.databaseUrl === undefined) return `JSONL log in ${config.dataDir}`;
  const url = new URL(config.databaseUrl);
  url.password = "";
  return `PostgreSQL at ${url.toString().replace(/^(postgres(?:ql)?:\/\/[^@/]*):@/, "$1@")}`;
}

function keysText(config: Config): string {
  const source = config.keySource;
  switch (source.kind) {
    case "secret":
      return "JWT_SECRET (HS256)";
    case "jwks-file":
      return `JWKS_FILE ${source.path}`;
    case "jwks-url":
      return `JWKS_URL ${source.url}`;
    case "dev":
      return `development secret in ${config.dataDir}/${DEV_SECRET_FILE}`;
  }
}
