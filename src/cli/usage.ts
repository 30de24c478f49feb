/** The `--help` text of each command: usage, options and the environment variables it reads. */

/** The server (`deno task start`, `deno task dev`, the compiled binary, the container). */
export const SERVER_USAGE = `Usage: deno task start [--watch] [--cached-only] [--help]

Runs the customer-api server under the least Deno permissions its configuration needs (read and
write on DATA_DIR and SOCKET, read on JWKS_FILE, the network, the variables below). It binds its
listener, replays the event log in DATA_DIR (/readyz answers 503 meanwhile) and then serves.
SIGINT or SIGTERM stops it cleanly (exit 0).

Options:
  --watch        Restart the server when a source file changes (deno task dev)
  --cached-only  Load modules from the cache only (the container)
  -h, --help     Print this help and exit

Environment:
  PORT                   TCP port (default 8000; 0 picks a free one)
  HOST                   Interface to bind (default 127.0.0.1; 0.0.0.0 for every interface)
  SOCKET                 Listen on this Unix domain socket instead of HOST/PORT
  SOCKET_MODE            File mode of SOCKET, octal (default 660)
  PUBLIC_URL             Public base URL for the OpenAPI servers entry (default: the request's)
  DATA_DIR               Event log, snapshots, lock file (default ./data; created if only the
                         last part of the path is missing)
  JWT_SECRET             HS256 secret of at least 32 bytes
  JWKS_FILE              Path of a JSON Web Key Set with public keys
  JWKS_URL               URL of a remote JSON Web Key Set (https://, or http:// on loopback)
  JWKS_COOLDOWN_SECONDS  Least time between two JWKS_URL fetches (default 30)
  JWT_ISSUER             When set, a token's iss must equal it
  JWT_AUDIENCE           When set, a token's aud must contain it
  MAX_BODY_BYTES         Request body limit (default 65536)
  SNAPSHOT_EVERY         Snapshot and compact after this many events (default 100000)
  ERASE_WITHIN_SECONDS   Erase a deleted customer's data from disk within this time (default 3600)
  SEGMENT_MAX_BYTES      Start a new log segment at this size (default 67108864)
  LOG_LEVEL              debug, info, warn or error (default info)
  LOG_FORMAT             auto (text on a terminal, else JSON lines), json or text
  RATE_LIMIT             Requests per caller, e.g. 100/s, 6000/m (default off)
  RATE_LIMIT_BURST       Burst size of RATE_LIMIT (default: its limit)
  CORS_ORIGINS           Comma-separated origins allowed by CORS (default: CORS off)
  BODY_TIMEOUT           A request body must arrive within this time, else 408 (default 30s)
  IDEMPOTENCY_MAX_KEYS   Most Idempotency-Key results remembered (default 100000)
  EVENT_RETENTION        How long the change feed keeps events (default 30d)
  MAX_STREAMS            Most Server-Sent Events streams at once (default 1000)
  SSE_HEARTBEAT          Heartbeat comment on an event stream at least this often (default 15s)
  STREAM_TOKEN_TTL       How long a stream token opens the event stream (default 60s)
  WEBHOOK_TIMEOUT        A webhook delivery must get a 2xx within this time (default 10s)
  WEBHOOK_RETRY_SCHEDULE Pauses between delivery retries (default 5s,5m,30m,2h,5h,10h,10h)
  WEBHOOK_ALLOW_PRIVATE  1 allows webhook URLs on private addresses and http (default 0)
  MAX_WEBHOOKS           Most webhook endpoints (default 100)
  DATABASE_URL           PostgreSQL URL: use PostgreSQL instead of DATA_DIR (many replicas)
  CONSOLE                off turns the browser console at /console off (default on)
  OTEL_DENO              true traces every request over OpenTelemetry (default false)
  OTEL_EXPORTER_OTLP_ENDPOINT  The OTLP/HTTP collector (default http://localhost:4318)
  OTEL_EXPORTER_OTLP_PROTOCOL  http/protobuf (default) or http/json
  OTEL_EXPORTER_OTLP_HEADERS   Headers of every export, e.g. a collector's API key
  OTEL_SERVICE_NAME      The traces' service.name (default customer-api)
  OTEL_RESOURCE_ATTRIBUTES     More resource attributes, key=value,key=value
  Deno reads the OTEL_* variables itself, and the other OTEL_* ones it knows (docs/operations.md).
  Set none of JWT_SECRET, JWKS_FILE and JWKS_URL for development mode (a generated secret).

Exit codes: 0 stopped by a signal, 2 bad option, 74 I/O error, 78 bad setting.`;

/** `deno task token`. */
export const TOKEN_USAGE = `Usage: deno task token [--scope SCOPES] [--sub NAME] [--ttl DURATION]

Prints a token signed with JWT_SECRET, or with the development secret in DATA_DIR.

Options:
  --scope SCOPES   Space-separated scopes (default "customers:read customers:write webhooks:manage")
  --sub NAME       The token's subject (default cli)
  --ttl DURATION   Lifetime such as 30s, 15m, 1h or 7d (default 1h)
  -h, --help       Print this help and exit

Environment:
  JWT_SECRET    The HS256 secret to sign with
  DATA_DIR      Where the development secret is, when JWT_SECRET is not set (default ./data)
  JWT_ISSUER    When set, the token's iss
  JWT_AUDIENCE  When set, the token's aud`;

/** `deno task verify`. */
export const VERIFY_USAGE = `Usage: deno task verify [--help]

Checks every log segment and snapshot in DATA_DIR and reports each problem; changes nothing.
Exits 0 when the log can be replayed, 1 when a problem would stop the server or DATA_DIR holds
no event log.

Options:
  -h, --help  Print this help and exit

Environment:
  DATA_DIR  The data directory to check (default ./data)`;

/** `deno task compact`. */
export const COMPACT_USAGE = `Usage: deno task compact [--help]

On a stopped server: writes a snapshot of DATA_DIR and compacts its log, erasing the data of
deleted customers. Refuses while a server holds DATA_DIR, or when DATA_DIR holds no event log.

Options:
  -h, --help  Print this help and exit

Environment:
  DATA_DIR              The data directory to compact (default ./data)
  IDEMPOTENCY_MAX_KEYS  Most Idempotency-Key results kept in the snapshot (default 100000)`;

/** `deno task migrate`. */
export const MIGRATE_USAGE = `Usage: deno task migrate --to postgres|jsonl [--help]

Copies the event log between DATA_DIR and the database in DATABASE_URL, with every seq, id,
version, timestamp and idempotency key, and the state (customers, remembered idempotency keys)
as a snapshot, so the copy starts without replaying. Stop the servers first: events written
during the copy are not copied. The copy is then opened as a server would open it and compared
with the source: head, first seq, event count, last event seq, SHA-256 over the events in seq
order, over the state and over the webhook endpoints.

Options:
  --to postgres  From DATA_DIR (its lock is taken) into the database, which must hold no events
  --to jsonl     From the database into DATA_DIR, which must be missing or empty
  -h, --help     Print this help and exit

Environment:
  DATA_DIR              The data directory (default ./data)
  DATABASE_URL          The PostgreSQL database (postgres://…; ?options=-c search_path=<schema>)
  IDEMPOTENCY_MAX_KEYS  Most Idempotency-Key results kept in the state (default 100000)
  SEGMENT_MAX_BYTES     Size of the log segments --to jsonl writes (default 67108864)

Exit codes: 0 copied and verified, 1 failed (the message says why), 2 bad option, 73 the target
is not empty (nothing was copied), 78 bad setting.`;
