// Throw-away git repositories made with the real git binary: fixed identity, no
// signing, no auto-gc, no global or system config leaking in from the machine.
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, mkdirSync, writeFileSync, readFileSync, readdirSync, renameSync, rmSync, realpathSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { relayInBackground, relayRun } from './sh-relay.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = join(ROOT, 'bin/checkpoint.js');

export const GIT_ENV: NodeJS.ProcessEnv = {
  // Not NODE_EXTRA_CA_CERTS: where a machine sets it (a proxy's bundle), every node process the
  // tests start (the binary, the driver and hooks git runs) loads it first, ~40 ms of each start.
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_EXTRA_CA_CERTS')),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  NO_COLOR: '1',
  CHECKPOINT_SKIP_INSTALL: '',
};

/**
 * The kill timer for a synchronous child (spawnSync blocks the event loop, so vitest's own
 * timeout cannot end a hung one): only a hang guard, far above what any command takes on a
 * loaded machine, and below vitest's 300 s test timeout.
 */
export const HANG_GUARD_MS = 240_000;

/** Folders tempDir() made for the current test file: test/helpers/cleanup.ts removes them after it. */
const made: string[] = [];

/**
 * A new folder under the system temp directory. It is removed after the test file that made it
 * (test/helpers/cleanup.ts), pass or fail, so a test need not clean up what it makes here.
 */
