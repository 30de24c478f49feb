/** Latency buckets in seconds, for requests and for fsync. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const WEBHOOK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const FSYNC_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 1];

class Histogram {
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(readonly buckets: readonly number[]) {
    this.counts = buckets.map(() => 0);
  }
  observe(value: number): void {
    this.sum += value;
    this.count++;
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]) this.counts[i]++;
  }
  render(name: string, labels: string): string[] {
    const sep = labels === "" ? "" : ",";
    const lines = this.buckets.map((le, i) =>
      `${name}_bucket{${labels}${sep}le="${le}"} ${this.counts[i]}`
    );
    lines.push(`${name}_bucket{${labels}${sep}le="+Inf"} ${this.count}`);
    const braces = labels === "" ? "" : `{${labels}}`;
    lines.push(`${name}_sum${braces} ${this.sum}`, `${name}_count${braces} ${this.count}`);
    return lines;
  }
}

/** The service's Prometheus metrics (contract §7), rendered in the text exposition format. */
export class Metrics {
  /** Request counts by route, then method, then status: nested, so counting allocates nothing. */
  #requests = new Map<string, Map<string, Map<number, number>>>();
  #latency = new Map<string, Histogram>();
  #fsync = new Histogram(FSYNC_BUCKETS);
  #events = 0;
  #requestTime = 0;
  #listenerRestarts = 0;
  #customers: () => number;
  #included: (() => string[])[] = [];
  #webhookDeliveries = new Map<string, number>();
  #webhookLatency = new Histogram(WEBHOOK_BUCKETS);
  /** Set once webhooks are wired; until then no webhook family is rendered. */
  #webhookEndpoints: (() => { id: string; backlog: number; active: boolean }[]) | undefined;
  #webhookHeld: (() => { count: number; seconds: number }) | undefined;

  constructor(customersLive: () => number) {
    this.#customers = customersLive;
  }

  /** Seconds spent answering requests, each capped: its rate is the mean number under way. */
  get requestTime(): number {
    return this.#requestTime;
  }

