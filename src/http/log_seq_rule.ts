import { pathnameOf } from "./request_path.ts";

/** Which answers carry `Log-Seq` whoever makes them: every one under `paths`, at `seq()`. */
export interface LogSeqRule {
  paths: readonly string[];
  seq: () => number;
}

/** Sets `Log-Seq` on an answer to `url` that the rule covers and that has none yet. */
export function markLogSeq(rule: LogSeqRule | undefined, url: string, headers: Headers): void {
  if (rule === undefined || headers.has("log-seq")) return;
  const pathname = pathnameOf(url);
  if (rule.paths.some((path) => pathname === path || pathname.startsWith(`${path}/`))) {
    headers.set("log-seq", String(rule.seq()));
  }
}
