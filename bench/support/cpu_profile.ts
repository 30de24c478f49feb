/** Summarises a V8 .cpuprofile: where the time went before a cut-off frame first appeared. */

/** One node of a V8 .cpuprofile call tree. */
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** A V8 .cpuprofile as written by `--cpu-prof`. */
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A function's share of the profiled span. */
export interface FunctionTime {
  name: string;
  ms: number;
  share: number;
}

/** Self time of the top functions, and inclusive time of the top functions under `src/`. */
export interface ProfileSummary {
  totalMs: number;
  self: FunctionTime[];
  inclusive: FunctionTime[];
}

/**
 * Reads a profile and summarises the samples before the first one whose stack holds a frame
 * `stopAt` accepts (e.g. the background compaction that follows startup).
 */
export async function summariseProfile(
  path: string,
  stopAt: (functionName: string, url: string) => boolean,
  top = 12,
): Promise<ProfileSummary> {
  const profile: CpuProfile = JSON.parse(await Deno.readTextFile(path));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const stack = (id: number): ProfileNode[] => {
    const frames: ProfileNode[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      frames.push(byId.get(at)!);
    }
    return frames;
  };

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let totalMs = 0;
  for (const [i, id] of profile.samples.entries()) {
    const frames = stack(id);
    if (frames.some((f) => stopAt(f.callFrame.functionName, f.callFrame.url))) break;
    const ms = profile.timeDeltas[i] / 1000;
    totalMs += ms;
    add(self, label(frames[0]), ms);
    const seen = new Set(frames.filter((f) => f.callFrame.url.includes("/src/")).map(label));
    for (const name of seen) add(inclusive, name, ms);
  }
  const ranked = (times: Map<string, number>) =>
    [...times].sort((a, b) => b[1] - a[1]).slice(0, top)
      .map(([name, ms]) => ({ name, ms, share: ms / totalMs }));
  return { totalMs, self: ranked(self), inclusive: ranked(inclusive) };
}

/** Prints a summary as two small tables. */
export function printProfile(summary: ProfileSummary): void {
  const row = (f: FunctionTime) =>
    `  ${f.ms.toFixed(0).padStart(7)} ms ${(f.share * 100).toFixed(1).padStart(5)} %  ${f.name}`;
  console.log(`${summary.totalMs.toFixed(0)} ms sampled; self time:`);
  for (const f of summary.self) console.log(row(f));
  console.log("inclusive time of src/ functions:");
  for (const f of summary.inclusive) console.log(row(f));
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  if (url === "") return functionName || "(anonymous)";
  const file = url.slice(url.lastIndexOf("/", url.lastIndexOf("/") - 1) + 1);
  return `${functionName || "(anonymous)"} ${file}:${lineNumber + 1}`;
}

function add(times: Map<string, number>, name: string, ms: number): void {
  times.set(name, (times.get(name) ?? 0) + ms);
}
