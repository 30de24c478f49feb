/**
 * Which Chromium the browser tests drive: the binary CHROMIUM names, else `chromium` on PATH
 * (Debian's). `deno task test` sets CHROMIUM to @sparticuz/chromium's when there is neither.
 */
import { onPath } from "./on_path.ts";

/** The Chromium binary to launch, or undefined when this machine has none. */
export async function findChromium(): Promise<string | undefined> {
  return Deno.env.get("CHROMIUM") || await onPath("chromium");
}
