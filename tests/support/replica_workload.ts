/**
 * Concurrent writers over every live replica: fresh creates, racing creates with one email, racing
 * If-Match patches, reused Idempotency-Keys, patches and deletes. Every answer goes to the ledger.
 */
import { type ApiResponse, newCustomer, type RequestOptions } from "./api.ts";
import type { Replica, ReplicaSet } from "./replica_set.ts";
import type { RaceAnswer, WriteLedger } from "./write_ledger.ts";

/** A customer some writer created, with the last version a writer saw. */
interface Known {
  id: string;
  version: number;
}

const MERGE_PATCH = "application/merge-patch+json";

/** Runs `writers` writers until `until` (a performance.now() deadline). */
export async function runWriters(
  set: ReplicaSet,
  ledger: WriteLedger,
  writers: number,
  until: number,
): Promise<void> {
  const known: Known[] = [];
  const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)];
  /** Two different live replicas when there are two (a race crosses processes). */
  const two = (): Replica[] => {
    const live = set.live;
    const first = pick(live);
    return [first, pick(live.filter((r) => r !== first)) ?? first];
  };
  const send = async (
    replica: Replica,
    method: string,
    path: string,
    options: RequestOptions,
  ): Promise<ApiResponse | undefined> => {
    try {
      return await replica.api?.request(method, path, options);
    } catch {
      return undefined; // The replica died under the request: no answer, nothing acknowledged.
    }
  };

  const create = async () => {
    const replica = pick(set.live);
    const res = await send(replica, "POST", "/api/customers", { json: newCustomer() });
    ledger.note("create", replica.index, res);
    if (res?.status === 201) known.push({ id: res.body.id, version: 1 });
  };
  const emailRace = async () => {
    const body = newCustomer();
    const answers = await Promise.all(
      two().map(async (replica) => {
        const res = await send(replica, "POST", "/api/customers", { json: body });
        if (res?.status === 201) known.push({ id: res.body.id, version: 1 });
        return ledger.note("create", replica.index, res);
      }),
    );
    ledger.emailRaces.push(answers);
  };
  const keyed = async () => {
    const key = crypto.randomUUID();
    const body = newCustomer();
    const answers = ledger.keyed.set(key, []).get(key)!;
    const post = async (replica: Replica) => {
      const res = await send(replica, "POST", "/api/customers", {
        json: body,
        headers: { "idempotency-key": key },
      });
      answers.push(ledger.note("create", replica.index, res));
      if (res?.status === 201 && !known.some((k) => k.id === res.body.id)) {
        known.push({ id: res.body.id, version: 1 });
      }
    };
    await Promise.all(two().map(post)); // Two at once, on two replicas,
    await post(pick(set.live)); // then once more, after both answered.
  };
  const patch = async (target: Known, replica: Replica): Promise<RaceAnswer> => {
    const res = await send(replica, "PATCH", `/api/customers/${target.id}`, {
      json: { name: `Patched ${crypto.randomUUID()}` },
      contentType: MERGE_PATCH,
      headers: { "if-match": `"${target.version}"` },
    });
    const answer = ledger.note("patch", replica.index, res, target.id);
    if (res?.status === 200) target.version = Math.max(target.version, res.body.version);
    if (res?.status === 412 || res?.status === 404) await refresh(target, replica);
    return answer;
  };
  const forget = (target: Known) => {
    const at = known.indexOf(target);
    if (at >= 0) known.splice(at, 1);
  };
  const refresh = async (target: Known, replica: Replica) => {
    const res = await send(replica, "GET", `/api/customers/${target.id}`, {});
    if (res?.status === 200) target.version = Math.max(target.version, res.body.version);
    if (res?.status === 404) forget(target);
  };
  const ifMatchRace = async (target: Known) => {
    const from = { ...target };
    const answers = await Promise.all(two().map((replica) => patch(from, replica)));
    target.version = Math.max(target.version, from.version);
    ledger.ifMatchRaces.push(answers);
  };
  const remove = async (target: Known) => {
    const replica = pick(set.live);
    const res = await send(replica, "DELETE", `/api/customers/${target.id}`, {
      headers: { "if-match": `"${target.version}"` },
    });
    ledger.note("delete", replica.index, res, target.id);
    if (res?.status === 204 || res?.status === 404) forget(target);
    if (res?.status === 412) await refresh(target, replica);
  };

  const writer = async () => {
    while (performance.now() < until) {
      const roll = Math.random();
      const target = known.length > 0 ? pick(known) : undefined;
      if (target === undefined || roll < 0.3) await create();
      else if (roll < 0.4) await emailRace();
      else if (roll < 0.5) await keyed();
      else if (roll < 0.75) await patch(target, pick(set.live));
      else if (roll < 0.92) await ifMatchRace(target);
      else await remove(target);
    }
  };
  await Promise.all(Array.from({ length: writers }, writer));
}
