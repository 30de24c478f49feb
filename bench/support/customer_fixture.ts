/**
 * A DATA_DIR holding exactly N live customers: the event log fixture, cut at the first event
 * after which N customers are live (a prefix of the fixture is itself a valid log).
 */
import type { Customer } from "../../src/domain/customer.ts";
import { type EventLogOptions, writeEventLog } from "./event_log_fixture.ts";

/** What the data directory holds. */
export interface CustomerFixture {
  dataDir: string;
  /** The log's only segment. */
  logPath: string;
  /** Events in the log. */
  events: number;
  /** Ids of the live customers (all of them, in creation order). */
  ids: string[];
  /** The live customers themselves, when asked for (they cost memory at a million). */
  customers?: Customer[];
}

/** Events per live customer in the fixture's mix (80 % creates, 5 % deletes), with a margin. */
const EVENTS_PER_LIVE = 1.4;

/** Writes dataDir/log with exactly `live` live customers; `keep` also returns their data. */
export async function writeCustomerFixture(
  dataDir: string,
  live: number,
  keep = false,
  options: EventLogOptions = {},
): Promise<CustomerFixture> {
  const log = await writeEventLog(dataDir, Math.ceil(live * EVENTS_PER_LIVE) + 100, options);
  const cut = await findCut(log.path, live);
  if (cut === undefined) throw new Error(`The fixture never reached ${live} live customers`);
  await Deno.truncate(log.path, cut.bytes);
  const customers = new Map<string, Customer | null>();
  await eachEvent(log.path, (event) => {
    if (event.type === "customer.deleted") customers.delete(event.id);
    else customers.set(event.id, keep ? event.data : null);
    return false;
  });
  return {
    dataDir,
    logPath: log.path,
    events: cut.events,
    ids: [...customers.keys()],
    customers: keep ? [...customers.values()] as Customer[] : undefined,
  };
}

interface Event {
  type: string;
  id: string;
  data: Customer | null;
}

/** The byte length and event count of the shortest prefix with `live` live customers. */
async function findCut(
  path: string,
  live: number,
): Promise<{ bytes: number; events: number } | undefined> {
  let count = 0;
  let events = 0;
  let found: { bytes: number; events: number } | undefined;
  await eachEvent(path, (event, end) => {
    events++;
    count += event.type === "customer.created" ? 1 : event.type === "customer.deleted" ? -1 : 0;
    if (count === live) found = { bytes: end, events };
    return found !== undefined;
  });
  return found;
}

/** Calls onEvent with each event and the byte offset just past its line, until it returns true. */
async function eachEvent(
  path: string,
  onEvent: (event: Event, end: number) => boolean,
): Promise<void> {
  using file = await Deno.open(path, { read: true });
  const chunk = new Uint8Array(1 << 20);
  const decoder = new TextDecoder();
  let carry = new Uint8Array(0);
  let offset = 0;
  for (let read = await file.read(chunk); read !== null; read = await file.read(chunk)) {
    const bytes = new Uint8Array(carry.length + read);
    bytes.set(carry);
    bytes.set(chunk.subarray(0, read), carry.length);
    let start = 0;
    for (let end = bytes.indexOf(10); end !== -1; end = bytes.indexOf(10, start)) {
      const event = JSON.parse(decoder.decode(bytes.subarray(start, end))) as Event;
      if (onEvent(event, offset + end + 1)) return;
      start = end + 1;
    }
    offset += start;
    carry = bytes.slice(start);
  }
}
