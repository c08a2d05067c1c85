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

describe('parseCommandArgs refusals', () => {
  const status = COMMANDS.find((c) => c.name === 'status')!;
  const refusal = (args: string[]) => {
    try {
      parseCommandArgs(status, args);
    } catch (e) {
      return (e as Error).message;
    }
    throw new Error('not refused');
  };

  it('show an argument holding a newline or ESC escaped, never cut at it', () => {
    expect(refusal(['--bo\ngus=1'])).toBe("checkpoint status: unknown option '--bo\\ngus'");
    expect(refusal(['--a\x1b[2Jb'])).toBe("checkpoint status: unknown option '--a\\x1b[2Jb'");
    expect(refusal(['-\n'])).toBe("checkpoint status: unknown option '-\\n'");
    expect(refusal(['next:\nrm -rf /'])).toBe('checkpoint status: unexpected argument "next:\\nrm -rf /"');
  });

  it('are one bounded line whatever the arguments hold', () => {
    const arg = fc.string({ unit: fc.constantFrom('-', '=', 'a', '\n', '\r', '\x1b', '\u2028', 'x'), minLength: 1, maxLength: 300 });
    fc.assert(
      fc.property(fc.array(arg, { minLength: 1, maxLength: 3 }), (args) => {
        let message: string;
        try {
          parseCommandArgs(status, args);
          return;
        } catch (e) {
          message = (e as Error).message;
        }
        expect(message).not.toMatch(/[\n\r\x1b\u2028]/);
        expect(message.length).toBeLessThan(400);
      }),
      { numRuns: 300 },
    );
  });
});
