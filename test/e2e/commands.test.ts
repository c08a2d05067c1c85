// The read/write commands end to end: the built binary in throw-away git repositories.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { runCli } from '../helpers/in-process.js';
import { assertBuilt, BIN, cleanup, cli, errorLine, GIT_ENV, makeRepo, read, ROOT, tempDir, write, type RunResult } from '../helpers/repo.js';

type Doc = Record<string, unknown>;

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));
const repo = () => {
  const d = makeRepo({ commit: false });
  dirs.push(d);
  return d;
};
const plainDir = () => {
  const d = tempDir();
  dirs.push(d);
  return d;
};

beforeAll(() => {
  assertBuilt();
});

/** A valid in_progress checkpoint with no warnings. */
function doc(skill: string, patch: Doc = {}): Doc {
  return {
    protocol_version: '1.1',
    skill,
    project: 'gtrack',
    project_dir: '/somewhere/gtrack',
    created_at: '2026-01-01T10:00:00Z',
    updated_at: '2026-01-02T10:00:00Z',
    phase: 'build',
    step: 'sprint-1',
    status: 'in_progress',
    progress_summary: 'Sprint 1 under way.',
    progress_table: [
      { id: 'plan', label: 'Plan', status: 'complete' },
      { id: 'sprint-1', label: 'Sprint 1', status: 'in_progress' },
    ],
    context_primer: { key_decisions: ['Hono + D1'] },
    next_actions: ['Write the evaluator'],
    ...patch,
  };
}

const rel = (skill: string) => `.checkpoints/${skill}.checkpoint.json`;
const seed = (dir: string, skill: string, value: unknown, render: (v: unknown) => string = (v) => `${JSON.stringify(v, null, 2)}\n`) => {
  write(dir, rel(skill), render(value));
  return readFileSync(join(dir, rel(skill)));
};
const bytes = (dir: string, skill: string) => readFileSync(join(dir, rel(skill)));
const load = (dir: string, skill: string) => JSON.parse(read(dir, rel(skill))) as Doc;

function expectOk(r: RunResult): RunResult {
  expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
  return r;
}

/** Exit 2, one `checkpoint: ...` line (a hint rides on it), and no stack trace. */
function expectUsageFailure(r: RunResult, message: RegExp): void {
  expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(2);
  const line = errorLine(r.stderr);
  expect(line.lines, r.stderr).toBe(1);
  // `message` may name the prefix; the hint after it is not part of the message.
  expect(`checkpoint: ${line.message}`).toMatch(message);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('init', () => {
  it('creates .checkpoints/ with README and schema, and is idempotent', async () => {
    const dir = repo();
    const first = expectOk(cli(dir, ['init']));
    expect(first.stdout).toContain('✓ created .checkpoints/\n');
    expect(first.stdout).toContain('✓ wrote .checkpoints/README.md\n');
    expect(first.stdout).toContain('✓ wrote .checkpoints/checkpoint.schema.json\n');
    expect(read(dir, '.checkpoints/README.md')).toMatch(/^# \.checkpoints\//);
    expect(read(dir, '.checkpoints/README.md')).toMatch(/Do not add this folder to \.gitignore/);
    const schemaOnDisk = JSON.parse(read(dir, '.checkpoints/checkpoint.schema.json')) as unknown;
    expect(schemaOnDisk).toEqual(JSON.parse(readFileSync(join(ROOT, 'src/protocol/schema.json'), 'utf8')));

    const before = readFileSync(join(dir, '.checkpoints/README.md'));
    const second = expectOk(cli(dir, ['init']));
    expect(second.stdout).toBe(`✓ ${dir} is already set up\n`);
    expect(readFileSync(join(dir, '.checkpoints/README.md')).equals(before)).toBe(true);

    const json = expectOk(cli(dir, ['init', '--json']));
    expect(JSON.parse(json.stdout)).toEqual({ ok: true, root: dir, changes: [], notes: [] });
  });

  it('leaves a README the project edited alone, and says so', async () => {
    const dir = repo();
    expectOk(cli(dir, ['init']));
    write(dir, '.checkpoints/README.md', 'mine\n');
    expect(expectOk(cli(dir, ['init'])).stdout).toBe('✓ left .checkpoints/README.md as the project edited it\n');
    expect(read(dir, '.checkpoints/README.md')).toBe('mine\n');
  });
});

describe('list and show', () => {
  it('list: nothing yet, then one line per skill, and --json', async () => {
    const dir = repo();
    expect(expectOk(await runCli(dir, ['list'])).stdout).toMatch(/^no checkpoints yet/);
    seed(dir, 'web', doc('web', { status: 'blocked', blockers: [{ id: 'b', description: 'keys', needs: 'external_dep' }] }));
    seed(dir, 'api', doc('api'));
    const lines = expectOk(await runCli(dir, ['list'])).stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^api {2}in_progress {2}build\/sprint-1 {2}\d+d ago$/);
    expect(lines[1]).toMatch(/^web {2}blocked {6}build\/sprint-1/);
    const rows = JSON.parse(expectOk(await runCli(dir, ['list', '--json'])).stdout) as Doc[];
    expect(rows).toEqual([
      { skill: 'api', status: 'in_progress', phase: 'build', step: 'sprint-1', updated_at: '2026-01-02T10:00:00Z' },
      { skill: 'web', status: 'blocked', phase: 'build', step: 'sprint-1', updated_at: '2026-01-02T10:00:00Z' },
    ]);
  });

  it('list marks an unreadable checkpoint and exits 1', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api'));
    write(dir, rel('bad'), '{"a": }');
    const r = await runCli(dir, ['list']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^bad {2}unreadable {3}\.checkpoints\/bad\.checkpoint\.json:1:7: invalid JSON/m);
    expect(r.stdout).toMatch(/^api {2}in_progress/m);
  });

  it('list marks a readable but invalid checkpoint (a status outside the enum) and exits 1, as status and next do', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api'));
    seed(dir, 'web', doc('web', { status: 'blocked-on-review', phase: 'review', step: 'PR 12 (src/x.ts, docs/*.md)', updated_at: '2026-09-12T17:30:00Z' }));
    const before = bytes(dir, 'web');
    const r = await runCli(dir, ['list']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^api {2}in_progress {2}build\/sprint-1 {2}\d+d ago$/m);
    expect(r.stdout).toMatch(/^web {2}blocked-on-review {2}review\/PR 12 \(src\/x\.ts, docs\/\*\.md\) {2}\d+d ago {2}! slip: status: .*"blocked-on-review".*\(did you mean blocked\?\); fix: checkpoint update web --status=blocked '--blockers\+:json=\{"id":"b1","description":"blocked-on-review"\}' --keep-updated-at$/m);
    const json = await runCli(dir, ['list', '--json']);
    expect(json.code).toBe(1);
    const rows = JSON.parse(json.stdout) as Doc[];
    expect(rows[0]).not.toHaveProperty('error');
    expect(rows[1]).toMatchObject({ skill: 'web', status: 'blocked-on-review', step: 'PR 12 (src/x.ts, docs/*.md)', error: expect.stringMatching(/^status: /) });
    expect((await runCli(dir, ['status'])).code).toBe(1);
    expect(bytes(dir, 'web').equals(before)).toBe(true);
  });

  it('show <skill> prints the file byte for byte, ready for JSON.parse', async () => {
    const dir = repo();
    const original = seed(dir, 'api', doc('api'), (v) => `${JSON.stringify(v, null, 4)}\n`);
    const r = expectOk(await runCli(dir, ['show', 'api']));
    expect(Buffer.from(r.stdout).equals(original)).toBe(true);
    expect(JSON.parse(r.stdout)).toEqual(doc('api'));
    expect(r.stderr).toBe('');
  });

  it('show adds only a final newline when the file has none, and drops a BOM', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api'), (v) => JSON.stringify(v));
    expect(expectOk(await runCli(dir, ['show', 'api'])).stdout).toBe(`${JSON.stringify(doc('api'))}\n`);
    seed(dir, 'web', doc('web'), (v) => `\uFEFF${JSON.stringify(v, null, 2)}\n`);
    const out = expectOk(await runCli(dir, ['show', 'web'])).stdout;
    expect(out).toBe(`${JSON.stringify(doc('web'), null, 2)}\n`);
    expect(JSON.parse(out)).toEqual(doc('web'));
  });

  it('show of a CRLF checkpoint (a bare CR, C1 controls in a value) prints JSON that parses, LF line ends, every text kept', async () => {
    const dir = repo();
    const text = [
      '{',
      '  "protocol_version": "1.1", "skill": "crlf", "project": "gtrack",\r',
      '  "created_at": "2026-01-01T10:00:00Z", "updated_at": "2026-01-02T10:00:00Z",',
      '  "phase": "build\\r\\nreview \u009b2J\u0085", "step": "src/x.ts (PR 12)",',
      '  "status": "waiting", "progress_summary": "Half done.",',
      '  "skill_state": {"score": 8.0},',
      '  "next_actions": ["Run evals"]',
      '}',
      '',
    ].join('\r\n');
    write(dir, rel('crlf'), text);
    const before = bytes(dir, 'crlf');
    for (const args of [['show', 'crlf'], ['show', 'crlf', '--json']]) {
      const out = expectOk(await runCli(dir, args)).stdout;
      expect(JSON.parse(out)).toEqual(JSON.parse(text));
      expect(out).toBe(text.replace(/\r\n?/g, '\n').replace('\u009b', '\\u009b').replace('\u0085', '\\u0085'));
    }
    // Without a skill, the same value: no raw C1 control for a terminal to act on.
    const all = expectOk(await runCli(dir, ['show'])).stdout;
    expect((JSON.parse(all) as { crlf: unknown }).crlf).toEqual(JSON.parse(text));
    expect(all).not.toMatch(/[\u007f-\u009f]/);
    expect(bytes(dir, 'crlf').equals(before)).toBe(true);
  });

  it('show without a skill prints every checkpoint as one JSON object', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api'));
    seed(dir, 'web', doc('web'));
    expect(JSON.parse(expectOk(await runCli(dir, ['show'])).stdout)).toEqual({ api: doc('api'), web: doc('web') });
  });

  it('show of an unknown skill names the known ones', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api'));
    const r = await runCli(dir, ['show', 'apx']);
    expectUsageFailure(r, /^checkpoint: no checkpoint for skill "apx" in \.checkpoints\/$/);
    expect(r.stderr).toContain('; hint: known skills: api\n');
  });
});

