// The recovery capsule's shape is schema.json's alone: capsule.ts reads its fields, lists,
// limits and messages from there (through the shape walk) and adds only the byte budget.
// Held here to ajv (a full JSON Schema implementation) and to the messages users see.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import Ajv2020 from 'ajv/dist/2020.js';
import schema from '../../src/protocol/schema.json' with { type: 'json' };
import { CAPSULE_FIELDS, CAPSULE_STORED_MAX_BYTES, capsuleFieldsText, orderedContext, validateCapsule, validateCapsuleContext } from '../../src/protocol/capsule.js';
import { ShapeChecker, type Shape } from '../../src/protocol/shape-check.js';
import { validateCheckpoint } from '../../src/protocol/validate.js';
import type { CapsuleContext } from '../../src/protocol/types.js';

type AjvCtor = new (opts: { strict: boolean; allErrors: boolean; logger: false }) => { addSchema: (s: object) => void; compile: (s: object) => (d: unknown) => boolean };
const AjvClass = ((Ajv2020 as unknown as { default?: AjvCtor }).default ?? Ajv2020) as unknown as AjvCtor;
const ajv = new AjvClass({ strict: false, allErrors: true, logger: false });
ajv.addSchema(schema);
const contextValid = ajv.compile({ $ref: `${schema.$id}#/properties/capsule/properties/context` });

const contextShape = (schema as unknown as { properties: { capsule: { properties: { context: { required: string[]; properties: object } } } } }).properties.capsule.properties.context;

/** A context as an agent writes one: paths with notes, prose, globs, unicode. */
const context = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  goal: 'Ship the billing export (card KB-412)',
  acceptance: 'npm test green; export of 10k rows < 2 s (see bench/export.md)',
  constraints: ['no schema change to invoices (PR 12 pending review)', 'src/billing/** only'],
  decisions: ['CSV over XLSX: streaming; rejected exceljs (memory)'],
  evidence: ['bench/export.md @ 3f2c1a9: 1.4 s', 'unverified: prod has ~8.0k rows/tenant'],
  pending: [],
  next: 'cd ~/src/billing && npx vitest run test/export.test.ts',
  ...over,
});

const capsule = (over: Record<string, unknown> = {}) => ({
  context: context(),
  origin: { root: '/home/dev/src/billing', head: 'a1b2c3d4e5f6a7b8c9d0a1b2c3d4e5f6a7b8c9d0', saved_at: '2026-05-02T09:14:00Z' },
  mechanical: { head: null, branch: 'feat/export', uncommitted: ['src/x.ts (new)'], uncommitted_count: 1, at: '2026-05-02T09:14:00Z' },
  ...over,
});

describe('the capsule fields come from the schema', () => {
  it('CAPSULE_FIELDS is the context\'s members, in the protocol\'s order, all required', () => {
    expect([...CAPSULE_FIELDS]).toEqual(Object.keys(contextShape.properties));
    expect([...CAPSULE_FIELDS]).toEqual(['goal', 'acceptance', 'constraints', 'decisions', 'evidence', 'pending', 'next']);
    expect([...contextShape.required].sort()).toEqual([...CAPSULE_FIELDS].sort());
  });

  it('the field text marks the lists the schema declares', () => {
    expect(capsuleFieldsText()).toBe('{goal, acceptance, constraints[], decisions[], evidence[], pending[], next}');
  });

  it('orderedContext puts the fields in that order whatever the input order', () => {
    const scrambled = Object.fromEntries(Object.entries(context()).reverse()) as unknown as CapsuleContext;
    expect(Object.keys(orderedContext(scrambled))).toEqual([...CAPSULE_FIELDS]);
  });
});

