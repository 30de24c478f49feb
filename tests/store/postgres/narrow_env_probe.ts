/** Run by narrow_env_test.ts under the server's permissions: opens the store, appends, reads. */
import { PostgresEventStore } from "../../../src/store/postgres/postgres_event_store.ts";
import { created } from "../../support/events.ts";

const store = await PostgresEventStore.open(Deno.env.get("DATABASE_URL")!);
await store.replay(() => {});
const [event] = await store.append([created(1)]);
const [read] = await store.readFrom(0, 1);
await store.close();
console.log(JSON.stringify({ appended: event.seq, read: read.seq }));
