import { PROBLEM_JSON } from "./media_types.ts";
import {
  INTERNAL_DETAIL,
  PROBLEM_TYPES,
  type ProblemSource,
  problemTableChanges,
  type ProblemType,
} from "./problem_types.ts";

/** Each error class's row of the table, by its prototype (instanceof, most specific first). */
let byPrototype = new Map<object, [ProblemType, ProblemSource]>();
let builtAt = -1;

function rows(): Map<object, [ProblemType, ProblemSource]> {
  if (builtAt !== problemTableChanges()) {
    byPrototype = new Map(
      Object.values(PROBLEM_TYPES).flatMap((type) =>
        type.sources.map((source) => [source.error.prototype, [type, source]] as const)
      ),
    );
    builtAt = problemTableChanges();
  }
  return byPrototype;
}

/** The one place errors become HTTP answers: client errors expose their message, a 500 nothing. */
export function problemResponse(error: unknown, requestId: string): Response {
  const [type, source] = rowOf(error) ?? [PROBLEM_TYPES["internal-error"], undefined];
  const body: Record<string, unknown> = {
    type: type.type,
    title: type.title,
    status: type.status,
    detail: source === undefined ? INTERNAL_DETAIL : source.detail ?? (error as Error).message,
    request_id: requestId,
  };
  const headers: Record<string, string> = { "content-type": PROBLEM_JSON };
  for (const [name, member] of Object.entries(source?.members ?? {})) {
    body[name] = member(error as Error);
  }
  for (const [name, header] of Object.entries(source?.headers ?? {})) {
    headers[name] = header(error as Error);
  }
  return new Response(JSON.stringify(body), { status: type.status, headers });
}

/** The row of the error's class, or of the nearest ancestor class that has one. */
function rowOf(error: unknown): [ProblemType, ProblemSource] | undefined {
  if (!(error instanceof Error)) return undefined;
  const table = rows();
  let prototype = Object.getPrototypeOf(error);
  while (prototype !== null) {
    const row = table.get(prototype);
    if (row !== undefined) return row;
    prototype = Object.getPrototypeOf(prototype);
  }
  return undefined;
}
