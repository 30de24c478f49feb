/** A time value's range of epoch ms [from, to): its precision, a day, a second or a ms wide. */
export interface TimeRange {
  from: number;
  to: number;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
const DAY_MS = 86_400_000;

/**
 * A time as a query writes it: RFC 3339 (a date-time with `Z` or an offset, or a full date, taken
 * as a UTC day) or whole Unix seconds. Undefined when it is neither, or not a real date.
 */
export function parseTimeValue(value: string): TimeRange | undefined {
  if (/^\d{1,12}$/.test(value)) {
    const from = Number(value) * 1000;
    return { from, to: from + 1000 };
  }
  const date = DATE.exec(value);
  if (date !== null) {
    const from = realDate(date[1], date[2], date[3]);
    return from === undefined ? undefined : { from, to: from + DAY_MS };
  }
  const time = DATE_TIME.exec(value);
  if (time === null) return undefined;
  const day = realDate(time[1], time[2], time[3]);
  const [hours, minutes, seconds] = [Number(time[4]), Number(time[5]), Number(time[6])];
  if (day === undefined || hours > 23 || minutes > 59 || seconds > 59) return undefined;
  const fraction = time[7] ?? "";
  const ms = fraction === "" ? 0 : Math.floor(Number(`0${fraction}`) * 1000);
  const zone = time[8].toUpperCase() === "Z" ? 0 : offsetMinutes(time[8]);
  if (zone === undefined) return undefined;
  const from = day + ((hours * 60 + minutes - zone) * 60 + seconds) * 1000 + ms;
  // Written to the second, a time spans that second; with a fraction, its millisecond.
  return { from, to: from + (fraction === "" ? 1000 : 1) };
}

function realDate(year: string, month: string, day: string): number | undefined {
  const ms = Date.UTC(Number(year), Number(month) - 1, Number(day));
  const check = new Date(ms);
  return check.getUTCFullYear() === Number(year) && check.getUTCMonth() === Number(month) - 1 &&
      check.getUTCDate() === Number(day)
    ? ms
    : undefined;
}

function offsetMinutes(zone: string): number | undefined {
  const [hours, minutes] = [Number(zone.slice(1, 3)), Number(zone.slice(4, 6))];
  if (hours > 23 || minutes > 59) return undefined;
  return (zone[0] === "-" ? -1 : 1) * (hours * 60 + minutes);
}