describe('next --json', () => {
  it('has the same members whether or not a checkpoint can be recommended', async () => {
    const dir = repo();
    const keys = async () => Object.keys(JSON.parse((await runCli(dir, ['next', '--json'])).stdout)).sort();
    const shape = ['history_error', 'needs_repair', 'next', 'ok', 'outside_sparse_checkout', 'reconcile', 'repairs', 'shallow'];
    expect(await keys()).toEqual(shape); // no checkpoint yet
    write(dir, rel('bad'), '{"a": }');
    expect(await keys()).toEqual(shape); // only one that needs repair
    const none = JSON.parse((await runCli(dir, ['next', '--json'])).stdout);
    expect([none.ok, none.next, none.reconcile, none.repairs, none.needs_repair.map((b: Doc) => b.skill)]).toEqual([false, null, false, [], ['bad']]);
    seed(dir, 'api', doc('api'));
    expect(await keys()).toEqual(shape);
  });
});

describe('validate', () => {
  it('exit 0 for valid files, 1 when one is invalid, with paths and a count', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api'));
    expect(expectOk(await runCli(dir, ['validate'])).stdout).toBe('✓ .checkpoints/api.checkpoint.json\n');
    seed(dir, 'web', doc('web', { status: 'done', eval_scores: [{ rubric: 'r', score: 11, max: 10 }] }));
    const r = await runCli(dir, ['validate']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      [
        '✓ .checkpoints/api.checkpoint.json',
        '✗ .checkpoints/web.checkpoint.json',
        '  error   status: status "done" must be one of in_progress|blocked|complete|failed (did you mean complete?)',
        '  error   eval_scores[0].score: score 11 exceeds max 10',
        '1/2 valid',
        '',
      ].join('\n'),
    );
  });

  it('warnings pass, unless --strict', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api', { cost: { total_usd: 80, budget_usd: 50 } }));
    const lenient = expectOk(await runCli(dir, ['validate']));
    expect(lenient.stdout).toContain('  warning cost.total_usd: budget gate tripped: total_usd 80 > budget_usd 50\n');
    const strict = await runCli(dir, ['validate', '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toMatch(/^✗ \.checkpoints\/api\.checkpoint\.json$/m);
    expect(strict.stdout).toMatch(/^0\/1 valid \(strict\)$/m);
  });

  it('validate and doctor report config.json problems (a key, a pattern, a folder, a FIFO), one line each', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api'));
    const config = join(dir, '.checkpoints/config.json');
    write(dir, '.checkpoints/config.json', '{\n  "logz": ["skill_state.audits"],\n  "logs": ["skill_state.audits", "a..b"]\n}\n');
    const v = await runCli(dir, ['validate']);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain('✗ .checkpoints/config.json\n  error   logz: unknown key "logz"');
    expect(v.stdout).toContain('  error   logs[1]: "logs"[1] "a..b" has an empty segment');
    // Named on the command line, it is judged as the config, never as a checkpoint missing its fields (red team 62e, 08).
    const named = await runCli(dir, ['validate', '.checkpoints/config.json']);
    expect([named.code, named.stdout]).toEqual([1, `${v.stdout.slice(v.stdout.indexOf('✗ .checkpoints/config.json')).replace(/\d+\/\d+ valid\n$/, '')}0/1 valid\n`]);
    const d = await runCli(dir, ['doctor', '--fail-on-warnings']);
    expect(d.code).toBe(1);
    expect(d.stdout).toMatch(/^ {2}warning \.checkpoints\/config\.json logz: unknown key "logz"/m);
    rmSync(config);
    mkdirSync(config);
    expect((await runCli(dir, ['validate'])).stdout).toContain('  error   (file): is a folder, not a plain file');
    expect((await runCli(dir, ['doctor'])).stdout).toContain('  warning .checkpoints/config.json: is a folder, not a plain file');
    rmSync(config, { recursive: true });
    execFileSync('mkfifo', [config]);
    const fifo = cli(dir, ['validate']);
    expect(fifo.code).toBe(1);
    expect(fifo.stdout).toContain('  error   (file): is a FIFO, not a plain file');
    expect(cli(dir, ['doctor']).stdout).toContain('  warning .checkpoints/config.json: is a FIFO, not a plain file');
  });

  it('advice is labelled advice and never fails, --strict included (text and --json)', async () => {
    const dir = repo();
    expectOk(cli(dir, ['init']));
    expectOk(await runCli(dir, ['update', 'api', '--phase=build', '--step=auth', '--next_actions+=Write src/auth.ts (PR 12)']));
    const strict = expectOk(await runCli(dir, ['validate', '--strict']));
    expect(strict.stdout).toContain('  advice  progress_table: no progress_table while in_progress');
    expect(strict.stdout).toContain('  advice  context_primer: no context_primer while in_progress');
    expect(strict.stdout).not.toMatch(/warning/);
    const report = JSON.parse(expectOk(await runCli(dir, ['validate', '--strict', '--json'])).stdout);
    expect(report.ok).toBe(true);
    expect(report.files[0].warnings).toEqual([]);
    expect(report.files[0].advice.map((a: Doc) => [a.level, a.path])).toEqual([['advice', 'progress_table'], ['advice', 'context_primer']]);
  });

  it('--json reports every file with errors and warnings', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api', { blockers: [{ id: 'b1', description: 'x', blocking: 'nope' }] }));
    seed(dir, 'web', doc('api'));
    const r = await runCli(dir, ['validate', '--json']);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { ok: boolean; strict: boolean; files: { file: string; ok: boolean; errors: Doc[]; warnings: Doc[] }[] };
    expect(report.ok).toBe(false);
    expect(report.strict).toBe(false);
    expect(report.files.map((f) => [f.file, f.ok])).toEqual([
      ['.checkpoints/api.checkpoint.json', true],
      ['.checkpoints/web.checkpoint.json', false],
    ]);
    expect(report.files[0]!.warnings).toEqual([{ level: 'warning', path: 'blockers[0].blocking', message: 'blocking "nope" matches no progress_table id' }]);
    expect(report.files[1]!.errors).toEqual([{ level: 'error', path: 'skill', message: 'file name "web.checkpoint.json" must be "api.checkpoint.json" for skill "api"' }]);
  });

  it('broken JSON is a finding (exit 1) with file:line:column', async () => {
    const dir = repo();
    write(dir, rel('api'), '{\n  "skill": "api",\n  "phase": \n}\n');
    const r = await runCli(dir, ['validate']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('  error   (file): 4:1: invalid JSON: unexpected character "}"\n');
  });

  it('a listed checkpoint that is a dangling link is a finding, not a crash', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api'));
    symlinkSync(join(dir, 'gone.json'), join(dir, rel('web')));
    const r = await runCli(dir, ['validate']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ \.checkpoints\/web\.checkpoint\.json\n {2}error {3}\(file\): is a dangling symlink \(to .*gone\.json\)\n/);
    expect(r.stdout).toContain('✓ .checkpoints/api.checkpoint.json\n');
  });

  it('takes file paths relative to the working directory; a missing one is a usage error', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api'));
    mkdirSync(join(dir, 'sub'));
    expect(expectOk(await runCli(join(dir, 'sub'), ['validate', `../${rel('api')}`])).stdout).toBe('✓ .checkpoints/api.checkpoint.json\n');
    expectUsageFailure(await runCli(dir, ['validate', 'nope.checkpoint.json']), /nope\.checkpoint\.json does not exist/);
  });

  it('takes a skill name as every other command does, unless a file of that name is there', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api'));
    mkdirSync(join(dir, 'sub'));
    expect(expectOk(await runCli(join(dir, 'sub'), ['validate', 'api'])).stdout).toBe('✓ .checkpoints/api.checkpoint.json\n');
    writeFileSync(join(dir, 'sub', 'api'), '');
    const r = await runCli(join(dir, 'sub'), ['validate', 'api']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('✗ sub/api\n');
    expectUsageFailure(await runCli(dir, ['validate', 'web']), /web does not exist/);
  });
});

