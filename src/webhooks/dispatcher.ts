import type { EventStore, ReplayedEvent } from "../store/event_store.ts";
import { LogTruncatedError } from "../store/store_errors.ts";
import type { WebhookEndpoint, WebhookStore } from "../store/webhook_store.ts";
import { publicEventJson } from "../feed/public_event.ts";
import type { Logger } from "../ops/log.ts";
import { attemptEntry, type AttemptResult, type Deliverer, type Message } from "./delivery.ts";
import { DeliveryGate } from "./delivery_gate.ts";
import { sleep } from "../lib/sleep.ts";

const BATCH = 100;
/** A loop's progress is checkpointed at most this often while it delivers (and when it stops). */
const CHECKPOINT_MS = 50;
const encoder = new TextEncoder();

/** What the dispatcher is built from. */
export interface DispatcherDeps {
  /** For the head (lastSeq) and waiting for commits. */
  events: EventStore;
  /** Where events are read: the recent events shared with the feed, cleared by compaction. */
  tail: Pick<EventStore, "readFrom">;
  /** The first seq still served (EVENT_RETENTION); an endpoint behind it is disabled. */
  oldestSeq?: () => number;
  webhooks: WebhookStore;
  deliverer: Deliverer;
  /** The pauses before each retry, in ms; after the last one fails the endpoint is disabled. */
  retryScheduleMs: readonly number[];
  /** Disables an endpoint with a reason (through the service, so versions stay serial). */
  disable: (id: string, reason: string) => Promise<void>;
  log: Pick<Logger, "warn" | "error">;
  /** Told of each failed state write (`webhook_state`) and loop (`webhook_loop`); both retry. */
  failed?: (task: "webhook_state" | "webhook_loop", error: unknown) => void;
  /** Observes every attempt's outcome (`success`, `failure`, `timeout`...) and duration. */
  observe?: (outcome: string, seconds: number) => void;
  /** Replicas sharing endpoints: true while this process holds the lease; absent, it owns all. */
  owns?: (id: string) => boolean;
  /** True while the API is saturated: deliveries then start at a bounded rate (DeliveryGate). */
  apiBusy?: () => boolean;
  clock?: () => number;
}

/** Messages by event: one body, serialised and encoded once, for every endpoint. */
const messages = new WeakMap<ReplayedEvent, Message>();

/** The message of an event: `webhook-id` is derived from seq, so it is stable across retries. */
export function eventMessage(event: ReplayedEvent): Message {
  let message = messages.get(event);
  if (message === undefined) {
    const body = publicEventJson(event);
    message = { id: `evt_${event.seq}`, type: event.type, seq: event.seq, body };
    message.bytes = encoder.encode(body);
    messages.set(event, message);
  }
  return message;
}

/**
 * Delivers the log to every enabled endpoint, one loop each so a slow one delays no other: events
 * in seq order, the oldest undelivered one retried on the schedule, progress checkpointed.
 */
export class WebhookDispatcher {
  #loops = new Map<string, { stop: AbortController; done: Promise<void> }>();
  #stopped = false;
  readonly #clock: () => number;
  readonly #gate: DeliveryGate;

  constructor(private readonly deps: DispatcherDeps) {
    this.#clock = deps.clock ?? Date.now;
    this.#gate = new DeliveryGate(deps.apiBusy);
  }

  /** Starts a loop for every enabled endpoint. */
  start(): void {
    for (const endpoint of this.deps.webhooks.list()) this.sync(endpoint.id);
  }

