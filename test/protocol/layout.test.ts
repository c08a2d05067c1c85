// A write into a hand-formatted checkpoint changes only what it changed: an inline array stays
// inline, a one-line object keeps its separators, blank lines and `"k":1` stay, and what is
// new takes the style of the container it lands in.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectFormat, formatJson } from '../../src/protocol/format.js';
import { parseJson } from '../../src/protocol/json.js';
import { formatKeepingLayout, writeKeepingLayout } from '../../src/protocol/layout.js';
import { applyUpdateOps, parseUpdateFlag } from '../../src/protocol/update-ops.js';
import type { JsonObject, JsonValue } from '../../src/protocol/types.js';

/** `text` after `edit` changed its value, through the layout writer as a store write calls it. */
function rewrite(text: string, edit: (v: any) => JsonValue | void): string {
  const parsed = parseJson(text);
  const next = structuredClone(parsed.value);
  const replaced = edit(next);
  const format = { ...detectFormat(text), texts: new Map(parsed.texts ?? []) };
  return formatKeepingLayout(text, parsed.value, replaced === undefined ? next : replaced, format, parsed.texts);
}

const MESSY = [
  '{',
  '  "skill": "api",',
  '  "status":"blocked-ish",',
  '',
  '  "generated_files": ["src/x.ts (PR 12)", "docs/**/*.md"],',
  '  "compact": ["a","b"],',
  '  "meta": {"score": 8.0, "tags": [], "owner": "ren\\u00e9"},',
  '  "next_actions": [',
  '    {"id": "a", "task": "ship the orders endpoint", "priority": 1},',
  '    { "id": "b", "task": "tell Ren\\u00e9" }',
  '  ],',
  '  "blockers": []',
  '}',
  '',
].join('\n');