describe('update', () => {
  it('a refused first write leaves no .checkpoints/ folder behind; an existing one is kept', async () => {
    const dir = repo();
    const first = await runCli(dir, ['update', 'api', '--phase=build']);
    expectUsageFailure(first, /next_actions must not be empty while in_progress/);
    // The fix a first write lacks, and "created", not "changed", for a file that never was (red team, 12-05).
    expect(first.stderr).toContain("hint: add --next_actions+='<first action>' to the same command (or --status=complete if the work is done); .checkpoints/api.checkpoint.json was not created");
    expect(existsSync(join(dir, '.checkpoints'))).toBe(false);
    mkdirSync(join(dir, '.checkpoints'));
    expectUsageFailure(await runCli(dir, ['update', 'api', '--phase=build']), /next_actions must not be empty while in_progress/);
    expect(readdirSync(join(dir, '.checkpoints'))).toEqual([]);
  });

  it('scaffolds a new checkpoint: project from package.json, project_dir = root', async () => {
    const dir = repo();
    write(dir, 'package.json', '{"name": "gtrack-web"}');
    const t0 = Date.now();
    const r = expectOk(await runCli(dir, ['update', 'api', '--phase=build', "--next_actions+=Write the spec"]));
    expect(r.stdout).toBe('✓ created .checkpoints/api.checkpoint.json (2 changes)\n');
    const d = load(dir, 'api');
    expect(d).toMatchObject({ protocol_version: '1.1', skill: 'api', project: 'gtrack-web', project_dir: dir, phase: 'build', status: 'in_progress', next_actions: ['Write the spec'] });
    expect(d.created_at).toBe(d.updated_at);
    const stamped = Date.parse(d.updated_at as string);
    expect(stamped).toBeGreaterThanOrEqual(t0 - 1000);
    expect(stamped).toBeLessThanOrEqual(Date.now() + 1000);
    expect(expectOk(await runCli(dir, ['validate'])).stdout).toMatch(/^✓/);
  });

  it('without package.json the project is the folder name; from a subfolder the root is found', async () => {
    const dir = repo();
    mkdirSync(join(dir, 'src/deep'), { recursive: true });
    expectOk(await runCli(join(dir, 'src/deep'), ['update', 'api', '--next_actions+=go']));
    expect(existsSync(join(dir, 'src/deep/.checkpoints'))).toBe(false);
    expect(load(dir, 'api')).toMatchObject({ project: basename(dir), project_dir: dir });
  });

  it('stamps updated_at, keeps created_at, and merges objects', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api', { skill_state: { iteration: 1, scores: { s1: 8 } } }));
    const t0 = Date.now();
    expectOk(await runCli(dir, ['update', 'api', '--skill_state:json={"scores":{"s2":7}}', '--skill_state.iteration:json=2', '--progress_table.1.status=complete']));
    const d = load(dir, 'api');
    expect(d.created_at).toBe('2026-01-01T10:00:00Z');
    expect(Date.parse(d.updated_at as string)).toBeGreaterThanOrEqual(t0 - 1000);
    expect(d.skill_state).toEqual({ iteration: 2, scores: { s1: 8, s2: 7 } });
    expect((d.progress_table as Doc[])[1]).toEqual({ id: 'sprint-1', label: 'Sprint 1', status: 'complete' });
    expect(d.next_actions).toEqual(['Write the evaluator']);
  });

  it('replaces arrays given as JSON rather than concatenating', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api', { next_actions: ['a', 'b'] }));
    expectOk(await runCli(dir, ['update', 'api', '--next_actions:json=["c"]']));
    expect(load(dir, 'api').next_actions).toEqual(['c']);
  });

  it('refuses an invalid result and leaves the file byte-identical', async () => {
    const dir = repo();
    const before = seed(dir, 'api', doc('api'), (v) => `${JSON.stringify(v, null, 4)}\n`);
    const r = await runCli(dir, ['update', 'api', '--status=done']);
    expectUsageFailure(r, /^checkpoint: refused: the result would be invalid at status: status "done" must be one of/);
    expect(r.stderr).toContain('; hint: .checkpoints/api.checkpoint.json was not changed\n');
    expect(bytes(dir, 'api').equals(before)).toBe(true);

    expectUsageFailure(await runCli(dir, ['update', 'api', '--next_actions:json=[]']), /next_actions must not be empty while in_progress/);
    expectUsageFailure(await runCli(dir, ['update', 'api', '--created_at=2999-01-01T00:00:00Z']), /invalid at updated_at: updated_at .* is before created_at/);
    expectUsageFailure(await runCli(dir, ['update', 'api', '--skill=web']), /file name "api.checkpoint.json" must be "web.checkpoint.json"/);
    expect(bytes(dir, 'api').equals(before)).toBe(true);
    expect(readdirSync(join(dir, '.checkpoints'))).toEqual(['api.checkpoint.json']);
  });

  it('a new skill without a next action is refused and not created', async () => {
    const dir = repo();
    expectUsageFailure(await runCli(dir, ['update', 'api', '--phase=build']), /next_actions must not be empty while in_progress/);
    expect(existsSync(join(dir, rel('api')))).toBe(false);
  });

  it('checks every flag before touching the file', async () => {
    const dir = repo();
    const before = seed(dir, 'api', doc('api'));
    expectUsageFailure(await runCli(dir, ['update', 'api', '--phase=ok', '--a+:json+=1']), /^checkpoint: --a\+:json\+=1: /);
    expect(bytes(dir, 'api').equals(before)).toBe(true);
    expectUsageFailure(await runCli(dir, ['update', 'api']), /nothing to update/);
  });

  it('rewrites keep indent, tabs, CRLF, missing final newline and key order', async () => {
    const dir = repo();
    const reordered = (skill: string) => {
      const d = doc(skill);
      return { status: d.status, skill, ...d };
    };
    const renders: [string, (v: unknown) => string][] = [
      ['four', (v) => `${JSON.stringify(v, null, 4)}\n`],
      ['tabs', (v) => `${JSON.stringify(v, null, '\t')}\n`],
      ['crlf', (v) => `${JSON.stringify(v, null, 2).replace(/\n/g, '\r\n')}\r\n`],
      ['nonl', (v) => JSON.stringify(v, null, 2)],
      ['compact', (v) => JSON.stringify(v)],
    ];
    for (const [skill, render] of renders) {
      seed(dir, skill, reordered(skill), render);
      expectOk(await runCli(dir, ['update', skill, '--step=sprint-2']));
      const after = read(dir, rel(skill));
      const updatedAt = (JSON.parse(after) as Doc).updated_at;
      expect(after, skill).toBe(render({ ...reordered(skill), step: 'sprint-2', updated_at: updatedAt }));
    }
  });

  it('prints warnings on stderr and reports them with --json', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api'));
    const r = expectOk(await runCli(dir, ['update', 'api', '--cost:json={"total_usd":9,"budget_usd":5}']));
    expect(r.stderr).toBe('  warning cost.total_usd: budget gate tripped: total_usd 9 > budget_usd 5\n');
    const j = JSON.parse(expectOk(await runCli(dir, ['update', 'api', '--step=x', '--json'])).stdout) as Doc;
    expect(j).toMatchObject({ ok: true, skill: 'api', path: rel('api'), created: false });
    expect(j.warnings).toEqual([{ level: 'warning', path: 'cost.total_usd', message: 'budget gate tripped: total_usd 9 > budget_usd 5' }]);
  });
});

