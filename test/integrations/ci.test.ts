// The CI job of docs/ci.md, run from examples/github-workflow.yml itself: its steps' `run:`
// commands are extracted from the file and run the way GitHub's runner does (`bash -e`,
// the job's env, each check step gated on the install step) in a fresh clone, as
// actions/checkout leaves it: no merge driver configured, every branch of the remote fetched
// (`fetch-depth: 0`). A step's own `env:` is filled from the push or pull request event as GitHub
// fills its `${{ github.* }}` expressions. Clean -> the job passes; a committed conflict marker, or
// drift a push made with --no-verify brought -> it fails.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanup, cli, commitAll, git, GIT_ENV, headSha, makeRepo, read, ROOT, tempDir, write, HANG_GUARD_MS } from '../helpers/repo.js';
import { freshCheckpoint } from '../helpers/fixtures.js';
import { withNpxShim } from '../helpers/npx-shim.js';

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  if?: string;
  run?: string;
  /** The step's own env, its `${{ }}` expressions as written. */
  env?: Record<string, string>;
}

/** Just enough YAML for a workflow: the job's env and its steps (scalars and `run: |` blocks). */
function parseWorkflow(text: string): { env: Record<string, string>; steps: Step[] } {
  const lines = text.split('\n');
  const env: Record<string, string> = {};
  const steps: Step[] = [];
  const unquote = (v: string) => v.trim().replace(/^(["'])(.*)\1$/, '$2');
  let section: 'env' | 'steps' | null = null;
  let sectionIndent = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.trim() || line.trim().startsWith('#')) continue;
    const indent = line.length - line.trimStart().length;
    if (section && indent <= sectionIndent) section = null;
    const key = /^(\s*)(env|steps):\s*$/.exec(line);
    if (key && key[1]!.length === 4) {
      section = key[2] as 'env' | 'steps';
      sectionIndent = indent;
      continue;
    }
    if (section === 'env') {
      const kv = /^\s*([A-Z0-9_]+):\s*(.*)$/.exec(line);
      if (kv) env[kv[1]!] = unquote(kv[2]!);
    } else if (section === 'steps') {
      const item = /^(\s*)- (.*)$/.exec(line);
      const body = item ? item[2]! : line.trim();
      if (item) steps.push({});
      const step = steps[steps.length - 1]!;
      if (/^env:\s*$/.test(body)) {
        const keyIndent = item ? item[1]!.length + 2 : indent;
        step.env = {};
        while (i + 1 < lines.length && lines[i + 1]!.length - lines[i + 1]!.trimStart().length > keyIndent) {
          const kv = /^\s*([A-Z0-9_]+):\s*(.*)$/.exec(lines[++i]!);
          if (kv) step.env[kv[1]!] = unquote(kv[2]!);
        }
        continue;
      }
      const kv = /^(id|name|uses|if|run):\s*(.*)$/.exec(body);
      if (!kv) continue;
      const [, k, v] = kv as unknown as [string, Exclude<keyof Step, 'env'>, string];
      if (k === 'run' && /^[|>]-?$/.test(v.trim())) {
        const block: string[] = [];
        const keyIndent = item ? item[1]!.length + 2 : indent;
        while (i + 1 < lines.length && (!lines[i + 1]!.trim() || lines[i + 1]!.length - lines[i + 1]!.trimStart().length > keyIndent)) block.push(lines[++i]!);
        const strip = Math.min(...block.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
        step.run = block.map((l) => l.slice(strip)).join('\n').trim();
      } else step[k] = unquote(v);
    }
  }
  return { env, steps };
}

const WORKFLOW = parseWorkflow(readFileSync(join(ROOT, 'examples/github-workflow.yml'), 'utf8'));
const INSTALL = WORKFLOW.steps.find((s) => s.run !== undefined && /^npm (ci|install)\b/.test(s.run));
const CHECKS = WORKFLOW.steps.filter((s) => s.run !== undefined && s !== INSTALL);

const ENV: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(GIT_ENV).filter(([k]) => !/^npm_/i.test(k))),
  npm_config_update_notifier: 'false',
  npm_config_loglevel: 'warn',
  CI: 'true',
  GITHUB_ACTIONS: 'true',
};

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

/**
 * actions/checkout (a fresh clone, full history, the pushed branch checked out) plus what `npm ci` leaves, less the plain
 * `checkpoint` link: the workflow must call the distinctive `checkpoint-protocol` bin.
 */
function checkout(origin: string, branch = 'main'): string {
  const parent = tempDir('cp-ci-');
  dirs.push(parent);
  const dir = join(parent, 'work');
  git(parent, ['clone', '-q', '--branch', branch, origin, dir]);
  mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
  symlinkSync(BIN, join(dir, 'node_modules/.bin/checkpoint-protocol'));
  return dir;
}

