// An agent commits, then asks `status` and `next` again: the answers kept at the previous HEAD
// are carried forward over a plain line of new commits (git/fast-forward.ts) instead of asking
// git again. Whatever was carried, every command must say exactly what it says with no cache at
// all; and after commits git must answer (a merge, a checkpoint changed, a commit dated before
// the walk's start), git is asked.
// The first test's carried runs are the built binary, a process per command; every other run is
// the same bundle's entry in this process (runBuilt: the build's own caches, no memo of an earlier
// run in memory, only what is on disk, as a new process), which saves a node start-up each.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, cli, commitAll, git, makeRepo, settleIndex, write, headSha, type RunResult } from '../helpers/repo.js';
import { freshCheckpoint } from '../helpers/fixtures.js';
import { firstRuns } from '../helpers/first-run.js';
import { runBuilt } from '../helpers/in-process.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

const COMMANDS = [['status'], ['next'], ['status', '--json'], ['next', '--json'], ['doctor', '--json']];

type Run = (dir: string, args: string[], opts?: { env?: NodeJS.ProcessEnv }) => RunResult | Promise<RunResult>;

/** Each command's output run with the caches as they are, and whether git ran for it; `run`: in this process unless given `cli`. */
async function outputs(dir: string, run: Run = runBuilt): Promise<{ text: string; gitRan: boolean }[]> {
  const out: { text: string; gitRan: boolean }[] = [];
  for (const args of COMMANDS) {
    const traceDir = mkdtempSync(join(tmpdir(), 'cp-trace-'));
    const trace = join(traceDir, 'trace');
    const r = await run(dir, args, { env: { GIT_TRACE: trace } });
    const gitRan = existsSync(trace) && readFileSync(trace, 'utf8').length > 0;
    rmSync(traceDir, { recursive: true, force: true });
    out.push({ text: `${r.code}\n${r.stdout}\n${r.stderr}`, gitRan });
  }
  return out;
}

/** The same commands as a first run says them: each in-process, in a copy with no cache (firstRuns). */
async function cold(dir: string): Promise<string[]> {
  return (await firstRuns(dir, COMMANDS)).map((r) => `${r.code}\n${r.stdout}\n${r.stderr}`);
}

