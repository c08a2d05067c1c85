// `checkpoint update` operators: parsing every form, applying them, and refusing anything
// that could reach Object.prototype.
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { applyUpdateOps, parseUpdateFlag } from '../../src/protocol/update-ops.js';
import { CheckpointError } from '../../src/errors.js';
import type { JsonObject } from '../../src/protocol/types.js';
import { parseJson } from '../../src/protocol/json.js';
import { updatedText } from '../helpers/fixtures.js';
import { oneLine } from '../../src/one-line.js';
import { CLI_SPELLING } from '../../src/protocol/op-spelling.js';

const apply = (doc: JsonObject, ...flags: string[]): JsonObject => applyUpdateOps(doc, flags.map((f) => parseUpdateFlag(f)));

function usageError(fn: () => unknown): CheckpointError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CheckpointError);
    expect((e as CheckpointError).code).toBe('E_USAGE');
    expect((e as CheckpointError).exit).toBe(2);
    return e as CheckpointError;
  }
  throw new Error('expected a usage error');
}

function expectPristinePrototype(): void {
  for (const k of ['polluted', 'x', 'isAdmin']) {
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, k), k).toBe(false);
    expect(({} as Record<string, unknown>)[k], k).toBeUndefined();
  }
  expect(Object.keys(Object.prototype)).toEqual([]);
  expect(Object.getOwnPropertyNames(Array.prototype)).not.toContain('polluted');
}

afterEach(expectPristinePrototype);

describe('parsing the operators', () => {
  it('--a.b=v sets text', () => {
    expect(parseUpdateFlag('--a.b=v')).toEqual({ path: ['a', 'b'], mode: 'set', value: 'v', flag: '--a.b=v', given: '--a.b=v', spelling: CLI_SPELLING, plain: true });
  });

  it('--l+=v appends text', () => {
    expect(parseUpdateFlag('--l+=v')).toMatchObject({ path: ['l'], mode: 'append', value: 'v' });
  });

  it('--o:json=... sets a typed value', () => {
    expect(parseUpdateFlag('--o:json={"k":[1,true,null]}')).toMatchObject({ path: ['o'], mode: 'set', value: { k: [1, true, null] } });
    expect(parseUpdateFlag('--n:json=2').value).toBe(2);
    expect(parseUpdateFlag('--n:json="2"').value).toBe('2');
    expect(parseUpdateFlag('--n:json=null').value).toBeNull();
  });

  it('--l+:json=... appends a typed value', () => {
    expect(parseUpdateFlag('--l+:json={"rubric":"r","score":8}')).toMatchObject({ path: ['l'], mode: 'append', value: { rubric: 'r', score: 8 } });
  });

  it('without :json the value is always text, = signs and all', () => {
    expect(parseUpdateFlag('--step=2').value).toBe('2');
    expect(parseUpdateFlag('--a=x=y').value).toBe('x=y');
    expect(parseUpdateFlag('--a=').value).toBe('');
    expect(parseUpdateFlag('--a={"k":1}').value).toBe('{"k":1}');
    expect(parseUpdateFlag('--a=line1\nline2').value).toBe('line1\nline2');
  });

  it('refuses a placeholder a hint printed, pasted as it was (\'<phase>\'), for any field; text around one is a value', () => {
    for (const flag of ['--phase=<phase>', '--status=<in_progress|blocked|complete|failed>', '--next_actions+=<action>']) {
      expect(() => parseUpdateFlag(flag), flag).toThrow(/is a placeholder from a hint, not a value/);
    }
    expect(parseUpdateFlag('--step=<b> tags in step 2').value).toBe('<b> tags in step 2');
    expect(parseUpdateFlag('--a:json="<phase>"').value).toBe('<phase>'); // typed on purpose
  });

  it('refuses ":json" written after the "=" (a record would be appended as text), naming the flag meant; the text itself goes through :json (user session, 12-05)', () => {
    const e = usageError(() => parseUpdateFlag('--recently_done+=:json{"action":"x"}'));
    expect(e.message).toMatch(/the value starts with ":json", which goes before the "="/);
    expect(e.hint).toContain(`did you mean --recently_done+:json='{"action":"x"}'?`);
    expect(usageError(() => parseUpdateFlag('--a.n=:json=2')).hint).toContain("did you mean --a.n:json='2'?");
    expect(parseUpdateFlag('--a:json=":json=2"').value).toBe(':json=2'); // typed on purpose
    expect(parseUpdateFlag('--a=see :json above').value).toBe('see :json above');
  });

  it('refuses malformed JSON with the column', () => {
    const e = usageError(() => parseUpdateFlag('--o:json={"k":}'));
    expect(e.message).toMatch(/value is not valid JSON \(unexpected character "}" at column 6\)/);
    expect(e.hint).toMatch(/quote the JSON/);
  });

  it.each(['--a', 'a=1', '-a=1', '--=1', '--a..b=1', '--.a=1', '--a.=1', '--a b=1', '--a/b=1'])('refuses %j', (flag) => {
    usageError(() => parseUpdateFlag(flag));
  });

  it.each(['--a+:json+=1', '--merged_prs++=1', '--skill_state.merged_prs++=1', '--a:json:json=1', '--a:json+=1', '--a+:json:json=1', '--a+:json+:json=[]', '--a:jsonx=1'])(
    'refuses the leftover operator in %j',
    (flag) => {
      const e = usageError(() => parseUpdateFlag(flag));
      expect(e.message.startsWith(`${flag}: `)).toBe(true);
    },
  );

  it('shortens an absurdly long unparseable flag in the message', () => {
    const e = usageError(() => parseUpdateFlag(`--${'x'.repeat(500)}`));
    expect(e.message.length).toBeLessThan(200);
  });
});

