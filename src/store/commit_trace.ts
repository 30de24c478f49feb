/** One append of a traced group: what `queued` gave it, and how it ended. */
export interface TracedAppend {
  token: unknown;
  events: number;
  /** The seq of its last event once durable; undefined when it was refused or failed. */
  lastSeq?: number;
  error?: unknown;
}

/** A timed step of a group's commit (a write, an fdatasync, the database call). */
export interface CommitStep {
  name: string;
  start: number;
  end: number;
}

/** One group commit, told once it is over (times in performance.now() milliseconds). */
export interface TracedGroup {
  backend: "jsonl" | "postgres";
  appends: TracedAppend[];
  start: number;
  end: number;
  steps: CommitStep[];
}

/** Traces group commits; a store given none measures nothing. */
export interface CommitTrace {
  /** Called as an append is queued, in its caller's context: its group's spans go under it. */
  queued(): unknown;
  committed(group: TracedGroup): void;
}

/** Times one group at a time (a store commits its groups one after the other) for a trace. */
export class GroupSteps {
  #trace: CommitTrace;
  #backend: TracedGroup["backend"];
  #start = 0;
  #steps: CommitStep[] = [];

  constructor(trace: CommitTrace, backend: TracedGroup["backend"]) {
    this.#trace = trace;
    this.#backend = backend;
  }

  /** Called as an append is queued, in its caller's context (CommitTrace.queued). */
  queued(): unknown {
    return this.#trace.queued();
  }

  /** A group begins to commit. */
  begin(start = performance.now()): void {
    this.#start = start;
    this.#steps = [];
  }

  /** Records a step of the group in progress. */
  step(name: string, start: number, end = performance.now()): void {
    this.#steps.push({ name, start, end });
  }

  /** `work`, each call timed as a step named `name` of the group in progress. */
  timed<A extends unknown[]>(
    name: string,
    work: (...args: A) => Promise<void>,
  ): (...args: A) => Promise<void> {
    return async (...args) => {
      const start = performance.now();
      try {
        await work(...args);
      } finally {
        this.step(name, start);
      }
    };
  }

  /** Tells the trace the group is over, with each append's outcome. */
  told(appends: TracedAppend[]): void {
    const [backend, start, steps] = [this.#backend, this.#start, this.#steps];
    this.#trace.committed({ backend, appends, start, end: performance.now(), steps });
  }
}

/** `work` timed by `steps` when there are any (tracing on); else `work` itself. */
export function timedBy<A extends unknown[]>(
  steps: GroupSteps | undefined,
  name: string,
  work: (...args: A) => Promise<void>,
): (...args: A) => Promise<void> {
  return steps === undefined ? work : steps.timed(name, work);
}
