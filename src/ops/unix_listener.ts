import { dirname } from "node:path";
import {
  type AcceptRecoveryEvents,
  type RecoveringServer,
  serveRecovering,
} from "../http/connection_limits.ts";
import { SettingError } from "../lib/startup_error.ts";

/** Serves on the Unix socket at `path`, then sets its mode; throws SettingError naming SOCKET. */
export async function listenUnix(
  path: string,
  mode: number,
  handler: (request: Request) => Response | Promise<Response>,
  events: AcceptRecoveryEvents,
): Promise<RecoveringServer> {
  await clearStaleSocket(path);
  let server: RecoveringServer;
  try {
    server = serveRecovering(events, { path, onListen: () => {} }, handler);
  } catch (error) {
    throw socketFailure(error, path);
  }
  try {
    await Deno.chmod(path, mode);
  } catch (error) {
    await server.shutdown();
    throw socketFailure(error, path);
  }
  return server;
}

/** Removes a killed server's socket file, only when it is a socket and nothing answers on it. */
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