describe('formatKeepingLayout', () => {
  it('appends to an inline array inline, with its separator', () => {
    const out = rewrite(MESSY, (v) => {
      v.generated_files.push('src/y.ts');
      v.compact.push('c');
    });
    expect(out).toBe(MESSY.replace('"docs/**/*.md"]', '"docs/**/*.md", "src/y.ts"]').replace('["a","b"]', '["a","b","c"]'));
  });

  it('a new record in a one-line array of records is written like its siblings, not with the array\'s own separator inside it (red team, 12-04)', () => {
    const text = '{\r\n    "runs": [{"score": 8.0, "tiny": 1e-400},{"score": 7.5, "tiny": 0}]\r\n}\r\n';
    const out = rewrite(text, (v) => {
      v.runs.unshift({ score: 9, tiny: 1 });
    });
    expect(out).toBe('{\r\n    "runs": [{"score": 9, "tiny": 1},{"score": 8.0, "tiny": 1e-400},{"score": 7.5, "tiny": 0}]\r\n}\r\n');
  });

  it('changes one member of a one-line object in place, keeping 8.0 and the escapes beside it', () => {
    const out = rewrite(MESSY, (v) => {
      v.meta.tags.push('urgent');
      v.meta.owner = 'kim';
    });
    expect(out).toBe(MESSY.replace('{"score": 8.0, "tags": [], "owner": "ren\\u00e9"}', '{"score": 8.0, "tags": ["urgent"], "owner": "kim"}'));
  });

  it('removes members with their separators, never leaving a trailing comma', () => {
    const out = rewrite(MESSY, (v) => {
      v.next_actions.shift();
      v.generated_files.pop();
      delete v.blockers;
    });
    expect(out).toBe(
      MESSY.replace('    {"id": "a", "task": "ship the orders endpoint", "priority": 1},\n', '')
        .replace(', "docs/**/*.md"]', ']')
        .replace('  ],\n  "blockers": []\n', '  ]\n'),
    );
    const inline = '{"a": [1, 2, 3], "b": { "x": 1, "y": 2 }}\n';
    expect(rewrite(inline, (v) => void v.a.shift())).toBe('{"a": [2, 3], "b": { "x": 1, "y": 2 }}\n');
    expect(rewrite(inline, (v) => void delete v.b.x)).toBe('{"a": [1, 2, 3], "b": { "y": 2 }}\n');
    expect(rewrite(inline, (v) => void delete v.b)).toBe('{"a": [1, 2, 3]}\n');
  });

  it('edits an item in place, keeping its own layout', () => {
    const out = rewrite(MESSY, (v) => {
      v.next_actions[1].task = 'tell Kim';
      v.next_actions[0].priority = 2;
    });
    expect(out).toBe(MESSY.replace('"priority": 1}', '"priority": 2}').replace('"tell Ren\\u00e9" }', '"tell Kim" }'));
  });

  it('puts a new member and a new item of a multi-line container on lines of their own, at its indent; a new record among one-line records on one line, like them', () => {
    const out = rewrite(MESSY, (v) => {
      v.blockers.push({ what: 'CI red', since: '2026-01-02' });
      v.next_actions.push({ id: 'c', task: 'write docs' });
      v.phase = 'build';
    });
    expect(out).toBe(
      MESSY.replace('    { "id": "b", "task": "tell Ren\\u00e9" }\n', '    { "id": "b", "task": "tell Ren\\u00e9" },\n    { "id": "c", "task": "write docs" }\n').replace(
        '  "blockers": []\n',
        '  "blockers": [\n    {\n      "what": "CI red",\n      "since": "2026-01-02"\n    }\n  ],\n  "phase": "build"\n',
      ),
    );
  });

  it('keeps a container\'s own separators for what it gains: `:` and `,` without spaces stay so', () => {
    const text = '{"a":{"x":1},"b":[]}';
    expect(rewrite(text, (v) => {
      v.a.y = { z: [1, 2] };
      v.b.push('n');
    })).toBe('{"a":{"x":1,"y":{"z":[1,2]}},"b":["n"]}');
    // An empty one-line container in a multi-line file stays inline when it sits in a one-line container.
    expect(rewrite('{\n\t"m": {"tags": [], "n": 1}\n}', (v) => void v.m.tags.push('a', 'b'))).toBe('{\n\t"m": {"tags": ["a", "b"], "n": 1}\n}');
  });

  it('keeps CRLF, a BOM, tabs and blank lines; new lines take CRLF and the tab', () => {
    const text = '\uFEFF{\r\n\t"a": [\r\n\t\t1,\r\n\r\n\t\t2\r\n\t],\r\n\r\n\t"b": "x"\r\n}\r\n';
    expect(rewrite(text, (v) => {
      v.a.push(3);
      v.c = true;
    })).toBe('\uFEFF{\r\n\t"a": [\r\n\t\t1,\r\n\r\n\t\t2,\r\n\t\t3\r\n\t],\r\n\r\n\t"b": "x",\r\n\t"c": true\r\n}\r\n');
  });

  it('gives back the original text when nothing changed, and formatJson\'s text for a file in our layout', () => {
    expect(rewrite(MESSY, () => {})).toBe(MESSY);
    const ours = formatJson({ a: [1, { b: 'x' }], c: {}, d: [] });
    const next = { a: [1, { b: 'y' }, 2], c: { k: [] }, e: 1 };
    expect(rewrite(ours, () => next)).toBe(formatJson(next));
  });

  it('writes a literal anew when the write changed its text (`8.00` typed over `8.0`), though its value is equal', () => {
    const parsed = parseJson(MESSY);
    const texts = new Map(parsed.texts ?? []);
    const next = applyUpdateOps(structuredClone(parsed.value) as JsonObject, [parseUpdateFlag('--meta.score:json=8.00')], texts);
    const out = formatKeepingLayout(MESSY, parsed.value, next, { ...detectFormat(MESSY), texts }, parsed.texts);
    expect(out).toBe(MESSY.replace('"score": 8.0', '"score": 8.00'));
  });

  it('keeps a literal whose value a write gave again in JSON\'s own spelling (`8` over `8.0`): the file does not change', () => {
    const parsed = parseJson(MESSY);
    const texts = new Map(parsed.texts ?? []);
    const next = applyUpdateOps(structuredClone(parsed.value) as JsonObject, [parseUpdateFlag('--meta.score:json=8')], texts);
    expect(formatKeepingLayout(MESSY, parsed.value, next, { ...detectFormat(MESSY), texts }, parsed.texts)).toBe(MESSY);
  });

  it('falls back to formatJson for a text it cannot place (duplicate keys)', () => {
    const text = '{"a": [1, 2], "a": [1, 2]}';
    const value = { a: [1, 2, 3] };
    expect(writeKeepingLayout(text, { a: [1, 2] }, value, detectFormat(text))).toBeNull();
    expect(formatKeepingLayout(text, { a: [1, 2] }, value, detectFormat(text))).toBe(formatJson(value, detectFormat(text)));
  });
});

