import { WebhookState } from "../webhook_state.ts";

/** The reference webhook store: everything in memory, nothing durable. */
export class MemoryWebhookStore extends WebhookState {}
