// A checkpoint git's index holds unmerged is a conflict however the work tree looks: a
// modify/delete conflict (DU/UD: the changed side left in the tree with no markers), both sides
// added (AA) and one side taken by hand but not staged, a content conflict (UU/AA) whose file was
// removed. resume (text, --json, --context), status, next and the MCP resume tool name it with
// what ends the merge, resume asks the user (exit 3), never "start fresh", never resumes it, and
// both history engines say the same. resolve --accept-deletion keeps the deletion and the changed
// version (in history/). Every write (update, --auto-rotate, done, pause, --auto, migrate, restore,
// and their MCP tools) refuses it in one line naming the same conflict and way out, file and
// index unchanged, until the merge is settled. Real `git merge`s, no driver installed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, cleanup, commitAll, errorLine, git, GIT_ENV, gitTry, makeRepo, read, tempDir, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
const clients: Client[] = [];
beforeAll(assertBuilt);
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  dirs.splice(0).forEach(cleanup);
});

// As people leave them: a note after a path, a glob, a score written 8.0, a capsule saved by pause.
const cp = (skill: string, over: Record<string, unknown> = {}) => ({
  protocol_version: '1.1', skill, project: 'demo', project_dir: '/demo',
  created_at: '2026-06-01T00:00:00Z', updated_at: new Date(Date.now() - 3_600_000).toISOString(),
  phase: 'build', step: 'auth', status: 'in_progress', progress_summary: 'Sprint 1 passed (8.0/10).',
  progress_table: [{ id: 'auth', label: 'Auth', status: 'in_progress' }],
  context_primer: { key_decisions: ['JWT in cookies'], generated_files: ['src/x.ts (PR 12)', 'docs/**/*.md'] },
  next_actions: ['Write the auth middleware', 'Add rate limiting'],
  skill_state: { iteration: 1, pass_threshold: 6.0, run_history: [] },
  capsule: {
    context: { goal: 'auth shipped', acceptance: 'npm test green', constraints: ['no new deps'], decisions: ['JWT in cookies'], evidence: [], pending: ['rate limits'], next: 'write the middleware' },
    origin: { saved_at: '2026-10-01T00:00:00Z', head: null, root: '/demo' },
    mechanical: {},
  },
  ...over,
});
const save = (dir: string, doc: unknown, rel = FILE) => write(dir, rel, `${JSON.stringify(doc, null, 2).replace('"pass_threshold": 6', '"pass_threshold": 6.0')}\n`);

type Kind = 'DU' | 'UD' | 'AA-taken' | 'UU-removed' | 'AA-removed' | 'UU-settled' | 'UU-markers';
const templates = new Map<Kind, string>();

/** A repository stopped in a real `git merge` of branch `other` into main, left as `kind` says. */
function stopped(kind: Kind, opts: { web?: boolean } = {}): string {
  let template = templates.get(kind);
  if (!template) {
    const dir = makeRepo();
    const added = kind.startsWith('AA');
    if (!added) {
      save(dir, cp('api'));
      commitAll(dir, 'base');
    }
    git(dir, ['checkout', '-q', '-b', 'other']);
    if (kind === 'UD') git(dir, ['rm', '-q', FILE]);
    else save(dir, cp('api', { phase: 'p-theirs', step: 'their step' }));
    commitAll(dir, kind === 'UD' ? 'retire the api checkpoint' : 'their session');
    git(dir, ['checkout', '-q', 'main']);
    if (kind === 'DU') git(dir, ['rm', '-q', FILE]);
    else save(dir, cp('api', { phase: 'p-ours', step: 'our step' }));
    commitAll(dir, kind === 'DU' ? 'retire the api checkpoint' : 'our session');
    expect(gitTry(dir, ['merge', '-q', 'other']).status).not.toBe(0);
    const code = { DU: 'DU', UD: 'UD', 'AA-taken': 'AA', 'UU-removed': 'UU', 'AA-removed': 'AA', 'UU-settled': 'UU', 'UU-markers': 'UU' }[kind];
    expect(git(dir, ['status', '--porcelain'])).toContain(`${code} ${FILE}`);
    if (kind === 'AA-taken') git(dir, ['checkout', '--theirs', '--', FILE]); // one side taken by hand, not staged
    if (kind === 'UU-settled') git(dir, ['checkout', '--ours', '--', FILE]);
    if (kind.endsWith('removed')) rmSync(join(dir, FILE));
    templates.set(kind, (template = dir)); // copied for each test; removed with the run's temp dirs
  }
  const dir = join(tempDir('cp-index-conflict-'), 'work');
  cpSync(template, dir, { recursive: true });
  dirs.push(dir);
  if (opts.web) save(dir, cp('web', { next_actions: ['Ship the landing page'], capsule: undefined }), '.checkpoints/web.checkpoint.json');
  return dir;
}