describe('done', () => {
  it('pops next_actions[0] into recently_done, newest first', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api', { next_actions: ['a', { text: 'b', done_when: 'true' }, 'c'] }));
    expect(expectOk(await runCli(dir, ['done', 'api'])).stdout).toBe('✓ done: a\n  next: b\n');
    expect(expectOk(await runCli(dir, ['done', 'api'])).stdout).toBe('✓ done: b\n  next: c\n');
    const d = load(dir, 'api');
    expect(d.next_actions).toEqual(['c']);
    const recent = d.recently_done as { at: string; action: string }[];
    expect(recent.map((x) => x.action)).toEqual(['b', 'a']);
    expect(Date.parse(recent[0]!.at)).toBeGreaterThanOrEqual(Date.parse(recent[1]!.at));
    expect(d.updated_at).toBe(recent[0]!.at);
  });

  it('keeps at most 10 recently_done entries', async () => {
    const dir = repo();
    const old = Array.from({ length: 10 }, (_, i) => ({ at: `2026-01-01T00:00:0${i}Z`.replace(/0(\d\d)Z/, '$1Z'), action: `old-${i}` }));
    seed(dir, 'api', doc('api', { next_actions: ['new', 'after'], recently_done: old }));
    expectOk(await runCli(dir, ['done', 'api']));
    const recent = load(dir, 'api').recently_done as { action: string }[];
    expect(recent).toHaveLength(10);
    // This hand-kept list runs oldest-first: the new entry goes at its end, the newest by `at` stay (in their order), the oldest moves to history/.
    expect(recent.map((x) => x.action)).toEqual([...old.slice(1).map((o) => o.action), 'new']);
    const moved = readdirSync(join(dir, '.checkpoints/history')).map((f) => read(dir, `.checkpoints/history/${f}`)).join('');
    expect(moved).toContain('"old-0"');
    expect(moved).not.toContain('"old-9"');
  });

  it('a list without times keeps its first entries, as its newest-first order says', async () => {
    const dir = repo();
    const old = Array.from({ length: 10 }, (_, i) => `old ${i} (PR ${i})`);
    seed(dir, 'api', doc('api', { next_actions: ['new', 'after'], recently_done: old }));
    expectOk(await runCli(dir, ['done', 'api']));
    const recent = load(dir, 'api').recently_done as unknown[];
    expect((recent[0] as { action: string }).action).toBe('new');
    expect(recent.slice(1)).toEqual(old.slice(0, 9));
  });

  it('the last action of an in_progress checkpoint needs --complete', async () => {
    const dir = repo();
    const before = seed(dir, 'api', doc('api', { next_actions: ['only'] }));
    const r = await runCli(dir, ['done', 'api']);
    expectUsageFailure(r, /that was the last action of "api" and it is in_progress/);
    expect(r.stderr).toMatch(/hint: .*checkpoint done api --complete/);
    expect(bytes(dir, 'api').equals(before)).toBe(true);
    expect(expectOk(await runCli(dir, ['done', 'api', '--complete'])).stdout).toBe('✓ done: only\n  no actions left; api is complete\n');
    const d = load(dir, 'api');
    expect(d.status).toBe('complete');
    expect(d.next_actions).toEqual([]);
    expect(expectOk(await runCli(dir, ['validate'])).code).toBe(0);
  });

  it('--landed taking the last actions names how many and the command that finishes them (--landed --complete)', async () => {
    const dir = repo();
    const before = seed(dir, 'api', doc('api', { next_actions: ['[x] Merge PR #3', '[x] Write docs'] }));
    const r = await runCli(dir, ['done', 'api', '--landed']);
    expectUsageFailure(r, /those were the last 2 actions of "api" and it is in_progress/);
    expect(r.stderr).toMatch(/or finish: checkpoint done api --landed --complete$/m);
    expect(bytes(dir, 'api').equals(before)).toBe(true);
    // The command the hint gives works: nothing left queued, the work complete.
    expectOk(await runCli(dir, ['done', 'api', '--landed', '--complete']));
    expect(load(dir, 'api')).toMatchObject({ status: 'complete', next_actions: [] });
  });

  it('runs done_when only with --verify', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api', { next_actions: [{ text: 'a', done_when: 'touch ran-a.marker' }, { text: 'b', done_when: 'touch ran-b.marker' }, 'c'] }));
    expectOk(await runCli(dir, ['done', 'api']));
    expect(existsSync(join(dir, 'ran-a.marker'))).toBe(false);
    const r = expectOk(await runCli(dir, ['done', 'api', '--verify']));
    expect(existsSync(join(dir, 'ran-b.marker'))).toBe(true);
    expect(r.stderr).toBe('verifying "b" with: touch ran-b.marker\n');
    expect(load(dir, 'api').next_actions).toEqual(['c']);
  });

  it('--verify runs the check in the project root, even from a subfolder', async () => {
    const dir = repo();
    mkdirSync(join(dir, 'sub'));
    seed(dir, 'api', doc('api', { next_actions: [{ text: 'a', done_when: 'test -d .checkpoints' }, 'b'] }));
    expectOk(await runCli(join(dir, 'sub'), ['done', 'api', '--verify']));
  });

  it('--verify refuses on a non-zero exit and leaves the file unchanged', async () => {
    const dir = repo();
    const before = seed(dir, 'api', doc('api', { next_actions: [{ text: 'a', done_when: 'exit 3' }, 'b'] }));
    const r = await runCli(dir, ['done', 'api', '--verify']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('✗ not done: exit 3; next_actions unchanged\n');
    expect(bytes(dir, 'api').equals(before)).toBe(true);
  });

  it('--verify refuses on timeout, killing the check', async () => {
    const dir = repo();
    // The check notes its shell's pid (its process group) and would run for a minute: had done
    // waited for it, this test would hit its own timeout.
    const before = seed(dir, 'api', doc('api', { next_actions: [{ text: 'a', done_when: 'echo $$ > check.pid; sleep 60; touch late.marker' }, 'b'] }));
    const r = await runCli(dir, ['done', 'api', '--verify', '--timeout', '2']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('✗ not done: timed out after 2s; next_actions unchanged\n');
    expect(bytes(dir, 'api').equals(before)).toBe(true);
    // The check's process group ends, killed: had it been left to run, its sleep would end and
    // leave late.marker. On a machine so loaded that the shell never got to note its pid, there
    // is no group to look at.
    if (existsSync(join(dir, 'check.pid'))) await groupEnded(Number(readFileSync(join(dir, 'check.pid'), 'utf8')));
    expect(existsSync(join(dir, 'late.marker'))).toBe(false);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('--verify stopped by %s ends the whole check group, exit 1, file unchanged', async (signal) => {
    const dir = repo();
    const before = seed(dir, 'api', doc('api', { next_actions: [{ text: 'a', done_when: 'echo $$ > check.pid; sleep 100; touch late.marker' }, 'b'] }));
    const child = spawn(process.execPath, [BIN, 'done', 'api', '--verify'], { cwd: dir, env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    // Stop the CLI once the check is running (its shell has noted its pid).
    while (!existsSync(join(dir, 'check.pid')) || !readFileSync(join(dir, 'check.pid'), 'utf8').endsWith('\n')) await new Promise((r) => setTimeout(r, 50));
    const pgid = Number(readFileSync(join(dir, 'check.pid'), 'utf8'));
    child.kill(signal);
    const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    expect(code, stderr).toBe(1);
    expect(stderr).toContain(`✗ not done: stopped by ${signal}; the check was ended; next_actions unchanged\n`);
    expect(bytes(dir, 'api').equals(before)).toBe(true);
    await groupEnded(pgid);
    expect(existsSync(join(dir, 'late.marker'))).toBe(false);
  });

  it('--verify --json keeps stdout one JSON document: the check\'s output goes to stderr', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api', { next_actions: [{ text: 'a', done_when: 'echo noise-on-stdout' }, 'b'] }));
    const r = expectOk(await runCli(dir, ['done', 'api', '--verify', '--json']));
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, skill: 'api', done: 'a', next: 'b', status: 'in_progress' });
    expect(r.stderr).toContain('noise-on-stdout\n');
  });

  it('--verify without a done_when, bad --timeout, and nothing to pop are usage errors', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api', { next_actions: ['plain', 'b'] }));
    expectUsageFailure(await runCli(dir, ['done', 'api', '--verify']), /next_actions\[0\] of "api" has no done_when check to verify/);
    seed(dir, 'web', doc('web', { next_actions: [{ text: 'a', done_when: 'true' }, 'b'] }));
    expectUsageFailure(await runCli(dir, ['done', 'web', '--verify', '--timeout', 'soon']), /--timeout=soon: expected a positive number of seconds/);
    // past 2^31-1 ms setTimeout would fire at once and report a spurious timeout
    expectUsageFailure(await runCli(dir, ['done', 'web', '--verify', '--timeout', '3000000']), /--timeout=3000000: expected a positive number of seconds \(at most 86400\)/);
    // Without --verify a --timeout limits nothing: refused, not ignored, and nothing is popped.
    const before = readFileSync(join(dir, '.checkpoints/web.checkpoint.json'), 'utf8');
    expectUsageFailure(await runCli(dir, ['done', 'web', '--timeout=abc']), /--timeout=abc: expected a positive number/);
    expectUsageFailure(await runCli(dir, ['done', 'web', '--timeout=30']), /--timeout limits the --verify check, and --verify was not given/);
    expect(readFileSync(join(dir, '.checkpoints/web.checkpoint.json'), 'utf8')).toBe(before);
    seed(dir, 'ops', doc('ops', { status: 'complete', next_actions: [] }));
    expectUsageFailure(await runCli(dir, ['done', 'ops']), /no next_actions to mark done/);
    // One action written as an object, or a queue that is null: named so, with a fix that works when pasted (red team, 12-05).
    seed(dir, 'obj', doc('obj', { next_actions: { text: 'Ship the auth middleware', done_when: 'npm test' } as never }));
    const obj = await runCli(dir, ['done', 'obj']);
    expect(obj.stderr).toBe(`checkpoint: next_actions of "obj" is one action written as an object, not a list of actions; nothing was changed; hint: make it a list, then run done again: checkpoint update obj --next_actions:json='[{"text":"Ship the auth middleware","done_when":"npm test"}]'\n`);
    expect((await runCli(dir, ['update', 'obj', '--next_actions:json=[{"text":"Ship the auth middleware","done_when":"npm test"}]', '--next_actions+=b'])).code).toBe(0);
    expect((await runCli(dir, ['done', 'obj'])).code).toBe(0);
    // Written without "text" ({"action": …}): the list's item carries the words as text, so the fix is one update accepts.
    seed(dir, 'act', doc('act', { next_actions: { action: 'deploy to staging', done_when: 'npm test' } as never }));
    const act = await runCli(dir, ['done', 'act']);
    expect(act.stderr).toContain(`checkpoint update act --next_actions:json='[{"action":"deploy to staging","done_when":"npm test","text":"deploy to staging"}]'`);
    expect((await runCli(dir, ['update', 'act', '--next_actions:json=[{"action":"deploy to staging","done_when":"npm test","text":"deploy to staging"}]', '--next_actions+=b'])).code).toBe(0);
    seed(dir, 'none', doc('none', { next_actions: null as never }));
    const none = await runCli(dir, ['done', 'none']);
    expect(none.stderr).toBe(`checkpoint: next_actions of "none" is null, not a list of actions; nothing was changed; hint: queue the next action as a list: checkpoint update none --next_actions:json='[]' --next_actions+='<next action>'\n`);
    expect((await runCli(dir, ['update', 'none', '--next_actions:json=[]', '--next_actions+=Write tests', '--next_actions+=Ship'])).code).toBe(0);
    expect((await runCli(dir, ['done', 'none'])).code).toBe(0);
    // An action written {"action": …}: the slip and the exact fix status prints, nothing popped.
    seed(dir, 'py', doc('py', { next_actions: [{ action: "Ship it (PR 12)" }, 'b'] }));
    const py = readFileSync(join(dir, '.checkpoints/py.checkpoint.json'), 'utf8');
    const r = await runCli(dir, ['done', 'py']);
    expect(r.stderr).toBe(`checkpoint: next_actions[0] is an object with "action" but no "text" (an action is a string or {"text": …}); nothing was changed; hint: checkpoint update py --next_actions.0.text='Ship it (PR 12)', then run done again\n`);
    expect(r.code).toBe(2);
    expect(readFileSync(join(dir, '.checkpoints/py.checkpoint.json'), 'utf8')).toBe(py);
    expect((await runCli(dir, ['update', 'py', '--next_actions.0.text=Ship it (PR 12)'])).code).toBe(0);
    expect(expectOk(await runCli(dir, ['done', 'py'])).stdout).toMatch(/^✓ done: Ship it \(PR 12\)\n/);
  });

  it('status reads past a row without a label and names, for a file it cannot read, the error no slip covers first (red team, 12-04)', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api', { created_at: '2026-12-01 10:00', progress_table: [{ id: 'plan', status: 'complete' }], next_actions: ['Write the auth middleware'] }));
    // A missing status no slip covers (a missing phase is one now: see below).
    const { status: _status, ...noStatus } = doc('web', { created_at: '2026-12-01 10:00' });
    seed(dir, 'web', noStatus);
    const r = await runCli(dir, ['status']);
    expect(r.stdout).toMatch(/^api +in_progress /m);
    expect(r.stdout).toContain("fix: checkpoint update api --created_at=2026-12-01T10:00:00Z --progress_table.0.label='plan'");
    expect(r.stdout).toContain('1. Write the auth middleware');
    expect(r.stdout).toMatch(/^web +needs repair +status: required field "status" is missing \(set it: checkpoint update web --status='<status>'; then checkpoint validate \.checkpoints\/web\.checkpoint\.json\)$/m);
  });

  it('a checkpoint without project, project_dir, phase or created_at and a blank step is read: status, next, resume and doctor show its queue with the update that fills them in, the file untouched (user session, 12-05)', async () => {
    const dir = repo();
    const { project: _p, project_dir: _d, phase: _ph, created_at: _c, ...lean } = doc('web', { step: ' ', next_actions: ['Wire src/x.ts (PR 12)'] });
    const before = seed(dir, 'web', lean);
    const status = await runCli(dir, ['status']);
    expect(status.stdout).toMatch(/^web +in_progress /m);
    expect(status.stdout).toContain('1. Wire src/x.ts (PR 12)');
    expect(status.stdout).toContain('project: required field "project" is missing');
    // project_dir has one right value, the folder it was read in: the fix names it (user session, 12-05).
    expect(status.stdout).toContain(`fix: checkpoint update web --project='<project>' --project_dir='${dir}' --phase='<phase>' --step='<step>' --created_at='<created_at>'`);
    expect(status.stdout).not.toMatch(/^web — /m); // no project to name after the skill
    expect(status.stdout.split('\n').find((l) => l.startsWith('web '))).not.toContain('/'); // no blank phase beside the blank step
    const next = await runCli(dir, ['next']);
    expect(next.stdout).toMatch(/^→ Wire src\/x\.ts \(PR 12\)$/m);
    const resume = await runCli(dir, ['resume', 'web']);
    expect(resume.code).toBe(3); // stale since January: asked about, but briefed in full
    expect(resume.stdout).toMatch(/^RESUMING: web\nLast session: .* ⚠ stale\n/);
    expect(resume.stdout).toContain('Next: Wire src/x.ts (PR 12)');
    const doctor = await runCli(dir, ['doctor']);
    expect(doctor.stdout).toContain('error   project_dir: required field "project_dir" is missing');
    expect(doctor.stdout).not.toContain('does not exist');
    expect(doctor.stdout).toContain('the errors above are hand-written slips');
    expect((await runCli(dir, ['validate'])).code).toBe(1);
    expect(readFileSync(join(dir, rel('web'))).equals(before)).toBe(true);
  });

  it('a checkpoint written without protocol_version, its rows named by "name" or "phase", is read by status, next and resume; one update stamps the version and the row fixes, the rest of the file kept (user session, 12-06)', async () => {
    const dir = repo();
    const { protocol_version: _v, ...noVersion } = doc('web', {
      progress_table: [{ name: 'Auth', status: 'complete', score: 8 }, { phase: 'CRUD (PR 12)', status: 'in_progress' }],
      next_actions: ['Wire src/x.ts (PR 12)'],
    });
    const before = seed(dir, 'web', noVersion);
    const status = await runCli(dir, ['status']);
    expect(status.stdout).toMatch(/^web +in_progress /m);
    expect(status.stdout).toContain('1. Wire src/x.ts (PR 12)');
    expect(status.stdout).toContain("--progress_table.0.id=row-1 --progress_table.0.label='Auth' --progress_table.1.id=row-2 --progress_table.1.label='CRUD (PR 12)'");
    expect((await runCli(dir, ['next'])).stdout).toMatch(/^→ Wire src\/x\.ts \(PR 12\)$/m);
    const resume = await runCli(dir, ['resume', 'web']);
    expect(resume.stdout).toContain('Next: Wire src/x.ts (PR 12)');
    expect(resume.stdout).toContain('Progress: 1/2 phases complete');
    expect(readFileSync(join(dir, rel('web'))).equals(before)).toBe(true);
    // The fix status printed, pasted: the write stamps protocol_version; every other value stays.
    const fix = /fix: checkpoint update web (.*)$/m.exec(status.stdout)![1]!;
    const words = spawnSync('/bin/sh', ['-c', `printf '%s\\n' ${fix}`], { encoding: 'utf8' }).stdout.trim().split('\n');
    expect((await runCli(dir, ['update', 'web', ...words])).code).toBe(0);
    const after = JSON.parse(readFileSync(join(dir, rel('web')), 'utf8'));
    expect(after.protocol_version).toBe('1.1');
    expect(after.progress_table).toEqual([{ name: 'Auth', status: 'complete', score: 8, id: 'row-1', label: 'Auth' }, { phase: 'CRUD (PR 12)', status: 'in_progress', id: 'row-2', label: 'CRUD (PR 12)' }]);
    expect((await runCli(dir, ['validate'])).code).toBe(0);
  });
});

