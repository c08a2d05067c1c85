// The schema walk (shape-check.ts) and a full JSON Schema implementation (ajv) judge the same
// documents alike: one field of a real checkpoint replaced by any JSON value, at any depth.
// Where they differ, it is a rule only the validator states (fields compared with each other,
// the calendar date), never a shape.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import Ajv2020 from 'ajv/dist/2020.js';
import schema from '../../src/protocol/schema.json' with { type: 'json' };
import { validateCheckpoint } from '../../src/protocol/validate.js';
import { ShapeChecker, type Shape } from '../../src/protocol/shape-check.js';
import { ROOT } from '../helpers/repo.js';
import { ShapeInterpreter } from '../helpers/shape-interpreter.js';

type AjvCtor = new (opts: { strict: boolean; allErrors: boolean; logger: false }) => { compile: (s: object) => (d: unknown) => boolean };
const AjvClass = ((Ajv2020 as unknown as { default?: AjvCtor }).default ?? Ajv2020) as unknown as AjvCtor;
const schemaValid = new AjvClass({ strict: false, allErrors: true, logger: false }).compile(schema);

const VALID = join(ROOT, 'test/fixtures/corpus/valid');
const docs = readdirSync(VALID).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(readFileSync(join(VALID, f), 'utf8')) as Record<string, unknown>);

/** Every path to a value in `doc` (object keys and array indices). */
function paths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = at.length ? [at] : [];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...at, i])));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...at, k]));
  return out;
}

function replaced(doc: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(doc) as Record<string | number, unknown>;
  let parent = copy;
  for (const seg of path.slice(0, -1)) parent = parent[seg] as Record<string | number, unknown>;
  parent[path[path.length - 1]!] = value;
  return copy;
}

/** Errors of rules a schema cannot state (validate.ts, capsule.ts's size bound). */
const CROSS_FIELD = /is before created_at|exceeds max|more than|file name|bytes/;

describe('schema walk and ajv agree', () => {
  it('on any one field of a real checkpoint replaced by any JSON value', () => {
    const cases = fc.integer({ min: 0, max: docs.length - 1 }).chain((d) => {
      const all = paths(docs[d]);
      return fc.tuple(fc.constant(d), fc.constantFrom(...all), fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom('', ' ', '2026-11-30T10:00:00Z', '2026-02-30T10:00:00Z', 'in_progress', 'not_started', -1, 0, 8.0, 1e300, null, [], {})));
    });
    fc.assert(
      fc.property(cases, ([d, path, value]) => {
        const doc = replaced(docs[d], path, value);
        const ours = validateCheckpoint(doc).errors;
        const ajv = schemaValid(doc);
        if (!ajv) expect(ours.length, `ajv refuses ${JSON.stringify(path)} = ${JSON.stringify(value)}`).toBeGreaterThan(0);
        // 2026-02-30 matches the schema's pattern; only the validator knows February, and says so.
        const allowed = value === '2026-02-30T10:00:00Z' ? new RegExp(`${CROSS_FIELD.source}|calendar lacks: February 2026 has 28 days`) : CROSS_FIELD;
        if (ajv) for (const e of ours) expect(`${e.path}: ${e.message}`).toMatch(allowed);
      }),
      { numRuns: 400 },
    );
  });
});

// The walk is compiled into closures per schema node; the interpreter it replaced is the oracle:
// the same problems, at the same paths, in the same order, with the same words.
describe('the compiled schema walk and the interpreter it replaced', () => {
  const compiled = new ShapeChecker(schema as unknown as Shape);
  const interpreted = new ShapeInterpreter(schema as unknown as Shape);
  const reports = (checker: { check: ShapeChecker['check'] }, doc: unknown): string[] => {
    const out: string[] = [];
    checker.check(doc, (path, message) => out.push(`${path}: ${message}`));
    return out;
  };
  const capsuleReports = (checker: { checkAt: ShapeChecker['checkAt'] }, v: unknown): string[] => {
    const out: string[] = [];
    checker.checkAt('#/properties/capsule', v, (path, message) => out.push(`${path}: ${message}`), ['capsule']);
    return out;
  };
  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom('', ' ', '2026-11-30T10:00:00Z', '2026-02-30T10:00:00Z', '2026-11-30 10:00', 'in_progress', 'blocked', 'user_decision', 'src/x.ts (PR 12)', -1, 0, 0.5, 8.0, 1e300, null, [], {}, [{}], { id: '' }),
  );

  it('agree on real checkpoints with up to three fields replaced, added or removed', () => {
    const edit = fc.tuple(fc.nat(), value, fc.constantFrom('replace', 'add', 'remove'), fc.string({ maxLength: 12 }));
    const cases = fc.tuple(fc.integer({ min: 0, max: docs.length - 1 }), fc.array(edit, { maxLength: 3 }));
    fc.assert(
      fc.property(cases, ([d, edits]) => {
        let doc: unknown = docs[d];
        for (const [i, v, how, key] of edits) {
          const all = paths(doc);
          if (!all.length) break;
          const path = all[i % all.length]!;
          if (how === 'replace') doc = replaced(doc, path, v);
          else {
            const copy = structuredClone(doc) as Record<string | number, unknown>;
            let at = copy as Record<string | number, unknown>;
            for (const seg of path.slice(0, -1)) at = at[seg] as Record<string | number, unknown>;
            const last = path[path.length - 1]!;
            if (how === 'remove') {
              if (Array.isArray(at)) at.splice(last as number, 1);
              else delete at[last];
            } else if (at[last] && typeof at[last] === 'object' && !Array.isArray(at[last])) (at[last] as Record<string, unknown>)[key] = v;
            doc = copy;
          }
        }
        expect(reports(compiled, doc)).toEqual(reports(interpreted, doc));
      }),
      { numRuns: 600 },
    );
  });

  it('agree on any JSON value at the top, and on the corpus of invalid files', () => {
    fc.assert(fc.property(value, (v) => {
        expect(reports(compiled, v)).toEqual(reports(interpreted, v));
        expect(capsuleReports(compiled, v)).toEqual(capsuleReports(interpreted, v));
      }), { numRuns: 200 });
    const invalid = join(ROOT, 'test/fixtures/corpus/invalid');
    for (const f of readdirSync(invalid).filter((n) => n.endsWith('.json'))) {
      const doc = JSON.parse(readFileSync(join(invalid, f), 'utf8')) as unknown;
      const ours = reports(compiled, doc);
      expect(ours.length, f).toBeGreaterThan(0);
      expect(ours, f).toEqual(reports(interpreted, doc));
    }
  });
});
