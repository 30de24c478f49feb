/** The path of the executable `name` in a directory of PATH, as a shell finds it, or undefined. */
export async function onPath(name: string): Promise<string | undefined> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":").filter((dir) => dir !== "")) {
    try {
      const info = await Deno.stat(`${dir}/${name}`);
      if (info.isFile && ((info.mode ?? 0) & 0o111) !== 0) return `${dir}/${name}`;
    } catch {
      // Not in this directory.
    }
  }
  return undefined;
}
