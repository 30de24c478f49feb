import { ATTEMPTS_KEPT, type DeliveryAttempt, type WebhookEndpoint } from "../webhook_store.ts";
import { CorruptRecordError, decodeLine } from "./checked_line.ts";

/** One change as a line of the webhooks file. */
export type Change =
  | { op: "put"; endpoint: WebhookEndpoint }
  | { op: "remove"; id: string }
  | { op: "checkpoint"; id: string; last_seq: number }
  | { op: "attempt"; id: string; attempt: DeliveryAttempt };

/** The webhooks file holds damage that is not a torn last line. */
export class WebhookFileDamagedError extends Error {
  constructor(path: string, line: number, reason: string) {
    super(`Webhooks file "${path}" is damaged at line ${line}: ${reason}`);
    this.name = "WebhookFileDamagedError";
  }
}

/** The changes of a webhooks file, and how many of its bytes hold whole, checked lines. */
export async function readWebhookFile(
  path: string,
  warn?: (message: string, fields: Record<string, unknown>) => void,
): Promise<{ changes: Change[]; validBytes: number; length: number }> {
  const changes: Change[] = [];
  let validBytes = 0;
  const bytes = await Deno.readFile(path).catch((error) => {
    if (error instanceof Deno.errors.NotFound) return new Uint8Array(0);
    throw error;
  });
  let start = 0;
  let lineNo = 0;
  while (start < bytes.length) {
    lineNo++;
    const end = bytes.indexOf(0x0a, start);
    const line = bytes.subarray(start, end === -1 ? bytes.length : end);
    try {
      if (end === -1) throw new CorruptRecordError("Line has no newline");
      changes.push(decodeLine(line) as unknown as Change);
    } catch (error) {
      if (!(error instanceof CorruptRecordError)) throw error;
      // Only the last line can be torn by a crash; damage before it is refused.
      if (end !== -1 && end + 1 < bytes.length) {
        throw new WebhookFileDamagedError(path, lineNo, error.message);
      }
      warn?.("Cut a torn last line off the webhooks file", { file: path, line: lineNo });
      break;
    }
    validBytes = end + 1;
    start = end + 1;
  }
  return { changes, validBytes, length: bytes.length };
}

/** The changes of a batch a replay needs: not checkpoints or attempts that newer ones replace. */
export function neededLines(changes: readonly Change[]): Set<Change> {
  const needed = new Set<Change>();
  const checkpointed = new Set<string>();
  const attempts = new Map<string, number>();
  for (let i = changes.length - 1; i >= 0; i--) {
    const change = changes[i];
    if (change.op === "checkpoint") {
      if (checkpointed.has(change.id)) continue;
      checkpointed.add(change.id);
    } else if (change.op === "attempt") {
      const kept = attempts.get(change.id) ?? 0;
      if (kept >= ATTEMPTS_KEPT) continue;
      attempts.set(change.id, kept + 1);
    }
    needed.add(change);
  }
  return needed;
}
