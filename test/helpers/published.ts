// A project as users publish one: `checkpoint init`, its files, a hand-written checkpoint
// committed months ago, pushed to a local bare remote; the tests' own pushes go through the hook init installs.
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { builtOnce } from './built-once.js';
import { History } from './history.js';
import { runCli } from './in-process.js';
import { git, gitTry, headSha, INIT_WRITES, makeRepo, tempDir, initialized } from './repo.js';

/** When published() commits the checkpoint. */
export const PUBLISHED_AT = '2026-03-14T08:02:11Z';

/**
 * A project with `checkpoint init`, `files` and a hand-written checkpoint, committed in March and
 * pushed (the hook skipped). A test file that asks for the same project again gets a copy of the
 * one built first, project and remote (builtOnce), not a second build: the same commits (their
 * dates are fixed), refs, index and files.
 */
export function published(skill: string, checkpoint: Record<string, unknown>, files: Record<string, string> = {}): string {
  return builtOnce(JSON.stringify([skill, checkpoint, files]), () => publish(skill, checkpoint, files)).dir;
}

function publish(skill: string, checkpoint: Record<string, unknown>, files: Record<string, string>): { dir: string; remote: string } {
  const dir = makeRepo();
  const remote = bareRemote();
  // As `git remote add origin <remote>` writes it.
  appendFileSync(join(dir, '.git/config'), `[remote "origin"]\n\turl = ${remote}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n`);
  initialized(dir);
  // The two commits as git writes them (history.ts): what init wrote and `files`, then the checkpoint.
  const h = new History(dir);
  for (const rel of INIT_WRITES) if (!rel.startsWith('.git/')) h.write(rel, readFileSync(join(dir, rel), 'utf8'));
  for (const [rel, text] of Object.entries(files)) h.write(rel, text);
  h.commit('project files', '2026-03-13T17:40:00Z');
  h.write(`.checkpoints/${skill}.checkpoint.json`, `${JSON.stringify(checkpoint, null, 2)}\n`).commit(`checkpoint: ${skill}`, PUBLISHED_AT);
  h.done();
  // Published as set-up, past the hook: what a test pushes next goes through it.
  publishedAsPushed(dir, remote);
  return { dir, remote };
}

/**
 * A bare repository to publish to: `git init --bare`, no `git gc --auto` after the pushes tests
 * make (a process each, not what they test). Its template is made once per test file: the folders
 * a file made are removed in the background once it ends (removeTempDirs) while the worker goes
 * on to its next file, so a template kept across files could be half removed when copied.
 */
let bareTemplate = { file: '', dir: '' };
function bareRemote(): string {
  const file = expect.getState().testPath ?? '';
  if (bareTemplate.file !== file || !existsSync(bareTemplate.dir)) {
    const dir = tempDir('cp-bare-template-');
    git(dir, ['init', '-q', '--bare']);
    writeFileSync(join(dir, 'config'), `${readFileSync(join(dir, 'config'), 'utf8')}[receive]\n\tautogc = false\n`);
    bareTemplate = { file, dir };
  }
  const remote = tempDir('cp-remote-');
  cpSync(bareTemplate.dir, remote, { recursive: true });
  return remote;
}

/** This machine's offset from UTC as git writes it (+0100). */
function zone(): string {
  const minutes = -new Date().getTimezoneOffset();
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}

/**
 * What `git push --no-verify origin main` leaves of a first push to the empty `remote`, without
 * its eight processes: the remote holds every object of `dir` (all reachable from main, loose as
 * a push of under 100 objects leaves them) and main; `dir` holds origin/main and its reflog line.
 */
