// Every validator rule, each with a failing and a passing case, and the JSON path it reports.
import { describe, expect, it } from 'vitest';
import {
  isIsoInstant,
  joinPath,
  MAX_FILE_BYTES,
  MAX_KEY_DECISIONS,
  MAX_SUMMARY_CHARS,
  validateCheckpoint,
  warningLevel,
  type Issue,
  type ValidateContext,
} from '../../src/protocol/validate.js';
import { missingDay } from '../../src/protocol/instant.js';
import { REQUIRED_FIELDS } from '../../src/protocol/fields.js';
import { shownValue } from '../../src/protocol/shape-check.js';

type Doc = Record<string, unknown>;

/** A checkpoint with no errors and no warnings. */
function base(): Doc {
  return {
    protocol_version: '1.1',
    skill: 'api',
    project: 'gtrack',
    project_dir: '/home/claude/gtrack',
    created_at: '2026-03-31T14:00:00Z',
    updated_at: '2026-03-31T15:30:00Z',
    phase: 'build-loop',
    step: 'sprint-2',
    status: 'in_progress',
    progress_summary: 'Sprint 1 passed.',
    progress_table: [
      { id: 'planning', label: 'Planner', status: 'complete' },
      { id: 'sprint-2', label: 'Sprint 2', status: 'in_progress' },
    ],
    context_primer: { key_decisions: ['Stack: Hono'], generated_files: ['spec.md'], user_preferences: [] },
    next_actions: ['Read the evaluator report'],
  };
}

const with_ = (patch: Doc, drop: string[] = []): Doc => {
  const d = { ...base(), ...patch };
  for (const k of drop) delete d[k];
  return d;
};

const run = (doc: unknown, ctx: ValidateContext = {}) => validateCheckpoint(doc, ctx);
const at = (issues: Issue[], path: string) => issues.filter((i) => i.path === path);

/** Exactly one error, at `path`, whose message matches. */
function expectError(doc: unknown, path: string, message: RegExp, ctx: ValidateContext = {}): void {
  const { errors } = run(doc, ctx);
  expect(errors.map((e) => e.path), JSON.stringify(errors)).toEqual([path]);
  expect(errors[0]!.message).toMatch(message);
  expect(errors[0]!.level).toBe('error');
}

function expectValid(doc: unknown, ctx: ValidateContext = {}): void {
  expect(run(doc, ctx).errors).toEqual([]);
}

function expectWarning(doc: unknown, path: string, message: RegExp, ctx: ValidateContext = {}): void {
  const { errors, warnings } = run(doc, ctx);
  expect(errors).toEqual([]);
  const found = at(warnings, path);
  expect(found.length, JSON.stringify(warnings)).toBe(1);
  expect(found[0]!.message).toMatch(message);
  expect(found[0]!.level).toBe('warning');
}

function expectNoWarning(doc: unknown, path: string, ctx: ValidateContext = {}): void {
  const { errors, warnings } = run(doc, ctx);
  expect(errors).toEqual([]);
  expect(at(warnings, path)).toEqual([]);
}

describe('the base document', () => {
  it('has no errors and no warnings', () => {
    expect(run(base(), { fileName: 'api.checkpoint.json', now: new Date('2026-04-01T00:00:00Z'), sizeBytes: 900 })).toEqual({ errors: [], warnings: [] });
  });

  it('refuses anything that is not an object', () => {
    for (const v of [null, [], 'x', 3, true]) expectError(v, '(root)', /must be a JSON object/);
  });
});

describe('required fields', () => {
  it('lists exactly the ten header and progress fields', () => {
    expect([...REQUIRED_FIELDS]).toEqual(['protocol_version', 'skill', 'project', 'project_dir', 'created_at', 'updated_at', 'phase', 'step', 'status', 'progress_summary']);
  });

  for (const field of REQUIRED_FIELDS) {
    it(`${field}: missing, null and "" are errors; a value passes`, () => {
      expectError(with_({}, [field]), field, new RegExp(`required field "${field}" is missing`));
      expectError(with_({ [field]: null }), field, new RegExp(`required field "${field}" is empty`));
      expectError(with_({ [field]: '' }), field, new RegExp(`required field "${field}" is empty`));
      expectValid(base());
    });
  }

  it('a non-string value is an error', () => {
    expectError(with_({ project: 42 }), 'project', /"project" must be a string/);
    expectError(with_({ phase: { name: 'x' } }), 'phase', /must be a string/);
  });

  it('reports every missing field, not just the first', () => {
    const { errors } = run({});
    expect(errors.map((e) => e.path)).toEqual([...REQUIRED_FIELDS]);
  });
});