/** What GitHub's runner knows of the event that started the job (the parts the workflow reads). */
interface GithubEvent {
  name: 'push' | 'pull_request';
  /** The commit checked out: the pushed tip, or a pull request's merge commit. */
  sha: string;
  /** push: the branch pushed (refs/heads/...). */
  ref?: string;
  /** push: the branch's old tip, all zeros for a new branch. */
  before?: string;
  /** pull_request: the branch it merges into, and its head commit. */
  baseRef?: string;
  head?: string;
}

const ZEROS = '0'.repeat(40);

/** A push of `branch` (main by default) that left it where `repo` (the origin, or a clone of it) has it, from `before`. */
function pushEvent(repo: string, before: string, branch = 'main'): GithubEvent {
  return { name: 'push', ref: `refs/heads/${branch}`, before, sha: git(repo, ['rev-parse', `refs/heads/${branch}`]).trim() };
}

/**
 * A pull request of `branch` into main, checked out as actions/checkout does: the merge commit
 * GitHub makes (refs/pull/N/merge), detached, with every branch fetched beside it.
 */
function pullRequestEvent(dir: string, branch: string): GithubEvent {
  const head = git(dir, ['rev-parse', `origin/${branch}`]).trim();
  git(dir, ['checkout', '-q', '--detach', 'origin/main']);
  git(dir, ['merge', '-q', '--no-ff', '-m', `Merge ${head} into main`, head]);
  return { name: 'pull_request', sha: headSha(dir), baseRef: 'main', head };
}

/** The environment GitHub gives a step: its default GITHUB_* variables, and the step's env with each `${{ github.* }}` filled. */
function eventEnv(step: Step, ev: GithubEvent): NodeJS.ProcessEnv {
  const github = {
    event_name: ev.name, sha: ev.sha, ref: ev.ref ?? 'refs/pull/7/merge', base_ref: ev.baseRef ?? '',
    event: { before: ev.before, pull_request: ev.head === undefined ? undefined : { head: { sha: ev.head } }, repository: { default_branch: 'main' } },
  };
  const fill = (value: string) => value.replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_, expr: string) => {
    if (!/^github(\.\w+)+$/.test(expr)) throw new Error(`the test fills github.* expressions only: ${expr}`);
    // A property the event lacks is empty, as GitHub gives it.
    const found = expr.split('.').slice(1).reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], github);
    return found === undefined ? '' : String(found);
  });
  return {
    GITHUB_EVENT_NAME: ev.name, GITHUB_SHA: ev.sha, GITHUB_REF: github.ref, GITHUB_BASE_REF: github.base_ref,
    ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, fill(v)])),
  };
}

interface StepResult {
  name: string;
  run: string;
  code: number | null;
  output: string;
}

/**
 * Runs the check steps like the runner: `bash -e` per step, gated by its `if:` on the install
 * step; through the real npx in one job, test/helpers/npx-shim.ts's in the others.
 */
function runJob(dir: string, { npx = 'shim', event }: { npx?: 'real' | 'shim'; event: GithubEvent }): { ok: boolean; steps: StepResult[] } {
  const env = { ...(npx === 'shim' ? withNpxShim(ENV) : ENV), ...WORKFLOW.env };
  const results: StepResult[] = [];
  for (const step of CHECKS) {
    // Every check step is gated on the install step having succeeded (it has, above) and on
    // the run not being cancelled, so it runs whatever the steps before it did.
    expect(step.if ?? '', step.name).toMatch(/!cancelled\(\)/);
    const r = spawnSync('bash', ['--noprofile', '--norc', '-e', '-c', step.run!], { cwd: dir, env: { ...env, ...eventEnv(step, event) }, encoding: 'utf8', timeout: HANG_GUARD_MS });
    results.push({ name: step.name ?? step.run!, run: step.run!, code: r.status, output: r.stdout + r.stderr });
  }
  return { ok: results.every((s) => s.code === 0), steps: results };
}
const stepOf = (job: ReturnType<typeof runJob>, pattern: RegExp) => job.steps.find((s) => pattern.test(s.run))!;

/** A push to `repo`'s main of its last commit. */
const lastPush = (repo: string): GithubEvent => pushEvent(repo, git(repo, ['rev-parse', 'main~1']).trim());

const goodCheckpoint = (skill: string) => freshCheckpoint(skill, { context_primer: { key_decisions: ['JWT in cookies'], generated_files: ['README.md'] } });