describe('a list of one-line records gains records', () => {
  const record = fc.dictionary(fc.constantFrom('at', 'action', 'note', 'score'), fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant('src/x.ts (PR 12)')), { minKeys: 1, maxKeys: 3 });
  const indent = fc.constantFrom('  ', '    ', '\t', '\t\t');
  it('each new record takes one line; every old record line stays byte for byte (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(record, indent, fc.boolean()), { minLength: 1, maxLength: 6 }), fc.array(record, { minLength: 1, maxLength: 3 }).map((rs) => rs.map((r, i) => ({ ...r, n: `new ${i}` }))), fc.boolean(), (old, added, first) => {
        // Hand-kept: each record on a line of its own, its own indent, compact or spaced (`{ "at": "x" }`).
        const lines = old.map(([r, ind, spaced]) => ind + (spaced ? JSON.stringify(r, null, 1).replace(/\n */g, ' ') : JSON.stringify(r)));
        const text = `{\n  "recently_done": [\n${lines.join(',\n')}\n  ]\n}\n`;
        const out = rewrite(text, (v) => {
          if (first) v.recently_done.unshift(...added);
          else v.recently_done.push(...added);
        });
        const body = out.split('\n').slice(2, -3);
        expect(body).toHaveLength(old.length + added.length);
        const kept = first ? body.slice(added.length) : body.slice(0, old.length);
        kept.forEach((l, k) => expect(l.replace(/,$/, '')).toBe(lines[k]));
        expect(JSON.parse(out).recently_done).toEqual(first ? [...added, ...old.map(([r]) => r)] : [...old.map(([r]) => r), ...added]);
      }),
      { numRuns: 300 },
    );
  });
});

// A JS object lists integer keys ("2", "10") first, ascending, whatever order the file had them in:
// the writer must place members by the file, or a one-value write moves the object's other members.
describe('an object with integer keys keeps its members where the file had them', () => {
  it('a write into the object moves none of its members (`{"b": 1, "2": 3}`, a newest-first `{"3": …, "2": …}`)', () => {
    const text = '{\n  "scores": {\n    "b": 1,\n    "2": 3,\n    "a": {"z": 1, "10": 2, "1": 3}\n  },\n  "rounds": {"3": "c", "2": "b", "1": "a"}\n}\n';
    expect(rewrite(text, (v) => {
      v.scores.b = 5;
      v.scores.a.z = 2;
      v.rounds['2'] = 'B';
    })).toBe(text.replace('"b": 1', '"b": 5').replace('"z": 1', '"z": 2').replace('"2": "b"', '"2": "B"'));
  });

  it('a new integer key goes after the largest one the file has below it, first when none is below (where formatJson puts it)', () => {
    const text = '{\n  "r": {\n    "1": "a",\n    "3": "c",\n    "x": 1\n  },\n  "s": {"b": 1, "4": 2}\n}\n';
    expect(rewrite(text, (v) => {
      v.r['2'] = 'b';
      v.r['0'] = 'z';
      v.r.y = 2;
      v.s['9'] = 3;
    })).toBe('{\n  "r": {\n    "0": "z",\n    "1": "a",\n    "2": "b",\n    "3": "c",\n    "x": 1,\n    "y": 2\n  },\n  "s": {"b": 1, "4": 2, "9": 3}\n}\n');
  });

  it('a one-value write keeps every member in the order the file had it (fast-check)', () => {
    const name = fc.oneof(fc.constantFrom('a', 'b', 'id', 'x y'), fc.integer({ min: 0, max: 30 }).map(String), fc.constantFrom('01', '-1', '4294967294', '4294967295'));
    fc.assert(
      fc.property(fc.uniqueArray(name, { minLength: 1, maxLength: 8 }), fc.nat(), fc.boolean(), (names, pick, inline) => {
        const members = names.map((n, k) => `${JSON.stringify(n)}: ${k}`);
        const text = inline ? `{"o": {${members.join(', ')}}}\n` : `{\n  "o": {\n    ${members.join(',\n    ')}\n  }\n}\n`;
        const edited = names[pick % names.length]!;
        const out = rewrite(text, (v) => void (v.o[edited] = 'new'));
        const k = names.indexOf(edited);
        expect(out).toBe(text.replace(`${JSON.stringify(edited)}: ${k}`, `${JSON.stringify(edited)}: "new"`));
      }),
      { numRuns: 300 },
    );
  });
});
