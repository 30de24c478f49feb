/** The store contract against the PostgreSQL store, each test in a fresh schema dropped after. */
import { PostgresEventStore } from "../../../src/store/postgres/postgres_event_store.ts";
import { PostgresMaintenance } from "../../../src/store/postgres/postgres_maintenance.ts";
import { eventStoreContract } from "../event_store_contract.ts";
import { createTestSchema } from "../../support/postgres.ts";

eventStoreContract("postgres store", async () => {
  const schema = await createTestSchema();
  const opened: PostgresEventStore[] = [];
  return {
    open: async () => {
      await opened.at(-1)?.close();
      const store = await PostgresEventStore.open(schema.url);
      opened.push(store);
      return store;
    },
    maintenance: (store, source) => new PostgresMaintenance(store as PostgresEventStore, source),
    dispose: async () => {
      for (const store of opened) await store.close();
      await schema.drop();
    },
  };
});