describe('protocol_version', () => {
  it('accepts the wire versions 1.0 and 1.1', () => {
    expectValid(with_({ protocol_version: '1.0' }));
    expectValid(with_({ protocol_version: '1.1' }));
  });

  it.each(['2.0', '1.2', '1.1.0', 'v1.1'])('refuses %j and says it is the on-disk wire version', (v) => {
    expectError(with_({ protocol_version: v }), 'protocol_version', /on-disk wire version/);
    expect(run(with_({ protocol_version: v })).errors[0]!.message).toMatch(/not the skill release/);
  });

  // Hand-written files say 1, 1.0 or 1.1 without quotes, or "1": that version, a slip, advice (fixer f4 5).
  it.each([[1.1, 'the number 1.1', '1.1'], [1, 'the number 1', '1.0'], ['1', '"1"', '1.0']])('%j is read as the version it says, with advice naming the string to write', (v, as, version) => {
    const { errors, warnings } = run(with_({ protocol_version: v }));
    expect(errors).toEqual([]);
    expect(warnings.filter((w) => w.path === 'protocol_version')).toEqual([
      { level: 'warning', path: 'protocol_version', advice: true, message: `protocol_version is ${as}, read as "${version}"; the protocol writes it as the string "${version}" (any checkpoint update stamps "1.1")` },
    ]);
  });

  it('a number naming no version it reads (2) is refused as not text, naming the wire version to quote', () => {
    expectError(with_({ protocol_version: 2 }), 'protocol_version', /^protocol_version is 2, not text: the on-disk wire version is a string, one of 1\.0\|1\.1, written in quotes$/);
  });
});

describe('status', () => {
  it.each(['in_progress', 'blocked', 'complete', 'failed'])('accepts %s', (status) => {
    const doc = with_({ status, blockers: [{ id: 'b1', description: 'x', needs: 'code_fix' }] });
    expectValid(doc);
  });

  it.each(['done', 'not_started', 'IN_PROGRESS', 'paused'])('refuses %s', (status) => {
    expectError(with_({ status }), 'status', /must be one of in_progress\|blocked\|complete\|failed/);
  });
});

describe('progress_table', () => {
  it('accepts every row status', () => {
    const rows = ['complete', 'in_progress', 'not_started', 'blocked', 'failed'].map((s, i) => ({ id: `r${i}`, label: `Row ${i}`, status: s }));
    expectValid(with_({ progress_table: rows }));
  });

  it('must be an array', () => {
    expectError(with_({ progress_table: { planning: 'complete' } }), 'progress_table', /must be an array/);
  });

  it('rows must be objects', () => {
    expectError(with_({ progress_table: ['planning'] }), 'progress_table[0]', /must be an object/);
  });

  it('each row needs id, label and a row status', () => {
    const row = { id: 'a', label: 'A', status: 'complete' };
    expectError(with_({ progress_table: [{ ...row, id: undefined }] }), 'progress_table[0].id', /string id/);
    expectError(with_({ progress_table: [{ ...row, id: '' }] }), 'progress_table[0].id', /string id/);
    expectError(with_({ progress_table: [{ ...row, id: 3 }] }), 'progress_table[0].id', /string id/);
    expectError(with_({ progress_table: [row, { ...row, id: 'b', label: null }] }), 'progress_table[1].label', /string label/);
    expectError(with_({ progress_table: [{ ...row, status: 'done' }] }), 'progress_table[0].status', /complete\|in_progress\|not_started\|blocked\|failed/);
    // Missing (a misspelt "stauts" beside it), the message still names the statuses (red team, 12-05: it ended at "one of ").
    // ... and the slip beside it, as a top-level slip is named.
    expectError(with_({ progress_table: [{ id: 'a', label: 'A', stauts: 'complete' }] }), 'progress_table[0].status', /^row status must be one of complete\|in_progress\|not_started\|blocked\|failed \("stauts" is there: did you mean status\?\)$/);
    expectError(with_({ blockers: [{ id: 'b1', descripton: 'Which DB?' }] }), 'blockers[0].description', /^blocker needs a description \("descripton" is there: did you mean description\?\)$/);
    expectError(with_({ progress_table: [{ id: 'a', label: 'A' }] }), 'progress_table[0].status', /^row status must be one of complete\|in_progress\|not_started\|blocked\|failed$/);
    // A member that is there (wrong) with a near name beside it: no slip named.
    expectError(with_({ progress_table: [{ ...row, status: 'done', stauts: 'complete' }] }), 'progress_table[0].status', /failed \(did you mean complete\?\)$/);
  });
});

