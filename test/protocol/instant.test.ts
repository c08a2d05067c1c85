// instant.ts reads an instant by hand instead of compiling schema.json's expression on every
// run. The expression is the specification: on date-times varied around every field's limits
// (and on any text), instantDate accepts exactly what it matches and reads the same date.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { instantDate, isIsoInstant, missingDay } from '../../src/protocol/instant.js';
import schema from '../../src/protocol/schema.json' with { type: 'json' };

const ISO_INSTANT = /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)$/;

const pad = (n: number) => String(n).padStart(2, '0');
/** A field mostly in range, else just past it or misshapen. */
const field = (min: number, max: number) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.integer({ min, max }).map(pad) },
    { weight: 2, arbitrary: fc.constantFrom(pad(min - 1 < 0 ? 0 : min - 1), pad(max + 1), pad(99), '00') },
    { weight: 1, arbitrary: fc.constantFrom('', '1', '123', 'x1', '1x', '\u0663\u0663') },
  );
/** A separator mostly as written, else another. */
const sep = (right: string, ...wrong: string[]) => fc.oneof({ weight: 8, arbitrary: fc.constant(right) }, { weight: 1, arbitrary: fc.constantFrom(...wrong) });
const instantLike = fc
  .tuple(
    fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 9999 }).map((n) => String(n).padStart(4, '0')) }, { weight: 1, arbitrary: fc.constantFrom('', '202', '20266', '+2026', 'abcd') }),
    sep('-', '/', ''),
    field(1, 12),
    sep('-', '.', ''),
    field(1, 31),
    sep('T', 't', ' ', ''),
    field(0, 23),
    sep(':', '', '.'),
    field(0, 59),
    fc.oneof(fc.constant(''), fc.tuple(sep(':', '.', ''), field(0, 59), fc.constantFrom('', '', '.1', '.123456789', '.', ',1', '.x')).map((p) => p.join(''))),
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('Z', 'z', '', 'Z\n', ' Z') },
      { weight: 4, arbitrary: fc.tuple(fc.constantFrom('+', '-', '\u2212'), field(0, 23), sep(':', '', '.', '::'), field(0, 59)).map((p) => p.join('')) },
    ),
    fc.oneof({ weight: 8, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('\n', ' ', 'x', 'Z', ':00') }),
  )
  .map((parts) => parts.join(''));

describe('instantDate agrees with the schema expression', () => {
  it('states the same expression as schema.json', () => {
    // The hand reading follows the schema's pattern (here with the year captured); if the schema changes, this must too.
    expect(JSON.stringify(schema)).toContain(JSON.stringify(ISO_INSTANT.source.replace('^(\\d{4})', '^\\d{4}')).slice(1, -1));
  });

  it('on date-times varied around every limit', () => {
    fc.assert(
      fc.property(instantLike, (s) => {
        const m = ISO_INSTANT.exec(s);
        expect(instantDate(s)).toEqual(m === null ? null : [Number(m[1]), Number(m[2]), Number(m[3])]);
      }),
      { numRuns: 20000, examples: [['2026-11-02T10:00:00Z'], ['2026-02-29T00:00+01:00'], ['0000-01-01T00:00:00.0-2359']] },
    );
  });

  it('on any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (s) => {
        expect(instantDate(s) === null).toBe(!ISO_INSTANT.test(s));
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses a day the month does not have, and what Date.parse cannot read', () => {
    expect(isIsoInstant('2024-02-29T00:00:00Z')).toBe(true);
    expect(isIsoInstant('2026-02-29T00:00:00Z')).toBe(false);
    expect(isIsoInstant('2026-04-31T00:00:00Z')).toBe(false);
    expect(isIsoInstant('2026-11-02T10:00:00.123456789+05:30')).toBe(true);
    expect(isIsoInstant('2026-11-02 10:00')).toBe(false);
    expect(isIsoInstant(20261102)).toBe(false);
  });

  it('names what the calendar says of a day its month lacks, and nothing for any other refusal', () => {
    expect(missingDay('2026-11-31T10:00:00Z')).toBe('November 2026 has 30 days');
    expect(missingDay('2026-02-29T00:00:00+05:30')).toBe('February 2026 has 28 days');
    expect(missingDay('2100-02-29T00:00:00Z')).toBe('February 2100 has 28 days');
    for (const v of ['2024-02-29T00:00:00Z', '2026-11-30T10:00:00Z', '2026-11-31 10:00', '2026-13-01T00:00:00Z', '2026-11-32T00:00:00Z']) expect(missingDay(v), v).toBeNull();
    fc.assert(fc.property(instantLike, (s) => {
      // Refused for its day alone exactly when it has the schema's shape and is no instant.
      const firstOfMonth = Date.parse(s.replace(/-\d\dT/, '-01T'));
      expect(missingDay(s) !== null).toBe(instantDate(s) !== null && !isIsoInstant(s) && !Number.isNaN(firstOfMonth));
    }), { numRuns: 2000 });
  });
});
