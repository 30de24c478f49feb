/** A small Dockerfile reader for tests: instructions with continuations joined, comments dropped. */

/** One instruction, e.g. `{ keyword: "CMD", args: '["deno", "run"]', stage: "app", line: 70 }`. */
export interface Instruction {
  keyword: string;
  args: string;
  /** The name of the build stage (`FROM … AS name`) the instruction belongs to. */
  stage: string;
  /** 1-based line the instruction starts on. */
  line: number;
}

/** Splits a Dockerfile into instructions (no parser directives or heredocs: we use none). */
export function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let stage = "";
  let pending = "";
  let start = 0;
  text.split("\n").forEach((raw, index) => {
    const line = raw.trimEnd();
    if (pending === "" && (line.trim() === "" || line.trimStart().startsWith("#"))) return;
    if (pending !== "" && line.trimStart().startsWith("#")) return;
    if (pending === "") start = index + 1;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      return;
    }
    const whole = (pending + line).trim();
    pending = "";
    const [keyword, ...rest] = whole.split(/\s+/);
    const args = whole.slice(keyword.length).trim();
    if (keyword.toUpperCase() === "FROM") {
      const as = rest.findIndex((word) => word.toUpperCase() === "AS");
      stage = as >= 0 ? rest[as + 1] : "";
    }
    instructions.push({ keyword: keyword.toUpperCase(), args, stage, line: start });
  });
  return instructions;
}

/** The one instruction `keyword` of `stage`; throws if there is none or more than one. */
export function only(instructions: Instruction[], keyword: string, stage: string): Instruction {
  const found = instructions.filter((i) => i.keyword === keyword && i.stage === stage);
  if (found.length !== 1) {
    throw new Error(`Expected one ${keyword} in stage "${stage}", found ${found.length}`);
  }
  return found[0];
}

/** The exec (JSON array) form of CMD, ENTRYPOINT or `HEALTHCHECK … CMD`; throws on shell form. */
export function execForm(args: string): string[] {
  const json = args.slice(args.indexOf("["));
  const parsed: unknown = JSON.parse(json);
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === "string")) {
    throw new Error(`Not an exec-form array of strings: ${args}`);
  }
  return parsed;
}
