/**
 * Which replica delivers each webhook endpoint: the one holding its row in webhook_leases. Every
 * tick a replica renews the leases it holds and takes those of enabled endpoints that have none
 * or whose lease expired (the database decides who wins a race). A holder counts a lease as its
 * own only until `moment the renewing statement was sent + TTL - margin`, before the database
 * (which counts from the statement's start) lets anyone else take it, so two replicas never
 * deliver the same endpoint at once; a killed holder's leases pass to another replica once they
 * expire (at most TTL + one tick later).
 */
import type { PgPool } from "./pg_connection.ts";

/** How long a lease lasts after each renewal. */
export const LEASE_TTL_MS = 3000;
/** How often leases are renewed and taken (and endpoints read again). */
export const LEASE_TICK_MS = 1000;
/** A holder stops this long before its lease expires in the database (clock rates, latency). */
const MARGIN_MS = 300;

const RENEW = `UPDATE webhook_leases SET expires_at = now() + $2 * interval '1 millisecond'
  WHERE holder = $1 RETURNING endpoint_id`;

/**
 * Takes the lease of each enabled endpoint that has none or an expired one. Two replicas racing
 * for one lease: the second waits for the first's row, then finds it unexpired and takes nothing.
 */
const TAKE = `INSERT INTO webhook_leases AS l (endpoint_id, holder, expires_at)
  SELECT e.id, $1, now() + $2 * interval '1 millisecond' FROM webhook_endpoints e
  WHERE e.enabled AND NOT EXISTS (
    SELECT 1 FROM webhook_leases h WHERE h.endpoint_id = e.id AND h.expires_at > now())
  ON CONFLICT (endpoint_id) DO UPDATE SET holder = EXCLUDED.holder,
    expires_at = EXCLUDED.expires_at
  WHERE l.expires_at <= now()
  RETURNING endpoint_id`;

/** What the leases work with. */
export interface LeaseDeps {
  pool: PgPool;
  /** This replica's name in the leases table. */
  holder: string;
  /** Reads the endpoints again (before deciding, and after taking a lease: fresh checkpoints). */
  refresh: () => Promise<void>;
  /** The endpoints known now: each is told to onChange every tick. */
  ids: () => string[];
  /** Told for every endpoint each tick and when a lease is lost, so delivery follows owns(). */
  onChange: (id: string) => void;
  /** Told when a tick fails (the database is unreachable); leases then run out. */
  warn: (message: string, fields: Record<string, unknown>) => void;
  ttlMs?: number;
  tickMs?: number;
}

/** The leases this replica holds, renewed every tick; owns() says whether it may deliver now. */
export class WebhookLeases {
  /** Endpoint id → the moment (performance.now) this replica stops counting the lease its own. */
  #held = new Map<string, number>();
  #ticker: ReturnType<typeof setInterval> | undefined;
  #expiry: ReturnType<typeof setInterval> | undefined;
  #ticking: Promise<void> | undefined;
  #stopped = false;
  #failing = false;
  #again = false;
  readonly #ttl: number;
  readonly #tick: number;

  constructor(private readonly deps: LeaseDeps) {
    this.#ttl = deps.ttlMs ?? LEASE_TTL_MS;
    this.#tick = deps.tickMs ?? LEASE_TICK_MS;
  }

  /** True while this replica holds the endpoint's lease. */
  owns(id: string): boolean {
    const until = this.#held.get(id);
    return until !== undefined && performance.now() < until;
  }

  /** Ticks now and every LEASE_TICK_MS; a lease running out between ticks is noticed at once. */
  start(): void {
    this.#run();
    this.#ticker = setInterval(() => this.#run(), this.#tick);
    this.#expiry = setInterval(() => this.#expire(), 100);
  }

  /** Stops ticking and gives the leases back, so another replica takes them at its next tick. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#ticker);
    clearInterval(this.#expiry);
    await this.#ticking;
    const held = [...this.#held.keys()];
    this.#held.clear();
    for (const id of held) this.deps.onChange(id);
    await this.deps.pool.query("DELETE FROM webhook_leases WHERE holder = $1", [this.deps.holder])
      .catch(() => {}); // They expire anyway.
  }

  /** Ticks now, or again right after the tick under way (e.g. after an endpoint was created). */
  check(): void {
    if (this.#ticking !== undefined) this.#again = true;
    else this.#run();
  }

  #run(): void {
    if (this.#stopped || this.#ticking !== undefined) return;
    this.#ticking = this.#renew().finally(() => {
      this.#ticking = undefined;
      if (this.#again) this.#again = false, this.#run();
    });
  }

  async #renew(): Promise<void> {
    const values = [this.deps.holder, this.#ttl];
    // Each lease counts from when its own statement was sent (a slow tick loses no time).
    const until = new Map<string, number>();
    const run = async (sql: string) => {
      const sent = performance.now();
      const { rows } = await this.deps.pool.query<{ endpoint_id: string }>(sql, values);
      for (const row of rows) until.set(row.endpoint_id, sent + this.#ttl - MARGIN_MS);
    };
    try {
      await run(RENEW);
      await run(TAKE);
      // Changes made on other replicas, and the checkpoint of an endpoint just taken.
      await this.deps.refresh();
      if (this.#failing) this.deps.warn("webhook leases renewed again", {});
      this.#failing = false;
    } catch (error) {
      // The leases held run out at their deadline (#expire): delivery stops, nothing overlaps.
      if (!this.#failing) {
        this.deps.warn("renewing webhook leases failed", { error: String(error) });
      }
      this.#failing = true;
      // Leases renewed or taken before the failure still count, until their own deadline.
    }
    if (this.#stopped) return;
    const changed = new Set([...this.deps.ids(), ...until.keys()]);
    for (const id of this.#held.keys()) {
      if (!until.has(id) && !this.#failing) this.#held.delete(id), changed.add(id);
    }
    for (const [id, at] of until) this.#held.set(id, at);
    for (const id of changed) this.deps.onChange(id);
  }

  /** Forgets the leases past their deadline and tells their endpoints (delivery stops). */
  #expire(): void {
    const now = performance.now();
    for (const [id, until] of this.#held) {
      if (now < until) continue;
      this.#held.delete(id);
      this.deps.onChange(id);
    }
  }
}