describe('repeated ids (red team s11 #12)', () => {
  it('warns once per repeated id in progress_table and blockers, at its first repeat, naming the row it repeats', () => {
    const rows = [
      { id: 's1', label: 'S1', status: 'complete' },
      { id: 's2', label: 'S2 (PR 12)', status: 'in_progress' },
      { id: 's1', label: 'S1 again', status: 'in_progress' },
      { id: 's1', label: 'S1, third try', status: 'not_started' },
      { id: 's2', label: 'S2 copy', status: 'complete' },
    ];
    const blockers = [{ id: 'b1', description: 'waiting on API keys' }, { id: 'b1', description: 'waiting on API keys (again)' }];
    const { errors, warnings } = run(with_({ progress_table: rows, blockers }));
    expect(errors).toEqual([]);
    expect(warnings.filter((w) => /repeats/.test(w.message)).map((w) => [w.path, w.message])).toEqual([
      ['progress_table[2].id', 'id "s1" repeats progress_table[0]; merges match progress_table entries by id, so give each its own id'],
      ['progress_table[4].id', 'id "s2" repeats progress_table[1]; merges match progress_table entries by id, so give each its own id'],
      ['blockers[1].id', 'id "b1" repeats blockers[0]; merges match blockers entries by id, so give each its own id'],
    ]);
    // Advice: a merge hazard, never a refused push or a failed --strict.
    expect(warningLevel(warnings.find((w) => w.path === 'blockers[1].id')!)).toBe('advice');
  });
  it('ids that differ only in type or case are not repeats', () => {
    const { warnings } = run(with_({ progress_table: [{ id: 'S1', label: 'a', status: 'complete' }, { id: 's1', label: 'b', status: 'complete' }], blockers: [{ id: 1, description: 'x' }, { id: '1', description: 'y' }] }));
    expect(warnings.filter((w) => /repeats/.test(w.message))).toEqual([]);
  });
});

describe('created_at / updated_at', () => {
  const good = [
    '2026-03-31T14:00:00Z',
    '2026-03-31T14:00:00.123Z',
    '2026-03-31T14:00Z',
    '2026-03-31T14:00:00+05:30',
    '2026-03-31T14:00:00-0800',
    '2024-02-29T00:00:00Z',
  ];
  const bad = [
    '2026-03-31T14:00:00', // no zone
    '2026-03-31', // date only
    '2026-03-31 14:00:00Z', // space
    '2026-13-01T00:00:00Z', // month 13
    '2026-02-30T00:00:00Z', // no such day (Date.parse rolls it over into March)
    '2025-02-29T00:00:00Z', // not a leap year
    '2026-04-31T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T23:60:00Z',
    '2026-01-01T10:00:00+25:00',
    'yesterday',
    '1775000000',
  ];
  for (const field of ['created_at', 'updated_at'] as const) {
    it.each(good)(`${field} accepts %s`, (v) => {
      // keep updated_at >= created_at
      const doc = field === 'created_at' ? with_({ created_at: v, updated_at: '2027-01-01T00:00:00Z' }) : with_({ created_at: '2020-01-01T00:00:00Z', updated_at: v });
      expectValid(doc);
    });
    it.each(bad)(`${field} refuses %s`, (v) => {
      // A day its month lacks is refused with the calendar's reason (red team D11); anything else as no instant.
      const lacks = missingDay(v);
      expectError(with_({ [field]: v }), field, lacks ? new RegExp(`^${field} "${v}" names a day the calendar lacks: ${lacks}$`) : /ISO-8601 instant with Z or an offset/);
    });
  }

  it('isIsoInstant agrees', () => {
    for (const v of good) expect(isIsoInstant(v), v).toBe(true);
    for (const v of bad) expect(isIsoInstant(v), v).toBe(false);
    expect(isIsoInstant(undefined)).toBe(false);
    expect(isIsoInstant(1775000000)).toBe(false);
  });

  it('updated_at before created_at is an error at updated_at', () => {
    expectError(with_({ created_at: '2026-03-31T15:00:00Z', updated_at: '2026-03-31T14:59:59Z' }), 'updated_at', /is before created_at/);
    // compared as instants, not strings: 16:00+02:00 is 14:00Z, before 15:00Z
    expectError(with_({ created_at: '2026-03-31T15:00:00Z', updated_at: '2026-03-31T16:00:00+02:00' }), 'updated_at', /before created_at/);
    expectValid(with_({ created_at: '2026-03-31T15:00:00Z', updated_at: '2026-03-31T15:00:00Z' }));
    expectValid(with_({ created_at: '2026-03-31T15:00:00Z', updated_at: '2026-03-31T18:00:00+02:00' }));
  });
});

