import { dirname, resolve } from "node:path";
import type { Config } from "../config.ts";
import { SettingError } from "./startup_error.ts";

/** An open listener and how to name it to people. */
export interface Listener {
  server: Deno.HttpServer;
  /** A URL a person can open: `http://localhost:8000` for a wildcard HOST, or `unix:/path`. */
  url: string;
  /** What is bound, as the OS has it: `0.0.0.0:8000`, `[::1]:8000` or `unix:/path`. */
  address: string;
  /** The `curl` arguments that reach `path` on this listener. */
  curl(path: string): string;
  /** Stops accepting, finishes requests in flight and removes the socket file, if any. */
  close(): Promise<void>;
}

type Handler = (request: Request) => Response | Promise<Response>;

/**
 * Binds SOCKET (a Unix socket, then chmod SOCKET_MODE) or HOST/PORT, at once and before any
 * replay, so a busy port or a bad address fails in milliseconds. Throws SettingError naming it.
 */
export async function listen(config: Config, handler: Handler): Promise<Listener> {
  return config.socket === undefined
    ? listenTcp(config.host, config.port, handler)
    : await listenUnix(resolve(config.socket), config.socketMode, handler);
}

function listenTcp(host: string, port: number, handler: Handler): Listener {
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({ hostname: host, port, onListen: () => {} }, handler);
  } catch (error) {
    throw tcpFailure(error, host, port);
  }
  const bound = server.addr;
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

async function listenUnix(path: string, mode: number, handler: Handler): Promise<Listener> {
  await clearStaleSocket(path);
  let server: Deno.HttpServer<Deno.UnixAddr>;
  try {
    server = Deno.serve({ path, onListen: () => {} }, handler);
  } catch (error) {
    throw socketFailure(error, path);
  }
  try {
    await Deno.chmod(path, mode);
  } catch (error) {
    await server.shutdown();
    throw socketFailure(error, path);
  }
  return {
    server,
    url: `unix:${path}`,
    address: `unix:${path}`,
    curl: (target) => `--unix-socket '${path}' http://localhost${target}`,
    close: async () => {
      await server.shutdown();
      await Deno.remove(path).catch(() => {});
    },
  };
}

/**
 * A socket file left by a killed server is removed, but only when nothing answers on it: a live
 * server there is refused, and a file that is not a socket is never touched.
 */
async function clearStaleSocket(path: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw socketFailure(error, path);
  }
  if (!info.isSocket) {
    throw new SettingError(
      "SOCKET",
      path,
      "exists and is not a socket; remove it or choose another SOCKET",
    );
  }
  try {
    const conn = await Deno.connect({ transport: "unix", path });
    conn.close();
  } catch (error) {
    if (!(error instanceof Deno.errors.ConnectionRefused)) throw socketFailure(error, path);
    await Deno.remove(path).catch((error) => {
      throw socketFailure(error, path);
    });
    return;
  }
  throw new SettingError(
    "SOCKET",
    path,
    "is in use: another server answers on it; stop that server or choose another SOCKET",
  );
}

function socketFailure(error: unknown, path: string): SettingError {
  const detail = error instanceof Error ? error.message : String(error);
  if (error instanceof Deno.errors.NotFound) {
    return new SettingError(
      "SOCKET",
      path,
      `cannot be created: its directory "${
        dirname(path)
      }" does not exist; create it or choose another SOCKET`,
    );
  }
  if (error instanceof Deno.errors.NotCapable) {
    return new SettingError(
      "SOCKET",
      path,
      `is outside the paths this process may use (${detail}); start it with \`deno task start\`, which grants SOCKET`,
    );
  }
  return new SettingError(
    "SOCKET",
    path,
    `cannot be used (${detail}); check that this user may create files in "${
      dirname(path)
    }", or choose another SOCKET`,
  );
}
