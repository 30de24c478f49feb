/** Listens again when a failed accept (out of descriptors) ends Deno.serve's accept loop. */

/** What the caller hears about an episode of failed accepts. */
export interface AcceptRecoveryEvents {
  /** Accepting stopped (once per episode); new connections are refused until `resumed`. */
  stopped(error: unknown): void;
  /** Listening has held for a while again, `ms` after the stop and after `attempts` listens. */
  resumed(ms: number, attempts: number): void;
}

/** Pauses between two attempts to listen again: doubling from `firstMs` up to `maxMs`. */
export interface RetryPauses {
  firstMs: number;
  maxMs: number;
  /** An episode ends once listening has held this long without another failed accept. */
  quietMs: number;
}

/** One listening server that survives failed accepts; `shutdown` stops every listener it had. */
export interface RecoveringServer {
  readonly addr: Deno.Addr;
  /** Stops listening and waits for the open connections to finish, as Deno's shutdown does. */
  shutdown(): Promise<void>;
}

/** A TCP address: its port is pinned once bound, so PORT=0 comes back on the same port. */
export type RecoveringTcpOptions = Deno.ServeTcpOptions & { port: number; hostname: string };

const DEFAULT_PAUSES: RetryPauses = { firstMs: 50, maxMs: 500, quietMs: 5000 };
/** Servers kept for their open connections; past this the oldest is shut down gracefully. */
const MAX_SERVERS = 64;

interface Episode {
  started: number;
  attempts: number;
  pause: number;
  quiet?: ReturnType<typeof setTimeout>;
}

/** `Deno.serve` that listens again, on the address first bound, after its accept loop dies. */
export function serveRecovering(
  events: AcceptRecoveryEvents,
  options: RecoveringTcpOptions,
  handler: Deno.ServeHandler,
  pauses?: RetryPauses,
): RecoveringServer;
/** The same on a Unix domain socket. */
export function serveRecovering(
  events: AcceptRecoveryEvents,
  options: Deno.ServeUnixOptions,
  handler: Deno.ServeHandler,
  pauses?: RetryPauses,
): RecoveringServer;
export function serveRecovering(
  events: AcceptRecoveryEvents,
  options: RecoveringTcpOptions | Deno.ServeUnixOptions,
  handler: Deno.ServeHandler,
  pauses: RetryPauses = DEFAULT_PAUSES,
): RecoveringServer {
  // Every server ever started: the old ones still serve the connections they accepted.
  const servers: Deno.HttpServer[] = [];
  let port = "path" in options ? 0 : options.port;
  let stopping = false;
  // While descriptors stay short, accept fails again right after each new listen: one episode.
  let episode: Episode | undefined;

  const listen = (first: boolean): void => {
    const onListen = (addr: Deno.Addr) => {
      if (addr.transport === "tcp") port = addr.port;
      if (first) (options.onListen as ((addr: Deno.Addr) => void) | undefined)?.(addr);
    };
    // Deno removes a Unix socket's file when its listener closes, so the path is free again.
    const server = "path" in options
      ? Deno.serve({ ...options, onListen }, handler)
      : Deno.serve({ ...options, port, onListen }, handler);
    servers.push(server);
    if (servers.length > MAX_SERVERS) servers.shift()!.shutdown().catch(() => {});
    server.finished.catch((error) => {
      if (stopping) return;
      if (episode === undefined) {
        episode = { started: performance.now(), attempts: 0, pause: pauses.firstMs };
        events.stopped(error);
      }
      clearTimeout(episode.quiet);
      setTimeout(attempt, episode.pause);
    });
  };

  const attempt = (): void => {
    if (stopping || episode === undefined) return;
    const current = episode;
    current.attempts++;
    current.pause = Math.min(current.pause * 2, pauses.maxMs);
    try {
      listen(false);
    } catch {
      // Still out of descriptors (or the port is taken): wait for connections to close.
      setTimeout(attempt, current.pause);
      return;
    }
    const quiet = setTimeout(() => {
      episode = undefined;
      events.resumed(Math.round(performance.now() - current.started), current.attempts);
    }, pauses.quietMs);
    // Waiting to say "again" must not keep a stopping process alive.
    Deno.unrefTimer(quiet);
    current.quiet = quiet;
  };

  listen(true);
  return {
    addr: servers[0].addr,
    async shutdown() {
      stopping = true;
      clearTimeout(episode?.quiet);
      await Promise.all(servers.map((server) => server.shutdown()));
    },
  };
}

/** Events that log one warning when accepting stops, one when it resumes, and count the stop. */
export function acceptRecoveryLog(
  log: { warn(msg: string, fields?: Record<string, unknown>): void },
  metrics: { acceptStopped(): void },
): AcceptRecoveryEvents {
  return {
    stopped(error) {
      metrics.acceptStopped();
      log.warn(
        "Accepting connections failed; serving the open ones and listening again once descriptors free up",
        { error: String(error) },
      );
    },
    resumed(ms, attempts) {
      log.warn("Accepting connections again", { episode_ms: ms, listens: attempts });
    },
  };
}
