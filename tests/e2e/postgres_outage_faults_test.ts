/**
 * A replica on PostgreSQL survives its database connection being cut at many moments (right after
 * "listening", while the feed index builds, during a write burst, while a webhook delivery is in
 * flight, with an SSE stream and a long poll open, while following another replica's writes), for
 * longer than any timeout, whether the connection is refused or dropped mid-query; and it recovers
 * by itself with nothing lost (tests/support/outage_round.ts says what each round checks).
 * OUTAGE_ROUNDS (default 1) repeats every case to shake out races; OUTAGE_REPORT=1 prints which
 * background tasks each round's cut reached and how soon /readyz answered 200 after the restore.
 */
import { type Moment, outageRound } from "../support/outage_round.ts";
import type { CutMode } from "../support/tcp_proxy.ts";

const ROUNDS = Number(Deno.env.get("OUTAGE_ROUNDS") ?? "1");
const REPORT = Deno.env.get("OUTAGE_REPORT") === "1";
const MOMENTS: Moment[] = [
  "startup",
  "index-build",
  "write-burst",
  "webhook-delivery",
  "streams-open",
  "following",
];
const MODES: CutMode[] = ["refuse", "reset"];

for (const moment of MOMENTS) {
  for (const mode of MODES) {
    Deno.test(`a database outage (${mode}) cut at ${moment} leaves the replica alive, and it recovers by itself`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const { tasks, readyMs } = await outageRound(moment, mode);
        if (REPORT) {
          console.log(`${moment}/${mode} #${round}: ready ${readyMs} ms; ${tasks.join(" ")}`);
        }
      }
    });
  }
}
