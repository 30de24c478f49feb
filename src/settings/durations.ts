import { ConfigError } from "./config_error.ts";
import { type Env, nonEmpty } from "./setting_values.ts";

/** The duration settings with their defaults, spelled as the README spells them. */
export const DURATION_DEFAULTS = {
  BODY_TIMEOUT: "30s",
  EVENT_RETENTION: "30d",
  SSE_HEARTBEAT: "15s",
  STREAM_TOKEN_TTL: "60s",
  WEBHOOK_TIMEOUT: "10s",
  WEBHOOK_RETRY_SCHEDULE: "5s,5m,30m,2h,5h,10h,10h",
} as const;

/** The name of a setting whose value is a duration (or, for the retry schedule, a list of them). */
export type DurationSetting = keyof typeof DURATION_DEFAULTS;

/** Each duration setting's value as written, or its default's spelling when unset. */
export function durationsAsWritten(
  env: (name: string) => string | undefined,
): Record<DurationSetting, string> {
  const names = Object.keys(DURATION_DEFAULTS) as DurationSetting[];
  return Object.fromEntries(
    names.map((name) => [name, nonEmpty(env(name)) ? env(name) : DURATION_DEFAULTS[name]]),
  ) as Record<DurationSetting, string>;
}

export const DAY_MS = 86_400_000;

const DURATION_UNITS_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: DAY_MS,
};
const MAX_DURATION_MS = 24 * 3_600_000;

/** A duration such as `500ms` or `2m` in ms, within `minMs` and `maxMs`; unset, its default. */
export function duration(
  env: Env,
  name: DurationSetting,
  maxMs = MAX_DURATION_MS,
  minMs = 1,
): number {
  const value = env(name);
  if (!nonEmpty(value)) return durationMs(DURATION_DEFAULTS[name], maxMs)!;
  const ms = durationMs(value, maxMs);
  if (ms === undefined || ms < minMs) {
    const range = maxMs > DAY_MS
      ? `1ms to ${maxMs / DAY_MS}d such as 10s, 2h or 30d`
      : maxMs < MAX_DURATION_MS
      ? `${minMs / 1000}s to ${maxMs / 1000}s such as ${minMs / 1000}s or ${maxMs / 1000}s`
      : "1ms to 24h such as 500ms, 10s, 2m or 1h";
    throw new ConfigError(`${name} "${value}" must be a duration from ${range}`);
  }
  return ms;
}

/** A duration such as `500ms`, `10s`, `2m`, `1h` or `30d` within 1 ms and `maxMs`. */
function durationMs(value: string, maxMs: number): number | undefined {
  const match = /^([0-9]+)(ms|s|m|h|d)$/.exec(value);
  const ms = match === null ? NaN : Number(match[1]) * DURATION_UNITS_MS[match[2]];
  return ms >= 1 && ms <= maxMs ? ms : undefined;
}

/** A comma-separated list of 1 to 20 durations (each 1ms to 24h), e.g. `1s,2s,4s`. */
export function durations(env: Env, name: DurationSetting): number[] {
  const value = env(name) || DURATION_DEFAULTS[name];
  const items = value.split(",").map((item) => durationMs(item.trim(), MAX_DURATION_MS));
  if (items.length > 20 || items.some((ms) => ms === undefined)) {
    throw new ConfigError(
      `${name} "${value}" must be 1 to 20 comma-separated durations from 1ms to 24h, such as 1s,2s,4s`,
    );
  }
  return items as number[];
}
