// The update tool's argv (src/mcp/tools.ts), in the process: any JSON value a host can send is
// handed to `checkpoint update` as the same value, -0 with its sign, and a number the host's JSON
// could not have carried exactly is refused, never written as something else.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CheckpointError } from '../../src/errors.js';
import { TOOLS } from '../../src/mcp/tools.js';

const update = TOOLS.find((t) => t.name === 'update')!;
const argv = (value: unknown, json?: boolean) => update.argv({ skill: 'api', ops: [{ path: 'skill_state.x', op: 'set', value, ...(json === undefined ? {} : { json }) }] });
/** Equal as JSON values, -0 told apart from 0. */
const same = (a: unknown, b: unknown): boolean =>
  Array.isArray(a) ? Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]))
  : typeof a === 'object' && a !== null ? typeof b === 'object' && b !== null && !Array.isArray(b) && Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((k) => same((a as never)[k], (b as never)[k]))
  : Object.is(a, b);
const hasUnsafe = (v: unknown): boolean =>
  typeof v === 'number' ? !Number.isFinite(v) || (Number.isInteger(v) && !Number.isSafeInteger(v)) : typeof v === 'object' && v !== null ? Object.values(v).some(hasUnsafe) : false;

describe('the update tool hands values to the CLI unchanged', () => {
  it('any JSON value (doubles, -0, odd keys) becomes :json text that reads back as the same value', () => {
    const value = fc.jsonValue().filter((v) => typeof v !== 'string' && !hasUnsafe(v));
    fc.assert(
      fc.property(value, fc.constantFrom(-0, 0.1, -1e-300, 9007199254740991), (v, n) => {
        for (const sent of [v, [n, v], { [`k ${String(n)}`]: v }]) {
          const [flag, ...rest] = argv(sent);
          expect(rest).toEqual(['--', 'api']);
          expect(flag!.startsWith('--skill_state.x:json=')).toBe(true);
          const text = flag!.slice('--skill_state.x:json='.length);
          expect(same(JSON.parse(text), sent)).toBe(true);
          expect(text.includes('-0') || JSON.stringify(sent) === text).toBe(true);
        }
      }),
    );
  });

  it('a number the host could not have sent exactly is refused (E_USAGE), saying where', () => {
    for (const [value, where] of [[Infinity, 'ops[0].value'], [{ a: [1, -Infinity] }, 'ops[0].value.a[1]'], [{ 'a.b': 2 ** 53 }, 'ops[0].value."a.b"'], [[1e21], 'ops[0].value[0]']] as const) {
      let error: unknown;
      try {
        argv(value);
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(value)).toBeInstanceOf(CheckpointError);
      expect((error as CheckpointError).code).toBe('E_USAGE');
      expect((error as CheckpointError).message.startsWith(`${where}: `)).toBe(true);
    }
  });

  it('json: true passes a string as JSON text, as written', () => {
    expect(argv('[8.0, 12345678901234567890]', true)[0]).toBe('--skill_state.x:json=[8.0, 12345678901234567890]');
    // A string without json: true is sent as its JSON text, so it stays a string whatever it replaces.
    expect(argv('plain text')[0]).toBe('--skill_state.x:json="plain text"');
    expect(argv('9')[0]).toBe('--skill_state.x:json="9"');
  });
});
