import { resolve } from "node:path";
import type { Config } from "../config.ts";
import {
  type AcceptRecoveryEvents,
  type RecoveringServer,
  serveRecovering,
} from "../http/connection_limits.ts";
import { SettingError } from "../lib/startup_error.ts";
import { listenUnix } from "./unix_listener.ts";

/** An open listener and how to name it to people. */
export interface Listener {
  server: RecoveringServer;
  /** A URL a person can open: `http://localhost:8000` for a wildcard HOST, or `unix:/path`. */
  url: string;
  address: string;
  curl(path: string): string;
  /** Stops accepting, finishes requests in flight and removes the socket file, if any. */
  close(): Promise<void>;
}

type Handler = (request: Request) => Response | Promise<Response>;

/** Where a browser opens the console: over TCP only, not over a Unix socket; none when off. */
export function consoleUrlOf(config: Pick<Config, "console" | "socket">, listener: Listener) {
  return config.console && config.socket === undefined ? `${listener.url}/console` : undefined;
}

/** Binds SOCKET or HOST/PORT before any replay, so a busy port fails at once (SettingError). */
export async function listen(
  config: Config,
  handler: Handler,
  events: AcceptRecoveryEvents,
): Promise<Listener> {
  if (config.socket === undefined) return listenTcp(config.host, config.port, handler, events);
  const path = resolve(config.socket);
  const server = await listenUnix(path, config.socketMode, handler, events);
  return {
    server,
    url: `unix:${path}`,
    address: `unix:${path}`,
    curl: (target) => `--unix-socket '${path}' http://localhost${target}`,
    close: async () => {
      await server.shutdown();
      // Deno removes the file as it closes; this is for when it could not.
      await Deno.remove(path).catch(() => {});
    },
  };
}

function listenTcp(
  host: string,
  port: number,
  handler: Handler,
  events: AcceptRecoveryEvents,
): Listener {
  let server: RecoveringServer;
  try {
    server = serveRecovering(events, { hostname: host, port, onListen: () => {} }, handler);
  } catch (error) {
    throw tcpFailure(error, host, port);
  }
  const bound = server.addr as Deno.NetAddr;
  const shown = bound.hostname.includes(":") ? `[${bound.hostname}]` : bound.hostname;
  // A wildcard address is where the server listens, not a place a browser can go.
  const wildcard = bound.hostname === "0.0.0.0" || bound.hostname === "::";
  const url = `http://${wildcard ? "localhost" : shown}:${bound.port}`;
  return {
    server,
    url,
    address: `${shown}:${bound.port}`,
    curl: (path) => `${url}${path}`,
    close: () => server.shutdown(),
  };
}

function tcpFailure(error: unknown, host: string, port: number): SettingError {
  const detail = error instanceof Error ? error.message : String(error);
  if (error instanceof Deno.errors.AddrInUse) {
    return new SettingError(
      "PORT",
      String(port),
      `is in use on HOST "${host}"; stop the other process or choose another PORT (0 picks a free one)`,
    );
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return new SettingError(
      "PORT",
      String(port),
      `needs privileges this user lacks (${detail}); choose a PORT of 1024 or above`,
    );
  }
  if (error instanceof Deno.errors.NotCapable) {
    return new SettingError(
      "HOST",
      host,
      `may not be bound by this process (${detail}); start it with \`deno task start\``,
    );
  }
  const problem = error instanceof Deno.errors.AddrNotAvailable
    ? "is not an address of this machine"
    : `is not an IP address or a host name that resolves (${detail})`;
  return new SettingError(
    "HOST",
    host,
    `${problem}; use 127.0.0.1, 0.0.0.0 (every interface), ::1 or one of this machine's addresses`,
  );
}