/** Each problem names the file first. */
const AT = '\\.checkpoints/api\\.checkpoint\\.json: ';
/** What each conflict must be named with: its code, and the commands that end it. */
const CASES: [Kind, string, RegExp][] = [
  ['DU', 'DU', /modify\/delete conflict \(DU\): our side \(HEAD\) deleted it, theirs changed it.*checkpoint resolve --add \.checkpoints\/api\.checkpoint\.json.*checkpoint resolve --accept-deletion/],
  ['UD', 'UD', /modify\/delete conflict \(UD\): their side deleted it, ours \(HEAD\) changed it.*checkpoint resolve --add .*checkpoint resolve --accept-deletion/],
  ['AA-taken', 'AA', /merge not marked resolved \(AA: both sides added it\): no conflict markers in the file.*checkpoint resolve --add \.checkpoints\/api\.checkpoint\.json checks and stages it/],
  ['UU-settled', 'UU', /merge not marked resolved \(UU: both sides changed it\).*checkpoint resolve --add/],
  ['UU-removed', 'UU', /missing from the work tree, but git's index still holds its merge \(UU: both sides changed it\).*git checkout --merge -- \.checkpoints\/api\.checkpoint\.json, then checkpoint resolve/],
  ['AA-removed', 'AA', /missing from the work tree, but git's index still holds its merge \(AA: both sides added it\).*git checkout --merge -- /],
];

describe.each(CASES)('a checkpoint git holds unmerged (%s)', (kind, code, named) => {
  it('resume asks the user (exit 3), names it and what ends the merge, never resumes it or says "start fresh"', async () => {
    const dir = stopped(kind);
    const r = await runCli(dir, ['resume']);
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.stdout).not.toContain('RESUMING');
    expect(r.stdout).not.toMatch(/start fresh\b(?! over)/);
    expect(r.stdout).toMatch(/^A checkpoint is in an unfinished merge, so none is resumed automatically:$/m);
    expect(r.stdout).toMatch(new RegExp(`^ {2}✗ needs repair: api: ${AT}${named.source}`, 'm'));
    expect(r.stdout).toMatch(/^ASK THE USER before starting work/m);
    const json = await runCli(dir, ['resume', '--json']);
    expect(json.code).toBe(3);
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({ ok: false, ask_user: true, candidates: [], needs_repair: [{ skill: 'api', conflict: code, problem: expect.stringMatching(named) }] });
    expect(doc.skill).toBeUndefined();
    // Named with the skill: refused (exit 2) with what ends the merge, not "no checkpoint".
    const one = await runCli(dir, ['resume', 'api']);
    expect(one.code).toBe(2);
    expect(JSON.parse((await runCli(dir, ['resume', 'api', '--json'])).stdout).error.code).toBe('E_CONFLICT');
    expect(errorLine(one.stderr.split('\n').filter((l) => !l.includes('warning:')).join('\n')).message).toMatch(/^cannot resume api: /);
  });

  it('resume --context does not recover the capsule of a side of the merge: it asks in its text (exit 0, as the compaction hooks run it unwrapped)', async () => {
    const dir = stopped(kind);
    const r = await runCli(dir, ['resume', '--context']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ASK THE USER before starting work: repair it/m);
    expect(r.stdout).not.toContain('RECOVERY CAPSULE');
    expect(r.stdout).not.toContain('no recovery capsule saved');
    expect(r.stdout).toMatch(new RegExp(`✗ api: ${AT}${named.source}`));
    expect(r.stderr).toContain('checkpoint: skipped api: its checkpoint is in an unfinished merge');
    const json = JSON.parse((await runCli(dir, ['resume', '--context', '--json'])).stdout);
    expect(json).toMatchObject({ ok: false, ask_user: true, capsule: null, needs_repair: [{ skill: 'api', conflict: code }] });
    const one = await runCli(dir, ['resume', 'api', '--context']);
    expect(one.code).toBe(2);
    expect(errorLine(one.stderr).message).toMatch(/^cannot read the recovery capsule of "api": /);
  });

  it('status, next and list name it (exit 1), beside a healthy skill they still show, and both engines agree', async () => {
    const dir = stopped(kind, { web: true });
    const outs: string[] = [];
    for (const engine of ['native', 'isomorphic']) {
      const status = await runCli(dir, ['status', '--engine', engine]);
      expect(status.code).toBe(1);
      expect(status.stdout).toMatch(new RegExp(`^api +needs repair +${AT}${named.source}`, 'm'));
      expect(status.stdout).toMatch(/^web +in_progress/m);
      const next = await runCli(dir, ['next', '--engine', engine]);
      expect(next.code).toBe(1);
      expect(next.stdout).toMatch(new RegExp(`^needs repair: api: ${AT}${named.source}`, 'm'));
      expect(next.stdout).toContain('→ Ship the landing page');
      const statusJson = JSON.parse((await runCli(dir, ['status', '--json', '--engine', engine])).stdout);
      expect(statusJson.broken).toEqual([{ skill: 'api', conflict: code, problem: expect.stringMatching(named) }]);
      expect(statusJson.skills.map((s: { skill: string }) => s.skill)).toEqual(['web']);
      const nextJson = JSON.parse((await runCli(dir, ['next', '--json', '--engine', engine])).stdout);
      expect(nextJson.needs_repair).toEqual([{ skill: 'api', conflict: code, problem: expect.stringMatching(named) }]);
      outs.push([status.stdout, next.stdout, JSON.stringify(statusJson), JSON.stringify(nextJson)].join('\n'));
    }
    expect(outs[1]).toBe(outs[0]);
    const list = await runCli(dir, ['list']);
    expect(list.code).toBe(1);
    expect(list.stdout).toMatch(new RegExp(`^api +conflicted +${AT}${named.source}`, 'm'));
    // Beside a healthy skill, resume still asks rather than resuming the other one silently.
    const resume = await runCli(dir, ['resume']);
    expect(resume.code).toBe(3);
    expect(resume.stdout).toMatch(/^ {2}web {2}in_progress/m);
  });

  it('doctor names it as an error (exit 1) with what ends the merge, never "no drift" over one side\'s file', async () => {
    const dir = stopped(kind, { web: true });
    const r = await runCli(dir, ['doctor']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).not.toContain('no drift');
    expect(r.stdout).toMatch(new RegExp(`^api\\n {2}error +${AT}${named.source}`, 'm'));
    expect(r.stdout).toMatch(/^web$/m);
    // Only one side's text is in the tree: its files are not checked for drift as if it were the checkpoint.
    const json = JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout);
    expect(json.findings.filter((f: { skill: string }) => f.skill === 'api')).toEqual([expect.objectContaining({ level: 'error', check: 'schema', message: expect.stringMatching(named) })]);
  });
});

describe('a conflict no *_HEAD file marks', () => {
  it('git checkout -m leaves UU in the index and no MERGE_HEAD: one side taken by hand is still named, resume asks', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    save(dir, cp('api'));
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'other']);
    save(dir, cp('api', { phase: 'p-other' }));
    commitAll(dir, 'other session');
    git(dir, ['checkout', '-q', 'main']);
    save(dir, cp('api', { phase: 'p-wip' })); // uncommitted work carried across with -m
    expect(gitTry(dir, ['checkout', '-q', '-m', 'other']).status).toBe(0);
    expect(git(dir, ['status', '--porcelain'])).toBe(`UU ${FILE}\n`);
    for (const head of ['MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD', 'REBASE_HEAD']) expect(existsSync(join(dir, '.git', head)), head).toBe(false);
    git(dir, ['checkout', '--ours', '--', FILE]); // valid JSON, no markers, still unmerged
    const r = await runCli(dir, ['resume']);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/✗ needs repair: api: \.checkpoints\/api\.checkpoint\.json: merge not marked resolved \(UU: both sides changed it\)/);
    expect((await runCli(dir, ['resolve', '--add'])).code).toBe(0);
    expect((await runCli(dir, ['resume'])).stdout).toContain('RESUMING: api');
  });
});

