/**
 * The container's HEALTHCHECK: exits 0 when `GET /healthz` answers 2xx, else 1. It asks this
 * container's PORT on loopback, or the Unix socket SOCKET when that is set. The image has no curl;
 * the Dockerfile runs this with `--allow-net=127.0.0.1 --allow-env=PORT,SOCKET`, adding only
 * `unix:<SOCKET>` to --allow-net and SOCKET to --allow-read/--allow-write when SOCKET is set.
 */

/** True when `url` answers a 2xx within `timeoutMs`; false on any other status or failure. */
export async function probe(
  url: string,
  timeoutMs = 3000,
  client?: Deno.HttpClient,
): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), client });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

/** True when `GET /healthz` over the Unix socket at `path` answers a 2xx within `timeoutMs`. */
export async function probeSocket(path: string, timeoutMs = 3000): Promise<boolean> {
  let client: Deno.HttpClient;
  try {
    client = Deno.createHttpClient({ proxy: { transport: "unix", path } });
  } catch {
    return false;
  }
  try {
    // The host is only the Host header here: the request goes down the socket.
    return await probe("http://127.0.0.1/healthz", timeoutMs, client);
  } finally {
    client.close();
  }
}

if (import.meta.main) {
  const socket = Deno.env.get("SOCKET");
  const port = Deno.env.get("PORT") || "8000";
  const healthy = socket
    ? await probeSocket(socket)
    : await probe(`http://127.0.0.1:${port}/healthz`);
  const where = socket ? `socket ${socket}` : `port ${port}`;
  if (!healthy) console.error(`customer-api is unhealthy: GET /healthz on ${where} failed`);
  Deno.exit(healthy ? 0 : 1);
}
