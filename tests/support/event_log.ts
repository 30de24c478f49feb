/** Reads the server's JSONL event log straight from disk, as an auditor would. */

const EVENT_TYPE = /^customer\.(created|updated|deleted)$/;

/** One event line as found on disk. */
export interface LoggedEvent {
  file: string;
  line: number;
  raw: string;
  // deno-lint-ignore no-explicit-any -- the on-disk shape is only partly fixed by the contract
  event: any;
}

/**
 * Every event line (a JSON object whose `type` is `customer.created|updated|deleted`) in the
 * `*.jsonl` files under `dataDir`; other JSONL lines, such as snapshot entries, are skipped.
 */
export async function readEvents(dataDir: string): Promise<LoggedEvent[]> {
  const events: LoggedEvent[] = [];
  for (const file of await findLogFiles(dataDir)) {
    const text = await Deno.readTextFile(file);
    for (const [index, raw] of text.split("\n").entries()) {
      if (raw.trim() === "") continue;
      let event;
      try {
        event = JSON.parse(raw);
      } catch {
        throw new Error(`Line ${index + 1} of "${file}" is not JSON: ${raw.slice(0, 200)}`);
      }
      if (EVENT_TYPE.test(event?.type)) events.push({ file, line: index + 1, raw, event });
    }
  }
  return events;
}

/** The `seq` of every event line under `dataDir`, in file-then-line order. */
export async function readSequenceNumbers(dataDir: string): Promise<number[]> {
  return (await readEvents(dataDir)).map(({ file, line, event }) => {
    if (typeof event.seq !== "number") throw new Error(`No numeric "seq" in ${file}:${line}`);
    return event.seq;
  });
}

/** Paths of every `*.jsonl` file anywhere under `dir`, sorted. */
export async function findLogFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) found.push(...await findLogFiles(path));
    else if (entry.isFile && entry.name.endsWith(".jsonl")) found.push(path);
  }
  return found.sort();
}