describe('reset, history, restore', () => {
  it('reset archives (nothing deleted), history lists it, restore brings it back', async () => {
    const dir = repo();
    const original = seed(dir, 'api', doc('api'));
    const r = expectOk(await runCli(dir, ['reset', 'api']));
    expect(existsSync(join(dir, rel('api')))).toBe(false);
    const files = readdirSync(join(dir, '.checkpoints/history'));
    expect(files).toHaveLength(1);
    const archive = files[0]!;
    expect(archive).toMatch(/^api\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z\.checkpoint\.json$/);
    expect(readFileSync(join(dir, '.checkpoints/history', archive)).equals(original)).toBe(true);
    expect(r.stdout).toBe(`✓ archived api to .checkpoints/history/${archive} (bring it back with \`checkpoint restore ${archive}\`)\n`);

    expect(expectOk(await runCli(dir, ['history'])).stdout).toBe(`checkpoint  ${archive}  ${original.length} bytes\n`);
    // A skill that never had a checkpoint is a typo, refused as show and reset refuse it; api is known by its archive alone.
    const never = await runCli(dir, ['history', 'web']);
    expect(never.code).toBe(2);
    expect(never.stderr).toBe('checkpoint: no checkpoint or archive for skill "web" in .checkpoints/; hint: known skills: api\n');
    expect(JSON.parse(expectOk(await runCli(dir, ['history', 'api', '--json'])).stdout)).toEqual([
      { file: archive, path: `.checkpoints/history/${archive}`, skill: 'api', kind: 'checkpoint', bytes: original.length, restorable: true },
    ]);
    expect(expectOk(await runCli(dir, ['list'])).stdout).toMatch(/^no checkpoints yet/);

    expect(expectOk(await runCli(dir, ['restore', archive])).stdout).toBe('✓ restored api to .checkpoints/api.checkpoint.json (the archive stays in history/)\n');
    expect(bytes(dir, 'api').equals(original)).toBe(true);
    expect(existsSync(join(dir, '.checkpoints/history', archive))).toBe(true);
  });

  it('restore refuses to overwrite a live checkpoint', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api'));
    expectOk(await runCli(dir, ['reset', 'api']));
    const archive = readdirSync(join(dir, '.checkpoints/history'))[0]!;
    const live = seed(dir, 'api', doc('api', { step: 'newer' }));
    const r = await runCli(dir, ['restore', archive]);
    expectUsageFailure(r, /^checkpoint: a live checkpoint for "api" exists; restoring would overwrite it$/);
    expect(r.stderr).toContain('hint: archive it first with `checkpoint reset api`, then restore');
    expect(bytes(dir, 'api').equals(live)).toBe(true);
  });

  it('reset sets a corrupt checkpoint aside too (that is how one starts fresh)', async () => {
    const dir = repo();
    write(dir, rel('api'), '{"skill": "api", <<<<<<< broken');
    const original = bytes(dir, 'api');
    expectOk(await runCli(dir, ['reset', 'api']));
    const [archive] = readdirSync(join(dir, '.checkpoints/history'));
    expect(readFileSync(join(dir, '.checkpoints/history', archive!)).equals(original)).toBe(true);
    expectOk(await runCli(dir, ['update', 'api', '--next_actions+=start over']));
    write(dir, rel('web'), '"not an object"\n');
    expectUsageFailure(await runCli(dir, ['update', 'web', '--step=x']), /web\.checkpoint\.json is not a JSON object/);
    expectOk(await runCli(dir, ['reset', 'web']));
  });

  it('restore takes a path whole: one into another repository or out through .. is refused, never read as its last part', async () => {
    const dir = repo();
    const other = repo();
    seed(dir, 'api', doc('api', { step: 'ours' }));
    expectOk(await runCli(dir, ['reset', 'api']));
    const archive = readdirSync(join(dir, '.checkpoints/history'))[0]!;
    // The other repository holds an archive of the same name with other content.
    write(other, `.checkpoints/history/${archive}`, `${JSON.stringify(doc('api', { step: 'theirs' }), null, 2)}\n`);
    mkdirSync(join(dir, 'src'));
    const refused = [
      ['/etc/passwd/../../', archive],
      [`${other}/.checkpoints/history/`, archive],
      [`../${basename(other)}/.checkpoints/history/`, archive],
      ['.checkpoints/history/sub/', archive],
      ['.checkpoints/', archive],
    ].map((parts) => parts.join(''));
    for (const arg of refused) {
      const r = await runCli(dir, ['restore', arg]);
      expectUsageFailure(r, /^checkpoint: no archive ".*(?:"| \(\d+ characters\)): that path is not in this project's \.checkpoints\/history\/$/);
      expect(existsSync(join(dir, rel('api'))), arg).toBe(false);
    }
    // A path from a subfolder, with -C from the project, and a bare name all still work.
    expectOk(await runCli(join(dir, 'src'), ['restore', `../.checkpoints/history/${archive}`]));
    expect(load(dir, 'api').step).toBe('ours');
    for (const [cwd, args] of [[other, ['restore', `.checkpoints/history/${archive}`, '-C', dir]], [dir, ['restore', archive]]] as const) {
      expectOk(await runCli(dir, ['reset', 'api']));
      expectOk(await runCli(cwd, [...args]));
      expect(load(dir, 'api').step).toBe('ours');
    }
  });

  it('reset and restore of things that do not exist are usage errors', async () => {
    const dir = repo();
    expectUsageFailure(await runCli(dir, ['reset', 'api']), /no checkpoint for skill "api" to reset/);
    expectUsageFailure(await runCli(dir, ['restore', 'api.2026-01-01T00-00-00.000Z.checkpoint.json']), /no archive/);
    expect(existsSync(join(dir, '.checkpoints'))).toBe(false);
  });
});

