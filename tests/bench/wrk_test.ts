import assert from "node:assert/strict";
import { parseWrkOutput } from "../../bench/support/wrk.ts";

const REPORT = `Running 3s test @ http://127.0.0.1:40123
  1 threads and 64 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.05ms  512.30us  21.67ms   91.12%
    Req/Sec    61.40k     3.91k   66.70k    80.00%
  Latency Distribution
     50%  852.00us
     75%    1.10ms
     90%    1.51ms
     99%    1.20s
  183305 requests in 3.00s, 58.02MB read
  Socket errors: connect 0, read 2, write 0, timeout 5
  Non-2xx or 3xx responses: 17
Requests/sec:  61086.86
Transfer/sec:     19.34MB
`;

Deno.test("parseWrkOutput reads req/s and converts p50/p99 from us, ms and s to ms", () => {
  assert.deepEqual(parseWrkOutput(REPORT), {
    requests: 183305,
    rps: 61086.86,
    p50Ms: 0.852,
    p99Ms: 1200,
    non2xx: 17,
    socketErrors: 7,
  });
});

Deno.test("parseWrkOutput counts no errors when wrk reports none", () => {
  const clean = REPORT.replace(/^\s+(Socket errors|Non-2xx).*\n/gm, "");
  const result = parseWrkOutput(clean);
  assert.deepEqual([result.non2xx, result.socketErrors], [0, 0]);
});

Deno.test("parseWrkOutput throws when the latency distribution is missing", () => {
  const withoutLatency = REPORT.replace(/^\s+99%.*\n/m, "");
  assert.throws(() => parseWrkOutput(withoutLatency), /99% latency/);
});
