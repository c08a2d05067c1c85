// Numbers keep their exact text through every rewrite of a value that did not change:
// 8.0 stays 8.0, a big integer or an underflowing literal is never silently altered.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detectFormat, formatJson } from '../../src/protocol/format.js';
import { parseJson } from '../../src/protocol/json.js';
import { mergeCheckpointTexts } from '../../src/merge/driver.js';

const rewrite = (text: string, edit: (v: any) => void = () => {}) => {
  const parsed = parseJson(text);
  edit(parsed.value);
  return formatJson(parsed.value, { ...detectFormat(text), texts: parsed.texts });
};

describe('number text preservation', () => {
  const text = '{\n  "a": 8.0,\n  "big": 12345678901234567890,\n  "tiny": 1e-400,\n  "exp": 1E5,\n  "neg": -0,\n  "s": "v1.0 ~#n0~#n and 8.0",\n  "log": [\n    {\n      "id": "x",\n      "score": 8.50\n    },\n    {\n      "k": 1.0\n    },\n    2.0\n  ]\n}\n';

  it('writes back every literal of an unchanged document byte for byte', () => {
    expect(rewrite(text)).toBe(text);
  });

  it('keeps the text of untouched numbers when other fields change, and writes a changed one plainly', () => {
    const out = rewrite(text, (v) => {
      v.a = 9;
      v.added = true;
    });
    expect(out).toContain('"a": 9,');
    for (const literal of ['12345678901234567890', '1e-400', '1E5', '-0', '8.50', '"k": 1.0', '2.0']) expect(out).toContain(literal);
    expect(out).toContain('"s": "v1.0 ~#n0~#n and 8.0"');
  });

  it('keeps a number\'s text when the item holding it moves in its array', () => {
    const out = rewrite(text, (v) => v.log.unshift({ id: 'new', score: 1 }, 'first'));
    expect(out).toContain('"score": 8.50');
    expect(out).toContain('"k": 1.0');
    expect(out).toContain('2.0\n');
  });

  it('keeps the text of a number inside an id-less item whose other fields changed', () => {
    const doc = '{\n  "eval_scores": [\n    { "rubric": "auditor", "score": 8.0, "max": 10.0, "at": "2026-01-01T00:00:00Z" },\n    { "rubric": "ux", "score": 7.50 }\n  ],\n  "matrix": [[1.0, 2.0], [3.0]]\n}\n';
    const out = rewrite(doc, (v) => {
      v.eval_scores[0].at = '2026-02-01T00:00:00Z';
      v.eval_scores[1].note = 'rechecked';
      v.matrix[0].push(4);
    });
    for (const literal of ['"score": 8.0', '"max": 10.0', '"score": 7.50', '1.0', '2.0', '3.0']) expect(out).toContain(literal);
    expect(out).toContain('"at": "2026-02-01T00:00:00Z"');
    // The position is only a fallback: a changed value there is written as it now is.
    const changed = rewrite(doc, (v) => {
      v.eval_scores[0].at = 'later';
      v.eval_scores[0].score = 9;
    });
    expect(changed).toContain('"score": 9,');
    expect(changed).toContain('"max": 10.0');
  });

  it('survives a merge that reorders a log around the number', () => {
    const doc = (log: string) => `{\n  "protocol_version": "1.1",\n  "skill": "demo",\n  "project": "demo",\n  "project_dir": "/d",\n  "created_at": "2026-01-01T00:00:00Z",\n  "updated_at": "2026-01-01T00:00:00Z",\n  "phase": "build",\n  "step": "one",\n  "status": "in_progress",\n  "progress_summary": "x",\n  "next_actions": ["a"],\n  "cost": {"usd": 8.0, "tokens": 12345678901234567890},\n  "recently_done": [${log}]\n}\n`;
    const base = doc('{"at": "2026-01-01T00:00:00Z", "action": "old", "ms": 1e-400}');
    const ours = doc('{"at": "2026-01-02T00:00:00Z", "action": "o", "ms": 2.50}, {"at": "2026-01-01T00:00:00Z", "action": "old", "ms": 1e-400}');
    const theirs = doc('{"at": "2026-01-03T00:00:00Z", "action": "t", "ms": 3.0}, {"at": "2026-01-01T00:00:00Z", "action": "old", "ms": 1e-400}');
    const r = mergeCheckpointTexts({ base, ours, theirs, fileName: '.checkpoints/demo.checkpoint.json' });
    expect(r.messages).toEqual([]);
    for (const literal of ['"usd": 8.0', '12345678901234567890', '1e-400', '2.50', '3.0']) expect(r.text).toContain(literal);
  });

  it('keeps the text of the side whose value won, when the sides wrote different numbers at one place', () => {
    const doc = (at: string, ms: string) => `{"protocol_version": "1.1", "skill": "demo", "project": "demo", "project_dir": "/d", "created_at": "2026-01-01T00:00:00Z", "updated_at": "${at}", "phase": "build", "step": "one", "status": "in_progress", "progress_summary": "x", "next_actions": ["a"], "skill_state": {"last_run": {"at": "${at}", "duration_ms": ${ms}}}}\n`;
    const r = mergeCheckpointTexts({ base: doc('2026-01-01T00:00:00Z', '8.0'), ours: doc('2026-01-02T00:00:00Z', '12.0'), theirs: doc('2026-01-03T00:00:00Z', '9.0'), fileName: '.checkpoints/demo.checkpoint.json' });
    expect(r.status).toBe('clean');
    expect(r.text).toContain('"duration_ms":9.0');
  });

  it('keeps number texts inside and around conflict markers, so resolving from markers loses nothing', () => {
    const doc = (phase: string, score: string) => `{\n  "protocol_version": "1.1",\n  "skill": "demo",\n  "project": "demo",\n  "project_dir": "/d",\n  "created_at": "2026-01-01T00:00:00Z",\n  "updated_at": "2026-01-01T00:00:00Z",\n  "phase": "${phase}",\n  "step": "one",\n  "status": "in_progress",\n  "progress_summary": "x",\n  "next_actions": ["a"],\n  "cost": {"usd": 8.0, "tiny": 1e-400},\n  "skill_state": {"score": ${score}, "runs": [{"id": "r1", "ms": 12345678901234567890}]}\n}\n`;
    const r = mergeCheckpointTexts({ base: doc('build', '1.0'), ours: doc('audit', '2.50'), theirs: doc('ship', '3.0'), fileName: '.checkpoints/demo.checkpoint.json' });
    expect(r.status).toBe('conflict');
    for (const literal of ['"usd": 8.0', '"tiny": 1e-400', '"score": 2.50', '"score": 3.0', '"score": 1.0', '12345678901234567890']) expect(r.text).toContain(literal);
  });

  it('round-trips any document of oddly written numbers unchanged', () => {
    const literal = fc.oneof(
      fc.integer({ min: -1000, max: 1000 }).map((n) => `${n}.0`),
      fc.bigInt({ min: 10n ** 17n, max: 10n ** 30n }).map(String),
      fc.integer({ min: 1, max: 99 }).map((n) => `${n}e-${300 + n}`),
      fc.integer({ min: 1, max: 9 }).map((n) => `${n}E${n}`),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd'), literal), { maxLength: 6 }), fc.array(literal, { maxLength: 4 }), (pairs, list) => {
        const obj = new Map(pairs);
        const text = `{\n  ${[...obj].map(([k, v]) => `"${k}": ${v}`).concat(`"list": [${list.join(', ')}]`).join(',\n  ')}\n}\n`;
        const parsed = parseJson(text);
        const out = formatJson(parsed.value, { ...detectFormat(text), texts: parsed.texts });
        // Layout may differ for the inline list; every literal must be there, as written.
        for (const [k, v] of obj) expect(out).toContain(`"${k}": ${v}`);
        expect(JSON.parse(out)).toEqual(JSON.parse(text));
        const outList = /"list": \[([\s\S]*)\]/.exec(out)![1]!.split(',').map((s) => s.trim()).filter(Boolean);
        // Equal items in one array share a key: the first one's text (same value) for each.
        expect(outList.map(Number)).toEqual(list.map(Number));
      }),
      { numRuns: 300 },
    );
  });
});

