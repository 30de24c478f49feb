import type { CustomerProjection } from "./projection.ts";

/**
 * Gives every record of the projection a JSON text of its own (CustomerProjection.ownTexts),
 * `batch` records per macrotask so that requests are answered in between; run once after startup.
 */
export async function ownAllTexts(projection: CustomerProjection, batch = 1000): Promise<void> {
  for (let at = 0; at !== -1; at = projection.ownTexts(at, batch)) {
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