  /** Counts a request by route pattern, method and status, and observes its duration. */
  observeRequest(route: string, method: string, status: number, seconds: number): void {
    this.#requestTime += Math.min(seconds, 0.05);
    let byMethod = this.#requests.get(route);
    if (byMethod === undefined) this.#requests.set(route, byMethod = new Map());
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, byStatus = new Map());
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    let histogram = this.#latency.get(route);
    if (histogram === undefined) {
      this.#latency.set(route, histogram = new Histogram(REQUEST_BUCKETS));
    }
    histogram.observe(seconds);
  }

  eventsAppended(count: number): void {
    this.#events += count;
  }

  /** Counts an episode in which accepting connections failed (out of file descriptors). */
  acceptStopped(): void {
    this.#listenerRestarts++;
  }

  /** Adds the lines another part renders (e.g. background maintenance) to every render. */
  include(render: () => string[]): void {
    this.#included.push(render);
  }

  observeFsync(seconds: number): void {
    this.#fsync.observe(seconds);
  }

  /** Counts one webhook delivery attempt by outcome and observes its duration. */
  observeWebhookDelivery(outcome: string, seconds: number): void {
    this.#webhookDeliveries.set(outcome, (this.#webhookDeliveries.get(outcome) ?? 0) + 1);
    this.#webhookLatency.observe(seconds);
  }

  /** Where each webhook endpoint's backlog and state come from (at most MAX_WEBHOOKS rows). */
  watchWebhooks(endpoints: () => { id: string; backlog: number; active: boolean }[]): void {
    this.#webhookEndpoints = endpoints;
  }

  /** Where the attempts held back while the API was busy, and their summed wait, come from. */
  watchWebhookHolds(held: () => { count: number; seconds: number }): void {
    this.#webhookHeld = held;
  }

  /** The metrics in Prometheus text format 0.0.4. */
  render(): string {
    const lines = [
      "# HELP http_requests_total HTTP requests by route pattern, method and status.",
      "# TYPE http_requests_total counter",
      ...[...this.#requests].flatMap(([route, byMethod]) =>
        [...byMethod].flatMap(([method, byStatus]) =>
          [...byStatus].map(([status, n]) =>
            `http_requests_total{route="${route}",method="${method}",status="${status}"} ${n}`
          )
        )
      ),
      "# HELP http_request_duration_seconds HTTP request latency by route pattern.",
      "# TYPE http_request_duration_seconds histogram",
      ...[...this.#latency].flatMap(([route, h]) =>
        h.render("http_request_duration_seconds", `route="${route}"`)
      ),
      "# HELP events_appended_total Events made durable in the log.",
      "# TYPE events_appended_total counter",
      `events_appended_total ${this.#events}`,
      "# HELP log_fsync_duration_seconds Latency of fdatasync on the event log.",
      "# TYPE log_fsync_duration_seconds histogram",
      ...this.#fsync.render("log_fsync_duration_seconds", ""),
      "# HELP listener_restarts_total Episodes of failed accepts (no file descriptors) that restarted the listener.",
      "# TYPE listener_restarts_total counter",
      `listener_restarts_total ${this.#listenerRestarts}`,
      "# HELP customers_live Live customers in memory.",
      "# TYPE customers_live gauge",
      `customers_live ${this.#customers()}`,
      ...processMemory(),
      ...this.#included.flatMap((render) => render()),
      ...this.#renderWebhooks(),
    ];
    return lines.join("\n") + "\n";
  }

  #renderWebhooks(): string[] {
    if (this.#webhookEndpoints === undefined) return [];
    const endpoints = this.#webhookEndpoints();
    const held = this.#webhookHeld?.();
    return [
      "# HELP webhook_deliveries_total Webhook delivery attempts by outcome.",
      "# TYPE webhook_deliveries_total counter",
      ...[...this.#webhookDeliveries].map(([outcome, n]) =>
        `webhook_deliveries_total{outcome="${outcome}"} ${n}`
      ),
      "# HELP webhook_delivery_duration_seconds Latency of webhook delivery attempts.",
      "# TYPE webhook_delivery_duration_seconds histogram",
      ...this.#webhookLatency.render("webhook_delivery_duration_seconds", ""),
      ...(held === undefined ? [] : [
        "# HELP webhook_attempts_held_total Delivery attempts that waited for their turn while the API was busy.",
        "# TYPE webhook_attempts_held_total counter",
        `webhook_attempts_held_total ${held.count}`,
        "# HELP webhook_held_seconds_total Seconds those attempts waited, summed over endpoints.",
        "# TYPE webhook_held_seconds_total counter",
        `webhook_held_seconds_total ${held.seconds}`,
      ]),
      "# HELP webhook_backlog_events Events committed but not yet delivered, per endpoint.",
      "# TYPE webhook_backlog_events gauge",
      ...endpoints.map((e) => `webhook_backlog_events{webhook_id="${e.id}"} ${e.backlog}`),
      "# HELP webhook_endpoint_active 1 while an endpoint is enabled, 0 once disabled.",
      "# TYPE webhook_endpoint_active gauge",
      ...endpoints.map((e) => `webhook_endpoint_active{webhook_id="${e.id}"} ${e.active ? 1 : 0}`),
    ];
  }
}

/** The process's resident set and V8 heap in use, so a soak or an operator can watch them. */
function processMemory(): string[] {
  const { rss, heapUsed } = Deno.memoryUsage();
  return [
    "# HELP process_resident_memory_bytes Resident set size.",
    "# TYPE process_resident_memory_bytes gauge",
    `process_resident_memory_bytes ${rss}`,
    "# HELP process_heap_used_bytes V8 heap in use (live objects plus garbage not yet collected).",
    "# TYPE process_heap_used_bytes gauge",
    `process_heap_used_bytes ${heapUsed}`,
  ];
}