describe('file name', () => {
  it('must be <skill>.checkpoint.json', () => {
    expectValid(base(), { fileName: 'api.checkpoint.json' });
    expectError(base(), 'skill', /file name "other.checkpoint.json" must be "api.checkpoint.json"/, { fileName: 'other.checkpoint.json' });
    expectError(base(), 'skill', /must be "api.checkpoint.json"/, { fileName: 'api.json' });
  });

  it('is not checked without a file name (the schema cannot see one)', () => {
    expectValid(base());
  });
});

describe('next_actions', () => {
  it('is required and non-empty while in_progress', () => {
    expectError(with_({}, ['next_actions']), 'next_actions', /required while in_progress/);
    expectError(with_({ next_actions: [] }), 'next_actions', /must not be empty while in_progress/);
  });

  it('may be missing or empty when not in_progress', () => {
    expectValid(with_({ status: 'complete' }, ['next_actions']));
    expectValid(with_({ status: 'complete', next_actions: [] }));
    expectValid(with_({ status: 'failed', next_actions: [] }));
  });

  it('must be an array', () => {
    expectError(with_({ next_actions: 'do it' }), 'next_actions', /must be an array/);
  });

  it('items are strings or {text, done_when?}', () => {
    expectValid(with_({ next_actions: ['a', { text: 'b' }, { text: 'c', done_when: 'npm test' }] }));
    expectError(with_({ next_actions: ['a', 7] }), 'next_actions[1]', /string or \{text, done_when\?\}/);
    expectError(with_({ next_actions: [''] }), 'next_actions[0]', /must not be empty/);
    expectError(with_({ next_actions: ['   '] }), 'next_actions[0]', /must not be empty/);
    expectError(with_({ next_actions: [{ done_when: 'true' }] }), 'next_actions[0].text', /non-empty string text/);
    expectError(with_({ next_actions: [{ text: ' ' }] }), 'next_actions[0].text', /non-empty string text/);
    expectError(with_({ next_actions: [{ text: 'x', done_when: 5 }] }), 'next_actions[0].done_when', /shell command string/);
  });
});

describe('blockers', () => {
  const b = { id: 'b1', description: 'rate limiting', blocking: 'sprint-2', needs: 'code_fix' };

  it('accepts well-formed blockers with every needs value', () => {
    for (const needs of ['user_decision', 'code_fix', 'external_dep']) expectValid(with_({ blockers: [{ ...b, needs }] }));
    expectValid(with_({ blockers: [{ id: 2, description: 'numeric id' }] }));
  });

  it('must be an array of objects', () => {
    expectError(with_({ blockers: { b1: 'x' } }), 'blockers', /must be an array/);
    expectError(with_({ blockers: ['b1'] }), 'blockers[0]', /must be an object/);
  });

  it('needs an id and a description', () => {
    expectError(with_({ blockers: [{ ...b, id: undefined }] }), 'blockers[0].id', /needs an id/);
    expectError(with_({ blockers: [{ ...b, id: '' }] }), 'blockers[0].id', /needs an id/);
    expectError(with_({ blockers: [b, { ...b, id: 'b2', description: undefined }] }), 'blockers[1].description', /needs a description/);
    expectError(with_({ blockers: [{ ...b, description: '' }] }), 'blockers[0].description', /needs a description/);
  });

  it('needs must be user_decision|code_fix|external_dep', () => {
    expectError(with_({ blockers: [{ ...b, needs: 'coffee' }] }), 'blockers[0].needs', /user_decision\|code_fix\|external_dep/);
  });

  it('blocking and proposed_resolution are strings', () => {
    expectError(with_({ blockers: [{ ...b, blocking: 3 }] }), 'blockers[0].blocking', /must be a string/);
    expectError(with_({ blockers: [{ ...b, proposed_resolution: ['x'] }] }), 'blockers[0].proposed_resolution', /must be a string/);
  });
});

describe('pm_refs', () => {
  const r = { provider: 'linear', id: 'PLAT-4471', url: 'https://x', role: 'source', created_by_skill: 'api', first_seen_at: '2026-05-04T12:00:00Z' };

  it('accepts every role, and refs without a role', () => {
    for (const role of ['source', 'child', 'deploy', 'incident', 'linked']) expectValid(with_({ pm_refs: [{ ...r, role }] }));
    expectValid(with_({ pm_refs: [{ provider: 'jira', id: 'X-1' }] }));
  });

  it('needs provider and id', () => {
    expectError(with_({ pm_refs: [{ ...r, provider: undefined }] }), 'pm_refs[0].provider', /needs a provider/);
    expectError(with_({ pm_refs: [{ ...r, provider: '' }] }), 'pm_refs[0].provider', /needs a provider/);
    expectError(with_({ pm_refs: [{ ...r, id: null }] }), 'pm_refs[0].id', /needs an id/);
  });

  it('role must be one of the five', () => {
    expectError(with_({ pm_refs: [{ ...r, role: 'owner' }] }), 'pm_refs[0].role', /source\|child\|deploy\|incident\|linked/);
  });

  it('shape of the optional members', () => {
    expectError(with_({ pm_refs: 'PLAT-1' }), 'pm_refs', /must be an array/);
    expectError(with_({ pm_refs: [3] }), 'pm_refs[0]', /must be an object/);
    expectError(with_({ pm_refs: [{ ...r, first_seen_at: 'May 4th' }] }), 'pm_refs[0].first_seen_at', /ISO-8601/);
    expectError(with_({ pm_refs: [{ ...r, url: 5 }] }), 'pm_refs[0].url', /must be a string/);
  });
});