describe('applying', () => {
  it('sets nested paths, creating objects on the way', () => {
    expect(apply({}, '--skill_state.sprint.round=2')).toEqual({ skill_state: { sprint: { round: '2' } } });
  });

  it('merges objects into objects, keeping the keys it does not name', () => {
    const doc: JsonObject = { o: { a: 1, b: { c: 1, keep: true } } };
    expect(apply(doc, '--o:json={"b":{"d":2},"e":3}')).toEqual({ o: { a: 1, b: { c: 1, keep: true, d: 2 }, e: 3 } });
  });

  it('replaces arrays (never concatenates), also inside a merged object', () => {
    expect(apply({ l: [1, 2] }, '--l:json=[3]')).toEqual({ l: [3] });
    expect(apply({ o: { l: [1, 2], k: 1 } }, '--o:json={"l":[3]}')).toEqual({ o: { l: [3], k: 1 } });
  });

  it('replaces scalars and objects of another kind', () => {
    expect(apply({ a: { b: 1 } }, '--a=text')).toEqual({ a: 'text' });
    expect(apply({ a: 'text' }, '--a:json={"b":1}')).toEqual({ a: { b: 1 } });
    expect(apply({ a: [1] }, '--a:json={"b":1}')).toEqual({ a: { b: 1 } });
  });

  it('refuses plain text over a list with entries (the "+" forgotten would drop them all), naming the append and the explicit replace (red team 12-07)', () => {
    const doc = (): JsonObject => ({ next_actions: ['Ship PR #12 (see notes)'], skill_state: { merged_prs: [101, 102, 103], deploy: { run_history: [{ at: '2026-11-01T00:00:00Z', ok: true }] }, 'pr list': [7] } });
    let e = usageError(() => apply(doc(), '--skill_state.merged_prs=104'));
    expect(e.message).toBe('--skill_state.merged_prs=104: skill_state.merged_prs is a list of 3 entries; this would replace them all with "104"');
    // Typed as the entries are: the append it names adds the number 104, not the text "104" (red team 61f, 01).
    expect(e.hint).toBe("to add an entry: --skill_state.merged_prs+:json=104; to replace the whole list: --skill_state.merged_prs:json='[...]'; the checkpoint was not changed");
    expect((apply(doc(), '--skill_state.merged_prs+:json=104').skill_state as JsonObject).merged_prs).toEqual([101, 102, 103, 104]);
    // Nothing typed is emptying the list, never an empty entry to add.
    for (const flag of ['--next_actions=', '--skill_state.merged_prs= ']) expect(usageError(() => apply(doc(), flag)).hint, flag).toMatch(/^to empty the list: --[\w.]+:json='\[\]'; the checkpoint was not changed$/);
    e = usageError(() => apply(doc(), '--skill_state.deploy.run_history=deploy ok'));
    expect(e.message).toMatch(/run_history is a list of 1 entry; this would replace it with "deploy ok"$/);
    expect(e.hint).toMatch(/^to add an entry: --skill_state\.deploy\.run_history\+='deploy ok';/);
    // What to type instead, pasteable as printed, also for a key the bracket form names.
    expect(usageError(() => apply(doc(), '--next_actions=Write the tests')).hint).toMatch(/^to add an entry: --next_actions\+='Write the tests'; to replace the whole list: --next_actions:json='\[\.\.\.\]'/);
    expect(usageError(() => apply(doc(), '--skill_state["pr list"]=8')).hint).toMatch(/^to add an entry: '--skill_state\["pr list"\]\+:json=8'; to replace the whole list: '--skill_state\["pr list"\]:json=\[\.\.\.\]'/);
    // A protocol list with no entries yet is a list too: text there is one of its items.
    expect(usageError(() => apply({ next_actions: [] }, '--next_actions=Write the tests')).hint).toMatch(/^to add an entry: --next_actions\+='Write the tests'/);
    // Typed on purpose, a list replaces it (:json sets any type); an empty list of one's own, or an item, is text's to replace.
    expect(apply(doc(), '--skill_state.merged_prs:json=[104]').skill_state).toMatchObject({ merged_prs: [104] });
    expect(apply({ skill_state: { l: [] } }, '--skill_state.l=x')).toEqual({ skill_state: { l: 'x' } });
    expect(apply(doc(), '--skill_state.merged_prs.0=100').skill_state).toMatchObject({ merged_prs: [100, 102, 103] });
  });

  it('refuses text for a list of records (blockers, progress_table), naming the record to add with the words in it under the next free id (stop 61)', () => {
    const blockers = [{ id: 'b2', description: 'CI red', needs: 'code_fix' }, 'a hand-written one'];
    for (const flag of ['--blockers+=waiting on review', '--blockers=waiting on review']) {
      const e = usageError(() => apply({ blockers }, flag));
      expect(e.message).toBe(`${flag}: each entry of blockers is a record (id, description), not a text`);
      expect(e.hint).toBe(`add one: '--blockers+:json={"id":"b3","description":"waiting on review"}'; the checkpoint was not changed`);
    }
    expect(usageError(() => apply({}, "--progress_table+=it's sprint 2")).hint).toBe(`add one: '--progress_table+:json={"id":"row1","label":"it'\\''s sprint 2","status":"not_started"}'; the checkpoint was not changed`);
    // The record it names is taken as given; JSON typed on purpose is validation's to judge.
    expect(apply({ blockers }, '--blockers+:json={"id":"b3","description":"waiting on review"}').blockers).toEqual([...blockers, { id: 'b3', description: 'waiting on review' }]);
    expect(apply({}, '--blockers+:json="x"')).toEqual({ blockers: ['x'] });
  });

  it('appends, creating the array when missing', () => {
    expect(apply({}, '--l+=a', '--l+=b', '--l+:json={"c":1}', '--l+:json=[2]')).toEqual({ l: ['a', 'b', { c: 1 }, [2]] });
  });

  it('adds to the front of recently_done, newest first as `done` keeps it, unless its times run oldest-first (red team D10)', () => {
    // A list of texts (no times) reads newest-first, the protocol's order: the last flag given is the newest.
    expect(apply({ recently_done: ['old'] }, '--recently_done+=a', '--recently_done+=b')).toEqual({ recently_done: ['b', 'a', 'old'] });
    const newestFirst = [{ at: '2026-03-02T09:00:00Z', action: 'y' }, { at: '2026-03-01T09:00:00Z', action: 'x' }];
    expect(apply({ recently_done: newestFirst }, '--recently_done+=z').recently_done).toEqual(['z', ...newestFirst]);
    // Kept oldest-first by hand (its times rise): at its end, as done puts it.
    const oldestFirst = [...newestFirst].reverse();
    expect(apply({ recently_done: oldestFirst }, '--recently_done+=z').recently_done).toEqual([...oldestFirst, 'z']);
    // Times a hand or Python writes (no zone, a day alone) show the direction too (red team round 2, 12-05).
    const python = [1, 2, 3].map((d) => ({ action: `step ${d}`, at: `2026-11-2${d}T10:00:00.123456` }));
    expect(apply({ recently_done: python }, '--recently_done+=z').recently_done).toEqual([...python, 'z']);
    const days = [{ action: 'a', at: '2026-11-21' }, { action: 'b', at: '2026-11-22' }];
    expect(apply({ recently_done: days }, '--recently_done+=z').recently_done).toEqual([...days, 'z']);
    // Missing or empty: the one item. Any other list, and a recently_done below another key, appends.
    expect(apply({}, '--recently_done+=a')).toEqual({ recently_done: ['a'] });
    expect(apply({ next_actions: ['a'], skill_state: { recently_done: ['a'] } }, '--next_actions+=b', '--skill_state.recently_done+=b')).toEqual({ next_actions: ['a', 'b'], skill_state: { recently_done: ['a', 'b'] } });
    // An op after it addresses the list as it then stands.
    expect(apply({ recently_done: ['old'] }, '--recently_done+=a', '--recently_done.1=older')).toEqual({ recently_done: ['a', 'older'] });
  });

  it('refuses to append to something that is not an array', () => {
    expect(usageError(() => apply({ l: 'x' }, '--l+=a')).message).toMatch(/cannot append: l is not an array/);
    expect(usageError(() => apply({ l: { a: 1 } }, '--l+=a')).message).toMatch(/not an array/);
  });

  it('addresses array items by index', () => {
    const doc: JsonObject = { progress_table: [{ id: 'a', status: 'complete' }, { id: 'b', status: 'in_progress' }] };
    expect(apply(doc, '--progress_table.1.status=complete')).toEqual({ progress_table: [{ id: 'a', status: 'complete' }, { id: 'b', status: 'complete' }] });
    expect(apply({ l: ['x', 'y'] }, '--l.0=z')).toEqual({ l: ['z', 'y'] });
    expect(apply({ l: [{ a: 1 }] }, '--l.0:json={"b":2}')).toEqual({ l: [{ a: 1, b: 2 }] });
    expect(apply({ l: [[1]] }, '--l.0+=2')).toEqual({ l: [[1, '2']] });
  });

  it('refuses indices past the end and names on arrays', () => {
    expect(usageError(() => apply({ l: ['x'] }, '--l.1=y')).message).toMatch(/index 1 is past the end of l \(length 1\)/);
    expect(usageError(() => apply({ l: ['x'] }, '--l.first=y')).message).toMatch(/l is an array; address an item by its index/);
    expect(usageError(() => apply({ l: [{ a: 1 }] }, '--l.5.a=y')).message).toMatch(/past the end/);
  });

  it('refuses to write inside a scalar', () => {
    expect(usageError(() => apply({ a: 'text' }, '--a.b=1')).message).toMatch(/cannot write inside a: it is "text", not an object/);
    expect(usageError(() => apply({ a: null }, '--a.b=1')).message).toMatch(/cannot write inside a/);
  });

  it('applies operations in order', () => {
    expect(apply({}, '--a=1', '--a=2', '--b+=x', '--b:json=[]', '--b+=y')).toEqual({ a: '2', b: ['y'] });
  });

  it('treats names inherited from Object.prototype as absent', () => {
    expect(apply({}, '--valueOf+=x')).toEqual({ valueOf: ['x'] });
    expect(apply({}, '--toString=x')).toEqual({ toString: 'x' });
    expect(apply({}, '--skill_state.hasOwnProperty.n:json=1')).toEqual({ skill_state: { hasOwnProperty: { n: 1 } } });
    expect(apply({}, '--isPrototypeOf:json={"a":1}')).toEqual({ isPrototypeOf: { a: 1 } });
  });
});

