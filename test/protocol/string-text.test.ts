// Strings and object keys keep their exact source text (`"Caf\u00e9"`, `"a\/b"`, surrogate-pair
// escapes: what Python's json.dump writes by default) through every rewrite and merge of a value
// that did not change; a changed value is written the way our writer writes it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectFormat, formatJson } from '../../src/protocol/format.js';
import { parseJson } from '../../src/protocol/json.js';
import { canonicalJson } from '../../src/protocol/identity.js';
import { updatedText } from '../helpers/fixtures.js';
import { mergeCheckpointTexts } from '../../src/merge/driver.js';
import type { JsonValue } from '../../src/protocol/types.js';

const rewrite = (text: string, edit: (v: any) => void = () => {}): string => {
  const parsed = parseJson(text, { rejectUnsafeKeys: false });
  edit(parsed.value);
  return formatJson(parsed.value, { ...detectFormat(text), texts: parsed.texts });
};

const PY = String.raw`{
  "step": "Caf\u00e9 menu \/ orders \ud83d\ude00",
  "plain": "line\nbreak \"quoted\" back\\slash \u001f",
  "upper": "\u001F",
  "letter": "\u0041",
  "skill_state": {
    "Stra\u00dfe": "M\u00fcnchen",
    "score": 8.0,
    "todo": [
      "Ship PR #12 \u2014 orders",
      "src/x.ts (PR 12)",
      {
        "id": "t1",
        "note": "r\u00e9sum\u00e9"
      }
    ]
  }
}
`;

describe('parse records string texts', () => {
  it('records exactly the literals JSON.stringify writes otherwise, keys apart from values', () => {
    const { texts } = parseJson(PY);
    expect(texts?.get('."step"')).toEqual([String.raw`"Caf\u00e9 menu \/ orders \ud83d\ude00"`]);
    expect(texts?.get('."upper"')).toEqual([String.raw`"\u001F"`]);
    expect(texts?.get('."letter"')).toEqual([String.raw`"\u0041"`]);
    // Short escapes and lower-case control escapes are JSON.stringify's own spelling.
    expect(texts?.has('."plain"')).toBe(false);
    expect(texts?.get('."skill_state"."Straße":')).toEqual([String.raw`"Stra\u00dfe"`]);
    expect(texts?.get('."skill_state"."Straße"')).toEqual([String.raw`"M\u00fcnchen"`]);
    expect(texts?.get('."skill_state"."score"')).toEqual(['8.0']);
    // Items by content (id) and by position.
    expect(texts?.get('."skill_state"."todo"[id:"t1"]."note"')).toEqual([String.raw`"r\u00e9sum\u00e9"`]);
    expect(texts?.get('#."skill_state"."todo"[2]."note"')).toEqual([String.raw`"r\u00e9sum\u00e9"`]);
  });

  it('records nothing, and takes the native parse, when no string has a \\u or \\/ escape', () => {
    expect(parseJson('{"a": "x\\ny \\"q\\" \\\\", "b": ["Café"]}').texts).toBeUndefined();
  });

  it('decodes the same value as JSON.parse', () => {
    expect(parseJson(PY).value).toEqual(JSON.parse(PY));
  });
});

