/**
 * Replica lag as a client sees it: a create answered by replica A, then a GET of that customer on
 * replica B with `Min-Log-Seq` set to A's `Log-Seq`, which B answers once it has applied the create
 * (it looks every 5 ms); the lag is from A's answer to B's 200. GETs back to back until one finds
 * the customer would load B with more requests than the writes measured.
 */

/** Measures one create after another, rotating over the replica pairs, until `until`. */
export async function measureLag(urls: string[], token: string, until: number): Promise<number[]> {
  const headers = { authorization: `Bearer ${token}` };
  const lags: number[] = [];
  for (let n = 0; performance.now() < until; n++) {
    const a = urls[n % urls.length];
    const b = urls[(n + 1) % urls.length];
    const created = await fetch(`${a}/api/customers`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ name: `Lag ${n}`, email: `lag.${n}.${Date.now()}@example.com` }),
    });
    const { id } = await created.json();
    if (created.status !== 201) {
      throw new Error(`The lag probe's create answered ${created.status}`);
    }
    const answered = performance.now();
    const seq = created.headers.get("log-seq")!;
    const read = await fetch(`${b}/api/customers/${id}`, {
      headers: { ...headers, "min-log-seq": seq },
    });
    await read.body?.cancel();
    // B waits up to 5 s for the seq, then answers 503: that counts as a lag of 5 s or more.
    lags.push(
      read.status === 200
        ? performance.now() - answered
        : Math.max(5000, performance.now() - answered),
    );
  }
  return lags;
}