describe('cost', () => {
  const c = { currency: 'USD', total_usd: 12.34, budget_usd: 50, by_phase: { spec: 3.1, build: 0 }, by_model: { opus: 9.2 }, tokens: { input: 1 }, updated_at: '2026-06-25T12:00:00Z' };

  it('accepts the documented shape', () => {
    expectValid(with_({ cost: c }));
    expectValid(with_({ cost: {} }));
  });

  it('must be an object', () => {
    expectError(with_({ cost: 12 }), 'cost', /must be an object/);
    expectError(with_({ cost: [] }), 'cost', /must be an object/);
  });

  it('total_usd and budget_usd are non-negative numbers', () => {
    expectError(with_({ cost: { ...c, total_usd: -1 } }), 'cost.total_usd', /non-negative number/);
    expectError(with_({ cost: { ...c, budget_usd: '50' } }), 'cost.budget_usd', /non-negative number/);
    expectValid(with_({ cost: { ...c, total_usd: 0, budget_usd: 0 } }));
  });

  it('by_phase and by_model map names to non-negative numbers', () => {
    expectError(with_({ cost: { ...c, by_phase: [1, 2] } }), 'cost.by_phase', /map names to non-negative numbers/);
    expectError(with_({ cost: { ...c, by_phase: { spec: -0.5 } } }), 'cost.by_phase.spec', /non-negative number/);
    expectError(with_({ cost: { ...c, by_model: { 'claude opus': 'lots' } } }), 'cost.by_model."claude opus"', /non-negative number/);
  });

  it('currency, tokens and updated_at have their types', () => {
    expectError(with_({ cost: { ...c, currency: 1 } }), 'cost.currency', /must be a string/);
    expectError(with_({ cost: { ...c, tokens: 5 } }), 'cost.tokens', /must be an object/);
    expectError(with_({ cost: { ...c, updated_at: 'now' } }), 'cost.updated_at', /ISO-8601/);
  });
});

describe('eval_scores', () => {
  const s = { rubric: 'oc-code-auditor', score: 8.2, max: 10, at: '2026-06-25T12:00:00Z', ref: 'r.md', dimensions: { functionality: 9, quality: 8 } };

  it('accepts the documented shapes', () => {
    expectValid(with_({ eval_scores: [s, { rubric: 'oc-prompt-ops', score: 0.93, max: 1 }, { rubric: 'r', score: -1 }] }));
    expectValid(with_({ eval_scores: [{ ...s, score: 10, max: 10 }] }));
  });

  it('is an array of objects', () => {
    expectError(with_({ eval_scores: s }), 'eval_scores', /must be an array/);
    expectError(with_({ eval_scores: [8.2] }), 'eval_scores[0]', /must be an object/);
  });

  it('rubric is a non-empty string', () => {
    expectError(with_({ eval_scores: [{ ...s, rubric: undefined }] }), 'eval_scores[0].rubric', /string rubric/);
    expectError(with_({ eval_scores: [{ ...s, rubric: '' }] }), 'eval_scores[0].rubric', /string rubric/);
    expectError(with_({ eval_scores: [{ ...s, rubric: 7 }] }), 'eval_scores[0].rubric', /string rubric/);
  });

  it('score is a finite number', () => {
    expectError(with_({ eval_scores: [{ ...s, score: undefined }] }), 'eval_scores[0].score', /finite numeric score/);
    expectError(with_({ eval_scores: [{ ...s, score: '8' }] }), 'eval_scores[0].score', /finite numeric score/);
    expectError(with_({ eval_scores: [{ ...s, score: Number.POSITIVE_INFINITY, max: undefined }] }), 'eval_scores[0].score', /finite/);
  });

  it('max is positive and score <= max', () => {
    expectError(with_({ eval_scores: [{ ...s, max: 0 }] }), 'eval_scores[0].max', /positive number/);
    expectError(with_({ eval_scores: [{ ...s, max: -10 }] }), 'eval_scores[0].max', /positive number/);
    expectError(with_({ eval_scores: [{ ...s, max: '10' }] }), 'eval_scores[0].max', /positive number/);
    expectError(with_({ eval_scores: [s, { ...s, score: 10.5 }] }), 'eval_scores[1].score', /score 10.5 exceeds max 10/);
  });

  it('at is ISO-8601, dimensions map names to numbers, ref is a string', () => {
    expectError(with_({ eval_scores: [{ ...s, at: '25/06/2026' }] }), 'eval_scores[0].at', /ISO-8601/);
    expectError(with_({ eval_scores: [{ ...s, dimensions: [9, 8] }] }), 'eval_scores[0].dimensions', /map names to numbers/);
    expectError(with_({ eval_scores: [{ ...s, dimensions: { ux: 'good' } }] }), 'eval_scores[0].dimensions.ux', /must be a number/);
    expectError(with_({ eval_scores: [{ ...s, ref: 1 }] }), 'eval_scores[0].ref', /must be a string/);
  });
});