describe('where the project is', () => {
  it('-C / --dir work from another directory', async () => {
    const dir = repo();
    const elsewhere = plainDir();
    expectOk(await runCli(elsewhere, ['-C', dir, 'update', 'api', '--next_actions+=go']));
    expectOk(await runCli(elsewhere, ['update', 'api', '-C', dir, '--step=two']));
    expect(load(dir, 'api')).toMatchObject({ step: 'two', project_dir: dir });
    expect(expectOk(await runCli(elsewhere, [`--dir=${dir}`, 'list'])).stdout).toMatch(/^api {2}in_progress/);
    expect(expectOk(await runCli(elsewhere, ['show', 'api', '-C', dir])).stdout).toBe(read(dir, rel('api')));
    expect(existsSync(join(elsewhere, '.checkpoints'))).toBe(false);
    expectUsageFailure(await runCli(elsewhere, ['list', '-C', join(elsewhere, 'missing')]), /-C .*missing: no such directory/);
  });

  it('after update, --dir=<value> is a field as --color=<value> is, never the folder: written where the file has one, else refused (red team 62c 02)', async () => {
    const dir = repo();
    const other = repo();
    mkdirSync(join(dir, 'build'));
    // A hand-written checkpoint keeping fields of its own named like options.
    seed(dir, 'api', doc('api', { dir: 'src (see PR 12)', color: 'blue' }));
    seed(other, 'api', doc('api', { step: 'theirs' }));
    const theirs = bytes(other, 'api');
    expectOk(await runCli(dir, ['update', 'api', '--color=red', '--dir=build', '--step=three']));
    expectOk(await runCli(dir, ['update', '--dir=build/out', 'api', '--step=four']));
    expect(load(dir, 'api')).toMatchObject({ color: 'red', dir: 'build/out', step: 'four' });
    // No such field: refused in one line naming the folder's spelling; neither project written.
    seed(dir, 'web', doc('web'));
    const before = bytes(dir, 'web');
    const r = await runCli(dir, ['update', 'web', `--dir=${other}`, '--step=elsewhere']);
    expect(r.code, r.stderr).toBe(2);
    expect(errorLine(r.stderr)).toMatchObject({ lines: 1, message: `--dir=${other}: dir is the name of an option, not a protocol field (an option takes no =value here: the folder to run in goes as -C ${other})` });
    expect(bytes(dir, 'web')).toEqual(before);
    expect(bytes(other, 'api')).toEqual(theirs);
    // The folder: -C, --dir <dir>, or --dir=<dir> before the command, as with git.
    for (const line of [['update', 'api', '-C', other, '--step=c'], ['update', 'api', '--dir', other, '--step=dir'], [`--dir=${other}`, 'update', 'api', '--step=before']]) {
      expectOk(await runCli(dir, line));
      expect(load(other, 'api').step, line.join(' ')).toBe(line.at(-1)!.slice('--step='.length));
    }
    expect(load(dir, 'api')).toMatchObject({ dir: 'build/out', step: 'four' });
  });

  it('-C with a relative path resolves against the working directory', async () => {
    const parent = plainDir();
    mkdirSync(join(parent, 'proj/.checkpoints'), { recursive: true });
    seed(join(parent, 'proj'), 'api', doc('api'));
    expect(expectOk(await runCli(parent, ['-C', 'proj', 'validate'])).stdout).toBe('✓ .checkpoints/api.checkpoint.json\n');
  });

  it('the root is found from a subfolder of a git repository', async () => {
    const dir = repo();
    seed(dir, 'api', doc('api'));
    mkdirSync(join(dir, 'a/b'), { recursive: true });
    expect(expectOk(await runCli(join(dir, 'a/b'), ['list'])).stdout).toMatch(/^api /);
    expectOk(await runCli(join(dir, 'a/b'), ['done', 'api', '--complete']));
    expect(load(dir, 'api').status).toBe('complete');
  });

  it('a folder outside git works when it holds .checkpoints/', async () => {
    const dir = plainDir();
    mkdirSync(join(dir, '.checkpoints'));
    mkdirSync(join(dir, 'sub'));
    expectOk(await runCli(join(dir, 'sub'), ['update', 'api', '--next_actions+=go']));
    expect(load(dir, 'api')).toMatchObject({ project_dir: dir, project: basename(dir) });
    expect(existsSync(join(dir, 'sub/.checkpoints'))).toBe(false);
    expect(expectOk(await runCli(join(dir, 'sub'), ['validate'])).stdout).toMatch(/^✓ \.checkpoints\/api\.checkpoint\.json/);
    const init = expectOk(cli(dir, ['init']));
    expect(init.stdout).toContain('✓ wrote .checkpoints/README.md');
  });
});