function publishedAsPushed(dir: string, remote: string): void {
  const sha = headSha(dir);
  cpSync(join(dir, '.git/objects'), join(remote, 'objects'), { recursive: true });
  writeFileSync(join(remote, 'refs/heads/main'), `${sha}\n`);
  for (const [folder, text] of [['refs', `${sha}\n`], ['logs/refs', `${'0'.repeat(40)} ${sha} Test <test@example.com> ${Math.floor(Date.now() / 1000)} ${zone()}\tupdate by push\n`]]) {
    mkdirSync(join(dir, '.git', folder!, 'remotes/origin'), { recursive: true });
    writeFileSync(join(dir, '.git', folder!, 'remotes/origin/main'), text!, { flag: 'wx' });
  }
}

/** A checkpoint as a person keeps one by hand (saved in March, `8.0` in its state), listing `files` as generated_files. */
export function handKept(files: string[], over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: '/home/claude/demo',
    created_at: '2026-02-27T10:00:00Z', updated_at: '2026-03-14T08:01:59.412Z',
    phase: 'build', step: 'wire it up', status: 'in_progress', progress_summary: 'half way; see notes',
    progress_table: [{ id: 'p1', label: 'Phase 1', status: 'complete' }, { id: 'p2', label: 'Phase 2', status: 'in_progress' }],
    next_actions: ['Ship'],
    context_primer: { key_decisions: ['kept the v1 cache format (PR 12)'], generated_files: files },
    skill_state: { iteration: 1, pass_threshold: 8.0 },
    ...over,
  };
}

/** A ref's id as `dir`'s git directory (or a bare repository) holds it, loose or packed; null when it has none. */
function refIn(gitDir: string, ref: string): string | null {
  const loose = join(gitDir, ref);
  if (existsSync(loose)) return readFileSync(loose, 'utf8').trim();
  const packed = join(gitDir, 'packed-refs');
  const line = existsSync(packed) ? readFileSync(packed, 'utf8').split('\n').find((l) => l.endsWith(` ${ref}`)) : undefined;
  return line === undefined ? null : line.slice(0, 40);
}

/**
 * What `git push origin <refs>` gets from the pre-push hook init installs, asked in-process:
 * doctor --fail-on-warnings on the ranges the hook passes (hooks/pre-push: each ref's tip, from
 * the remote's tip where the remote has the ref), and when that passes, the push itself past the
 * hook (--no-verify), so the remote moves on as it would. For tests of the verdict a push gets,
 * not of the hook: a test file using it keeps real pushes through the hook too. `out` is what
 * doctor printed (the hook prints it) and, after a pass, what the push printed.
 */
export async function judgedPush(dir: string, ...refs: string[]): Promise<{ status: number; out: string }> {
  const names = refs.length > 0 ? refs : ['main'];
  const url = /\[remote "origin"\]\n(?:\t[^\n]*\n)*?\turl = ([^\n]*)\n/.exec(readFileSync(join(dir, '.git/config'), 'utf8'))?.[1];
  if (url === undefined) throw new Error(`judgedPush: ${dir} has no origin`);
  const ranges: string[] = [];
  for (const name of names) {
    const ref = ['refs/heads/', 'refs/tags/'].map((kind) => kind + name).find((r) => refIn(join(dir, '.git'), r) !== null);
    if (ref === undefined) throw new Error(`judgedPush: ${dir} has no branch or tag ${name}`);
    const [local, remote] = [refIn(join(dir, '.git'), ref)!, refIn(url, ref)];
    if (local !== remote) ranges.push(remote === null ? `--pushed=${local}` : `--pushed=${remote}..${local}`);
  }
  // Nothing to send: git runs no hook ("Everything up-to-date").
  if (ranges.length === 0) return { status: 0, out: '' };
  const judged = await runCli(dir, ['doctor', '--fail-on-warnings', ...ranges]);
  const out = judged.stdout + judged.stderr;
  if (judged.code !== 0) return { status: 1, out };
  const pushed = gitTry(dir, ['push', '-q', '--no-verify', 'origin', ...names]);
  return { status: pushed.status ?? -1, out: out + pushed.stdout + pushed.stderr };
}