describe('telemetry_handle', () => {
  it('accepts a non-empty string or the object form', () => {
    expectValid(with_({ telemetry_handle: 'anon-7f3a91c0' }));
    expectValid(with_({ telemetry_handle: { enabled: true, id: 'anon-7f3a91c0', sink: '.checkpoints/usage.sqlite', since: '2026-06-25T12:00:00Z' } }));
    expectValid(with_({ telemetry_handle: {} }));
  });

  it('refuses an empty string and other types', () => {
    expectError(with_({ telemetry_handle: '' }), 'telemetry_handle', /non-empty string or an object/);
    expectError(with_({ telemetry_handle: 7 }), 'telemetry_handle', /non-empty string or an object/);
    expectError(with_({ telemetry_handle: ['a'] }), 'telemetry_handle', /non-empty string or an object/);
    expectError(with_({ telemetry_handle: null }), 'telemetry_handle', /non-empty string or an object/);
  });

  it('checks the members of the object form', () => {
    expectError(with_({ telemetry_handle: { enabled: 'yes' } }), 'telemetry_handle.enabled', /boolean/);
    expectError(with_({ telemetry_handle: { id: 7 } }), 'telemetry_handle.id', /must be a string/);
    expectError(with_({ telemetry_handle: { sink: false } }), 'telemetry_handle.sink', /must be a string/);
    expectError(with_({ telemetry_handle: { since: 'June' } }), 'telemetry_handle.since', /ISO-8601/);
  });
});

describe('other optional fields', () => {
  it('context_primer is an object of string lists', () => {
    expectError(with_({ context_primer: ['x'] }), 'context_primer', /must be an object/);
    expectError(with_({ context_primer: { key_decisions: 'one' } }), 'context_primer.key_decisions', /array of strings/);
    expectError(with_({ context_primer: { generated_files: ['a', 3] } }), 'context_primer.generated_files[1]', /must be a string/);
  });

  it('recently_done holds strings or {at, action}', () => {
    expectValid(with_({ recently_done: ['x', { at: '2026-01-01T00:00:00Z', action: 'y' }] }));
    expectError(with_({ recently_done: {} }), 'recently_done', /must be an array/);
    expectError(with_({ recently_done: [5] }), 'recently_done[0]', /\{at, action\}/);
    expectError(with_({ recently_done: [{ at: 'then', action: 'y' }] }), 'recently_done[0].at', /ISO-8601/);
    expectError(with_({ recently_done: [{ at: '2026-01-01T00:00:00Z', action: 3 }] }), 'recently_done[0].action', /must be a string/);
  });

  it('skill_state is an object; depends_on a string or strings; $schema a string', () => {
    expectValid(with_({ skill_state: { anything: [1, { deep: true }] }, depends_on: 'api checkpoint shows spec approved', $schema: './checkpoint.schema.json' }));
    expectValid(with_({ depends_on: ['a', 'b'] }));
    expectError(with_({ skill_state: [] }), 'skill_state', /must be an object/);
    expectError(with_({ depends_on: 3 }), 'depends_on', /string or an array of strings/);
    expectError(with_({ depends_on: ['a', 3] }), 'depends_on[1]', /must be a string/);
    expectError(with_({ $schema: true }), '$schema', /must be a string/);
  });

  it('capsule is checked by the capsule rules, under capsule.', () => {
    const capsule = {
      context: { goal: 'g', acceptance: 'a', constraints: [], decisions: [], evidence: [], pending: [], next: 'n' },
      origin: { root: '/r', head: null, saved_at: '2026-01-01T00:00:00Z' },
    };
    expectValid(with_({ capsule }));
    expectValid(with_({ capsule: { ...capsule, mechanical: { head: null, branch: 'main', uncommitted: [], at: '2026-01-01T00:00:00Z' } } }));
    expectError(with_({ capsule: { ...capsule, context: { ...capsule.context, goal: ' ' } } }), 'capsule.context.goal', /non-empty string/);
    expectError(with_({ capsule: { ...capsule, extra: 1 } }), 'capsule.extra', /unknown capsule field/);
    expectError(with_({ capsule: { ...capsule, mechanical: 'x' } }), 'capsule.mechanical', /must be an object/);
    expectError(with_({ capsule: 'x' }), 'capsule', /must be an object/);
  });
});

