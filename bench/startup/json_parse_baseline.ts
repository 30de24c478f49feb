/**
 * The baseline of the startup benchmark: reads the files in 1 MiB chunks and JSON.parses every
 * line, nothing else; resolves with the seconds taken.
 */
export async function parseEveryLine(paths: string[], expected: number): Promise<number> {
  const started = performance.now();
  let lines = 0;
  for (const path of paths) {
    using file = await Deno.open(path, { read: true });
    const decoder = new TextDecoder();
    const chunk = new Uint8Array(1 << 20);
    let carry = "";
    for (let read = await file.read(chunk); read !== null; read = await file.read(chunk)) {
      const text = carry + decoder.decode(chunk.subarray(0, read), { stream: true });
      let start = 0;
      for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", start)) {
        JSON.parse(text.slice(start, end));
        lines++;
        start = end + 1;
      }
      carry = text.slice(start);
    }
  }
  if (lines !== expected) throw new Error(`The baseline parsed ${lines} lines, not ${expected}`);
  return (performance.now() - started) / 1000;
}