describe('what is refused as typed', () => {
  it('an array index with a leading zero, never read as another index', () => {
    const doc = { next_actions: ['Write the tests', 'Ship it (PR 12)'] } as JsonObject;
    for (const [flag, n] of [['--next_actions.01=x', 1], ['--next_actions.00=x', 0], ['--next_actions.01.text=x', 1]] as const) {
      const e = usageError(() => apply(structuredClone(doc), flag));
      expect(e.message).toBe(`${flag}: index "${flag.split(/[.=]/)[1]}" has a leading zero`);
      expect(e.hint).toBe(`write it as ${n}`);
    }
    // "0" itself, and "01" as an object key (not an index), are fine.
    expect(apply(structuredClone(doc), '--next_actions.0=x').next_actions).toEqual(['x', 'Ship it (PR 12)']);
    expect(apply({ skill_state: {} } as JsonObject, '--skill_state.01=x').skill_state).toEqual({ '01': 'x' });
  });

  it('an empty :json value says that no JSON was given, not "empty file"', () => {
    for (const flag of ['--step:json=', '--step:json=  ', '--next_actions+:json=']) {
      const e = usageError(() => parseUpdateFlag(flag));
      expect(e.message).toBe(`${flag}: no JSON value after "="`);
      expect(e.message).not.toContain('file');
    }
  });
});