describe('warnings', () => {
  it('no progress_table while in_progress', () => {
    expectWarning(with_({}, ['progress_table']), 'progress_table', /no progress_table while in_progress/);
    expectNoWarning(with_({ status: 'complete' }, ['progress_table']), 'progress_table');
    expectNoWarning(base(), 'progress_table');
  });

  it('no context_primer while in_progress', () => {
    expectWarning(with_({}, ['context_primer']), 'context_primer', /no context_primer while in_progress/);
    expectNoWarning(with_({ status: 'failed' }, ['context_primer']), 'context_primer');
  });

  it('a blocker whose blocking matches no row id', () => {
    expectWarning(with_({ blockers: [{ id: 'b1', description: 'd', blocking: 'sprint-9' }] }), 'blockers[0].blocking', /"sprint-9" matches no progress_table id/);
    expectNoWarning(with_({ blockers: [{ id: 'b1', description: 'd', blocking: 'sprint-2' }] }), 'blockers[0].blocking');
  });

  it('a blocker naming its row as people write it: the row\'s label, another case or spacing, the checkpoint\'s phase or step', () => {
    for (const blocking of ['Sprint 2', 'sprint 2', 'SPRINT-2', ' sprint_2 ', 'Planner', 'build-loop']) {
      expectNoWarning(with_({ blockers: [{ id: 'b1', description: 'd', blocking }] }), 'blockers[0].blocking');
    }
    expectWarning(with_({ blockers: [{ id: 'b1', description: 'd', blocking: 'Sprint 3' }] }), 'blockers[0].blocking', /"Sprint 3" matches no progress_table id/);
  });

  it('budget gate tripped when total_usd > budget_usd > 0', () => {
    expectWarning(with_({ cost: { total_usd: 60, budget_usd: 50 } }), 'cost.total_usd', /budget gate tripped: total_usd 60 > budget_usd 50/);
    expectNoWarning(with_({ cost: { total_usd: 50, budget_usd: 50 } }), 'cost.total_usd');
    expectNoWarning(with_({ cost: { total_usd: 60, budget_usd: 0 } }), 'cost.total_usd');
    expectNoWarning(with_({ cost: { total_usd: 60 } }), 'cost.total_usd');
  });

  it(`a file over ${MAX_FILE_BYTES} bytes names checkpoint rotate`, () => {
    expectWarning(base(), '(file)', /over 32768.*`checkpoint rotate`/, { sizeBytes: MAX_FILE_BYTES + 1 });
    expectNoWarning(base(), '(file)', { sizeBytes: MAX_FILE_BYTES });
  });

  it(`progress_summary over ${MAX_SUMMARY_CHARS} characters`, () => {
    expectWarning(with_({ progress_summary: 'x'.repeat(MAX_SUMMARY_CHARS + 1) }), 'progress_summary', /1201 characters \(over 1200\)/);
    expectNoWarning(with_({ progress_summary: 'x'.repeat(MAX_SUMMARY_CHARS) }), 'progress_summary');
  });

  it(`more than ${MAX_KEY_DECISIONS} key_decisions`, () => {
    const decisions = (n: number) => Array.from({ length: n }, (_, i) => `decision ${i}`);
    expectWarning(with_({ context_primer: { key_decisions: decisions(21) } }), 'context_primer.key_decisions', /21 key_decisions \(over 20\)/);
    expectNoWarning(with_({ context_primer: { key_decisions: decisions(20) } }), 'context_primer.key_decisions');
  });

  it('updated_at more than a day in the future', () => {
    const now = new Date('2026-03-30T15:00:00Z');
    expectWarning(base(), 'updated_at', /more than a day in the future/, { now }); // 24h30m ahead
    expectNoWarning(base(), 'updated_at', { now: new Date('2026-03-30T16:00:00Z') }); // 23h30m ahead
    expectNoWarning(base(), 'updated_at'); // no clock, no check
  });

  it('blocked with no blockers', () => {
    expectWarning(with_({ status: 'blocked' }), 'blockers', /blocked but no blockers/);
    expectWarning(with_({ status: 'blocked', blockers: [] }), 'blockers', /blocked but no blockers/);
    expectNoWarning(with_({ status: 'blocked', blockers: [{ id: 'b', description: 'd' }] }), 'blockers');
  });

  it('complete while a user_decision blocker is open', () => {
    const blocker = { id: 'b7', description: 'pick a region', needs: 'user_decision' };
    expectWarning(with_({ status: 'complete', blockers: [blocker] }), 'blockers[0]', /complete while user_decision blocker "b7" is still open/);
    expectNoWarning(with_({ status: 'complete', blockers: [{ ...blocker, needs: 'code_fix' }] }), 'blockers[0]');
    expectNoWarning(with_({ status: 'in_progress', blockers: [blocker] }), 'blockers[0]');
  });

  it('generated_files at the top level: a warning naming context_primer.generated_files (red team B02)', () => {
    const files = ['src/auth.ts (PR 12)', 'docs/**/*.md', 'docs/api.md — to write'];
    const message = /^written at the top level; the protocol keeps generated_files under context_primer, where a resuming session reads it: move it to context_primer\.generated_files \(doctor checks it in either place\)$/;
    expectWarning(with_({ generated_files: files }), 'generated_files', message);
    // Beside the primer's own list, written as one string, or in a file without a primer: said all the same.
    expectWarning(with_({ generated_files: 'src/a.ts, src/b.ts' }), 'generated_files', message);
    expectWarning(with_({ status: 'complete', generated_files: files }, ['context_primer']), 'generated_files', message);
    expect(warningLevel(at(run(with_({ generated_files: files })).warnings, 'generated_files')[0]!)).toBe('warning');
    expectNoWarning(base(), 'generated_files');
  });

  it('verified_for_sha at the top level: advice naming skill_state.verified_for_sha (no protocol field: never fails --strict)', () => {
    const { errors, warnings } = run(with_({ verified_for_sha: 'release-v2 (base e5ea561)', skill_state: { pass_threshold: 6.0 } }));
    expect(errors).toEqual([]);
    const found = at(warnings, 'verified_for_sha');
    expect(found.map((w) => [w.message, warningLevel(w)])).toEqual([
      ["written at the top level; the protocol keeps a skill's own state under skill_state: move it to skill_state.verified_for_sha (doctor checks it in either place)", 'advice'],
    ]);
    expectNoWarning(with_({ skill_state: { verified_for_sha: 'e5ea561' } }), 'verified_for_sha');
    expectNoWarning(with_({ skill_state: { verified_for_sha: 'e5ea561' } }), 'skill_state.verified_for_sha');
  });

  it('warnings never make a file invalid', () => {
    const noisy = with_({ status: 'complete', blockers: [{ id: 'b', description: 'd', needs: 'user_decision', blocking: 'nope' }], cost: { total_usd: 9, budget_usd: 1 } });
    const { errors, warnings } = run(noisy, { sizeBytes: 99_999 });
    expect(errors).toEqual([]);
    expect(warnings.map((w) => w.path).sort()).toEqual(['(file)', 'blockers[0]', 'blockers[0].blocking', 'cost.total_usd']);
  });
});