describe('rewrites keep string texts', () => {
  it('writes an unchanged document back byte for byte', () => {
    expect(rewrite(PY)).toBe(PY);
  });

  it('writes a changed value plainly and keeps every other text, its key\'s included', () => {
    const out = rewrite(PY, (v) => {
      v.skill_state['Straße'] = 'Köln';
      v.step = 'Café menu / orders 😀 (done)';
    });
    expect(out).toContain(String.raw`"Stra\u00dfe": "Köln",`);
    expect(out).toContain('"step": "Café menu / orders 😀 (done)",');
    expect(out).toContain(String.raw`"Ship PR #12 \u2014 orders"`);
    expect(out).toContain(String.raw`"upper": "\u001F"`);
    expect(out.split('\n').length).toBe(PY.split('\n').length);
  });

  it('keeps texts of items the change moved, and of an id-less item whose other content changed', () => {
    const out = rewrite(PY, (v) => {
      v.skill_state.todo.unshift('new');
      v.skill_state.todo[3].done = true;
    });
    expect(out).toContain(String.raw`"Ship PR #12 \u2014 orders"`);
    expect(out).toContain(String.raw`"note": "r\u00e9sum\u00e9"`);
    const doc = String.raw`{"log": [{"at": "x", "what": "d\u00e9ploy\u00e9"}]}`;
    expect(rewrite(doc, (v) => (v.log[0].at = 'y'))).toBe(String.raw`{"log":[{"at":"y","what":"d\u00e9ploy\u00e9"}]}`);
  });

  it('keeps a key\'s text when the member is moved, and drops it with the member', () => {
    const out = rewrite(PY, (v) => {
      const { ['Straße']: city, ...rest } = v.skill_state;
      v.skill_state = { ...rest, ['Straße']: city };
    });
    expect(out).toContain(String.raw`"Stra\u00dfe": "M\u00fcnchen"` + '\n');
    expect(rewrite(PY, (v) => delete v.skill_state['Straße'])).not.toContain('Stra');
  });

  it('keeps the order of index-like keys when one of them has a text', () => {
    const doc = String.raw`{"0":{"\u0033":1,"y":2},"\u0031":"a","2":"b","x":"\u00e9"}`;
    expect(rewrite(doc)).toBe(doc);
  });

  it('keeps own __proto__ keys as data when an object is rewritten with key texts', () => {
    const doc = String.raw`{"__proto__": {"x": 1}, "\u00e9": "\u00e9"}`;
    const out = rewrite(doc);
    expect(out).toBe(doc.replace(/": /g, '":').replace(/, /g, ','));
  });
});

describe('update keeps string texts', () => {
  const write = (...flags: string[]): string => updatedText(PY, ...flags);

  it('keeps the old text when the same string is given, writes a typed escape as typed, a new string plainly', () => {
    expect(write('--step=Café menu / orders 😀')).toBe(PY);
    expect(write('--step:json="Caf\\u00E9 menu / orders 😀"')).toContain('"step": "Caf\\u00E9 menu / orders 😀",');
    expect(write('--skill_state.branch=x')).toContain(String.raw`"Stra\u00dfe": "M\u00fcnchen",`);
    expect(write('--step=new')).toContain('"step": "new",');
    // Keys typed with escapes keep them too, set or merged into an object.
    expect(write('--skill_state:json={"\\u00e9t\\u00e9": "\\u00e9"}')).toContain('    "\\u00e9t\\u00e9": "\\u00e9"\n');
    expect(write('--skill_state.more:json={"k\\u00f6ln": [1]}')).toMatch(/"more": \{\n\s+"k\\u00f6ln": \[/);
  });

  it('names a string in the way by its source text', () => {
    expect(() => write('--step.x=1')).toThrow(String.raw`it is "Caf\u00e9 menu \/ orders \ud83d\ude00", not an object`);
  });
});

// --- properties ---

/** A string's literal, each code point written plainly, as \u escapes (either case) or, for '/', as \/ by `choose`. */
function spell(s: string, choose: (j: number) => number): string {
  let out = '"';
  let j = 0;
  for (const cp of s) {
    const c = choose(j++);
    if (cp === '/' && c === 3) out += '\\/';
    else if (c === 1 || c === 2) {
      for (let k = 0; k < cp.length; k++) {
        const hex = cp.charCodeAt(k).toString(16).padStart(4, '0');
        out += `\\u${c === 1 ? hex : hex.toUpperCase()}`;
      }
    } else out += JSON.stringify(cp).slice(1, -1);
  }
  return `${out}"`;
}

/** JSON.stringify(v, null, 2)'s layout, with each string and key (in that order) written by `text`. */
function layout(v: JsonValue, text: (s: string) => string, pad = ''): string {
  if (typeof v === 'string') return text(v);
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  const inner = `${pad}  `;
  if (Array.isArray(v)) return v.length ? `[\n${v.map((x) => inner + layout(x, text, inner)).join(',\n')}\n${pad}]` : '[]';
  const keys = Object.keys(v);
  return keys.length ? `{\n${keys.map((k) => `${inner}${text(k)}: ${layout(v[k]!, text, inner)}`).join(',\n')}\n${pad}}` : '{}';
}

/** A `text` for layout: literal i spelled from the cycled `seeds`. */
const spelling = (seeds: readonly number[]) => {
  let i = 0;
  return (s: string): string => {
    const at = i++ * 7;
    return spell(s, (j) => seeds[(at + j) % seeds.length]!);
  };
};

const str = fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), fc.constantFrom('Café', 'a/b', '😀', 'Straße', '\u001f', 'x"y\\z', '—', '/', '0', '17'));
// Equal items in one array are named alike (by content): which of them had which spelling is
// not kept apart, so the generator gives arrays distinct items.
const { value } = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    str,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.uniqueArray(tie('value'), { maxLength: 4, selector: canonicalJson }),
    fc.dictionary(str, tie('value'), { maxKeys: 4, noNullPrototype: true }),
  ),
}));
const seeds = fc.array(fc.nat(3), { minLength: 1, maxLength: 40 });