describe('prototype pollution', () => {
  it.each([
    '--__proto__.polluted=1',
    '--__proto__=1',
    '--a.__proto__.polluted=1',
    '--constructor.prototype.polluted=1',
    '--a.constructor.prototype.polluted=1',
    '--a.prototype=1',
    '--prototype.polluted=1',
    '--progress_table.0.__proto__.polluted=1',
    '--__proto__+=1',
    '--__proto__:json={"polluted":1}',
    '--a.__proto__+:json={"polluted":1}',
  ])('refuses the path segment in %j', (flag) => {
    expect(usageError(() => parseUpdateFlag(flag)).message).toMatch(/path segment "(__proto__|constructor|prototype)" is forbidden/);
  });

  it.each([
    '--a:json={"__proto__":{"polluted":1}}',
    '--a:json={"b":{"constructor":{"prototype":{"polluted":1}}}}',
    '--a:json={"prototype":1}',
    '--l+:json=[{"__proto__":{"polluted":1}}]',
    '--l+:json={"x":[{"y":{"__proto__":{"isAdmin":true}}}]}',
    '--a:json={"\\u005f_proto__":{"polluted":1}}',
  ])('refuses the JSON value in %j', (flag) => {
    expect(usageError(() => parseUpdateFlag(flag)).message).toMatch(/forbidden key "(__proto__|constructor|prototype)"/);
  });

  it('merging an object never reaches the prototype even with a crafted document', () => {
    // a document whose own data holds a "__proto__" key (as a lenient parser could produce)
    const doc = JSON.parse('{"o":{"__proto__":{"polluted":1}}}') as JsonObject;
    apply(doc, '--o:json={"a":1}');
    expectPristinePrototype();
  });

  it('random paths and values never pollute', () => {
    const seg = fc.constantFrom('a', 'b', '0', '1', '__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'polluted');
    const flag = fc.tuple(fc.array(seg, { minLength: 1, maxLength: 4 }), fc.constantFrom('', '+'), fc.constantFrom('', ':json'), fc.constantFrom('1', '{"polluted":1}', '[{"polluted":2}]', '{"__proto__":{"polluted":3}}'));
    fc.assert(
      fc.property(fc.array(flag, { minLength: 1, maxLength: 5 }), (flags) => {
        const doc: JsonObject = { a: { b: [{}, {}] } };
        for (const [path, plus, json, value] of flags) {
          try {
            apply(doc, `--${path.join('.')}${plus}${json}=${value}`);
          } catch (e) {
            expect(e).toBeInstanceOf(CheckpointError);
          }
        }
        expectPristinePrototype();
      }),
      { numRuns: 400 },
    );
  });
});

describe('number texts the user types', () => {
  const FILE = '{\n  "skill_state": {\n    "score": 8.0,\n    "big": 12345678901234567890,\n    "tiny": 1e-400,\n    "list": [2.50, 3.0],\n    "keep": 1.0\n  }\n}\n';
  /** Applies the flags the way `update` does and writes the file back with its texts. */
  const write = (...flags: string[]): string => updatedText(FILE, ...flags);

  it('writes a :json number exactly as typed, even where the old text denotes the same double', () => {
    const out = write('--skill_state.big:json=12345678901234567891', '--skill_state.tiny:json=5e-400', '--skill_state.score:json=9.0');
    expect(out).toContain('"big": 12345678901234567891,');
    expect(out).toContain('"tiny": 5e-400,');
    expect(out).toContain('"score": 9.0,');
    expect(out).toContain('"keep": 1.0');
    expect(out).toContain('2.50');
    // Digits past a double's precision, with a point among them, and a plain decimal under 1e-6.
    const more = write('--skill_state.score:json=8.000000000000001', '--skill_state.keep=123456789.123456788', '--skill_state.tiny:json=0.0000001');
    for (const t of ['"score": 8.000000000000001,', '"keep": 123456789.123456788', '"tiny": 0.0000001,']) expect(more).toContain(t);
  });

  it('keeps the file\'s text when a number is given in JSON\'s own spelling over an equal one (the value did not change)', () => {
    expect(write('--skill_state.score:json=8')).toContain('"score": 8.0,');
    expect(write('--skill_state.score=8')).toContain('"score": 8.0,');
    expect(write('--skill_state.big:json=12345678901234567000')).toContain('"big": 12345678901234567890,');
    // A spelling of its own is written as typed; a different value in JSON's spelling too.
    expect(write('--skill_state.keep:json=1.00')).toContain('"keep": 1.00');
    expect(write('--skill_state.score:json=9')).toContain('"score": 9,');
  });

  it('keeps the texts inside objects and arrays given as :json, set or appended', () => {
    const out = write('--skill_state:json={"a":1.0,"b":[2.50]}', '--skill_state.list:json=[2.5, 7.50]', '--skill_state.more+:json=4.0');
    expect(out).toContain('"a": 1.0,');
    expect(out).toMatch(/"b": \[\n\s+2\.50\n/);
    // 2.5 over 2.50 at the same place: the value did not change, so neither does its text.
    expect(out).toMatch(/"list": \[\n\s+2\.50,\n\s+7\.50\n/);
    expect(out).toMatch(/"more": \[\n\s+4\.0\n/);
    // Untouched siblings of a merged object keep theirs.
    expect(out).toContain('"score": 8.0,');
    expect(out).toContain('"big": 12345678901234567890,');
  });

  it('entries moved down by an addition to the front of recently_done keep their texts, and so do the values added', () => {
    const file = '{\n  "recently_done": [\n    {"action": "wrote \\u2014 x", "score": 8.0},\n    "tidied",\n    {"action": "reviewed", "score": 1e3, "n": [2.50]}\n  ]\n}\n';
    const out = updatedText(file, '--recently_done+:json={"action": "tagged", "score": 9.0}', '--recently_done+:json={"action": "shipped", "score": 8}', '--recently_done.2.score:json=7.50');
    const doc = parseJson(out).value as JsonObject;
    expect((doc.recently_done as JsonObject[]).map((e) => (typeof e === 'string' ? e : e.action))).toEqual(['shipped', 'tagged', 'wrote \u2014 x', 'tidied', 'reviewed']);
    expect(out).toContain('"score": 9.0');
    expect(out).toContain('"wrote \\u2014 x"');
    expect(out).toContain('"score": 7.50');
    expect(out).toContain('"score": 1e3');
    expect(out).toMatch(/2\.50/);
    expect(out).not.toContain('8.0');
  });

  it('the last op on a place decides its text', () => {
    expect(write('--skill_state.score:json=7.50', '--skill_state.score:json=7.5')).toContain('"score": 7.5,');
    expect(write('--skill_state.score:json=7.5', '--skill_state.score:json=7.50')).toContain('"score": 7.50,');
  });

  it('names a number by its source text when it is in the way', () => {
    const parsed = parseJson(FILE);
    const e = usageError(() => applyUpdateOps(parsed.value as JsonObject, [parseUpdateFlag('--skill_state.score.x=1')], parsed.texts));
    expect(e.message).toContain('it is 8.0, not an object');
  });
});

describe('plain text over a number or a boolean', () => {
  const doc = (): JsonObject => ({ skill_state: { score: 8, iteration: 3, ok: false, label: 'v2', none: null, list: [1, 2] } }) as unknown as JsonObject;

  it('keeps the type when the text reads as one, as typed', () => {
    const out = apply(doc(), '--skill_state.score=9.5', '--skill_state.iteration=4', '--skill_state.ok=true', '--skill_state.list.0=7');
    expect(out.skill_state).toMatchObject({ score: 9.5, iteration: 4, ok: true, list: [7, 2] });
    expect(updatedText('{"skill_state": {"score": 8.0}}\n', '--skill_state.score=9.0')).toContain('9.0');
  });

  it('stays text where the text does not read as the old type, or the old value is text, null or absent', () => {
    const out = apply(doc(), '--skill_state.score=high', '--skill_state.iteration=+4', '--skill_state.ok=yes', '--skill_state.label=3', '--skill_state.none=1', '--skill_state.fresh=2', '--skill_state.list+=3');
    expect(out.skill_state).toMatchObject({ score: 'high', iteration: '+4', ok: 'yes', label: '3', none: '1', fresh: '2', list: [1, 2, '3'] });
    // Only JSON's number grammar: no hex, no leading dot, no Infinity; past a double's range stays text.
    for (const text of ['0x10', '.5', 'Infinity', 'NaN', '1e400', '01', ' 5', '5 ', '1_000']) expect(apply(doc(), `--skill_state.score=${text}`).skill_state).toMatchObject({ score: text });
    expect(apply(doc(), '--skill_state.ok=True').skill_state).toMatchObject({ ok: 'True' });
  });

  it('says when text replaces a valid number or boolean and stays text', () => {
    const notes: unknown[] = [];
    const parsed = parseJson('{"skill_state": {"score": 8.0, "ok": false, "n": 1, "label": "v2"}}');
    applyUpdateOps(parsed.value as JsonObject, ['--skill_state.score=high', '--skill_state.ok=yes', '--skill_state.n=1e400', '--skill_state.label=x', '--skill_state.n=2'].map((f) => parseUpdateFlag(f)), parsed.texts, { onTextOverTyped: (c) => notes.push(c) });
    expect(notes).toEqual([
      { path: 'skill_state.score', was: '8.0', text: 'high' },
      { path: 'skill_state.ok', was: 'false', text: 'yes' },
      { path: 'skill_state.n', was: '1', text: '1e400' },
    ]);
  });

  it('any JSON number text over a number gives that number (property)', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        const text = JSON.stringify(n);
        const out = apply(doc(), `--skill_state.score=${text}`);
        expect(Object.is((out.skill_state as JsonObject).score, JSON.parse(text))).toBe(true);
      }),
    );
  });
});