function project(): string {
  const dir = makeRepo();
  dirs.push(dir);
  const saved = new Date(Date.now() - 2 * 86_400_000).toISOString();
  write(dir, 'src/app.ts', 'export const app = 1;\n');
  write(dir, 'src/limits.ts', 'export const limit = 0;\n');
  write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(freshCheckpoint('api', {
    created_at: saved,
    updated_at: saved,
    next_actions: ['Merge PR #12 (rate limits)', 'Write the auth middleware tests'],
    context_primer: { key_decisions: ['JWT in cookies'], generated_files: ['src/app.ts (PR 12)', 'src/limits.ts', 'docs/old-spec.md'] },
  }), null, 2)}\n`);
  commitAll(dir, 'Save the api checkpoint', saved);
  commitAll(dir, 'Unrelated work', new Date(Date.now() - 86_400_000).toISOString());
  return dir;
}

describe('answers carried over a plain line of new commits', () => {
  it('says what a first run says, without starting git, after commits that leave the checkpoints alone', async () => {
    const dir = project();
    await outputs(dir); // the caches, at this HEAD
    write(dir, 'notes.md', 'a note\n');
    commitAll(dir, 'Add a note');
    // A listed file changes after the save: doctor must see the change carried in.
    write(dir, 'src/app.ts', 'export const app = 2;\n');
    commitAll(dir, 'Rework the app');
    // The new commit lands PR #12: `next` must see it though nothing walked.
    write(dir, 'src/limits.ts', 'export const limit = 10;\n');
    commitAll(dir, 'Rate limits (#12)');
    // As a clone someone works in is: no file changed in the second its index was written
    // (doctor then reads the work tree's state from the index alone).
    settleIndex(dir);
    // The built binary, each command a process of its own: what the carried answers are to a
    // user (every other run here is the same bundle's entry in this process).
    const carried = await outputs(dir, cli);
    expect(carried.map((o) => o.text)).toEqual(await cold(dir));
    expect(carried[1]!.text).toContain('Write the auth middleware tests');
    expect(carried[1]!.text).not.toMatch(/Next: .*Merge PR #12/);
    // None of them started git: the walk (doctor's with the listed file's changes), the dates,
    // the checkpoint's revisions and the verified commits were carried.
    expect(carried.map((o) => o.gitRan)).toEqual([false, false, false, false, false]);
  });

  it('carries over a commit of the checkpoint too: its new revision joins the ones kept, its blob read from the store', async () => {
    const dir = project();
    await outputs(dir);
    const cp = JSON.parse(readFileSync(join(dir, '.checkpoints/api.checkpoint.json'), 'utf8'));
    cp.next_actions.push('Ship the release notes');
    cp.updated_at = new Date(Date.now() - 3_600_000).toISOString();
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(cp, null, 2)}\n`);
    commitAll(dir, 'Queue the release notes');
    settleIndex(dir);
    const now = await outputs(dir);
    expect(now.map((o) => o.text)).toEqual(await cold(dir));
    expect(now.slice(0, 4).map((o) => o.gitRan)).toEqual([false, false, false, false]);
  });

  it('moves the remembered answers to each new HEAD, so a carry reads only the commits since the last run', async () => {
    const dir = project();
    await outputs(dir);
    const memoHeads = () => Object.keys(JSON.parse(readFileSync(join(dir, '.git/checkpoint/queued-dates-5.json'), 'utf8'))).map((key) => key.slice(0, key.indexOf(':')));
    const landedHead = () => JSON.parse(JSON.parse(readFileSync(join(dir, '.git/checkpoint/landed.json'), 'utf8')).entries[0].key)[1];
    // An agent's steps: each a commit, each followed by a run. Left at the first HEAD, an answer
    // would be carried over every commit since it on every run (two objects read per commit).
    for (let step = 1; step <= 3; step++) {
      for (let i = 0; i < 5; i++) git(dir, ['commit', '-q', '--allow-empty', '-m', `Step ${step}.${i}`]);
      const head = headSha(dir);
      const r = await runBuilt(dir, ['status']);
      expect(r.code).toBe(0);
      // The landed-work answer, carried (none of these commits lands anything), kept at this HEAD.
      expect(landedHead()).toBe(head);
      // The dates, which doctor then needs, moved to this HEAD by the run that dates anew.
      expect((await runBuilt(dir, ['doctor'])).code).not.toBe(2);
      expect(memoHeads()).toEqual([head]);
    }
    expect((await outputs(dir)).map((o) => o.text)).toEqual(await cold(dir));
  });

  it('keeps the dates of a few HEADs only while an agent commits its checkpoint step after step', async () => {
    const dir = project();
    await outputs(dir);
    const memoHeads = () => new Set(Object.keys(JSON.parse(readFileSync(join(dir, '.git/checkpoint/queued-dates-5.json'), 'utf8'))).map((key) => key.slice(0, key.indexOf(':'))));
    const heads: string[] = [];
    for (let step = 1; step <= 7; step++) {
      expect((await runBuilt(dir, ['update', 'api', `--progress_summary=Step ${step} done`])).code).toBe(0);
      heads.push(commitAll(dir, `Step ${step}`));
      expect((await runBuilt(dir, ['status'])).code).toBe(0);
    }
    // Each step dates anew (the checkpoint changed): the newest four HEADs stay, for switching
    // branches; more would only make every later run read and write a larger memo.
    expect([...memoHeads()].sort()).toEqual(heads.slice(-4).sort());
    // The last save is seconds old: its age may tick between the two runs.
    const age = (text: string) => text.replace(/\b\d+s ago\b/g, 'seconds ago');
    expect((await outputs(dir)).map((o) => age(o.text))).toEqual((await cold(dir)).map(age));
  });

  it('asks git again after a merge or a commit dated before the walk, and still says what a first run says', async () => {
    const dir = project();
    await outputs(dir);
    // A merge of a side branch.
    git(dir, ['checkout', '-q', '-b', 'side']);
    write(dir, 'src/side.ts', 'export const side = 1;\n');
    commitAll(dir, 'Side work');
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--no-ff', '-m', 'Merge branch side', 'side']);
    let now = await outputs(dir);
    expect(now.map((o) => o.text)).toEqual(await cold(dir));
    expect(now[0]!.gitRan).toBe(true);
    // A commit whose date lies before the checkpoint's save: git stops its walk there.
    await outputs(dir);
    write(dir, 'src/old.ts', 'export const old = 1;\n');
    commitAll(dir, 'Backdated work', '2020-01-01T00:00:00Z');
    now = await outputs(dir);
    expect(now.map((o) => o.text)).toEqual(await cold(dir));
    expect(now[0]!.gitRan).toBe(true);
  });
});
