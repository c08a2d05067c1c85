// schema.json (for editors, via "$schema") and validate.ts (the gate CI runs) must agree on
// every file the schema can judge. The corpus holds one defect per invalid file; the rules a
// JSON Schema cannot state are listed here as validator-only and checked on their own.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Ajv2020 from 'ajv/dist/2020.js';
import schema from '../../src/protocol/schema.json' with { type: 'json' };
import { validateCheckpoint } from '../../src/protocol/validate.js';
import { REQUIRED_FIELDS } from '../../src/protocol/fields.js';
import { BLOCKER_NEEDS, CHECKPOINT_STATUSES, PM_ROLES, ROW_STATUSES, WIRE_VERSIONS } from '../../src/protocol/types.js';
import { ROOT } from '../helpers/repo.js';

const CORPUS = join(ROOT, 'test/fixtures/corpus');

// ajv is CommonJS: under NodeNext the default import is the module object, whose .default is the class.
type AjvCtor = new (opts: { strict: boolean; allErrors: boolean }) => { compile: (s: object) => ((d: unknown) => boolean) & { errors?: unknown } };
const AjvClass = ((Ajv2020 as unknown as { default?: AjvCtor }).default ?? Ajv2020) as unknown as AjvCtor;
const ajv = new AjvClass({ strict: false, allErrors: true });
const schemaValid = ajv.compile(schema);

function corpus(kind: 'valid' | 'invalid' | 'validator-only' | 'schema-only'): [string, unknown][] {
  const dir = join(CORPUS, kind);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => [f, JSON.parse(readFileSync(join(dir, f), 'utf8')) as unknown]);
}

/** Errors only; no file name, no clock, no size: exactly what a schema can see. */
const validatorValid = (doc: unknown) => validateCheckpoint(doc).errors.length === 0;

/** Rules only the validator can check, each with the corpus file that shows it. */
const VALIDATOR_ONLY: Record<string, string> = {
  'updated-before-created.json': 'updated_at must not be before created_at (cross-field)',
  'score-over-max.json': 'eval_scores[].score must not exceed its max (cross-field)',
  'no-such-calendar-day.json': 'the calendar date must exist (2026-04-31 matches the pattern)',
  'capsule-over-16k.json': 'a stored capsule is at most 16384 bytes (serialized size)',
};

describe('the corpus', () => {
  it('is large enough', () => {
    expect(corpus('valid').length + corpus('invalid').length).toBeGreaterThanOrEqual(25);
    expect(corpus('valid').length).toBeGreaterThanOrEqual(10);
    expect(corpus('invalid').length).toBeGreaterThanOrEqual(40);
  });

  it('the types and the validator\'s lists come from the schema: generated, current, and the same lists', async () => {
    const { writeShapes } = (await import(join(ROOT, 'scripts/gen-shapes.mjs'))) as { writeShapes: (o: { check: boolean }) => boolean };
    expect(writeShapes({ check: true }), 'run `npm run build` to regenerate src/protocol/shapes.generated.ts').toBe(true);
    const s = schema as unknown as { required: string[]; $defs: Record<string, { enum: unknown[] }> };
    expect([...REQUIRED_FIELDS]).toEqual(s.required);
    expect([...WIRE_VERSIONS]).toEqual(s.$defs.wireVersion!.enum);
    expect([...CHECKPOINT_STATUSES]).toEqual(s.$defs.checkpointStatus!.enum);
    expect([...ROW_STATUSES]).toEqual(s.$defs.rowStatus!.enum);
    expect([...BLOCKER_NEEDS]).toEqual(s.$defs.blockerNeeds!.enum);
    expect([...PM_ROLES]).toEqual(s.$defs.pmRole!.enum);
  });

  it('every oneOf has branches of different types (the validator picks the branch by type)', () => {
    const types: string[][] = [];
    const walk = (node: unknown): void => {
      if (!node || typeof node !== 'object') return;
      const n = node as { oneOf?: { type?: string }[] };
      if (Array.isArray(n.oneOf)) types.push(n.oneOf.map((b) => String(b.type)));
      for (const v of Object.values(node)) walk(v);
    };
    walk(schema);
    expect(types.length).toBeGreaterThanOrEqual(4);
    for (const t of types) expect(new Set(t).size, t.join(',')).toBe(t.length);
  });
});

describe('schema and validator agree', () => {
  describe.each(corpus('valid'))('valid/%s', (_name, doc) => {
    it('both accept it', () => {
      expect(schemaValid(doc), JSON.stringify(schemaValid.errors)).toBe(true);
      expect(validateCheckpoint(doc).errors).toEqual([]);
    });
  });

  describe.each(corpus('invalid'))('invalid/%s', (_name, doc) => {
    it('both refuse it', () => {
      expect(schemaValid(doc)).toBe(false);
      expect(validatorValid(doc)).toBe(false);
    });
  });
});

/**
 * Slips the schema refuses (it states how the protocol writes a field) that the validator reads
 * as what they mean, with advice: each with the corpus file that shows it.
 */
const SCHEMA_ONLY: Record<string, string> = {
  'protocol-version-number.json': 'protocol_version 1, 1.0 or 1.1 written as a number is that version, its quotes dropped',
};

describe('schema-only rules', () => {
  it('every schema-only file is listed with the slip it shows', () => {
    expect(corpus('schema-only').map(([n]) => n)).toEqual(Object.keys(SCHEMA_ONLY).sort());
  });

  describe.each(corpus('schema-only'))('schema-only/%s', (name, doc) => {
    it(`the schema refuses it, the validator accepts it with advice: ${SCHEMA_ONLY[name]}`, () => {
      expect(schemaValid(doc)).toBe(false);
      const result = validateCheckpoint(doc);
      expect(result.errors).toEqual([]);
      expect(result.warnings.filter((w) => w.advice).length).toBeGreaterThan(0);
    });
  });
});

describe('validator-only rules', () => {
  it('every validator-only file is listed with the rule it shows', () => {
    expect(corpus('validator-only').map(([n]) => n)).toEqual(Object.keys(VALIDATOR_ONLY).sort());
  });

  describe.each(corpus('validator-only'))('validator-only/%s', (name, doc) => {
    it(`the schema accepts it, the validator refuses it: ${VALIDATOR_ONLY[name]}`, () => {
      expect(schemaValid(doc), JSON.stringify(schemaValid.errors)).toBe(true);
      expect(validatorValid(doc)).toBe(false);
    });
  });

  it('file name = <skill>.checkpoint.json is checked only when the validator is told the name', () => {
    const [, doc] = corpus('valid').find(([n]) => n === 'minimal-in-progress.json')!;
    expect(schemaValid(doc)).toBe(true);
    expect(validateCheckpoint(doc).errors).toEqual([]);
    expect(validateCheckpoint(doc, { fileName: 'api.checkpoint.json' }).errors).toEqual([]);
    expect(validateCheckpoint(doc, { fileName: 'web.checkpoint.json' }).errors.map((e) => e.path)).toEqual(['skill']);
  });
});