describe('a key as a message printed it (red team)', () => {
  it('\\xNN, the form text output shows a C1 control in, names the key its own message printed; \\\\x stays a backslash; forbidden keys stay forbidden', () => {
    const doc = { skill_state: { 'a\u009bb': { c: 1 } } } as unknown as JsonObject;
    // The refusal prints the path with \x9b: typed back, it names the same key.
    const said = usageError(() => apply(structuredClone(doc), '--skill_state["a\\u009bb"].c.d=1')).message;
    expect(oneLine(said)).toContain('cannot write inside skill_state["a\\x9bb"].c');
    expect(apply(structuredClone(doc), '--skill_state["a\\x9bb"].c=2').skill_state).toEqual({ 'a\u009bb': { c: 2 } });
    expect(apply(structuredClone(doc), '--skill_state["a\\\\x9bb"]=3').skill_state).toMatchObject({ 'a\\x9bb': '3' });
    expect(usageError(() => parseUpdateFlag('--a["\\x5f_proto__"]=1')).message).toMatch(/path segment "__proto__" is forbidden/);
    expect(usageError(() => parseUpdateFlag('--a["\\x9"]=1')).message).toMatch(/invalid path/);
  });
});

describe('paths in any script', () => {
  it('a dotted segment may hold letters and digits of any script; forbidden keys, options and shell syntax are still refused', () => {
    const doc = { skill_state: { café: { x: '0' } } } as unknown as JsonObject;
    const out = apply(structuredClone(doc), '--skill_state.café.x=1', '--skill_state.größe=2', '--skill_state.進捗.٣=3', '--skill_state.cafe\u0301=4');
    expect(out.skill_state).toEqual({ café: { x: '1' }, größe: '2', 進捗: { '٣': '3' }, 'cafe\u0301': '4' });
    expect(parseUpdateFlag('--café.x=1').path).toEqual(['café', 'x']);
    for (const flag of ['--a.-x=1', '--a.x y=1', '--a.$(id)=1', '--a.x\u202e=1', '--a.\u0301x=1', '--a.x;y=1', '--a.`id`=1', "--a.x'y=1"]) {
      expect(usageError(() => parseUpdateFlag(flag)).message, flag).toMatch(/invalid path/);
    }
    for (const flag of ['--__proto__.é=1', '--é.constructor.prototype=1', '--é.prototype=1']) {
      expect(usageError(() => parseUpdateFlag(flag)).message).toMatch(/path segment "(__proto__|constructor|prototype)" is forbidden/);
    }
  });
});

