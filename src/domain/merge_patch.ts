import { isPlainObject } from "./validation.ts";

/** Applies a JSON Merge Patch (RFC 7396) to a JSON value, modifying neither. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const result: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
    } else {
      // defineProperty keeps a "__proto__" key as plain data instead of changing the prototype.
      Object.defineProperty(result, key, {
        value: applyMergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return result;
}
