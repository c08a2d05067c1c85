// What counts as an instant in a checkpoint: ISO-8601 date-time with a Z or an explicit
// offset, every field in range (schema.json's "instant" pattern), on a calendar date that
// exists (Date.parse rolls 2026-02-30 over into March instead of refusing it). Strict on
// purpose: a lenient parse reads "2026-11-02 10:00" in the machine's own time zone, so two
// machines merging the same log would order it differently.

const ISO_INSTANT = /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

export function isIsoInstant(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = ISO_INSTANT.exec(value);
  return m !== null && Number(m[3]) <= daysInMonth(Number(m[1]), Number(m[2])) && !Number.isNaN(Date.parse(value));
}