describe('paths', () => {
  it('joinPath writes indices in brackets and quotes keys that are not identifiers', () => {
    expect(joinPath('', 'cost')).toBe('cost');
    expect(joinPath('a', 2)).toBe('a[2]');
    expect(joinPath('a', 'b-c')).toBe('a.b-c');
    expect(joinPath('a', 'b c')).toBe('a."b c"');
    expect(joinPath('a', '1x')).toBe('a."1x"');
  });

  it('deep errors carry the full path', () => {
    expectError(with_({ eval_scores: [{ rubric: 'r', score: 1 }, { rubric: 'r', score: 1, dimensions: { 'a.b': 'x' } }] }), 'eval_scores[1].dimensions."a.b"', /must be a number/);
  });
});

describe('a value a message shows', () => {
  it('is its JSON, cut at 57 characters with "...", never inside an escape (red team, 12-05: "\\u0..." read as other text)', () => {
    expect(shownValue('short')).toBe('"short"');
    for (let pad = 40; pad < 60; pad++) {
      for (const tail of ['\u001b[2J and more text to pass the cut', '\\\\ and more text to pass the cut here', '"quoted" and more text to pass the cut']) {
        const shown = shownValue(`${'x'.repeat(pad)}${tail}`);
        expect(shown.endsWith('...')).toBe(true);
        const body = shown.slice(0, -3);
        expect(body.length).toBeLessThanOrEqual(57);
        // Whole escapes only: the text is a start of a JSON string that parses once closed.
        expect(() => JSON.parse(`${body}"`)).not.toThrow();
        expect(JSON.stringify(`${'x'.repeat(pad)}${tail}`).startsWith(body)).toBe(true);
      }
    }
  });
});