  /** Starts or stops an endpoint's loop to match its stored state (called after each change). */
  sync(id: string): void {
    if (this.#stopped) return;
    const endpoint = this.deps.webhooks.get(id);
    const loop = this.#loops.get(id);
    const active = endpoint?.enabled === true && this.#owns(id);
    if (active && loop === undefined) {
      const stop = new AbortController();
      let pause = 0;
      const done = this.#run(id, stop.signal).catch((error) => {
        // A failing store must not spin: the loop starts again after a pause.
        pause = 1000;
        this.deps.failed?.("webhook_loop", error);
        this.deps.log.error("webhook loop failed", { webhook_id: id, error: String(error) });
      }).finally(() => {
        if (this.#loops.get(id)?.stop === stop) this.#loops.delete(id);
        // No loop goes on for it: its connection is not kept open for nothing.
        if (!this.#loops.has(id)) this.deps.deliverer.forget(id);
        // A change made while the loop was ending is picked up then.
        if (!stop.signal.aborted) setTimeout(() => this.sync(id), pause);
      });
      this.#loops.set(id, { stop, done });
    } else if (!active && loop !== undefined) {
      loop.stop.abort();
      this.#loops.delete(id);
    }
  }

  /** Stops every loop and waits for them (an attempt in flight is abandoned, not recorded). */
  async stop(): Promise<void> {
    this.#stopped = true;
    const loops = [...this.#loops.values()];
    for (const loop of loops) loop.stop.abort();
    this.#gate.release();
    await Promise.all(loops.map((loop) => loop.done));
    this.deps.deliverer.close();
  }

  /** Attempts so far that waited for their turn because the API was busy (DeliveryGate). */
  get heldAttempts(): { count: number; seconds: number } {
    return { count: this.#gate.held, seconds: this.#gate.waitedSeconds };
  }

  /** Events not yet delivered to an endpoint: the log's last seq minus its checkpoint. */
  backlog(id: string): number {
    const endpoint = this.deps.webhooks.get(id);
    return endpoint === undefined ? 0 : Math.max(0, this.deps.events.lastSeq - endpoint.last_seq);
  }

  /** One attempt outside the order (a ping), recorded in the deliveries log. */
  async sendNow(id: string, message: Message): Promise<AttemptResult> {
    const endpoint = this.deps.webhooks.get(id);
    if (endpoint === undefined) throw new Error(`No webhook endpoint "${id}"`);
    const at = this.#clock();
    const result = await this.deps.deliverer.attempt(endpoint, message);
    this.#observe(id, message, result);
    await this.deps.webhooks.recordAttempt(id, attemptEntry(message, 1, at, result, null));
    return result;
  }

  async #run(id: string, signal: AbortSignal): Promise<void> {
    let cursor = this.deps.webhooks.get(id)?.last_seq ?? 0;
    let written = cursor, checkpointed = this.#clock();
    const checkpoint = () => {
      if (cursor > written) this.#background(this.deps.webhooks.checkpoint(id, written = cursor));
      checkpointed = this.#clock();
    };
    try {
      while (!signal.aborted) {
        let events: ReplayedEvent[];
        try {
          if (cursor < (this.deps.oldestSeq?.() ?? 0) - 1) throw new LogTruncatedError(cursor, 0);
          events = await this.deps.tail.readFrom(cursor, BATCH);
        } catch (error) {
          if (!(error instanceof LogTruncatedError)) throw error;
          // Retention dropped (or may drop) events this endpoint never got: stop, not skip them.
          await this.deps.disable(id, "retention");
          return;
        }
        if (events.length === 0) {
          await this.deps.events.waitForCommit(cursor, signal).catch(() => {});
        }
        for (const event of events) {
          const endpoint = this.deps.webhooks.get(id);
          if (signal.aborted || endpoint === undefined || !endpoint.enabled || !this.#owns(id)) {
            return;
          }
          if (endpoint.types.includes(event.type)) {
            if (!await this.#deliver(endpoint, eventMessage(event), signal)) return;
          }
          cursor = event.seq;
          // One checkpoint per interval of progress, not one per delivery; one after each batch.
          if (this.#clock() - checkpointed >= CHECKPOINT_MS) checkpoint();
        }
        checkpoint();
      }
    } finally {
      // Stopped, disabled or no longer owned: what was delivered is not sent again.
      checkpoint();
    }
  }

  /** Tries one event until a 2xx (true) or until the endpoint is disabled or stopped (false). */
  async #deliver(
    first: WebhookEndpoint,
    message: Message,
    signal: AbortSignal,
  ): Promise<boolean> {
    const schedule = this.deps.retryScheduleMs;
    const id = first.id;
    for (let attempt = 1;; attempt++) {
      // A retry sees the endpoint as it is now (disabled, rotated, moved meanwhile).
      const endpoint = attempt === 1 ? first : this.deps.webhooks.get(id);
      if (signal.aborted || endpoint === undefined || !endpoint.enabled) return false;
      const turn = this.#gate.enter();
      if (turn !== undefined) await turn;
      if (signal.aborted || !this.#owns(id)) return false;
      const at = this.#clock();
      // Shared endpoints: losing the lease cuts the attempt off, before another replica starts.
      const cut = this.deps.owns === undefined ? undefined : signal;
      const result = await this.deps.deliverer.attempt(endpoint, message, cut, attempt);
      if (signal.aborted) return false;
      this.#observe(id, message, result);
      const last = result.gone || attempt > schedule.length;
      const nextAt = result.ok || last ? null : this.#clock() + schedule[attempt - 1];
      this.#background(
        this.deps.webhooks.recordAttempt(id, attemptEntry(message, attempt, at, result, nextAt)),
      );
      if (result.ok) return true;
      // Everything before this event is delivered: that progress must not wait for the retry.
      if (attempt === 1) this.#background(this.deps.webhooks.checkpoint(id, message.seq - 1));
      this.deps.log.warn("webhook delivery failed", {
        webhook_id: id,
        seq: message.seq,
        attempt,
        status_code: result.statusCode,
        error: result.error,
        next_attempt_at: nextAt === null ? null : new Date(nextAt).toISOString(),
      });
      if (last) {
        await this.deps.disable(
          id,
          result.gone ? "gone" : `failures: ${attempt} attempts of seq ${message.seq} failed`,
        );
        return false;
      }
      await sleep(schedule[attempt - 1], signal);
    }
  }

  #owns(id: string): boolean {
    return this.deps.owns?.(id) ?? true;
  }

  #observe(_id: string, _message: Message, result: AttemptResult): void {
    const outcome = result.ok
      ? "success"
      : result.statusCode !== null
      ? (result.statusCode >= 300 && result.statusCode < 400 ? "redirect" : "http_error")
      : result.error?.startsWith("no answer within")
      ? "timeout"
      : "network_error";
    this.deps.observe?.(outcome, result.durationMs / 1000);
  }

  #background(write: Promise<void>): void {
    write.catch((error) => {
      this.deps.failed?.("webhook_state", error);
      this.deps.log.error("webhook state write failed", { error: String(error) });
    });
  }
}