describe('number texts merge like values (equal doubles, different texts)', () => {
  const FILE = '.checkpoints/demo.checkpoint.json';
  const doc = (phase: string, big: string, tiny: string, score = '8.0') =>
    `{\n  "protocol_version": "1.1",\n  "skill": "demo",\n  "project": "demo",\n  "project_dir": "/d",\n  "created_at": "2026-01-01T00:00:00Z",\n  "updated_at": "2026-01-01T00:00:00Z",\n  "phase": "${phase}",\n  "step": "one",\n  "status": "in_progress",\n  "progress_summary": "x",\n  "next_actions": ["a"],\n  "skill_state": {"big": ${big}, "tiny": ${tiny}, "score": ${score}, "runs": [{"id": "r1", "ms": ${tiny}}]}\n}\n`;
  const BIG = '12345678901234567890';

  it("takes the one side's respelling, whichever side it is on", () => {
    const base = doc('build', BIG, '1e-400');
    const changed = doc('build', '12345678901234567891', '2e-400', '8');
    const other = doc('audit', BIG, '1e-400');
    for (const [ours, theirs] of [[other, changed], [changed, other]] as const) {
      const r = mergeCheckpointTexts({ base, ours, theirs, fileName: FILE });
      expect(r.status).toBe('clean');
      expect(r.text).toContain('"phase": "audit"');
      expect(r.text).toContain('"big": 12345678901234567891');
      expect(r.text).toContain('"tiny": 2e-400');
      expect(r.text).toContain('"ms": 2e-400');
      expect(r.text).toContain('"score": 8,');
      expect(r.text).not.toContain(BIG);
    }
  });

  it('is a conflict when both sides respell one number differently, showing each text', () => {
    const base = doc('build', BIG, '1e-400');
    const ours = doc('build', BIG, '3e-400', '8.00');
    const theirs = doc('build', BIG, '2e-400', '8.00');
    const r = mergeCheckpointTexts({ base, ours, theirs, fileName: FILE });
    expect(r.status).toBe('conflict');
    expect(r.conflicts.map((c) => c.display).sort()).toEqual(['skill_state.runs[0].ms', 'skill_state.tiny']);
    expect(r.text).toMatch(/<<<<<<< ours\n.*"tiny": 3e-400,?\n\|\|\|\|\|\|\| base\n.*"tiny": 1e-400,?\n=======\n.*"tiny": 2e-400,?\n>>>>>>> theirs/);
    expect(r.text).toContain('"score": 8.00');
    expect(r.messages.join('\n')).toContain('conflict at skill_state.tiny: ours 3e-400 vs theirs 2e-400 (base 1e-400)');
    // Settled with one side: that side's text.
    const settled = mergeCheckpointTexts({ base, ours, theirs, fileName: FILE, settle: { theirs: ['skill_state'] } });
    expect(settled.status).toBe('clean');
    expect(settled.unmatched).toEqual([]);
    expect(settled.text).toContain('"tiny": 2e-400');
    expect(settled.text).toContain('"ms": 2e-400');
  });

  it('shows the source texts of conflicting numbers in the summary', () => {
    const base = doc('build', BIG, '1e-400', '8.0');
    const r = mergeCheckpointTexts({ base, ours: doc('build', BIG, '1e-400', '7.0'), theirs: doc('build', BIG, '1e-400', '9.50'), fileName: FILE });
    expect(r.messages).toEqual([`checkpoint: ${FILE}: conflict at skill_state.score: ours 7.0 vs theirs 9.50 (base 8.0)`]);
    for (const [side, text] of [['ours', '7.0'], ['theirs', '9.50']] as const) {
      const settled = mergeCheckpointTexts({ base, ours: doc('build', BIG, '1e-400', '7.0'), theirs: doc('build', BIG, '1e-400', '9.50'), fileName: FILE, settle: { [side]: ['skill_state.score'] } });
      expect(settled.status).toBe('clean');
      expect(settled.text).toContain(`"score": ${text},`);
    }
  });

  it("takes each new log entry's own text, never the text of another entry at its index", () => {
    const withLog = (log: string) => doc('build', BIG, '1e-400').replace('"next_actions": ["a"],', `"next_actions": ["a"],\n  "recently_done": [${log}],`);
    const old = '{"at": "2026-01-01T00:00:00Z", "action": "old", "ms": 8}';
    const base = withLog(old);
    const ours = withLog(`{"at": "2026-01-02T00:00:00Z", "action": "o", "ms": 8.0}, ${old}`);
    const theirs = withLog(`{"at": "2026-01-03T00:00:00Z", "action": "t", "ms": 8.00}, ${old}`);
    for (const [o, t] of [[ours, theirs], [theirs, ours]] as const) {
      const r = mergeCheckpointTexts({ base, ours: o, theirs: t, fileName: FILE });
      expect(r.status, r.messages.join('\n')).toBe('clean');
      const entries = JSON.parse(r.text!).recently_done.map((e: { action: string }) => e.action);
      const ms = [...r.text!.matchAll(/"ms": ([^,}\s]+)/g)].map((m) => m[1]);
      expect(Object.fromEntries(entries.map((a: string, i: number) => [a, ms[i]]))).toEqual({ o: '8.0', t: '8.00', old: '8' });
    }
  });

  it('keeps one spelling of a number both sides respelled (6.0 and 6 over 6.00), whichever side is ours (red team 62a 07)', () => {
    // A Python json.dump wrote 6.0, a Node JSON.stringify 6: one number, nothing to ask a person.
    const base = doc('build', BIG, '1e-400', '6.00');
    for (const [o, t, kept] of [['6.0', '6', '6.0'], ['6', '60e-1', '60e-1'], ['6E0', '6e0', '6E0'], ['1e3', '1000', '1000'], ['-0.0', '-0', '-0.0']] as const) {
      const sides = [doc('audit', BIG, '1e-400', o), doc('build', BIG, '1e-400', t)] as const;
      for (const [ours, theirs] of [sides, [sides[1], sides[0]]] as const) {
        const r = mergeCheckpointTexts({ base, ours, theirs, fileName: FILE });
        expect(r.status, r.messages.join('\n')).toBe('clean');
        expect(r.text).toContain(`"score": ${kept},`);
        expect(r.text).toContain('"phase": "audit"');
      }
    }
    // Two numbers that only read as one double are still two numbers: a person decides.
    const r = mergeCheckpointTexts({ base, ours: doc('build', BIG, '1e-400', '6.000000000000000001'), theirs: doc('build', BIG, '1e-400', '6.0'), fileName: FILE });
    expect(r.conflicts.map((c) => c.display)).toEqual(['skill_state.score']);
  });

  it('merges texts symmetrically: swapping the sides swaps only the markers', () => {
    const spelling = fc.constantFrom('8.0', '8', '8.00', '80e-1', '0.8e1');
    const zero = fc.constantFrom('1e-400', '2e-400', '0.0', '0', '0e5');
    // Spellings of one number keep the one with more decimals, at equal decimals the smaller text (decimals written here).
    const places: Record<string, number> = { '8.0': 1, '8': 0, '8.00': 2, '80e-1': 1, '0.8e1': 0, '0.0': 1, '0': 0, '0e5': 0 };
    const kept = (x: string, y: string) => (places[x] !== places[y] ? (places[x]! > places[y]! ? x : y) : x < y ? x : y);
    const side = fc.record({ score: spelling, tiny: zero });
    fc.assert(
      fc.property(side, side, side, fc.boolean(), (b, o, t, phase) => {
        const base = doc('build', BIG, b.tiny, b.score);
        const ours = doc(phase ? 'audit' : 'build', BIG, o.tiny, o.score);
        const theirs = doc('build', BIG, t.tiny, t.score);
        const r1 = mergeCheckpointTexts({ base, ours, theirs, fileName: FILE });
        const r2 = mergeCheckpointTexts({ base, ours: theirs, theirs: ours, fileName: FILE });
        expect(r1.status).toBe(r2.status);
        expect(r1.conflicts.map((c) => c.display).sort()).toEqual(r2.conflicts.map((c) => c.display).sort());
        for (const field of ['score', 'tiny'] as const) {
          const shown = (text: string | undefined) => [...text!.matchAll(new RegExp(`"${field}": ([^,}\\s]+)`, 'g'))].map((m) => m[1]);
          const [bt, ot, tt] = [b[field], o[field], t[field]];
          if (ot !== bt && tt !== bt && ot !== tt && (field === 'score' || (!ot.includes('e-400') && !tt.includes('e-400')))) {
            expect(shown(r1.text)).toEqual([kept(ot, tt)]);
            expect(shown(r2.text)).toEqual([kept(ot, tt)]);
          } else if (ot !== bt && tt !== bt && ot !== tt) {
            expect(r1.status).toBe('conflict');
            expect(shown(r1.text)).toEqual([ot, bt, tt]);
            expect(shown(r2.text)).toEqual([tt, bt, ot]);
          } else {
            const want = ot === bt ? tt : ot;
            expect(shown(r1.text)).toEqual([want]);
            expect(shown(r2.text)).toEqual([want]);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
