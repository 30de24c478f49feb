/**
 * Replica lag as a client sees it: a create answered by replica A, then GETs of that customer on
 * replica B, back to back, until one answers 200; the lag is from A's answer to B's 200.
 */

const GIVE_UP_MS = 5000;

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
    for (;;) {
      const read = await fetch(`${b}/api/customers/${id}`, { headers });
      await read.body?.cancel();
      const lag = performance.now() - answered;
      if (read.status === 200 || lag > GIVE_UP_MS) {
        lags.push(lag);
        break;
      }
    }
  }
  return lags;
}
