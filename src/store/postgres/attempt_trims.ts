import { ATTEMPTS_KEPT } from "../webhook_store.ts";

/** One endpoint's trim: its attempts with `after` < n <= `upto` go. */
export interface Trim {
  id: string;
  after: number;
  upto: number;
}

/**
 * Where each endpoint's deliveries log is cut, from the attempts this process inserted: all but
 * their newest ATTEMPTS_KEPT may go, with any older row of another replica. Each trim starts where
 * the last ended, so it reads only what it deletes: a scan of every row an endpoint ever had would
 * also read every dead row not yet vacuumed. The first trim of an endpoint starts at 0.
 */
export class AttemptTrims {
  /** Per endpoint: the n of its newest inserted attempts (ascending), and where its last trim ended. */
  #logs = new Map<string, { ns: number[]; after: number }>();

  /** Notes inserted attempts (their endpoint and n); answers the trims they make due (see done). */
  inserted(rows: readonly { endpoint_id: string; n: string | number }[]): Trim[] {
    const touched = new Set<string>();
    for (const row of rows) {
      let log = this.#logs.get(row.endpoint_id);
      if (log === undefined) this.#logs.set(row.endpoint_id, log = { ns: [], after: 0 });
      log.ns.push(Number(row.n));
      touched.add(row.endpoint_id);
    }
    const trims: Trim[] = [];
    for (const id of touched) {
      const log = this.#logs.get(id)!;
      log.ns.sort((a, b) => a - b);
      if (log.ns.length <= ATTEMPTS_KEPT) continue;
      const upto = log.ns[log.ns.length - ATTEMPTS_KEPT - 1];
      log.ns = log.ns.slice(-ATTEMPTS_KEPT);
      trims.push({ id, after: log.after, upto });
    }
    return trims;
  }

  /** The trims ran: the next of each endpoint starts where this one ended (a failed one is redone). */
  done(trims: readonly Trim[]): void {
    for (const { id, upto } of trims) {
      const log = this.#logs.get(id);
      if (log !== undefined && upto > log.after) log.after = upto;
    }
  }

  /** Forgets an endpoint (removed). */
  forget(id: string): void {
    this.#logs.delete(id);
  }
}