describe('paths written as conflicts show them', () => {
  it('a key holding "=" is named in brackets as a conflict prints it, with every operator: the flag is split at the first "=" outside brackets (red team 12-07)', () => {
    const doc = (): JsonObject => ({ skill_state: { 'mode=fast': 'A', 'x=y': ['old'] } });
    expect(apply(doc(), '--skill_state["mode=fast"]=C').skill_state).toMatchObject({ 'mode=fast': 'C' });
    expect(apply(doc(), '--skill_state["mode=fast"]:json={"a=b": 1}').skill_state).toMatchObject({ 'mode=fast': { 'a=b': 1 } });
    expect(apply(doc(), '--skill_state["x=y"]+=new', '--skill_state["x=y"]+:json="[k]=v"').skill_state).toMatchObject({ 'x=y': ['old', 'new', '[k]=v'] });
    // A "]" or an escaped quote inside the key does not end the brackets early; "=" after them is the value's.
    expect(parseUpdateFlag('--a["b]=\\"=c"]=d=e')).toMatchObject({ path: ['a', 'b]="=c'], mode: 'set', value: 'd=e' });
    // Brackets that never close are still named as a bad path, not as a flag with no "=".
    expect(usageError(() => parseUpdateFlag('--a["b=1')).message).toMatch(/invalid path/);
  });

  it('any key written in the bracket-quoted form comes back as that key, with any operator and any value (property)', () => {
    // The characters that could end a path early, among any other code points.
    const char = fc.oneof(fc.constantFrom('=', '[', ']', '"', '\\', '+', ':', '.', ' ', '\n', '\u009b'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
    const key = fc.string({ unit: char, maxLength: 12 }).filter((k) => !['__proto__', 'prototype', 'constructor'].includes(k));
    const text = fc.string({ unit: fc.constantFrom('=', '[', ']', '"', '\\', '+', ':', 'a', ' ', 'é'), maxLength: 10 });
    fc.assert(
      fc.property(key, fc.constantFrom('', '+', ':json', '+:json'), text, (k, op, value) => {
        const raw = op.endsWith(':json') ? JSON.stringify(value) : value;
        const parsed = parseUpdateFlag(`--skill_state[${JSON.stringify(k)}]${op}=${raw}`);
        expect(parsed.path).toEqual(['skill_state', k]);
        expect(parsed.mode).toBe(op.startsWith('+') ? 'append' : 'set');
        if (!/^:json|^<[^<>\n]+>$/.test(value)) expect(parsed.value).toBe(value);
      }),
      { numRuns: 500 },
    );
  });

  it('a key holding a dot or a space is named in brackets, an index as [N]; forbidden keys stay forbidden however written', () => {
    const doc = { skill_state: { 'a.b': 1, 'x y': [0, 'old'] }, progress_table: [{ status: 'in_progress' }, { status: 'Done' }] } as unknown as JsonObject;
    const out = apply(structuredClone(doc), '--skill_state["a.b"]=2', '--skill_state["x y"][1]=new', '--progress_table[1].status=complete');
    // Plain text over a number that reads as one stays a number (--a=9 over 8.0).
    expect(out.skill_state).toEqual({ 'a.b': 2, 'x y': [0, 'new'] });
    expect((out.progress_table as JsonObject[])[1]).toEqual({ status: 'complete' });
    // The dotted form still means nested keys.
    expect(apply(structuredClone(doc), '--skill_state.a.b=3').skill_state).toMatchObject({ a: { b: '3' }, 'a.b': 1 });
    for (const flag of ['--skill_state["__proto__"].x=1', '--["constructor"]=1', '--a["\\u005f_proto__"]=1', '--a[0]["prototype"]=1']) {
      expect(usageError(() => parseUpdateFlag(flag)).message).toMatch(/path segment "(__proto__|constructor|prototype)" is forbidden/);
    }
    // Messages name such a path as it was written, not as nested keys.
    expect(usageError(() => apply(structuredClone(doc), '--skill_state["a.b"]["c"]=1')).message).toBe('--skill_state["a.b"]["c"]=1: cannot write inside skill_state["a.b"]: it is 1, not an object');
    expect(usageError(() => apply(structuredClone(doc), '--skill_state["x y"][5]=1')).message).toBe('--skill_state["x y"][5]=1: index 5 is past the end of skill_state["x y"] (length 2)');
    for (const flag of ['--a["b"=1', '--a["\\q"]=1', '--a.["b"]=1', '--a["b"]x=1', '--a..b=1', '--a.=1', '--a[01x]=1']) {
      const e = usageError(() => parseUpdateFlag(flag));
      expect(e.message, flag).toMatch(/invalid path/);
      expect(e.hint).toContain('a["key with . or space"]');
    }
  });
});