export function tempDir(prefix = 'cp-test-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** A bare repository, made `dir`'s origin (where a test pushes through the hook); its path. */
export function withRemote(dir: string): string {
  const remote = tempDir('cp-remote-');
  git(remote, ['init', '-q', '--bare']);
  git(dir, ['remote', 'add', 'origin', remote]);
  return remote;
}

/** Removes every folder tempDir() made so far (in this worker, for the file that just ran). */
export function removeTempDirs(): void {
  // Each moved aside at once (one rename), so that from here on none exists under its name, even
  // to a helper that kept a path past its file; then removed by an `rm` the relay starts in the
  // background: the next file starts meanwhile (removing a file's repositories is mostly waiting
  // on the disk). Nothing reuses the names (mkdtemp).
  const dirs = made.splice(0).flatMap((dir) => {
    try {
      renameSync(dir, `${dir}.removed`);
      return [`${dir}.removed`];
    } catch {
      return []; // already gone: a test removed it
    }
  });
  if (dirs.length > 0 && !relayInBackground(tmpdir(), ['rm', '-rf', '--', ...dirs], GIT_ENV)) {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/** `git <args>` in `cwd`: its stdout; throws as execFileSync does when it fails. Run through the relay (sh-relay.ts). */
export function git(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): string {
  return relayed(cwd, [['git', ...args]], env) ?? execFileSync('git', args, { cwd, env: { ...GIT_ENV, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** `git <a> && git <b> ...` in `cwd` as one request to the relay, not one each: their stdout. */
export function gitEach(cwd: string, commands: string[][]): string {
  return relayed(cwd, commands.map((args) => ['git', ...args]), {}) ?? commands.map((args) => git(cwd, args)).join('');
}

/** The stdout of `commands` run as `a && b`, through the relay; null where it cannot run them (the caller spawns them). */
function relayed(cwd: string, commands: string[][], env: NodeJS.ProcessEnv): string | null {
  const r = relayRun(cwd, commands, GIT_ENV, env);
  if (r === null) return null;
  if (r.status !== 0) {
    // As execFileSync's error: the command line, then what it printed on stderr.
    const e = Object.assign(new Error(`Command failed: ${commands.map((c) => c.join(' ')).join(' && ')}${r.stderr ? `\n${r.stderr}` : ''}`), r);
    throw e;
  }
  return r.stdout;
}

/**
 * The index as a user's first `git status` in a clone leaves it: tracked files dated an hour
 * back, then the index refreshed after them, so no entry is "racily clean". Without it, whether
 * git (and doctor's index reader) may trust an entry's stat depends on when the second turned.
 */
export function settleIndex(dir: string, at = new Date(Date.now() - 3_600_000)): void {
  for (const f of git(dir, ['ls-files', '-z']).split('\0').filter(Boolean)) if (existsSync(join(dir, f))) utimesSync(join(dir, f), at, at);
  git(dir, ['update-index', '-q', '--refresh']);
}

export function gitTry(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  const r = relayRun(cwd, [['git', ...args]], GIT_ENV, env);
  if (r !== null) return { pid: 0, output: [null, r.stdout, r.stderr], stdout: r.stdout, stderr: r.stderr, status: r.status, signal: null };
  return spawnSync('git', args, { cwd, env: { ...GIT_ENV, ...env }, encoding: 'utf8' });
}

/**
 * A new repository on branch main with one empty root commit. The suite makes hundreds, so git
 * makes each kind once per run (test/helpers/global-setup.ts) and every repository is a copy of
 * that .git: the same bytes git would write again (the root commit's identity and date are
 * fixed, so is its hash).
 */
export function makeRepo(opts: { commit?: boolean } = {}): string {
  const dir = tempDir();
  const templates = inject('repoTemplates');
  cpSync(join(opts.commit !== false ? templates.committed : templates.empty, '.git'), join(dir, '.git'), { recursive: true });
  return dir;
}

export interface RepoTemplates {
  committed: string;
  empty: string;
  /** `committed` after the built `checkpoint init` ran in it; null when there was no build. */
  initialized: string | null;
}

/** What `checkpoint init` writes in a repository fresh from makeRepo(), relative to it. */
export const INIT_WRITES = ['.gitattributes', '.checkpoints/.gitignore', '.checkpoints/README.md', '.checkpoints/checkpoint.schema.json', '.git/hooks/pre-push'];

/**
 * `checkpoint init` in `dir`, a repository from makeRepo() (remotes and files of its own are
 * fine): what the built init wrote in the template repository (global-setup.ts) is copied in,
 * the same bytes init would write here, without a node start and nine git processes each time.
 * A repository init would treat otherwise (a file it writes already there, a config of its own
 * beyond remotes) gets the real `init`. Tests of init itself run it with cli().
 */
export function initialized(dir: string): void {
  const { initialized: template, committed } = inject('repoTemplates');
  const base = readFileSync(join(committed, '.git/config'), 'utf8');
  const config = existsSync(join(dir, '.git/config')) ? readFileSync(join(dir, '.git/config'), 'utf8') : '';
  const own = config.slice(base.length);
  const fresh = template !== null && config.startsWith(base) && /^(?:\[remote "[^"\n]*"\]\n(?:\t[^\n]*\n)*)*$/.test(own) && INIT_WRITES.every((f) => !existsSync(join(dir, f)));
  if (!fresh) {
    const r = cli(dir, ['init']);
    if (r.code !== 0) throw new Error(`checkpoint init failed in ${dir}: ${r.stderr}`);
    return;
  }
  for (const f of INIT_WRITES) cpSync(join(template, f), join(dir, f));
  writeFileSync(join(dir, '.git/config'), config + readFileSync(join(template, '.git/config'), 'utf8').slice(base.length));
}

/** Makes the template repository `makeRepo` copies, in the new folder `dir`. */
export function initTemplate(dir: string, commit: boolean): string {
  mkdirSync(dir, { recursive: true });
  git(dir, ['init', '-q', '-b', 'main']);
  // git's sample hooks are most of a new .git's files: every makeRepo() would copy them.
  const hooks = join(dir, '.git', 'hooks');
  for (const f of readdirSync(hooks)) if (f.endsWith('.sample')) rmSync(join(hooks, f));
  git(dir, ['config', 'gc.auto', '0']);
  // Nor `git maintenance run --auto` after every commit: a process start each, thousands a run.
  git(dir, ['config', 'maintenance.auto', 'false']);
  git(dir, ['config', 'commit.gpgsign', 'false']);
  if (commit) git(dir, ['commit', '-q', '--allow-empty', '-m', 'root'], dateEnv('2026-01-01T00:00:00Z'));
  return dir;
}

/** GIT_AUTHOR_DATE/GIT_COMMITTER_DATE pinned to one instant. */
export function dateEnv(iso: string): NodeJS.ProcessEnv {
  return { GIT_AUTHOR_DATE: iso, GIT_COMMITTER_DATE: iso };
}

export function write(dir: string, rel: string, content: string): void {
  const p = join(dir, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, content);
}

export function read(dir: string, rel: string): string {
  return readFileSync(join(dir, rel), 'utf8');
}

export function commitAll(dir: string, message: string, iso?: string): string {
  const commit = ['git', 'commit', '-q', '--allow-empty', '-m', message];
  // Both in one request to the relay (the dates reach `git add` too, which reads none).
  if (relayed(dir, [['git', 'add', '-A'], commit], iso ? dateEnv(iso) : {}) === null) {
    git(dir, ['add', '-A']);
    git(dir, commit.slice(1), iso ? dateEnv(iso) : {});
  }
  return headSha(dir);
}

/**
 * Two branches' versions of one file, from main with its base committed: branch `branch` commits
 * `theirs` at `rel`, main commits `ours`, and main is checked out again (the merge, a rebase or a
 * cherry-pick is the caller's).
 */
export function commitSides(dir: string, rel: string, ours: string, theirs: string, branch = 'feat'): void {
  git(dir, ['checkout', '-q', '-b', branch]);
  write(dir, rel, theirs);
  commitAll(dir, branch);
  git(dir, ['checkout', '-q', 'main']);
  write(dir, rel, ours);
  commitAll(dir, 'main');
}

/**
 * A pull request merged as GitHub merges it: branch `branch` from HEAD commits `files` as
 * `subject` at `at`, and main merges it (--no-ff) at `mergedAt` as "Merge pull request #<n> from
 * <branch>"; main is checked out again.
 */
export function mergePullRequest(dir: string, pr: { n: number; branch: string; files: Record<string, string>; subject: string; at: string; mergedAt: string }): void {
  git(dir, ['checkout', '-q', '-b', pr.branch]);
  for (const [rel, content] of Object.entries(pr.files)) write(dir, rel, content);
  commitAll(dir, pr.subject, pr.at);
  git(dir, ['checkout', '-q', 'main']);
  git(dir, ['merge', '-q', '--no-ff', '-m', `Merge pull request #${pr.n} from ${pr.branch}`, pr.branch], dateEnv(pr.mergedAt));
}

/**
 * HEAD's commit, read from .git's files where a test repository keeps it (HEAD naming a loose
 * branch ref, or a detached sha): the suite commits thousands of times, and a `git rev-parse`
 * after each is a process start. Anything else (a linked worktree's .git file, packed refs) asks git.
 * Not src/git/head-files.ts: tests compare what doctor names with this, so it is not the code under test.
 */
export function headSha(dir: string): string {
  try {
    const head = readFileSync(join(dir, '.git', 'HEAD'), 'utf8').trim();
    const ref = /^ref: (refs\/heads\/[^\s]+)$/.exec(head)?.[1];
    const sha = ref === undefined ? head : readFileSync(join(dir, '.git', ref), 'utf8').trim();
    if (/^[0-9a-f]{40}$/.test(sha)) return sha;
  } catch {
    // Not a plain .git folder with a loose ref: git knows.
  }
  return git(dir, ['rev-parse', 'HEAD']).trim();
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `checkpoint` binary the way a user does. */
export function cli(cwd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string } = {}): RunResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...GIT_ENV, ...opts.env },
    encoding: 'utf8',
    input: opts.input,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** The built binary as a process that may hang (a FIFO planted in the repo): the guard ends it with `signal` set, failing the test, never the suite. */
export function cliGuarded(cwd: string, args: string[], opts: { env?: NodeJS.ProcessEnv } = {}): RunResult & { signal: NodeJS.Signals | null } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, env: { ...GIT_ENV, ...opts.env }, encoding: 'utf8', timeout: HANG_GUARD_MS });
  return { code: r.status ?? -1, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/**
 * Removes `dir` now: it is moved into a new temp folder at once (a rename), which an `rm` the
 * relay starts removes in the background. Where it cannot be moved so (another file system, no
 * relay), rmSync.
 */
export function cleanup(dir: string): void {
  const gone = mkdtempSync(join(tmpdir(), 'cp-gone-'));
  try {
    renameSync(dir, join(gone, 'dir'));
  } catch {
    rmSync(gone, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  if (!relayInBackground(tmpdir(), ['rm', '-rf', '--', gone], GIT_ENV)) rmSync(gone, { recursive: true, force: true });
}

/** e2e tests drive the built binary: fail early and clearly when there is no build. */
export function assertBuilt(): void {
  if (!existsSync(join(ROOT, 'dist/cli.cjs'))) throw new Error('dist/ is missing: run `npm run build` first');
}

/**
 * A committed project with the package installed the way npm links it under its distinctive
 * bin name only (node_modules/.bin/checkpoint-protocol): an example or hook that calls a bare
 * `checkpoint` fails in it. `files` are written before the commit.
 */
export function installedProject(files: Record<string, string> = {}): string {
  const dir = makeRepo();
  mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
  symlinkSync(BIN, join(dir, 'node_modules/.bin/checkpoint-protocol'));
  write(dir, '.gitignore', 'node_modules/\n');
  for (const [rel, content] of Object.entries(files)) write(dir, rel, content);
  commitAll(dir, 'project');
  return dir;
}

/** A failed command's stderr, which must be one line: `checkpoint: <message>[; hint: <what to do>]`. */
export function errorLine(stderr: string, prefix: RegExp = /^checkpoint: /): { lines: number; message: string; hint: string | null } {
  const lines = stderr.replace(/\n$/, '').split('\n');
  const [message, hint = null] = lines[0]!.replace(prefix, '').split('; hint: ', 2) as [string, string?];
  return { lines: lines.length, message, hint };
}
