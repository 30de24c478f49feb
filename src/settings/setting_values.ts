/** Readers of plain setting values: present or not, integers, switches. */
import { ConfigError } from "./config_error.ts";

/** The environment as the configuration reads it. */
export type Env = (name: string) => string | undefined;

/** True when the variable is set to something. */
export function nonEmpty(value: string | undefined): value is string {
  return value !== undefined && value !== "";
}

/** An integer setting from `min` to `max`; unset, `fallback`. */
export function integer(
  env: (name: string) => string | undefined,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const value = env(name);
  if (!nonEmpty(value)) return fallback;
  if (!/^[0-9]+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(`${name} "${value}" must be an integer from ${min} to ${max}`);
  }
  return Number(value);
}

/** A switch: `1` or `true` on; `0`, `false` or unset off. */
export function flag(env: Env, name: string): boolean {
  const value = env(name);
  if (!nonEmpty(value) || value === "0" || value === "false") return false;
  if (value === "1" || value === "true") return true;
  throw new ConfigError(`${name} "${value}" must be 1 (on) or 0 (off)`);
}

/** A setting that is `on` or `off`; unset, `fallback`. */
export function onOff(
  env: Env,
  name: string,
  fallback: boolean,
): boolean {
  const value = env(name);
  if (!nonEmpty(value)) return fallback;
  if (value === "on" || value === "off") return value === "on";
  throw new ConfigError(`${name} "${value}" must be on or off`);
}