/** Live (non-zombie) processes of process group `pgid`, from /proc. */
/**
 * Waits until the group has no live member (a zombie awaiting its reaper counts as gone): a
 * killed process may take a moment to be scheduled and die on a loaded machine. A group that
 * was never killed ends only when its own commands do, which the callers' markers reveal.
 */
async function groupEnded(pgid: number): Promise<void> {
  while (groupMembers(pgid).length) await new Promise((r) => setTimeout(r, 20));
}

function groupMembers(pgid: number): string[] {
  return readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(fields[2]) === pgid && fields[0] !== 'Z';
    } catch {
      return false;
    }
  });
}

describe('no silent changes', () => {
  it('done says how many recently_done entries it moved to history, and where', async () => {
    const dir = repo();
    const older = Array.from({ length: 22 }, (_, i) => ({ at: `2026-0${1 + (i % 9)}-0${1 + (i % 9)}T10:00:00Z`, action: `old action ${i} (PR ${100 + i})` }));
    seed(dir, 'api', doc('api', { next_actions: ['Write the evaluator', 'Run it', 'Ship'], recently_done: older }));
    const r = expectOk(await runCli(dir, ['done', 'api']));
    const line = r.stdout.split('\n').find((l) => l.includes('recently_done'));
    expect(line).toMatch(/^ {2}moved 13 older recently_done entries \(over 10\) to \.checkpoints\/history\/api\.\d{4}-\d{2}-\d{2}\.json$/);
    const to = line!.split(' to ')[1]!;
    expect(read(dir, to)).toContain('old action 21 (PR 121)');
    const json = JSON.parse((await runCli(dir, ['done', 'api', '--json'])).stdout);
    expect(json.archived).toEqual({ to, count: 1 });
  });

  it('update refuses a field every write stamps (updated_at, protocol_version): exit 2, one line, file byte-identical', async () => {
    const dir = repo();
    const before = seed(dir, 'api', doc('api'));
    expectUsageFailure(await runCli(dir, ['update', 'api', '--updated_at=2020-01-01T00:00:00Z']), /updated_at is stamped by every write .* cannot be set/);
    expectUsageFailure(await runCli(dir, ['update', 'api', '--step=x', '--protocol_version=1.0']), /protocol_version is stamped by every write/);
    expect(bytes(dir, 'api')).toEqual(before);
    expectOk(await runCli(dir, ['update', 'api', '--skill_state.updated_at=2020-01-01']));
  });
});

