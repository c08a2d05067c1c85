// What counts as an instant in a checkpoint: ISO-8601 date-time with a Z or an explicit
// offset, every field in range (schema.json's "instant" pattern), on a calendar date that
// exists (Date.parse rolls 2026-02-30 over into March instead of refusing it). Strict on
// purpose: a lenient parse reads "2026-11-02 10:00" in the machine's own time zone, so two
// machines merging the same log would order it differently.

// Read by hand rather than by schema.json's pattern (the year captured here),
//   ^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)$
// which every command would compile on its first date (the code cache keeps no compiled
// expression); test/protocol/instant.test.ts checks the two agree.

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The digit at `i` (-1 for anything else). */
function digit(s: string, i: number): number {
  const c = s.charCodeAt(i) - 0x30;
  return c >= 0 && c <= 9 ? c : -1;
}

/** Two digits at `i` forming a number from `min` to `max`, or -1. */
function twoDigits(s: string, i: number, min: number, max: number): number {
  const a = digit(s, i);
  const b = digit(s, i + 1);
  if (a < 0 || b < 0) return -1;
  const n = a * 10 + b;
  return n >= min && n <= max ? n : -1;
}

/** Year, month and day of an instant in the schema's shape, or null. */
export function instantDate(s: string): [year: number, month: number, day: number] | null {
  const century = twoDigits(s, 0, 0, 99);
  const year = twoDigits(s, 2, 0, 99);
  if (century < 0 || year < 0 || s[4] !== '-' || s[7] !== '-' || s[10] !== 'T' || s[13] !== ':') return null;
  const month = twoDigits(s, 5, 1, 12);
  const day = twoDigits(s, 8, 1, 31);
  if (month < 0 || day < 0 || twoDigits(s, 11, 0, 23) < 0 || twoDigits(s, 14, 0, 59) < 0) return null;
  let at = 16;
  // Seconds, then a fraction of at least one digit, each optional.
  if (s[at] === ':' && twoDigits(s, at + 1, 0, 59) >= 0) {
    at += 3;
    if (s[at] === '.' && digit(s, at + 1) >= 0) {
      at += 2;
      while (digit(s, at) >= 0) at++;
    }
  }
  if (s[at] === 'Z') at++;
  else if (s[at] === '+' || s[at] === '-') {
    if (twoDigits(s, at + 1, 0, 23) < 0) return null;
    at += 3;
    if (s[at] === ':') at++;
    if (twoDigits(s, at, 0, 59) < 0) return null;
    at += 2;
  } else return null;
  return at === s.length ? [century * 100 + year, month, day] : null;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * For an instant in the schema's shape on a day its month lacks ("2026-11-31T10:00:00Z"), what
 * the calendar says ("November 2026 has 30 days"); else null. A date written by hand gets the
 * reason it is refused, not only that it is.
 */
export function missingDay(value: string): string | null {
  const date = instantDate(value);
  if (date === null) return null;
  const days = daysInMonth(date[0], date[1]);
  return date[2] > days ? `${MONTHS[date[1] - 1]} ${date[0]} has ${days} days` : null;
}

export function isIsoInstant(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const date = instantDate(value);
  return date !== null && date[2] <= daysInMonth(date[0], date[1]) && !Number.isNaN(Date.parse(value));
}

/** A date and a time with no zone, a T or a space between: how people write an instant by hand. */
const NO_ZONE = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/;

/** A calendar day alone ("2026-12-05"), as people date a save by hand: one the calendar has. */
export function isDay(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && isIsoInstant(`${value}T00:00:00Z`);
}

/** Whether a time is written without its zone ("2026-11-02T14:05:00.123456", Python's datetime.now().isoformat()). */
export function hasNoZone(value: string): boolean {
  return NO_ZONE.test(value);
}

/**
 * The instant a time stands for, in ms (NaN when none): one written without its zone
 * ("2026-09-14 09:12") read as UTC, as every command reads it (repairable.ts), not in the
 * machine's own zone as Date.parse would; anything else as Date.parse reads it.
 */
export function instantMs(value: string): number {
  const m = NO_ZONE.exec(value);
  return Date.parse(m ? `${m[1]}T${m[2]}Z` : value);
}