/** A project set up the documented way (`checkpoint init`) with one healthy checkpoint: made once, copied per test. */
let project: string;
beforeAll(() => {
  project = makeRepo();
  expect(cli(project, ['init']).code).toBe(0);
  write(project, 'README.md', '# demo\n');
  write(project, '.checkpoints/api.checkpoint.json', `${JSON.stringify(goodCheckpoint('api'), null, 2)}\n`);
  commitAll(project, 'checkpoints');
});
function origin(): string {
  const dir = join(tempDir('cp-ci-origin-'), 'origin');
  cpSync(project, dir, { recursive: true });
  return dir;
}

describe('examples/github-workflow.yml', () => {
  it('installs once, then runs validate --strict, doctor, doctor on the pushed range and resolve --check', () => {
    expect(INSTALL?.run).toBe('npm ci');
    expect(INSTALL?.id).toBeDefined();
    expect(WORKFLOW.env.CHECKPOINT_SKIP_INSTALL).toBe('1');
    const commands = CHECKS.map((s) => s.run!);
    for (const want of [/checkpoint-protocol validate --strict$/, /checkpoint-protocol doctor$/, /checkpoint-protocol doctor --fail-on-warnings --whole-range --pushed "\$from\$to"$/, /checkpoint-protocol resolve --check$/]) {
      expect(commands.some((c) => want.test(c)), String(want)).toBe(true);
    }
    for (const s of CHECKS) expect(s.if, s.name).toContain(`steps.${INSTALL!.id}.outcome == 'success'`);
    expect(WORKFLOW.steps.some((s) => s.uses?.startsWith('actions/checkout@'))).toBe(true);
    // The pushed range needs the push's old tip and the base branch: full history, every branch.
    expect(readFileSync(join(ROOT, 'examples/github-workflow.yml'), 'utf8')).toMatch(/uses: actions\/checkout@v\d+\n\s+with:\n(?:\s+#.*\n)*\s+fetch-depth: 0\n/);
    const docs = readFileSync(join(ROOT, 'docs/ci.md'), 'utf8');
    for (const c of commands) expect(docs, c).toContain(c);
  });

  it('passes on a clean repository (its first push: all of its history judged)', () => {
    const dir = checkout(origin());
    const job = runJob(dir, { npx: 'real', event: pushEvent(dir, ZEROS) });
    expect(job.ok, JSON.stringify(job.steps, null, 2)).toBe(true);
    // CI has no merge driver configured: doctor says so, as a warning that does not fail the job.
    expect(stepOf(job, /doctor$/).output).toMatch(/merge\.checkpoint\.driver/);
    expect(stepOf(job, /--whole-range/).output).toContain(`${git(dir, ['rev-list', '--count', 'HEAD']).trim()} pushed commits, 0 blocking`);
    expect(stepOf(job, /resolve --check/).output).toMatch(/no checkpoint file holds conflict markers or is unmerged/);
  });

  it('fails when a hosted merge committed conflict markers into a checkpoint', () => {
    const repo = origin();
    // What a merge made without the driver leaves when someone commits it anyway.
    const base = goodCheckpoint('api');
    const text = `${JSON.stringify(base, null, 2)}\n`.replace(
      /  "step": "auth",\n/,
      '<<<<<<< ours\n  "step": "auth-tests",\n=======\n  "step": "auth-docs",\n>>>>>>> theirs\n',
    );
    write(repo, '.checkpoints/api.checkpoint.json', text);
    commitAll(repo, 'Merge pull request #7 from feature/docs');
    const job = runJob(checkout(repo), { event: lastPush(repo) });
    expect(job.ok).toBe(false);
    const check = stepOf(job, /resolve --check/);
    expect(check.code, check.output).toBe(1);
    expect(check.output).toContain('.checkpoints/api.checkpoint.json');
    expect(stepOf(job, /validate --strict/).code).not.toBe(0);
    // Every check still ran and reported.
    expect(job.steps.every((s) => s.code !== null)).toBe(true);
  });

  it('fails on a committed checkpoint that only has warnings (validate --strict)', () => {
    const repo = origin();
    write(repo, '.checkpoints/web.checkpoint.json', `${JSON.stringify({ ...goodCheckpoint('web'), cost: { total_usd: 80, budget_usd: 50 } }, null, 2)}\n`);
    commitAll(repo, 'web checkpoint over its budget');
    const job = runJob(checkout(repo), { event: lastPush(repo) });
    expect(job.ok).toBe(false);
    expect(stepOf(job, /validate --strict/).code).toBe(1);
    expect(stepOf(job, /resolve --check/).code).toBe(0);
  });

  it('passes a checkpoint that only has advice (the README quick start: no progress_table, no context_primer)', () => {
    const repo = origin();
    const { progress_table: _t, context_primer: _p, ...quickStart } = goodCheckpoint('web');
    write(repo, '.checkpoints/web.checkpoint.json', `${JSON.stringify(quickStart, null, 2)}\n`);
    commitAll(repo, 'web checkpoint as the quick start leaves it');
    const job = runJob(checkout(repo), { event: lastPush(repo) });
    const validate = stepOf(job, /validate --strict/);
    expect(validate.code, validate.output).toBe(0);
    expect(validate.output).toMatch(/advice +progress_table: no progress_table while in_progress/);
    expect(job.ok).toBe(true);
  });
  describe('the pushed range: drift a push made with --no-verify brought, which the hook would have refused (red team 62d 2)', () => {
    /** `repo`'s main as a teammate leaves it with `git push --no-verify`: the generated README the checkpoint lists, deleted. */
    const dropReadme = (repo: string, branch = 'main') => {
      git(repo, ['checkout', '-q', '-B', branch]);
      git(repo, ['rm', '-q', 'README.md']);
      commitAll(repo, 'Drop the readme');
      git(repo, ['checkout', '-q', 'main']);
    };
    const DRIFT = /README\.md is missing: deleted in [0-9a-f]{7} "Drop the readme"[^\n]*; update the checkpoint \(`checkpoint update api --context_primer\.generated_files\.0='README\.md \(deleted\)'`\) or restore the file \[blocks push\]/;

    it('a push to main: the pushed-range step fails on it, where plain doctor passes; a pushed reconcile passes', () => {
      const repo = origin();
      const before = headSha(repo);
      dropReadme(repo);
      const job = runJob(checkout(repo), { event: pushEvent(repo, before) });
      const pushed = stepOf(job, /--whole-range/);
      expect(pushed.code, pushed.output).toBe(1);
      expect(pushed.output).toMatch(DRIFT);
      expect(pushed.output).toContain('1 pushed commit, 1 blocking');
      // What the job ran before this step let it through: a warning, no error.
      expect(stepOf(job, /doctor$/).code).toBe(0);
      expect(stepOf(job, /validate --strict/).code).toBe(0);
      expect(stepOf(job, /resolve --check/).code).toBe(0);
      // The checkpoint reconciled by hand, as people write it, and pushed: that push passes.
      const drifted = headSha(repo);
      const doc = JSON.parse(read(repo, '.checkpoints/api.checkpoint.json')) as { context_primer: { generated_files: string[] } };
      doc.context_primer.generated_files = ['README.md (deleted: docs moved to the wiki)'];
      write(repo, '.checkpoints/api.checkpoint.json', `${JSON.stringify(doc, null, 2)}\n`);
      commitAll(repo, 'api: the readme is gone');
      const fixed = runJob(checkout(repo), { event: pushEvent(repo, drifted) });
      expect(fixed.ok, JSON.stringify(fixed.steps, null, 2)).toBe(true);
    });

    it('a new branch (before is all zeros): judged on what it holds beyond the default branch', () => {
      const repo = origin();
      // main already carries an unrelated commit the branch does not: not the branch's.
      write(repo, 'NOTES.md', 'notes\n');
      commitAll(repo, 'Notes');
      dropReadme(repo, 'cleanup');
      const job = runJob(checkout(repo, 'cleanup'), { event: pushEvent(repo, ZEROS, 'cleanup') });
      const pushed = stepOf(job, /--whole-range/);
      expect(pushed.code, pushed.output).toBe(1);
      expect(pushed.output).toMatch(DRIFT);
      expect(pushed.output).toContain('1 pushed commit, 1 blocking');
    });

    it('a pull request: its own commits are judged (base..head), not drift the base branch already carries', () => {
      const repo = origin();
      dropReadme(repo, 'cleanup');
      const refused = checkout(repo);
      const job = runJob(refused, { event: pullRequestEvent(refused, 'cleanup') });
      const pushed = stepOf(job, /--whole-range/);
      expect(pushed.code, pushed.output).toBe(1);
      expect(pushed.output).toMatch(DRIFT);
      expect(pushed.output).toContain('1 pushed commit, 1 blocking');
      // main carries that drift (pushed with --no-verify); a clean pull request based on it passes.
      git(repo, ['merge', '-q', '--ff-only', 'cleanup']);
      git(repo, ['checkout', '-q', '-B', 'docs', 'main']);
      write(repo, 'NOTES.md', 'notes\n');
      commitAll(repo, 'Notes');
      git(repo, ['checkout', '-q', 'main']);
      const clean = checkout(repo);
      const ok = runJob(clean, { event: pullRequestEvent(clean, 'docs') });
      const judged = stepOf(ok, /--whole-range/);
      expect(judged.code, judged.output).toBe(0);
      expect(judged.output).toContain('1 pushed commit, 0 blocking');
      expect(judged.output).toMatch(/README\.md is missing/);
    });
  });
});