describe('string text properties', () => {
  it('a document with any escape choices is written back unchanged byte for byte', () => {
    fc.assert(
      fc.property(value, seeds, (v, s) => {
        const text = `${layout(v, spelling(s))}\n`;
        expect(rewrite(text)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  const HEAD = { protocol_version: '1.1', skill: 'demo', project: 'demo', project_dir: '/d', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', phase: 'build', step: 'one', status: 'in_progress', progress_summary: 'x', next_actions: ['a'] };

  it('a merge of text-only changes never conflicts and keeps each literal\'s changed text, else the unchanged one', () => {
    fc.assert(
      fc.property(value, seeds, seeds, seeds, fc.array(fc.nat(2), { minLength: 1, maxLength: 12 }), (state, b, o, t, who) => {
        const doc = { ...HEAD, skill_state: state } as JsonValue;
        // Per literal: 0 nobody respells it, 1 ours does, 2 theirs does (cycled), or both when who is long.
        const side = (mine: readonly number[], me: number) => {
          const base = spelling(b);
          const own = spelling(mine);
          let i = 0;
          return (s: string): string => {
            const [fromBase, fromOwn] = [base(s), own(s)];
            const w = who[i++ % who.length]!;
            return w === me || (w === 0 && who.length > 6 && me !== 0) ? fromOwn : fromBase;
          };
        };
        const [base, ours, theirs] = [`${layout(doc, spelling(b))}\n`, `${layout(doc, side(o, 1))}\n`, `${layout(doc, side(t, 2))}\n`];
        const r = mergeCheckpointTexts({ base, ours, theirs, fileName: '.checkpoints/demo.checkpoint.json' });
        expect(r.conflicts).toEqual([]);
        expect(r.status).toBe('clean');
        // Expected, literal by literal: ours' text if ours respelled it, else theirs'.
        const [bs, os, ts] = [spelling(b), side(o, 1), side(t, 2)];
        const expected = layout(doc, (s) => {
          const [x, y, z] = [bs(s), os(s), ts(s)] as const;
          return y !== x ? y : z;
        });
        expect(r.text).toBe(`${expected}\n`);
      }),
      { numRuns: 200 },
    );
  });
});

describe('merge keeps string texts', () => {
  const doc = (over: { step?: string; phase?: string; key?: string; city?: string } = {}) => String.raw`{
  "protocol_version": "1.1",
  "skill": "demo",
  "project": "demo",
  "project_dir": "/d",
  "created_at": "2026-01-01T00:00:00Z",
  "updated_at": "2026-01-01T00:00:00Z",
  "phase": "${over.phase ?? 'build'}",
  "step": ${over.step ?? String.raw`"Caf\u00e9 \/ orders"`},
  "status": "in_progress",
  "progress_summary": "x",
  "next_actions": [
    "Ship PR #12 \u2014 orders"
  ],
  "skill_state": {
    ${over.key ?? String.raw`"Stra\u00dfe"`}: ${over.city ?? String.raw`"M\u00fcnchen"`},
    "score": 8.0
  }
}
`;
  const merge = (base: string, ours: string, theirs: string) => mergeCheckpointTexts({ base, ours, theirs, fileName: '.checkpoints/demo.checkpoint.json' });

  it('takes a respelling from the side that made it, ours when both did, and never conflicts over it', () => {
    const theirsRespelled = merge(doc(), doc({ phase: 'audit' }), doc({ step: '"Café / orders"', key: '"Straße"' }));
    expect(theirsRespelled.status).toBe('clean');
    expect(theirsRespelled.text).toBe(doc({ phase: 'audit', step: '"Café / orders"', key: '"Straße"' }));
    const both = merge(doc(), doc({ step: String.raw`"Caf\u00E9 / orders"` }), doc({ step: '"Café / orders"' }));
    expect(both.status).toBe('clean');
    expect(both.text).toBe(doc({ step: String.raw`"Caf\u00E9 / orders"` }));
  });

  it('writes a changed value plainly, not with the text of the value it replaced', () => {
    const r = merge(doc(), doc({ phase: 'audit' }), doc({ city: '"Köln"' }));
    expect(r.text).toBe(doc({ phase: 'audit', city: '"Köln"' }));
  });

  it('keeps texts around and inside conflict markers, keys of conflicted members included', () => {
    const r = merge(doc(), doc({ phase: 'audit', city: String.raw`"K\u00f6ln"` }), doc({ phase: 'ship', city: '"Bonn"' }));
    expect(r.status).toBe('conflict');
    for (const literal of [String.raw`"step": "Caf\u00e9 \/ orders"`, String.raw`"Ship PR #12 \u2014 orders"`, String.raw`"Stra\u00dfe": "K\u00f6ln"`, String.raw`"Stra\u00dfe": "M\u00fcnchen"`, String.raw`"Stra\u00dfe": "Bonn"`, '"score": 8.0']) {
      expect(r.text).toContain(literal);
    }
  });
});
