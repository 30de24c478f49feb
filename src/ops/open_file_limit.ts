/** The open-file limit: Deno cannot call setrlimit, so the launcher raises it through `sh`. */
import type { Logger } from "./log.ts";

/** Set by the launcher: the server's soft open-file limit, as `ulimit -n` printed it. */
export const OPEN_FILES_ENV_VAR = "CUSTOMER_API_OPEN_FILES";
/** Below this many descriptors a busy server runs out of connections early. */
export const MIN_OPEN_FILES = 8192;

/** A `sh -c` script raising the soft limit to the hard one, exporting it, running its arguments. */
export const RAISE_OPEN_FILES_SCRIPT = `ulimit -n "$(ulimit -Hn)" 2>/dev/null; ` +
  `${OPEN_FILES_ENV_VAR}="$(ulimit -n)"; export ${OPEN_FILES_ENV_VAR}; exec "$0" "$@"`;

/** Logs the open-file limit the launcher found, with a warning when it is low. */
export function logOpenFileLimit(log: Logger): void {
  const value = Deno.env.get("CUSTOMER_API_OPEN_FILES");
  // Without the launcher (the compiled binary, a plain `deno run`) the limit is not known here.
  if (value === undefined || value === "") return;
  const limit = value === "unlimited" ? Infinity : Number(value);
  if (limit >= MIN_OPEN_FILES) return log.info("open-file limit", { limit: value });
  log.warn("Open-file limit is low: the server may run out of connections", {
    limit: value,
    recommended: MIN_OPEN_FILES,
    how: "raise the hard limit: ulimit -Hn 65536, docker run --ulimit nofile=65536:65536, " +
      "or LimitNOFILE=65536 (systemd)",
  });
}