describe('history and restore on a messy history/', () => {
  it('history marks an archive restore would refuse for its size, and restore says so with advice that fits an archive', async () => {
    const dir = repo();
    const name = 'api.2026-01-01T00-00-00Z.checkpoint.json';
    write(dir, `.checkpoints/history/${name}`, JSON.stringify({ ...doc('api'), blob: 'x'.repeat(4 * 1024 * 1024) }));
    const h = expectOk(await runCli(dir, ['history']));
    expect(h.stdout).toMatch(new RegExp(`^checkpoint  ${name.replace(/\./g, '\\.')}  \\d+ bytes; cannot restore: is \\d+ bytes: restored, it would be a live checkpoint over the 4194304-byte limit$`, 'm'));
    const [entry] = JSON.parse((await runCli(dir, ['history', '--json'])).stdout);
    expect(entry).toMatchObject({ file: name, restorable: false, reason: expect.stringContaining('cannot restore') });
    const r = await runCli(dir, ['restore', name]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('restored, it would be a live checkpoint over the 4194304-byte limit');
    expect(r.stderr).not.toContain('reset');
    expect(existsSync(join(dir, rel('api')))).toBe(false);
  });

  it('many entries that are not plain files: the first few named, then a count', async () => {
    const dir = repo();
    for (let i = 0; i < 40; i++) mkdirSync(join(dir, `.checkpoints/history/web.2026-02-${String((i % 28) + 1).padStart(2, '0')}T00-00-${String(i).padStart(2, '0')}Z.checkpoint.json`), { recursive: true });
    const h = await runCli(dir, ['history']);
    const lines = h.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    expect(lines.slice(0, 5).every((l) => /^checkpoint: skipped history\/web\..* is a folder, not a plain file; refused$/.test(l))).toBe(true);
    expect(lines[5]).toBe('checkpoint: skipped 35 more entries of history/ that are not plain files inside the project (40 in all)');
  });
});