describe('the MCP resume tool and resume-session prompt', () => {
  it.each([['DU'], ['UU-removed']] as [Kind][])('ask the user over %s instead of resuming it or "start fresh"', async (kind) => {
    const dir = stopped(kind);
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: dir, env: GIT_ENV as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'test-host', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    clients.push(client);
    const tool = (await client.callTool({ name: 'resume', arguments: {} })) as { content: { text: string }[]; structuredContent?: Record<string, unknown> };
    const text = tool.content.map((c) => c.text).join('\n');
    expect(text).not.toContain('no checkpoint to resume');
    expect(text).not.toContain('RESUMING');
    expect(text).toContain('ASK THE USER');
    expect(text).toContain(kind === 'DU' ? 'checkpoint resolve --accept-deletion' : 'git checkout --merge --');
    expect(tool.structuredContent).toMatchObject({ ok: false, ask_user: true });
    const prompt = await client.getPrompt({ name: 'resume-session', arguments: {} });
    const said = (prompt.messages[0]!.content as { text: string }).text;
    expect(said).toContain('ASK THE USER');
    expect(said).not.toContain('RESUMING');
    expect(said).not.toContain('no checkpoint to resume');
  });
});

describe('once the merge is finished, the checkpoint reads again', () => {
  it('resolve --add keeps the changed side of a modify/delete conflict, and resume resumes it', async () => {
    const dir = stopped('UD');
    expect((await runCli(dir, ['resolve', '--add'])).code).toBe(0);
    const r = await runCli(dir, ['resume']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('RESUMING: api');
    expect(r.stdout).toContain('Next: Write the auth middleware');
  });

  it('a settled file staged with git add reads as any other', async () => {
    const dir = stopped('UU-settled');
    git(dir, ['add', FILE]);
    const status = await runCli(dir, ['status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^api +in_progress +p-ours \/ our step/m);
  });
});

describe('resolve --accept-deletion', () => {
  const archives = (dir: string) => (existsSync(join(dir, '.checkpoints/history')) ? readdirSync(join(dir, '.checkpoints/history')) : []);

  it.each([
    ['DU', 'our side (HEAD)', 'theirs'],
    ['UD', 'their side', 'ours (HEAD)'],
  ] as [Kind, string, string][])('%s: archives the changed version byte for byte, stages the deletion, and the merge commits', async (kind, deleter, changer) => {
    const dir = stopped(kind);
    const changed = readFileSync(join(dir, FILE));
    const r = await runCli(dir, ['resolve', '--accept-deletion']);
    expect(r.code, r.stderr).toBe(0);
    const [archive] = archives(dir);
    expect(archive).toMatch(/^api\.\d{4}-\d\d-\d\dT[\d-]+\.\d{3}Z\.checkpoint\.json$/);
    expect(r.stdout).toBe(`${FILE}: ✓ accepted the deletion by ${deleter} and staged it; the version ${changer} changed is archived in .checkpoints/history/${archive} (git add it to commit it with the merge); \`checkpoint restore ${archive}\` brings it back\n`);
    expect(readFileSync(join(dir, '.checkpoints/history', archive!)).equals(changed)).toBe(true);
    expect(existsSync(join(dir, FILE))).toBe(false);
    expect(git(dir, ['ls-files', '--unmerged'])).toBe('');
    expect((await runCli(dir, ['resolve', '--check'])).code).toBe(0);
    expect((await runCli(dir, ['resume'])).stdout).toContain('no checkpoint to resume');
    git(dir, ['commit', '-q', '--no-edit']);
    // The change comes back as the live checkpoint when wanted.
    expect((await runCli(dir, ['restore', archive!])).code).toBe(0);
    expect(JSON.parse(read(dir, FILE)).phase).toBe(kind === 'DU' ? 'p-theirs' : 'p-ours');
  });

  it('with the file gone from the work tree: archives the side git staged; with --add stages the archive too', async () => {
    const dir = stopped('DU');
    const staged = Buffer.from(git(dir, ['show', `:3:${FILE}`]));
    rmSync(join(dir, FILE));
    // Named by status as gone, with this way out.
    expect((await runCli(dir, ['status'])).stdout).toMatch(/and the file is gone from the work tree \(accept the deletion, the change archived in history\/: checkpoint resolve --accept-deletion/);
    const r = await runCli(dir, ['resolve', '--accept-deletion', '--add', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const [archive] = archives(dir);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, files: [{ path: FILE, status: 'resolved', source: 'stages', messages: [], deleted: 'ours', archive: `.checkpoints/history/${archive}` }] });
    expect(readFileSync(join(dir, '.checkpoints/history', archive!)).equals(staged)).toBe(true);
    expect(git(dir, ['status', '--porcelain'])).toBe(`A  .checkpoints/history/${archive}\n`);
  });

  it('refuses (exit 2, nothing changed) where no file is in a modify/delete conflict', async () => {
    const dir = stopped('UU-settled');
    const before = readFileSync(join(dir, FILE));
    const r = await runCli(dir, ['resolve', '--accept-deletion']);
    expect(r.code).toBe(2);
    expect(errorLine(r.stderr).message).toBe(`resolve: --accept-deletion: no modify/delete conflict in ${FILE}`);
    expect(readFileSync(join(dir, FILE)).equals(before)).toBe(true);
    expect(archives(dir)).toEqual([]);
    expect(git(dir, ['ls-files', '--unmerged'])).not.toBe('');
  });
});

/** The index's bytes: a refused write leaves git's record of the merge exactly as it was. */
const indexBytes = (dir: string) => readFileSync(join(dir, '.git', 'index'));
/** The file's bytes, or null when it is not in the work tree. */
const fileBytes = (dir: string, rel = FILE) => (existsSync(join(dir, rel)) ? readFileSync(join(dir, rel)) : null);
const CAPSULE = JSON.stringify(cp('api').capsule.context);

/** Each write, and what its refusal calls it. */
const WRITES: [string, string[], string][] = [
  ['update', ['update', 'api', '--step=sprint-2', '--next_actions+=Run the evals (PR 12)'], 'update api'],
  ['update --auto-rotate', ['update', 'api', '--auto-rotate', '--skill_state.iteration:json=2'], 'update api'],
  ['done', ['done', 'api'], 'mark the first action of api done'],
  ['pause', ['pause', 'api', '--context', CAPSULE], 'save the recovery capsule of api'],
  ['pause --auto', ['pause', 'api', '--auto'], 'refresh the recovery capsule of api'],
];

describe.each(CASES)('writes to a checkpoint git holds unmerged (%s)', (kind, _code, named) => {
  it.each(WRITES)('%s refuses in one line (exit 2) naming the conflict and what ends it; file and index unchanged', async (_name, argv, act) => {
    const dir = stopped(kind);
    const [file, index] = [fileBytes(dir), indexBytes(dir)];
    const r = await runCli(dir, argv);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    const line = errorLine(r.stderr);
    expect(line.lines).toBe(1);
    expect(line.message).toMatch(new RegExp(`^refused to ${act}: ${AT}`));
    expect(line.message).toMatch(file === null ? /; nothing was written$/ : /; the file was not changed$/);
    expect(line.hint).toMatch(/^finish the merge first: /);
    expect(r.stderr).toMatch(named); // the problem and its way out, as resume names them
    expect(fileBytes(dir)).toEqual(file);
    expect(indexBytes(dir).equals(index)).toBe(true);
    expect(existsSync(join(dir, '.checkpoints/history'))).toBe(false);
    const json = await runCli(dir, [...argv, '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toEqual({ ok: false, error: { code: 'E_CONFLICT', message: line.message, hint: line.hint } });
    expect(fileBytes(dir)).toEqual(file);
  });
});

describe('writes refuse until the merge is settled, then work', () => {
  it.each([['DU'], ['UD']] as [Kind][])('%s: after git add, update, done and pause write the kept file', async (kind) => {
    const dir = stopped(kind);
    for (const [, argv] of WRITES) expect((await runCli(dir, argv)).code).toBe(2);
    git(dir, ['add', FILE]);
    for (const [name, argv] of WRITES) expect((await runCli(dir, argv)).code, name).toBe(0);
    const doc = JSON.parse(read(dir, FILE));
    expect(doc).toMatchObject({ step: 'sprint-2', phase: kind === 'DU' ? 'p-theirs' : 'p-ours', next_actions: ['Add rate limiting', 'Run the evals (PR 12)'] });
    expect(doc.recently_done[0].action).toBe('Write the auth middleware');
    expect(git(dir, ['ls-files', '--unmerged'])).toBe('');
  });

  it('after resolve --accept-deletion, update starts a new checkpoint and restore brings the changed one back', async () => {
    const dir = stopped('UD');
    expect((await runCli(dir, ['update', 'api', '--step=sprint-2'])).code).toBe(2);
    expect((await runCli(dir, ['resolve', '--accept-deletion', '--add'])).code).toBe(0);
    git(dir, ['commit', '-q', '--no-edit']);
    const [archive] = readdirSync(join(dir, '.checkpoints/history'));
    expect((await runCli(dir, ['restore', archive!])).code).toBe(0);
    for (const [name, argv] of WRITES) expect((await runCli(dir, argv)).code, name).toBe(0);
    expect(JSON.parse(read(dir, FILE))).toMatchObject({ phase: 'p-ours', step: 'sprint-2' });
  });

  it('the file gone (removed by hand): update does not bring it back, restore of an archive neither', async () => {
    const dir = stopped('DU');
    const archived = '.checkpoints/history/api.2026-11-01T00-00-00.000Z.checkpoint.json';
    write(dir, archived, read(dir, FILE));
    rmSync(join(dir, FILE));
    const index = indexBytes(dir);
    const up = await runCli(dir, ['update', 'api', '--step=sprint-2']);
    expect(up.code).toBe(2);
    expect(errorLine(up.stderr).message).toBe(`refused to update api: ${FILE}: modify/delete conflict (DU): our side (HEAD) deleted it, theirs changed it, and the file is gone from the work tree; nothing was written`);
    expect(errorLine(up.stderr).hint).toBe(`finish the merge first: accept the deletion, the change archived in history/: checkpoint resolve --accept-deletion ${FILE}; or bring it back: git checkout --theirs -- ${FILE}, then checkpoint resolve --add ${FILE}`);
    const restore = await runCli(dir, ['restore', 'api.2026-11-01T00-00-00.000Z.checkpoint.json']);
    expect(restore.code).toBe(2);
    expect(errorLine(restore.stderr).message).toMatch(/^refused to restore api\.2026-11-01T00-00-00\.000Z\.checkpoint\.json: .*\(DU\).*nothing was written$/);
    // Said, never "no checkpoint": done and pause name the conflict too.
    for (const argv of [['done', 'api'], ['pause', 'api', '--auto'], ['pause', 'api', '--context', CAPSULE]]) {
      const r = await runCli(dir, argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(errorLine(r.stderr).message).toMatch(/^refused to .* of api|^refused to mark the first action of api done/);
      expect(r.stderr).toContain('modify/delete conflict (DU)');
    }
    expect(existsSync(join(dir, FILE))).toBe(false);
    expect(indexBytes(dir).equals(index)).toBe(true);
  });

  it('migrate refuses the file it would rewrite, and says so in its report', async () => {
    const dir = stopped('UD');
    // A 1.0 file (the field migrate renames) on our side of the conflict.
    const doc = JSON.parse(read(dir, FILE));
    doc.protocol_version = '1.0';
    save(dir, doc);
    const before = fileBytes(dir);
    const r = await runCli(dir, ['migrate', '--json']);
    expect(r.code).toBe(1);
    const [file] = JSON.parse(r.stdout).files;
    expect(file).toMatchObject({ skill: 'api', changed: false, error: { code: 'E_CONFLICT', message: expect.stringMatching(/^refused to migrate api: .*modify\/delete conflict \(UD\)/) } });
    expect(fileBytes(dir)).toEqual(before);
    const dry = await runCli(dir, ['migrate', '--dry-run']);
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain('✗ .checkpoints/api.checkpoint.json: refused to migrate api');
  });

  it('update --auto-rotate over a file past the size warning moves nothing to history/ mid-merge, and rotates once staged', async () => {
    const dir = stopped('UU-settled');
    const doc = JSON.parse(read(dir, FILE));
    doc.skill_state.run_history = Array.from({ length: 400 }, (_, i) => ({ id: `run-${i}`, at: `2026-0${1 + (i % 9)}-1${i % 10}T00:00:00Z`, score: 8.0, note: 'eval sweep over the auth fixtures (PR 12)' }));
    save(dir, doc);
    const before = fileBytes(dir)!;
    expect(before.length).toBeGreaterThan(32 * 1024);
    const r = await runCli(dir, ['update', 'api', '--auto-rotate', '--step=sprint-2']);
    expect(r.code).toBe(2);
    expect(errorLine(r.stderr).message).toMatch(/^refused to update api: .*\(UU: both sides changed it\)/);
    expect(fileBytes(dir)).toEqual(before);
    expect(existsSync(join(dir, '.checkpoints/history'))).toBe(false);
    git(dir, ['add', FILE]);
    const staged = await runCli(dir, ['update', 'api', '--auto-rotate', '--step=sprint-2']);
    expect(staged.code, staged.stderr).toBe(0);
    expect(staged.stdout).toContain('auto-rotated');
    expect(readdirSync(join(dir, '.checkpoints/history')).length).toBe(1);
  });

  it('a merge the driver left over the 4 MiB cap (whole, unmarked): rotate names git add first, and that way out works (red team, 12-06)', async () => {
    const dir = stopped('UU-settled');
    const doc = JSON.parse(read(dir, FILE));
    // Few long records (an eval's full trace each): over the cap at a small cost.
    const trace = 'eval sweep over the auth fixtures, full trace kept (PR 12); '.repeat(36);
    doc.skill_state.run_history = Array.from({ length: 2_000 }, (_, i) => ({ id: `run-${i}`, at: `2026-0${1 + (i % 9)}-1${i % 10}T00:00:00Z`, score: 8.0, note: trace }));
    save(dir, doc);
    const before = fileBytes(dir)!;
    expect(before.length).toBeGreaterThan(4 * 1024 * 1024);
    const r = await runCli(dir, ['rotate', 'api']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`git add ${FILE}, then checkpoint rotate api (it reads up to 16 MiB), then git add ${FILE} again`);
    // Compared as bytes (toEqual walks a 4 MiB buffer element by element).
    expect(fileBytes(dir)!.equals(before)).toBe(true);
    git(dir, ['add', FILE]);
    const rotated = await runCli(dir, ['rotate', 'api']);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(fileBytes(dir)!.length).toBeLessThan(4 * 1024 * 1024);
    // Every run kept: in the file or in history/.
    const history = readdirSync(join(dir, '.checkpoints/history')).map((f) => JSON.parse(readFileSync(join(dir, '.checkpoints/history', f), 'utf8')));
    const kept = JSON.parse(read(dir, FILE)).skill_state.run_history.length + history.reduce((n, h) => n + (h.entries?.['skill_state.run_history']?.length ?? 0), 0);
    expect(kept).toBe(2_000);
  });

  it('only the unmerged checkpoint is refused: one beside it is written as before', async () => {
    const dir = stopped('UD', { web: true });
    expect((await runCli(dir, ['update', 'api', '--step=hero'])).code).toBe(2);
    const r = await runCli(dir, ['update', 'web', '--step=hero']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(read(dir, '.checkpoints/web.checkpoint.json')).step).toBe('hero');
    expect((await runCli(dir, ['done', 'web', '--complete'])).code).toBe(0);
  });
});

describe('the MCP write tools over a checkpoint git holds unmerged', () => {
  it('update, done and pause return an error result with the CLI\'s line and its code; nothing written', async () => {
    const dir = stopped('DU');
    const [file, index] = [fileBytes(dir), indexBytes(dir)];
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: dir, env: GIT_ENV as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'test-host', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    clients.push(client);
    const calls: [string, Record<string, unknown>, string[]][] = [
      ['update', { skill: 'api', ops: [{ path: 'step', value: 'sprint-2' }] }, ['update', 'api', '--step=sprint-2']],
      ['done', { skill: 'api' }, ['done', 'api']],
      ['pause', { skill: 'api', auto: true }, ['pause', 'api', '--auto']],
      ['pause', { skill: 'api', capsule: JSON.parse(CAPSULE) }, ['pause', 'api', '--context', CAPSULE]],
    ];
    for (const [name, args, argv] of calls) {
      const tool = (await client.callTool({ name, arguments: args })) as { content: { text: string }[]; structuredContent?: { ok: boolean; error: { code: string; message: string; hint: string } }; isError?: boolean };
      const cli = (await runCli(dir, argv)).stderr.trim();
      expect(tool.isError, name).toBe(true);
      expect(tool.content.map((c) => c.text).join('\n')).toBe(cli);
      // The CLI's --json error: the message and the hint apart (red team 62e 05).
      expect(tool.structuredContent).toEqual(JSON.parse((await runCli(dir, [...argv, '--json'])).stdout));
      expect(tool.structuredContent).toMatchObject({ ok: false, error: { code: 'E_CONFLICT' } });
      expect(cli).toMatch(/^checkpoint: refused to .*modify\/delete conflict \(DU\).*checkpoint resolve --accept-deletion/);
    }
    expect(fileBytes(dir)).toEqual(file);
    expect(indexBytes(dir).equals(index)).toBe(true);
  });
});

describe('done and pause over a file a merge left holding conflict markers', () => {
  // The markers as git leaves them (UU), and the same file staged by mistake with `git add`: the index no longer says so, the markers do.
  it.each([['unmerged'], ['staged']])('%s: the CLI and the MCP tools refuse as a conflict (E_CONFLICT, one line), never as a JSON error; file and index unchanged', async (how) => {
    const dir = stopped('UU-markers');
    if (how === 'staged') git(dir, ['add', FILE]);
    expect(read(dir, FILE)).toMatch(/^<<<<<<< /m);
    const [file, index] = [fileBytes(dir), indexBytes(dir)];
    const line = (act: string) => `refused to ${act}: ${FILE} holds merge conflict markers; the file was not changed`;
    const hint = 'finish the merge first with `checkpoint resolve` (`checkpoint resolve --check` lists what is left)';
    for (const [name, argv, act] of WRITES.filter(([n]) => n.startsWith('done') || n.startsWith('pause'))) {
      const r = await runCli(dir, [...argv, '--json']);
      expect(r.code, `${name}: ${r.stdout}${r.stderr}`).toBe(2);
      expect(JSON.parse(r.stdout), name).toEqual({ ok: false, error: { code: 'E_CONFLICT', message: line(act), hint } });
    }
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: dir, env: GIT_ENV as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'test-host', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    clients.push(client);
    const calls: [string, Record<string, unknown>, string][] = [
      ['done', { skill: 'api' }, 'mark the first action of api done'],
      ['pause', { skill: 'api', auto: true }, 'refresh the recovery capsule of api'],
      ['pause', { skill: 'api', capsule: JSON.parse(CAPSULE) }, 'save the recovery capsule of api'],
    ];
    for (const [name, args, act] of calls) {
      const tool = (await client.callTool({ name, arguments: args })) as { content: { text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
      expect(tool.isError, name).toBe(true);
      expect(tool.content.map((c) => c.text).join('\n')).toBe(`checkpoint: ${line(act)}; hint: ${hint}`);
      expect(tool.structuredContent).toEqual({ ok: false, error: { code: 'E_CONFLICT', message: line(act), hint } });
    }
    expect(fileBytes(dir)).toEqual(file);
    expect(indexBytes(dir).equals(index)).toBe(true);
  });
});

/**
 * A repository stopped in a real `git merge` over a renamed checkpoint: `rename/rename` (main
 * renamed api to auth, the other branch to login: DD api, AU auth, UA login) or `rename/delete`
 * (main renamed it to auth, the other branch deleted it). Renamed with `git mv` alone, as people
 * do, so the renamed file still says `"skill": "api"`.
 */
function renamed(kind: 'rename/rename' | 'rename/delete'): string {
  const dir = makeRepo();
  dirs.push(dir);
  save(dir, cp('api'));
  commitAll(dir, 'base');
  git(dir, ['checkout', '-q', '-b', 'other']);
  if (kind === 'rename/rename') git(dir, ['mv', FILE, '.checkpoints/login.checkpoint.json']);
  else git(dir, ['rm', '-q', FILE]);
  commitAll(dir, kind === 'rename/rename' ? 'api is the login skill now' : 'retire the api checkpoint');
  git(dir, ['checkout', '-q', 'main']);
  git(dir, ['mv', FILE, '.checkpoints/auth.checkpoint.json']);
  commitAll(dir, 'api is the auth skill now');
  const merge = gitTry(dir, ['merge', 'other']);
  expect(merge.status).not.toBe(0);
  expect(merge.stdout).toContain(`CONFLICT (${kind})`);
  return dir;
}

const AUTH = '.checkpoints/auth.checkpoint.json';
const LOGIN = '.checkpoints/login.checkpoint.json';

describe('a rename/rename conflict of a checkpoint (DD, AU, UA), as git leaves it', () => {
  // What each is named with, the file first, then its ways out.
  const DD = `${FILE}: merge not marked resolved (DD: both sides deleted or renamed it) (accept the deletion: git rm ${FILE})`;
  const AU = new RegExp(`^${AUTH.replace(/\./g, '\\.')}: merge not marked resolved \\(AU: added by our side \\(HEAD\\) alone, in a rename conflict\\) \\(keep it: .*checkpoint resolve --add ${AUTH.replace(/\./g, '\\.')}.*; drop it: git rm ${AUTH.replace(/\./g, '\\.')}\\)$`);
  const UA = new RegExp(`^${LOGIN.replace(/\./g, '\\.')}: merge not marked resolved \\(UA: added by their side alone, in a rename conflict\\) \\(keep it: .*checkpoint resolve --add ${LOGIN.replace(/\./g, '\\.')}.*; drop it: git rm ${LOGIN.replace(/\./g, '\\.')}\\)$`);

  it('resume asks the user (exit 3) and status, next and list name each with its code and way out', async () => {
    const dir = renamed('rename/rename');
    expect(git(dir, ['status', '--porcelain'])).toBe(`DD ${FILE}\nAU ${AUTH}\nUA ${LOGIN}\n`);
    const r = await runCli(dir, ['resume']);
    expect(r.code).toBe(3);
    expect(r.stdout).not.toContain('RESUMING');
    const repairs = r.stdout.split('\n').filter((l) => l.startsWith('  ✗ needs repair: ')).map((l) => l.replace(/^ {2}✗ needs repair: \w+: /, ''));
    expect(repairs).toHaveLength(3);
    expect(repairs[0]).toBe(DD);
    expect(repairs[1]).toMatch(AU);
    expect(repairs[2]).toMatch(UA);
    // Kept under its new name only once the skill it names is that name: resolve --add refuses it before.
    expect(repairs[1]).toContain(`keep it: checkpoint resolve --add ${AUTH}, once its "skill" is "auth" (a file renamed with git mv alone still names the old one); drop it: git rm ${AUTH}`);
    expect(repairs[2]).toContain(`keep it: checkpoint resolve --add ${LOGIN}, once its "skill" is "login"`);
    const json = JSON.parse((await runCli(dir, ['resume', '--json'])).stdout);
    expect(json.needs_repair.map((n: { skill: string; conflict: string }) => [n.skill, n.conflict])).toEqual([['api', 'DD'], ['auth', 'AU'], ['login', 'UA']]);
    const status = await runCli(dir, ['status', '--json']);
    expect(status.code).toBe(1);
    expect(JSON.parse(status.stdout).broken.map((b: { skill: string; conflict: string; problem: string }) => [b.skill, b.conflict, b.problem])).toEqual([
      ['api', 'DD', DD],
      ['auth', 'AU', expect.stringMatching(AU)],
      ['login', 'UA', expect.stringMatching(UA)],
    ]);
    expect((await runCli(dir, ['next'])).stdout).toContain(`needs repair: api: ${DD}`);
    expect((await runCli(dir, ['list'])).stdout).toMatch(/^auth +conflicted +/m);
  });

  it('writes refuse each (api is not brought back); the ways out named end the merge', async () => {
    const dir = renamed('rename/rename');
    const index = indexBytes(dir);
    const [auth, login] = [fileBytes(dir, AUTH), fileBytes(dir, LOGIN)];
    const api = await runCli(dir, ['update', 'api', '--step=sprint-2']);
    expect(api.code).toBe(2);
    expect(errorLine(api.stderr)).toEqual({ lines: 1, message: `refused to update api: ${FILE}: merge not marked resolved (DD: both sides deleted or renamed it); nothing was written`, hint: `finish the merge first: accept the deletion: git rm ${FILE}` });
    expect(existsSync(join(dir, FILE))).toBe(false);
    const up = await runCli(dir, ['update', 'auth', '--step=sprint-2']);
    expect(up.code).toBe(2);
    expect(errorLine(up.stderr).message).toBe(`refused to update auth: ${AUTH}: merge not marked resolved (AU: added by our side (HEAD) alone, in a rename conflict); the file was not changed`);
    expect((await runCli(dir, ['done', 'login'])).stderr).toContain('(UA: added by their side alone, in a rename conflict)');
    expect(fileBytes(dir, AUTH)).toEqual(auth);
    expect(fileBytes(dir, LOGIN)).toEqual(login);
    expect(indexBytes(dir).equals(index)).toBe(true);
    // Keep auth, drop login, accept api's deletion: each as its line says.
    git(dir, ['rm', '-q', FILE]);
    git(dir, ['rm', '-q', LOGIN]);
    // The renamed file still names its old skill: resolve says so and stages nothing until it is set.
    const refused = await runCli(dir, ['resolve', '--add', AUTH]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('file name "auth.checkpoint.json" must be "api.checkpoint.json" for skill "api"');
    write(dir, AUTH, read(dir, AUTH).replace('"skill": "api"', '"skill": "auth"'));
    const kept = await runCli(dir, ['resolve', '--add', AUTH]);
    expect(kept.code, kept.stderr).toBe(0);
    expect(git(dir, ['ls-files', '--unmerged'])).toBe('');
    git(dir, ['commit', '-q', '--no-edit']);
    expect((await runCli(dir, ['update', 'auth', '--step=sprint-2'])).code).toBe(0);
    expect((await runCli(dir, ['resume'])).stdout).toContain('RESUMING: auth');
  });

  it('resolve --check and resolve name git rm for the file both sides renamed away, never a checkout git refuses', async () => {
    const dir = renamed('rename/rename');
    const check = await runCli(dir, ['resolve', '--check']);
    expect(check.code).toBe(1);
    const line = check.stdout.split('\n').find((l) => l.startsWith(`✗ ${FILE} `));
    // The renamed files as git left them name their old skill: fixed by hand, or dropped (no merge to redo).
    expect(check.stdout).toContain(`✗ ${AUTH} is invalid at skill: file name "auth.checkpoint.json" must be "api.checkpoint.json" for skill "api", and is still unmerged in git's index: fix it by hand, then \`checkpoint resolve --add ${AUTH}\`; or drop it: \`git rm ${AUTH}\``);
    expect(line).toBe(`✗ ${FILE} is deleted or renamed on both sides (DD), and still unmerged in git's index: accept the deletion: git rm ${FILE}, then rerun \`checkpoint resolve\``);
    expect(gitTry(dir, ['checkout', '--merge', '--', FILE]).status).not.toBe(0); // what it said before
    const r = await runCli(dir, ['resolve', '--add']);
    expect(r.code).toBe(2);
    expect(errorLine(r.stderr)).toEqual({ lines: 1, message: `${FILE}: deleted or renamed on both sides (DD), and still unmerged in git's index`, hint: `accept the deletion: git rm ${FILE}, then rerun \`checkpoint resolve\`` });
    // The renamed files gone too: each named with the side that brings it back.
    rmSync(join(dir, AUTH));
    const gone = await runCli(dir, ['resolve', '--check']);
    expect(gone.stdout).toContain(`✗ ${AUTH} is missing from the work tree, but git's index still holds it unmerged (AU: added by our side (HEAD) alone, in a rename conflict): drop it: git rm ${AUTH}; or bring it back: git checkout --ours -- ${AUTH}, then checkpoint resolve --add ${AUTH}`);
    expect(gitTry(dir, ['checkout', '--ours', '--', AUTH]).status).toBe(0);
  });
});

describe('two branches each reset the same skill: a rename/rename into two archives (red team 63 r2 3)', () => {
  // A hand-kept checkpoint with an error of its own (a status off the enum): its archives keep it.
  const HAND = `{
    "protocol_version": "1.1", "skill": "api", "project": "demo", "project_dir": "/demo",
    "created_at": "2026-03-01T10:00:00Z", "updated_at": "2026-03-02T10:00:00Z",
    "phase": "build", "step": "s1", "status": "In Progress",
    "progress_summary": "half done, evals at 8.0 (see notes/evals.md)", "next_actions": ["Run evals"]
}
`;
  /** Stopped in the merge, the live name's DD accepted as status advises: the two archives left, AU (ours) and UA (theirs). */
  async function bothReset(): Promise<{ dir: string; ours: string; theirs: string }> {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, FILE, HAND);
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'other']);
    expect((await runCli(dir, ['reset', 'api'])).code).toBe(0);
    commitAll(dir, 'other: reset api');
    git(dir, ['checkout', '-q', 'main']);
    expect((await runCli(dir, ['reset', 'api'])).code).toBe(0);
    commitAll(dir, 'main: reset api');
    const merge = gitTry(dir, ['merge', 'other']);
    expect(merge.stdout).toContain('CONFLICT (rename/rename)');
    git(dir, ['rm', '-q', FILE]);
    const code = (c: string) => git(dir, ['status', '--porcelain']).split('\n').find((l) => l.startsWith(`${c} `))!.slice(3);
    return { dir, ours: code('AU'), theirs: code('UA') };
  }

  it('resolve --add stages both archives as each branch wrote them; --check never offers git rm for one', async () => {
    const { dir, ours, theirs } = await bothReset();
    const check = await runCli(dir, ['resolve', '--check']);
    expect(check.code).toBe(1);
    expect(check.stdout).not.toContain('git rm');
    expect(check.stdout).not.toContain('invalid');
    const r = await runCli(dir, ['resolve', '--add']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(git(dir, ['ls-files', '--unmerged'])).toBe('');
    expect(read(dir, ours)).toBe(git(dir, ['show', `main:${ours}`]));
    expect(read(dir, theirs)).toBe(git(dir, ['show', `other:${theirs}`]));
    expect(read(dir, ours)).toBe(HAND);
    expect((await runCli(dir, ['resolve', '--check'])).code).toBe(0);
    git(dir, ['commit', '-q', '--no-edit']);
    expect(git(dir, ['ls-files', '.checkpoints/history']).trim().split('\n').sort()).toEqual([ours, theirs].sort());
  });

  it('an archive edited into an error of its own is refused, and the way back is git\'s copy of it, never git rm', async () => {
    const { dir, ours } = await bothReset();
    write(dir, ours, HAND.replace('"phase": "build"', '"phase": ["build"]'));
    const check = await runCli(dir, ['resolve', '--check']);
    expect(check.stdout).toContain(`✗ ${ours} is invalid at phase`);
    expect(check.stdout).toContain(`or take it back as git holds it: \`git checkout --ours -- ${ours}\`, then \`checkpoint resolve --add ${ours}\``);
    expect(check.stdout).not.toContain('git rm');
    expect((await runCli(dir, ['resolve', '--add'])).code).toBe(1);
    // Gone from the work tree: brought back, not dropped.
    rmSync(join(dir, ours));
    const gone = await runCli(dir, ['resolve', '--check']);
    expect(gone.stdout).toContain(`✗ ${ours} is missing from the work tree, but git's index still holds it unmerged (AU: added by our side (HEAD) alone, in a rename conflict): bring it back: git checkout --ours -- ${ours}, then checkpoint resolve --add ${ours}`);
    expect(gone.stdout).not.toContain('git rm');
    git(dir, ['checkout', '--ours', '--', ours]);
    expect((await runCli(dir, ['resolve', '--add'])).code).toBe(0);
    expect(git(dir, ['ls-files', '--unmerged'])).toBe('');
    expect(read(dir, ours)).toBe(HAND);
  });
});

describe('a checkpoint both sides renamed away, written back by hand (DD with a file)', () => {
  it('is named with both ways out, refuses writes, and either way out ends it', async () => {
    const dir = renamed('rename/rename');
    write(dir, FILE, git(dir, ['show', `:1:${FILE}`]));
    const problem = `${FILE}: merge not marked resolved (DD: both sides deleted or renamed it), yet a file of that name is in the work tree`;
    const ways = `keep the file: checkpoint resolve --add ${FILE}; drop it from the index: git rm --cached ${FILE}`;
    expect((await runCli(dir, ['status'])).stdout).toContain(`${problem} (${ways})`);
    const before = fileBytes(dir);
    const up = await runCli(dir, ['update', 'api', '--step=sprint-2']);
    expect(errorLine(up.stderr)).toEqual({ lines: 1, message: `refused to update api: ${problem}; the file was not changed`, hint: `finish the merge first: ${ways}` });
    expect(fileBytes(dir)).toEqual(before);
    const other = join(tempDir('cp-index-conflict-'), 'work');
    cpSync(dir, other, { recursive: true });
    dirs.push(other);
    git(other, ['rm', '-q', '--cached', FILE]);
    expect(git(other, ['status', '--porcelain', '--', FILE])).toBe(`?? ${FILE}\n`);
    expect((await runCli(dir, ['resolve', '--add', FILE])).code).toBe(0);
    expect(git(dir, ['status', '--porcelain', '--', FILE])).toBe(`A  ${FILE}\n`);
    expect((await runCli(dir, ['update', 'api', '--step=sprint-2'])).code).toBe(0);
  });
});

describe('a rename/delete conflict of a checkpoint, as git leaves it', () => {
  it('is a modify/delete conflict of the new name: named so, writes refuse, both ways out work', async () => {
    const dir = renamed('rename/delete');
    expect(git(dir, ['status', '--porcelain'])).toBe(`UD ${AUTH}\n`);
    const status = JSON.parse((await runCli(dir, ['status', '--json'])).stdout);
    expect(status.broken).toEqual([{ skill: 'auth', conflict: 'UD', problem: expect.stringMatching(/modify\/delete conflict \(UD\): their side deleted it, ours \(HEAD\) changed it; the file holds our version, not merged yet \(keep it: checkpoint resolve --add .*; accept the deletion, the change archived in history\/: checkpoint resolve --accept-deletion /) }]);
    const before = fileBytes(dir, AUTH);
    expect((await runCli(dir, ['pause', 'auth', '--auto'])).code).toBe(2);
    expect(fileBytes(dir, AUTH)).toEqual(before);
    const r = await runCli(dir, ['resolve', '--accept-deletion']);
    expect(r.code, r.stderr).toBe(0);
    const [archive] = readdirSync(join(dir, '.checkpoints/history'));
    expect(readFileSync(join(dir, '.checkpoints/history', archive!)).equals(before!)).toBe(true);
    expect(git(dir, ['ls-files', '--unmerged'])).toBe('');
  });
});

describe('a distinct-types conflict: one side made the checkpoint a symbolic link, the other changed the file', () => {
  /** main and `other` from one commit; `linkOn` replaces the file with a link to a file in the project, the other side moves on a sprint. */
  function typeConflict(linkOn: 'main' | 'other'): string {
    const dir = makeRepo();
    dirs.push(dir);
    save(dir, cp('api'));
    commitAll(dir, 'api: start');
    git(dir, ['checkout', '-q', '-b', 'other']);
    git(dir, ['checkout', '-q', 'main']);
    for (const branch of ['main', 'other']) {
      git(dir, ['checkout', '-q', branch]);
      if (branch === linkOn) {
        write(dir, 'notes.json', '{}\n');
        rmSync(join(dir, FILE));
        symlinkSync('../notes.json', join(dir, FILE));
      } else save(dir, cp('api', { step: 'sprint-2', progress_summary: 'Sprint 2 started (8.0/10 on sprint 1).' }));
      commitAll(dir, `${branch}: its change`);
    }
    git(dir, ['checkout', '-q', 'main']);
    expect(gitTry(dir, ['merge', '-q', 'other']).status).not.toBe(0);
    return dir;
  }

  it.each([['main', 'AU', '~other'], ['other', 'UA', '~HEAD']] as const)('link on %s (%s): status, update and resolve name git\'s copy %s; its "keep the file" steps, run as printed, keep the changed checkpoint', async (linkOn, code, suffix) => {
    const dir = typeConflict(linkOn);
    const copy = `${FILE}${suffix}`;
    expect(git(dir, ['status', '--porcelain', '--', FILE])).toBe(`${code} ${FILE}\n`);
    const problem = `${FILE}: distinct-types conflict (${code}): one side replaced the file with a link or submodule, and git moved ${suffix === '~HEAD' ? 'ours (HEAD)' : 'theirs'} to ${copy}`;
    // Quoted in the commands: \`~\` is a pattern to zsh's extended_glob.
    const keep = `rm ${FILE} && mv '${copy}' ${FILE} && git rm -q --cached '${copy}' && checkpoint resolve --add ${FILE}`;
    expect((await runCli(dir, ['status'])).stdout).toContain(`${problem} (keep the file: ${keep}; keep the other side instead: git rm -q '${copy}' && git add ${FILE})`);
    const up = await runCli(dir, ['update', 'api', '--step=sprint-3']);
    expect(up.code).toBe(2);
    expect(errorLine(up.stderr).message).toBe(`refused to update api: ${problem}; the file was not changed`);
    const resolve = await runCli(dir, ['resolve']);
    expect(resolve.code).toBe(1);
    expect(resolve.stderr).toContain(`keep the file: ${keep}`);
    expect((await runCli(dir, ['resolve', '--check'])).stdout).toContain(`✗ ${FILE} is in a distinct-types conflict (${code})`);
    // The printed steps, as a user pastes them (checkpoint being this build's binary).
    const steps = keep.replace('checkpoint resolve', `${process.execPath} ${BIN} resolve`);
    const ran = spawnSync('sh', ['-c', steps], { cwd: dir, env: GIT_ENV, encoding: 'utf8' });
    expect(ran.status, ran.stdout + ran.stderr).toBe(0);
    expect(git(dir, ['ls-files', '--unmerged'])).toBe('');
    expect(lstatSync(join(dir, FILE)).isFile()).toBe(true);
    expect(JSON.parse(read(dir, FILE)).step).toBe('sprint-2');
    expect((await runCli(dir, ['update', 'api', '--step=sprint-3'])).code).toBe(0);
  });
});
