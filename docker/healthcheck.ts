/**
 * The container's HEALTHCHECK: exits 0 when `GET /healthz` on this container's PORT answers 2xx,
 * else 1. The image has no curl; the Dockerfile runs this with `--allow-net=127.0.0.1
 * --allow-env=PORT`, so the probe can reach nothing but this container's loopback.
 */

/** True when `url` answers a 2xx within `timeoutMs`; false on any other status or failure. */
export async function probe(url: string, timeoutMs = 3000): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}

if (import.meta.main) {
  const port = Deno.env.get("PORT") || "8000";
  const healthy = await probe(`http://127.0.0.1:${port}/healthz`);
  if (!healthy) console.error(`customer-api is unhealthy: GET /healthz on port ${port} failed`);
  Deno.exit(healthy ? 0 : 1);
}
