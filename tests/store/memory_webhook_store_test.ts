/** The webhook store contract against the in-memory reference store. */
import { MemoryWebhookStore } from "../../src/store/memory/memory_webhook_store.ts";
import { webhookStoreContract } from "./webhook_store_contract.ts";

webhookStoreContract("memory webhook store", () =>
  Promise.resolve({
    open: () => Promise.resolve(new MemoryWebhookStore()),
    durable: false,
    dispose: () => Promise.resolve(),
  }));
