/**
 * A real webhook receiver on loopback for end-to-end tests: it records every delivery with the
 * time it arrived, and answers as the test says (a status, or never).
 */
import { Webhook } from "standardwebhooks";

/** One POST the receiver got. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  contentType: string | null;
  /** The W3C trace context the delivery came with (only when the server traces). */
  traceparent: string | null;
  body: string;
  // deno-lint-ignore no-explicit-any -- the event as JSON, walked freely by tests
  event: any;
  /** Date.now() when it arrived. */
  at: number;
}

/** How the receiver answers a delivery: a status code (maybe later), or "hang" to never answer. */
export type Behaviour = (delivery: Received, count: number) => number | "hang" | Promise<number>;

/** A Deno.serve on 127.0.0.1 that records deliveries. */
export class Receiver {
  readonly received: Received[] = [];
  behaviour: Behaviour = () => 204;
  #server: Deno.HttpServer<Deno.NetAddr>;
  #hanging = new Set<() => void>();

  constructor() {
    this.#server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (req) => this.#handle(req),
    );
  }

  /** The URL to register, on a path of the test's choice. */
  url(path = "/hook"): string {
    return `http://127.0.0.1:${this.#server.addr.port}${path}`;
  }

  async #handle(request: Request): Promise<Response> {
    const body = await request.text();
    const delivery: Received = {
      id: request.headers.get("webhook-id") ?? "",
      timestamp: request.headers.get("webhook-timestamp") ?? "",
      signature: request.headers.get("webhook-signature") ?? "",
      contentType: request.headers.get("content-type"),
      traceparent: request.headers.get("traceparent"),
      body,
      event: JSON.parse(body),
      at: Date.now(),
    };
    this.received.push(delivery);
    const answer = await this.behaviour(delivery, this.received.length);
    if (answer === "hang") {
      await new Promise<void>((resolve) => this.#hanging.add(resolve));
      return new Response(null, { status: 503 });
    }
    const headers = answer >= 300 && answer < 400 ? { location: "http://127.0.0.1:1/" } : undefined;
    return new Response(null, { status: answer, headers });
  }

  /** Waits until `done` holds for what was received (polling), or fails after `ms`. */
  async waitFor(done: (received: Received[]) => boolean, ms = 10_000): Promise<Received[]> {
    const deadline = Date.now() + ms;
    while (!done(this.received)) {
      if (Date.now() > deadline) {
        throw new Error(
          `Receiver waited ${ms} ms; got ${JSON.stringify(this.received.map((r) => r.id))}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.received;
  }

  /** Releases hanging answers and stops the server. */
  async close(): Promise<void> {
    for (const release of this.#hanging) release();
    await this.#server.shutdown();
  }
}

/** Verifies a delivery with the standardwebhooks library; throws when the signature is wrong. */
export function verify(delivery: Received, secret: string): unknown {
  return new Webhook(secret).verify(delivery.body, {
    "webhook-id": delivery.id,
    "webhook-timestamp": delivery.timestamp,
    "webhook-signature": delivery.signature,
  });
}
