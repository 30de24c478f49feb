/** The store contract against the in-memory reference store. */
import { MemoryEventStore, MemoryLog } from "../../src/store/memory/memory_event_store.ts";
import { MemoryMaintenance } from "../../src/store/memory/memory_maintenance.ts";
import { eventStoreContract } from "./event_store_contract.ts";

eventStoreContract("memory store", () => {
  const log = new MemoryLog();
  return Promise.resolve({
    open: () => Promise.resolve(new MemoryEventStore(log)),
    maintenance: (store, source) => new MemoryMaintenance(store as MemoryEventStore, source),
    dispose: () => Promise.resolve(),
  });
});
