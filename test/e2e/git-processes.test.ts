// How many git processes a command starts, counted as a user's git would see them: a `git`
// wrapper first on PATH logs every run and hands over to the real git. A warm doctor (HEAD
// unchanged since the last one) asks git nothing when git's index shows the named files clean
// (one `git status` when it cannot tell); status and next nothing.
import { chmodSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanup, cli, commitAll, dateEnv, git, makeRepo, settleIndex, tempDir, write, headSha } from '../helpers/repo.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));
beforeAll(assertBuilt);

const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');

/** A wrapper dir whose `git` appends its arguments to `log` and execs the real git. */
function countingGit(): { path: string; log: string; runs: () => string[]; reset: () => void } {
  const dir = tempDir('cp-gitwrap-');
  dirs.push(dir);
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const log = join(dir, 'runs.log');
  writeFileSync(log, '');
  writeFileSync(join(dir, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`);
  chmodSync(join(dir, 'git'), 0o755);
  return {
    path: `${dir}:${process.env.PATH}`,
    log,
    runs: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
    reset: () => writeFileSync(log, ''),
  };
}

/** status, next and doctor as JSON, one after the other (with `env`: through a counting git). */
const readSide = (dir: string, env?: NodeJS.ProcessEnv) => ['status', 'next', 'doctor'].map((command) => JSON.parse(cli(dir, [command, '--json'], { env }).stdout));
const dropCaches = (dir: string) => rmSync(join(dir, '.git', 'checkpoint'), { recursive: true, force: true });

/** status, next and doctor through `counting` git search no older history, and answer as they do with no cache. */
function carriedAsCold(dir: string, counting: ReturnType<typeof countingGit>): void {
  settleIndex(dir);
  counting.reset();
  const carried = readSide(dir, { PATH: counting.path });
  expect(counting.runs().filter((r) => /--grep=/.test(r))).toEqual([]);
  dropCaches(dir);
  expect(carried).toEqual(readSide(dir));
}

/** Hand-kept checkpoints: a queued PR, generated files (one missing, one a pattern), a verified sha in prose. */
function project(opts: { old?: boolean } = {}): { dir: string; base: string } {
  const dir = makeRepo();
  dirs.push(dir);
  const when = (d: number) => (opts.old ? daysAgo(d + 500) : daysAgo(d));
  write(dir, 'src/auth.ts', 'auth\n');
  write(dir, 'docs/spec.md', '# spec\n');
  let base = commitAll(dir, 'base', when(30));
  // A seven-digit prefix that is all decimal reads as a number, not a commit (3.7% of shas): amend it away.
  for (let i = 0; /^\d+$/.test(base.slice(0, 7)); i++) {
    git(dir, ['commit', '-q', '--amend', '-m', `base ${i}`], dateEnv(when(30)));
    base = headSha(dir);
  }
  for (const skill of ['api', 'web']) {
    write(dir, `.checkpoints/${skill}.checkpoint.json`, `${JSON.stringify({
      protocol_version: '1.1', skill, project: 'demo', project_dir: '/elsewhere/demo',
      created_at: when(29), updated_at: when(28), phase: 'build', step: 'auth', status: 'in_progress',
      progress_summary: 'Auth in review.', progress_table: [{ id: 'auth', label: 'Auth', status: 'in_progress' }],
      context_primer: { key_decisions: ['JWT'], generated_files: ['src/auth.ts (PR 3)', 'docs/spec.md', 'src/gone.ts', 'src/*.ts'] },
      next_actions: ['Held for review: PR #12 — merge or close', 'Ship PLAT-7 to staging'],
      skill_state: { verified_for_sha: `release (base ${base.slice(0, 7)})` },
    }, null, 2)}\n`);
  }
  commitAll(dir, 'checkpoint: api and web', when(27));
  write(dir, 'src/auth.ts', 'auth 2\n');
  commitAll(dir, 'Auth middleware (#12)', when(20));
  git(dir, ['mv', 'docs/spec.md', 'docs/spec-v2.md']);
  commitAll(dir, 'Rename the spec', when(10));
  write(dir, 'README.md', 'x\n');
  commitAll(dir, 'readme', daysAgo(1));
  // As a clone someone works in: git may trust the index's stat data (none is racily clean).
  settleIndex(dir);
  return { dir, base };
}

describe('git processes', () => {
  it('a warm doctor on a clean index starts no git process, one `git status` when the index cannot tell; status and next none', () => {
    const { dir } = project();
    const gitOnPath = countingGit();
    const env = { PATH: gitOnPath.path };
    const cold = cli(dir, ['doctor', '--json'], { env });
    expect(cold.stderr).toBe('');
    const report = JSON.parse(cold.stdout);
    expect(report.findings.some((f: { check: string }) => f.check === 'landed')).toBe(true);
    expect(report.findings.some((f: { message: string }) => /renamed to docs\/spec-v2\.md/.test(f.message))).toBe(true);
    const coldRuns = gitOnPath.runs();
    // The walk (subjects; generated files' changes), the work tree, the commit names and the
    // one ancestry the walk did not answer, the dating of queued actions (the files' revisions;
    // their blobs are read from the object store), and the removal of src/gone.ts, which the
    // walk does not explain (kept per HEAD).
    expect(coldRuns.length).toBeLessThanOrEqual(7);
    expect(coldRuns.filter((r) => / cat-file --batch$/.test(r))).toEqual([]);
    expect(coldRuns.filter((r) => / status --porcelain=v2 /.test(r))).toEqual([]);
    expect(coldRuns.filter((r) => / log --max-age=/.test(r))).toHaveLength(3);
    expect(coldRuns.filter((r) => / log --max-age=.* --full-history --full-diff .* -- src\/gone\.ts$/.test(r))).toHaveLength(1);
    expect(cli(dir, ['status'], { env }).code).toBe(0);
    expect(cli(dir, ['next'], { env }).code).toBe(0);

    gitOnPath.reset();
    const warm = cli(dir, ['doctor', '--json'], { env });
    expect(JSON.parse(warm.stdout)).toEqual(report);
    expect(gitOnPath.runs()).toEqual([]);
    for (const cmd of ['status', 'next']) expect(cli(dir, [cmd], { env }).code).toBe(0);
    expect(gitOnPath.runs()).toEqual([]);
    // A named file touched (same content, new mtime): git compares its content, and so does the
    // index reader (index-status.ts): clean, no process.
    const now = new Date();
    utimesSync(join(dir, 'src/auth.ts'), now, now);
    expect(JSON.parse(cli(dir, ['doctor', '--json'], { env }).stdout)).toEqual(report);
    expect(gitOnPath.runs()).toEqual([]);
    // One the index cannot tell (assume-unchanged: git's own rule): one `git status`, which says it is clean.
    git(dir, ['update-index', '--assume-unchanged', 'src/auth.ts']);
    gitOnPath.reset();
    expect(JSON.parse(cli(dir, ['doctor', '--json'], { env }).stdout)).toEqual(report);
    expect(gitOnPath.runs()).toHaveLength(1);
    expect(gitOnPath.runs()[0]).toMatch(/ status --porcelain=v2 /);
    git(dir, ['update-index', '--no-assume-unchanged', 'src/auth.ts']);

    // HEAD moves on by a plain commit: the answers are carried over it (fast-forward.ts), not
    // served stale: doctor says what a run with no cache says.
    commitAll(dir, 'Merge pull request #99 from x/y');
    settleIndex(dir);
    gitOnPath.reset();
    const carried = cli(dir, ['doctor', '--json'], { env }).stdout;
    expect(gitOnPath.runs().some((r) => / log /.test(` ${r} `))).toBe(false);
    rmSync(join(dir, '.git', 'checkpoint'), { recursive: true, force: true });
    expect(JSON.parse(carried)).toEqual(JSON.parse(cli(dir, ['doctor', '--json'], { env }).stdout));
    // HEAD moves to a merge: the walk is asked again.
    git(dir, ['checkout', '-q', '-b', 'side', 'HEAD~1']);
    commitAll(dir, 'side work');
    git(dir, ['checkout', '-q', '-']);
    git(dir, ['merge', '-q', '--no-ff', '-m', 'Merge branch side', 'side']);
    settleIndex(dir);
    gitOnPath.reset();
    const merged = cli(dir, ['doctor', '--json'], { env }).stdout;
    expect(gitOnPath.runs().some((r) => / log /.test(` ${r} `))).toBe(true);
    // But not the checkpoint files' history: it is carried along the first-parent line, the merge
    // included (against its first parent, as git lists it); doctor says what it says uncached.
    expect(gitOnPath.runs().some((r) => / --first-parent /.test(` ${r} `))).toBe(false);
    rmSync(join(dir, '.git', 'checkpoint'), { recursive: true, force: true });
    expect(JSON.parse(merged)).toEqual(JSON.parse(cli(dir, ['doctor', '--json'], { env }).stdout));
    // A branch that re-saved a checkpoint, merged: the merge is one of the file's revisions.
    git(dir, ['checkout', '-q', '-b', 'resave', 'HEAD~1']);
    const file = join(dir, '.checkpoints/api.checkpoint.json');
    writeFileSync(file, `${JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), progress_summary: 'Re-saved on a branch.' }, null, 2)}\n`);
    commitAll(dir, 'checkpoint: api on a branch');
    git(dir, ['checkout', '-q', '-']);
    git(dir, ['merge', '-q', '--no-ff', '-m', 'Merge branch resave', 'resave']);
    settleIndex(dir);
    gitOnPath.reset();
    const resaved = readSide(dir, env);
    expect(gitOnPath.runs().some((r) => / --first-parent /.test(` ${r} `))).toBe(false);
    dropCaches(dir);
    expect(resaved).toEqual(readSide(dir));
  });

  it('a blocked checkpoint: status and next start no git process while no blocker names a PR; one waiting on a PR costs the walk and its file\'s revisions (when the blocker was written), no longer walk for an older action naming none', () => {
    const dir = makeRepo();
    dirs.push(dir);
    const checkpoint = (blocker: string) => `${JSON.stringify({
      protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: '/elsewhere/demo',
      created_at: daysAgo(3), updated_at: daysAgo(2), phase: 'build', step: 'schema', status: 'blocked',
      progress_summary: 'Waiting.', progress_table: [{ id: 'schema', label: 'Schema', status: 'blocked' }],
      context_primer: { key_decisions: ['Schema first'] },
      next_actions: ['Wire the new schema into the API'],
      blockers: [{ id: 'b1', description: blocker, needs: 'external_dep' }],
    }, null, 2)}\n`;
    write(dir, '.checkpoints/api.checkpoint.json', checkpoint('Waiting on design review from Sam (docs/design.md, 2nd pass)'));
    commitAll(dir, 'checkpoint: api', daysAgo(2));
    settleIndex(dir);
    const gitOnPath = countingGit();
    const env = { PATH: gitOnPath.path };
    for (const cmd of ['status', 'next']) expect(cli(dir, [cmd], { env }).code).toBe(0);
    expect(gitOnPath.runs()).toEqual([]);

    write(dir, '.checkpoints/api.checkpoint.json', checkpoint('Blocked until PR #20 merges'));
    commitAll(dir, 'checkpoint: api', daysAgo(2));
    commitAll(dir, 'New schema (#20)', daysAgo(1));
    settleIndex(dir);
    gitOnPath.reset();
    const status = JSON.parse(cli(dir, ['status', '--json'], { env }).stdout);
    expect(status.skills[0].landed_blockers).toEqual([expect.objectContaining({ id: 'b1', evidence: expect.stringMatching(/^#20 landed in /) })]);
    // A re-save keeps the blocker's date (red team 60, 05): the file's revisions say when it was written.
    expect(gitOnPath.runs()).toHaveLength(2);
    expect(gitOnPath.runs().filter((r) => / log --max-age=/.test(r))).toHaveLength(1);
    expect(gitOnPath.runs().filter((r) => / log --first-parent .* -- \.checkpoints\/api\.checkpoint\.json$/.test(r))).toHaveLength(1);
    gitOnPath.reset();
    expect(JSON.parse(cli(dir, ['next', '--json'], { env }).stdout).next.landed_blockers).toEqual(status.skills[0].landed_blockers);
    expect(gitOnPath.runs()).toEqual([]);
  });

  it('in a partial clone, a checkpoint blob the store lacks is asked of git (which fetches it): queued actions dated as in a full clone', () => {
    const { dir } = project();
    // A re-save after the landing that keeps the queued PR: its queueing stays dated by the first save.
    const file = join(dir, '.checkpoints/api.checkpoint.json');
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, `${JSON.stringify({ ...saved, updated_at: daysAgo(5), progress_summary: 'Auth merged; spec next.' }, null, 2)}\n`);
    commitAll(dir, 'checkpoint: api', daysAgo(5));
    settleIndex(dir);
    const full = JSON.parse(cli(dir, ['doctor', '--json']).stdout);
    expect(full.findings.some((f: { check: string; skill: string; message: string }) => f.check === 'landed' && f.skill === 'api' && /#12, which landed after it was queued/.test(f.message))).toBe(true);
    git(dir, ['config', 'uploadpack.allowFilter', 'true']);
    const clone = tempDir('cp-partial-');
    dirs.push(clone);
    rmSync(clone, { recursive: true, force: true });
    git(dir, ['clone', '-q', '--no-local', '--filter=blob:none', `file://${dir}`, clone]);
    // The first save's blob is not in the clone until something asks git for it.
    const first = git(clone, ['rev-parse', 'HEAD~4:.checkpoints/api.checkpoint.json']).trim();
    expect(git(clone, ['rev-list', '--objects', '--missing=print', 'HEAD'])).toContain(`?${first}`);
    settleIndex(clone);
    const partial = JSON.parse(cli(clone, ['doctor', '--json']).stdout);
    expect(partial.findings.filter((f: { check: string }) => f.check === 'landed')).toEqual(full.findings.filter((f: { check: string }) => f.check === 'landed'));
  });

  it('past the walk_days cut, the deep questions are cached too: a warm doctor on a clean index starts no git process', () => {
    const { dir } = project({ old: true });
    const gitOnPath = countingGit();
    const env = { PATH: gitOnPath.path };
    const cold = JSON.parse(cli(dir, ['doctor', '--json'], { env }).stdout);
    expect(cold.findings.find((f: { check: string }) => f.check === 'history').message).toMatch(/searched only for #12, PLAT-7 \(still queued\) and for the removal of docs\/spec\.md, src\/gone\.ts/);
    expect(cold.findings.some((f: { check: string }) => f.check === 'landed')).toBe(true);
    expect(cold.findings.some((f: { message: string }) => /docs\/spec\.md is missing: renamed to docs\/spec-v2\.md/.test(f.message))).toBe(true);
    expect(gitOnPath.runs().filter((r) => /--grep=#12/.test(r))).toHaveLength(1);
    gitOnPath.reset();
    expect(JSON.parse(cli(dir, ['doctor', '--json'], { env }).stdout)).toEqual(cold);
    expect(gitOnPath.runs()).toEqual([]);
  });

  it('past the walk_days cut, the search of older history is carried over plain new commits, not asked again, and answers as with no cache', () => {
    const { dir } = project({ old: true });
    const gitOnPath = countingGit();
    const env = { PATH: gitOnPath.path };
    const greps = () => gitOnPath.runs().filter((r) => /--grep=/.test(r));
    cli(dir, ['status'], { env });
    expect(greps()).toHaveLength(1);
    // An agent's everyday step: a commit on top. status, next and doctor search no old history again.
    write(dir, 'src/auth.ts', 'auth 3\n');
    commitAll(dir, 'Tests for the auth middleware');
    carriedAsCold(dir, gitOnPath);
    // A new commit naming a queued PR, dated before the walk_days bound and before the PR's first
    // landing (a rebased commit keeps its date): only the search of older history lists it, and
    // the findings name it: carried, not served stale.
    cli(dir, ['doctor'], { env });
    write(dir, 'src/auth.ts', 'auth 4\n');
    commitAll(dir, 'Auth rate limits (#12)', daysAgo(525));
    settleIndex(dir);
    gitOnPath.reset();
    const report = JSON.parse(cli(dir, ['doctor', '--json'], { env }).stdout);
    expect(greps()).toEqual([]);
    dropCaches(dir);
    expect(report).toEqual(JSON.parse(cli(dir, ['doctor', '--json']).stdout));
    expect(report.findings.filter((f: { check: string; message: string }) => f.check === 'landed' && /#12, which landed after the checkpoint \([0-9a-f]{7} "Auth rate limits \(#12\)"\)/.test(f.message))).toHaveLength(2);
    // One dated before the oldest queued action, where a walk would stop: asked again.
    cli(dir, ['doctor'], { env });
    commitAll(dir, 'Old-dated chore', daysAgo(600));
    settleIndex(dir);
    gitOnPath.reset();
    cli(dir, ['doctor'], { env });
    expect(greps()).toHaveLength(1);
  });

  it('past the walk_days cut, the search of older history is carried over a pull that brought a merge, and answers as with no cache', () => {
    const { dir } = project({ old: true });
    const gitOnPath = countingGit();
    const env = { PATH: gitOnPath.path };
    cli(dir, ['doctor'], { env });
    // A pull request, one of its commits naming #12 with the old date a rebase keeps (before the
    // bound and the PR's first landing), merged with --no-ff.
    git(dir, ['checkout', '-q', '-b', 'pr', 'HEAD']);
    write(dir, 'src/limits.ts', 'limits\n');
    commitAll(dir, 'Auth rate limits (#12)', daysAgo(525));
    write(dir, 'src/more.ts', 'more\n');
    commitAll(dir, 'More limits');
    git(dir, ['checkout', '-q', '-']);
    git(dir, ['merge', '-q', '--no-ff', '-m', 'Merge pull request #13 from dev/pr', 'pr']);
    settleIndex(dir);
    // Neither deep question is asked again: the merged commits name no id the search lacks, and
    // change neither missing file (docs/spec.md, src/gone.ts).
    gitOnPath.reset();
    cli(dir, ['doctor'], { env });
    expect(gitOnPath.runs().filter((r) => /--grep=|--full-diff/.test(r))).toEqual([]);
    carriedAsCold(dir, gitOnPath);
    const report = JSON.parse(cli(dir, ['doctor', '--json']).stdout);
    expect(report.findings.filter((f: { check: string; message: string }) => f.check === 'landed' && /#12, which landed after the checkpoint \([0-9a-f]{7} "Auth rate limits \(#12\)"\)/.test(f.message))).toHaveLength(2);
    // A merged branch that added the missing src/gone.ts and deleted it again, dated before the
    // bound (only the search of older history sees it): its removal is now the newest, so that
    // question is asked again, and doctor names the deletion.
    git(dir, ['checkout', '-q', '-b', 'gone', 'HEAD']);
    write(dir, 'src/gone.ts', 'gone\n');
    commitAll(dir, 'Add gone', daysAgo(401));
    git(dir, ['rm', '-q', 'src/gone.ts']);
    commitAll(dir, 'Remove gone again', daysAgo(400));
    git(dir, ['checkout', '-q', '-']);
    git(dir, ['merge', '-q', '--no-ff', '-m', 'Merge pull request #14 from dev/gone', 'gone']);
    carriedAsCold(dir, gitOnPath);
    expect(cli(dir, ['doctor']).stdout).toMatch(/src\/gone\.ts is missing: deleted in [0-9a-f]{7}/);
  });

  it("past the walk_days cut, an agent's step (a re-saved checkpoint, committed) searches no old history: status, next and doctor answer as with no cache", () => {
    const { dir } = project({ old: true });
    // api also queues PLAT-9, since a save long ago, kept by a save three days ago: only its
    // revisions say the search of older history must cover PLAT-9.
    const file = join(dir, '.checkpoints/api.checkpoint.json');
    const cp = JSON.parse(readFileSync(file, 'utf8'));
    const queued = [...cp.next_actions, 'Ship PLAT-9 to staging'];
    writeFileSync(file, `${JSON.stringify({ ...cp, updated_at: daysAgo(526), next_actions: queued }, null, 2)}\n`);
    commitAll(dir, 'checkpoint: api', daysAgo(526));
    writeFileSync(file, `${JSON.stringify({ ...cp, updated_at: daysAgo(3), progress_summary: 'Auth merged.', next_actions: queued }, null, 2)}\n`);
    commitAll(dir, 'checkpoint: api again', daysAgo(3));
    settleIndex(dir);
    const gitOnPath = countingGit();
    const env = { PATH: gitOnPath.path };
    const greps = () => gitOnPath.runs().filter((r) => /--grep=/.test(r));
    // Cold: the dates need the files' history, so the search starts before them, and is asked
    // again once they change it. What the next run needs is kept, not that first guess.
    cli(dir, ['status'], { env });
    expect(greps().map((r) => /PLAT-9/.test(r.replace(/\[(\w)\w\]/g, '$1')))).toEqual([false, true]);
    gitOnPath.reset();
    cli(dir, ['status'], { env });
    expect(greps()).toEqual([]);
    // The step: the checkpoint re-saved by the CLI and committed with the code.
    expect(cli(dir, ['update', 'api', '--progress_summary=Rate limits next'], { env }).code).toBe(0);
    write(dir, 'src/auth.ts', 'auth 3\n');
    commitAll(dir, 'Rate limit the auth routes');
    carriedAsCold(dir, gitOnPath);
    // A checkpoint queuing new work joins: its file's history is read (another set of files to
    // date), so the search is guessed before the dates, while the exact one is carried over the
    // commit. The guess is not kept in its place: the next run at this HEAD asks nothing.
    cli(dir, ['status'], { env });
    expect(cli(dir, ['update', 'docs', '--phase=spec', '--step=outline', '--status=in_progress', '--next_actions+=Review PR #31'], { env }).code).toBe(0);
    commitAll(dir, 'checkpoint: docs');
    settleIndex(dir);
    gitOnPath.reset();
    cli(dir, ['status'], { env });
    expect(greps()).toHaveLength(1);
    gitOnPath.reset();
    cli(dir, ['status'], { env });
    expect(greps()).toEqual([]);
  });

  it('bare names (a present Makefile, a plain word, a Procfile deleted long ago): a warm doctor starts no git process', () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, 'Makefile', 'all:\n');
    write(dir, 'Procfile', 'web: node .\n');
    commitAll(dir, 'base', daysAgo(5));
    git(dir, ['rm', '-q', 'Procfile']);
    const dropped = commitAll(dir, 'drop the Procfile', daysAgo(4));
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify({
      protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: dir, created_at: daysAgo(3), updated_at: daysAgo(2),
      phase: 'build', step: 's', status: 'in_progress', progress_summary: 'x', progress_table: [],
      context_primer: { key_decisions: [], generated_files: ['Makefile (build targets)', 'TBD', 'Procfile'] },
      next_actions: ['Write the docs'],
    }, null, 2)}\n`);
    commitAll(dir, 'checkpoint', daysAgo(2));
    settleIndex(dir);
    const gitOnPath = countingGit();
    const env = { PATH: gitOnPath.path };
    const cold = JSON.parse(cli(dir, ['doctor', '--json'], { env }).stdout);
    expect(cold.findings.filter((f: { check: string }) => f.check === 'generated_files').map((f: { level: string; message: string }) => `${f.level} ${f.message}`)).toEqual([
      'info "TBD" names no file; read as a note, not checked',
      `warning Procfile is missing: deleted in ${dropped.slice(0, 7)} "drop the Procfile"; update the checkpoint (\`checkpoint update api --context_primer.generated_files.2='Procfile (deleted)'\`) or restore the file`,
    ]);
    gitOnPath.reset();
    expect(JSON.parse(cli(dir, ['doctor', '--json'], { env }).stdout)).toEqual(cold);
    expect(gitOnPath.runs()).toEqual([]);
  });

  it('checkpoints naming no literal generated file (only patterns and notes): a warm doctor starts no git process', () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, 'src/auth.ts', 'auth\n');
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify({
      protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: dir, created_at: daysAgo(3), updated_at: daysAgo(2),
      phase: 'build', step: 's', status: 'in_progress', progress_summary: 'x', progress_table: [],
      context_primer: { key_decisions: [], generated_files: ['src/*.ts (all of them)', 'the auth module, rewritten twice'] },
      next_actions: ['Merge PR #12'],
    }, null, 2)}\n`);
    commitAll(dir, 'checkpoint', daysAgo(2));
    write(dir, 'src/auth.ts', 'auth 2\n');
    commitAll(dir, 'Auth rework (#12)', daysAgo(1));
    write(dir, 'src/auth.ts', 'auth 3, not committed\n');
    const gitOnPath = countingGit();
    const env = { PATH: gitOnPath.path };
    const cold = JSON.parse(cli(dir, ['doctor', '--json'], { env }).stdout);
    expect(cold.findings.filter((f: { check: string }) => f.check === 'generated_files' || f.check === 'landed').map((f: { level: string; message: string }) => `${f.level} ${f.message.split(' (')[0]}`)).toEqual([
      'warning src/auth.ts',
      'info "the auth module, rewritten twice" names no file; read as a note, not checked',
      'warning "Merge PR #12" names #12, which landed after the checkpoint',
    ]);
    expect(gitOnPath.runs().filter((r) => / status /.test(` ${r} `))).toEqual([]);
    gitOnPath.reset();
    expect(JSON.parse(cli(dir, ['doctor', '--json'], { env }).stdout)).toEqual(cold);
    expect(gitOnPath.runs()).toEqual([]);
  });

  it('a kept verified_for_sha answer is asked again once objects it could name arrive', () => {
    const dir = makeRepo();
    dirs.push(dir);
    const other = makeRepo();
    dirs.push(other);
    write(other, 'side.txt', 'side\n');
    let side = commitAll(other, 'side work');
    // Nine hex digits that are all decimal read as a number, not a commit (1.5% of shas): another commit then.
    for (let i = 0; /^\d+$/.test(side.slice(0, 9)); i++) side = commitAll(other, `side work ${i}`);
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify({
      protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: dir, created_at: daysAgo(2), updated_at: daysAgo(1),
      phase: 'build', step: 's', status: 'in_progress', progress_summary: 'x', progress_table: [], context_primer: { key_decisions: [], generated_files: [] },
      next_actions: ['go'], skill_state: { verified_for_sha: `verified on ${side.slice(0, 9)}` },
    }, null, 2)}\n`);
    commitAll(dir, 'checkpoint');
    const verifiedFinding = () => JSON.parse(cli(dir, ['doctor', '--json']).stdout).findings.find((f: { check: string }) => f.check === 'verified_for_sha')?.message;
    expect(verifiedFinding()).toMatch(/is not a commit in this repository/);
    expect(verifiedFinding()).toMatch(/is not a commit in this repository/);
    // The commit arrives (HEAD unchanged): the kept answer no longer holds.
    git(dir, ['fetch', '-q', other, `${side}:refs/remotes/other/main`]);
    expect(verifiedFinding()).toMatch(/is not in HEAD's history/);
    git(dir, ['-c', 'gc.auto=0', 'repack', '-adq']);
    expect(verifiedFinding()).toMatch(/is not in HEAD's history/);
  });
});