describe('capsule messages', () => {
  const thirteen = Array.from({ length: 13 }, (_, i) => `ref ${i}`);
  it.each<[string, unknown, string[]]>([
    ['a list over the limit, naming the count and the limit', context({ constraints: thirteen }), ['context.constraints: "constraints" has 13 items (at most 12); use references to files instead']],
    ['a list over the limit with a blank item: both', context({ evidence: [...thirteen.slice(1), ' '] }), ['context.evidence: "evidence" has 13 items (at most 12); use references to files instead', 'context.evidence[12]: must be a non-empty string']],
    ['an unknown field, with the allowed ones', context({ notes: 'x' }), ['context.notes: unknown field "notes" (allowed: goal, acceptance, constraints, decisions, evidence, pending, next)']],
    ['a blank text field', context({ goal: ' \n\t' }), ['context.goal: "goal" must be a non-empty string']],
    ['a number for a text', context({ next: 8.0 }), ['context.next: "next" must be a non-empty string']],
    ['a string for a list', context({ decisions: 'one' }), ['context.decisions: "decisions" must be an array of non-empty strings (empty means none)']],
    ['a missing list', (({ pending: _p, ...rest }) => rest)(context()), ['context.pending: "pending" must be an array of non-empty strings (empty means none)']],
    ['not an object', [context()], ['context: the capsule context must be a JSON object with the seven fields']],
  ])('%s', (_name, value, expected) => {
    expect(validateCapsuleContext(value).map((p) => `${p.path}: ${p.message}`)).toEqual(expected);
  });

  it.each<[string, unknown, string[]]>([
    ['no origin', (({ origin: _o, ...rest }) => rest)(capsule()), ['origin: origin must be {root, head, saved_at}']],
    ['a number for origin.head', capsule({ origin: { root: '/r', head: 12, saved_at: '2026-05-02T09:14:00Z' } }), ['origin.head: origin.head must be a commit id string, or null outside a repository']],
    ['origin without saved_at', capsule({ origin: { root: '/r', head: null } }), ['origin.saved_at: origin.saved_at must be a string (when the capsule was saved)']],
    ['mechanical not an object', capsule({ mechanical: 'HEAD' }), ['mechanical: mechanical must be an object']],
    ['an unknown capsule field', capsule({ claims: [] }), ['claims: unknown capsule field "claims" (allowed: context, origin, mechanical)']],
    ['not an object', 'goal: ship', [': capsule must be an object']],
  ])('stored capsule: %s', (_name, value, expected) => {
    expect(validateCapsule(value).map((p) => `${p.path}: ${p.message}`)).toEqual(expected);
  });

  it('the byte budget is capsule.ts\'s, in validate and in resume alike', () => {
    const big = capsule({ context: context({ decisions: Array.from({ length: 12 }, () => 'd'.repeat(1400)) }) });
    const size = Buffer.byteLength(JSON.stringify(big));
    expect(size).toBeGreaterThan(CAPSULE_STORED_MAX_BYTES);
    expect(validateCapsule(big)).toEqual([{ path: '', message: `stored capsule is ${size} bytes (at most ${CAPSULE_STORED_MAX_BYTES})` }]);
    const doc = { protocol_version: '1.1', skill: 'api', project: 'p', project_dir: '/p', created_at: '2026-01-05T08:00:00Z', updated_at: '2026-01-05T08:00:00Z', phase: 'build', step: 's', status: 'complete', progress_summary: 'done', capsule: big };
    expect(validateCheckpoint(doc).errors).toEqual([{ level: 'error', path: 'capsule', message: `stored capsule is ${size} bytes (at most ${CAPSULE_STORED_MAX_BYTES})` }]);
  });

  it('inside a checkpoint the same messages carry the capsule. prefix', () => {
    const doc = { protocol_version: '1.1', skill: 'api', project: 'p', project_dir: '/p', created_at: '2026-01-05T08:00:00Z', updated_at: '2026-01-05T08:00:00Z', phase: 'build', step: 's', status: 'complete', progress_summary: 'done', capsule: capsule({ context: context({ goal: '' }) }) };
    expect(validateCheckpoint(doc).errors.map((e) => `${e.path}: ${e.message}`)).toEqual(['capsule.context.goal: "goal" must be a non-empty string']);
  });
});

describe('the capsule walk and ajv agree', () => {
  it('on a real context with any one field replaced by any JSON value, or any field added or removed', () => {
    const field = fc.constantFrom(...CAPSULE_FIELDS, 'notes', '__proto__', 'Goal');
    const value = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom('', ' ', '\u00a0', '\ufeff', 'x', [], [''], ['ok', ' '], Array.from({ length: 12 }, () => 'r'), Array.from({ length: 13 }, () => 'r'), null, 8.0, {}),
    );
    fc.assert(
      fc.property(field, fc.option(value, { nil: undefined }), (k, v) => {
        const c = context();
        if (v === undefined) delete c[k];
        else Object.defineProperty(c, k, { value: v, enumerable: true, configurable: true, writable: true });
        const problems = validateCapsuleContext(c);
        expect(problems.length === 0, JSON.stringify(problems)).toBe(contextValid(c));
        for (const p of problems) {
          expect(p.path.startsWith('context')).toBe(true);
          expect(p.message).not.toMatch(/\n|\{(key|path|count|allowed|maxItems)\}|expected shape/);
        }
      }),
      { numRuns: 400 },
    );
  });
});

describe('the shape walk\'s message keywords', () => {
  const tiny: Shape = {
    type: 'object',
    additionalProperties: false,
    'x-unknown': 'unknown "{key}" (allowed: {allowed})',
    properties: {
      tags: { type: 'array', maxItems: 2, 'x-error': '{path} must be a list', 'x-error-maxItems': '{key}: {count} > {maxItems}', items: { type: 'string', 'x-error': '{path} must be a string' } },
      name: { type: 'string', enum: ['a', 'b'], 'x-error': 'name {value} is not {enum} (minLength {minLength})' },
    },
  };
  const problems = (v: unknown) => {
    const out: string[] = [];
    new ShapeChecker(tiny).check(v, (p, m) => out.push(`${p}: ${m}`));
    return out;
  };

  it('a keyword\'s own message wins; the items of an over-long list are still checked', () => {
    expect(problems({ tags: ['x', 'y', 3] })).toEqual(['tags: tags: 3 > 2', 'tags[2]: tags[2] must be a string']);
    expect(problems({ tags: 'x' })).toEqual(['tags: tags must be a list']);
  });

  it('{allowed} names the declared members', () => {
    expect(problems({ nme: 'a' })).toEqual(['nme: unknown "nme" (allowed: tags, name)']);
  });

  it('a value\'s own text is never read as a placeholder; an unknown one stays as written', () => {
    expect(problems({ name: '{maxItems} {key}' })).toEqual(['name: name "{maxItems} {key}" is not a|b (minLength {minLength})']);
  });

  it('checkAt walks one subtree with paths from the given base', () => {
    const out: string[] = [];
    new ShapeChecker(tiny).checkAt('#/properties/tags', ['ok', 7], (p, m) => out.push(`${p}: ${m}`), ['meta', 'tags']);
    expect(out).toEqual(['meta.tags[1]: meta.tags[1] must be a string']);
  });
});
