// The command-line fast path (parse.ts parseSimple) must read a line exactly as node's parseArgs
// does, or leave it to parseArgs: checked over random lines of every command's options.
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCommandArgs, parseSimple } from '../../src/cli/parse.js';
import { COMMANDS, GLOBAL_OPTIONS } from '../../src/cli/spec.js';

const config = (options: Record<string, { type: 'boolean' | 'string'; short?: string; multiple?: boolean }>) =>
  Object.fromEntries(Object.entries(options).map(([n, o]) => [n, { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) }]));

describe('parseSimple', () => {
  it('gives what parseArgs gives whenever it answers, for every command', () => {
    for (const spec of COMMANDS) {
      const options = { ...GLOBAL_OPTIONS, ...spec.options };
      const flags = Object.keys(options).map((n) => `--${n}`);
      const word = fc.oneof(
        fc.constantFrom(...flags, '-', '--', '-h', '-C', '--json=1', '--bogus', 'api', 'skill-2', 'src/x.ts (PR 12)', '--toString', '--__proto__'),
        fc.string({ maxLength: 6 }),
      );
      fc.assert(
        fc.property(fc.array(word, { maxLength: 5 }), (args) => {
          const simple = parseSimple(spec, args);
          if (simple === null) return;
          const full = parseArgs({ args, options: config(options), allowPositionals: true, strict: true });
          expect({ ...simple.values }).toEqual({ ...full.values });
          expect(Object.getPrototypeOf(simple.values)).toBe(Object.getPrototypeOf(full.values));
          expect(simple.positionals).toEqual(full.positionals);
        }),
        { numRuns: 200 },
      );
    }
  });

  it('answers the common lines, and leaves values, short options and unknown ones to parseArgs', () => {
    const status = COMMANDS.find((c) => c.name === 'status')!;
    expect(parseSimple(status, [])).toEqual({ positionals: [], values: {} });
    expect(parseSimple(status, ['--json', '--brief'])?.values).toEqual({ json: true, brief: true });
    for (const line of [['--since=2026-01-01T00:00:00Z'], ['-C', '.'], ['--dir', '.'], ['--bogus'], ['-'], ['--'], ['--json=1']]) expect(parseSimple(status, line)).toBeNull();
    expect(() => parseCommandArgs(status, ['--bogus'])).toThrow(/unknown option '--bogus'/);
  });
});
