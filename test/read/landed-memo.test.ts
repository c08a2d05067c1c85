// The remembered landed-work answer (read/landed-memo.ts) through the built binary: next and
// status take it only for the exact question it answered (HEAD, the asking checkpoints' texts and
// dates, an uncut walk), so their answer is always what a fresh walk gives. Runs use the built
// bundle's entry in this process (runBuilt: only a build keeps the answer, and each run starts
// with nothing in memory, reading only what is on disk, as a new process); the FIFO case runs the
// binary, since a read blocked on the FIFO could only be ended from outside.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanup, cli, commitAll, git, makeRepo, write, headSha, type RunResult } from '../helpers/repo.js';
import { runBuilt } from '../helpers/in-process.js';
import { checkpointDoc } from '../helpers/fixtures.js';

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString().replace(/\.\d+Z$/, 'Z');

let dir: string;
const memo = () => join(dir, '.git/checkpoint/landed.json');
const CP = '.checkpoints/api.checkpoint.json';

/** Messy like real ones: a note in a path, a ticket and a PR in prose, a months-old save. */
function checkpointText(actions: string[], updated = ago(119)): string {
  return `${JSON.stringify(checkpointDoc({
    created_at: ago(200),
    updated_at: updated,
    context_primer: { key_decisions: ['Rate limits live in middleware'], generated_files: ['src/limits.ts (PR #12)'] },
    next_actions: actions,
  }), null, 2)}\n`;
}

const ACTIONS = ['Squash-merge PR #12 (rate limiting) once CI is green', 'Finish PLAT-7 after the rollout', 'Write the session docs'];

type Next = { text: string; skipped: string[] };

/** `next --json` as a new run of the build says it (in this process, runBuilt); `asProcess`: the binary. */
async function next(asProcess = false): Promise<Next> {
  const r: RunResult = asProcess ? cli(dir, ['next', '--json']) : await runBuilt(dir, ['next', '--json']);
  expect(r.code, r.stderr).toBe(0);
  const { next: rec } = JSON.parse(r.stdout);
  return { text: rec.text, skipped: rec.skipped_as_landed.map((s: { evidence: string }) => s.evidence) };
}

/** What a run with no cache at all says. */
function freshNext(): Promise<Next> {
  rmSync(join(dir, '.git/checkpoint'), { recursive: true, force: true });
  return next();
}

/** Rewrites every remembered evidence line as `lie` (and the walk's start as `since`, if given). */
function plant(lie: string, since?: number): void {
  const file = JSON.parse(readFileSync(memo(), 'utf8'));
  for (const e of file.entries) {
    for (const [, pairs] of e.landed) for (const p of pairs) p[1] = lie;
    if (since !== undefined) e.since = since;
  }
  writeFileSync(memo(), JSON.stringify(file));
}

beforeAll(() => {
  assertBuilt();
  dir = makeRepo();
  write(dir, 'src/limits.ts', 'limits\n');
  write(dir, CP, checkpointText(ACTIONS));
  commitAll(dir, 'checkpoint: api', ago(119));
  write(dir, 'src/limits.ts', 'limits, enforced\n');
  commitAll(dir, 'Rate limiting middleware (#12)', ago(90));
});
afterAll(() => cleanup(dir));

describe('the remembered landed-work answer', () => {
  it('answers an unchanged HEAD and checkpoint exactly as a fresh walk does, and is what the next run uses', async () => {
    const fresh = await freshNext();
    expect(fresh.text).toBe(ACTIONS[1]);
    expect(fresh.skipped).toEqual([expect.stringContaining('#12 landed in')]);
    expect(await next()).toEqual(fresh);
    // The next run reads the remembered answer (a planted line shows): no walk was needed.
    plant('planted');
    expect((await next()).skipped).toEqual(['planted']);
    // status asks the same question.
    expect(JSON.parse((await runBuilt(dir, ['status', '--json'])).stdout).skills[0].landed_actions[0].evidence).toBe('planted');
  });

  it('is not used once HEAD moves, nor once the checkpoint queues other work', async () => {
    await freshNext();
    plant('planted');
    commitAll(dir, 'PLAT-7: roll out to all tenants (#14)', ago(1));
    const moved = await next();
    expect(moved.skipped).not.toContain('planted');
    expect(moved).toEqual(await freshNext());
    expect(moved.text).toBe(ACTIONS[2]);
    plant('planted');
    // Not committed: the work tree's checkpoint is the question.
    write(dir, CP, checkpointText(['Ship PR #13', ...ACTIONS]));
    const edited = await next();
    expect(edited.text).toBe('Ship PR #13');
    expect(edited.skipped).toEqual([]);
    expect(edited).toEqual(await freshNext());
    write(dir, CP, checkpointText(ACTIONS));
    git(dir, ['checkout', '-q', '--', CP]);
  });

  it('is carried over new commits that land none of the queued work, and only over those', async () => {
    const fresh = await freshNext();
    plant('planted');
    // A commit landing nothing asked about (its "(#30)" lands a PR no action names): the answer kept
    // at the earlier HEAD holds, and is kept at the new HEAD too.
    commitAll(dir, 'Tidy the README (#30)', ago(0.9));
    expect(fresh.skipped.length).toBeGreaterThan(0);
    expect((await next()).skipped).toEqual(fresh.skipped.map(() => 'planted'));
    expect(JSON.parse(readFileSync(memo(), 'utf8')).entries[0].key).toContain(headSha(dir));
    expect(await freshNext()).toEqual(fresh);
    // A revert that does not name the PR in a landing form (its quoted subject ends in `)"`) still
    // undoes the landing: never carried over.
    plant('planted');
    const landing = git(dir, ['log', '--format=%H', '--grep=(#12)', '-n', '1']).trim();
    git(dir, ['revert', '--no-edit', landing], { GIT_COMMITTER_DATE: ago(0.8), GIT_AUTHOR_DATE: ago(0.8) });
    const reverted = await next();
    expect(reverted.skipped).not.toContain('planted');
    expect(reverted.skipped.some((e) => e.includes('#12'))).toBe(false);
    expect(reverted.text).toBe(ACTIONS[0]);
    expect(reverted).toEqual(await freshNext());
    // Landing the work again, in the same second (the graph says which revert is newer): recomputed too.
    plant('planted');
    git(dir, ['revert', '--no-edit', 'HEAD'], { GIT_COMMITTER_DATE: ago(0.8), GIT_AUTHOR_DATE: ago(0.8) });
    const back = await next();
    expect(back.skipped).toEqual(fresh.skipped);
    expect(back).toEqual(await freshNext());
    // Undone once more, then reapplied as git 2.43 writes it (`Reapply "…"`, no landing form of
    // its own): the answer that #12 is open is not carried over it.
    git(dir, ['revert', '--no-edit', 'HEAD'], { GIT_COMMITTER_DATE: ago(0.7), GIT_AUTHOR_DATE: ago(0.7) });
    expect((await next()).skipped.some((e) => e.includes('#12'))).toBe(false);
    const undo = headSha(dir);
    git(dir, ['commit', '-q', '--allow-empty', '-m', 'Reapply "Rate limiting middleware (#12)"', '-m', `This reverts commit ${undo}.`], { GIT_COMMITTER_DATE: ago(0.6), GIT_AUTHOR_DATE: ago(0.6) });
    const reapplied = await next();
    expect(reapplied.skipped).toEqual(fresh.skipped);
    expect(reapplied).toEqual(await freshNext());
  });

  it('is not used when walk_days would now cut the walk it came from, and a cut walk is not remembered', async () => {
    await freshNext();
    plant('planted', Math.floor((Date.now() - 400 * DAY) / 1000));
    // The default bound (365 days) cuts a walk back 400 days: the answer is worked out again.
    const cut = await next();
    expect(cut.skipped).not.toContain('planted');
    expect(cut.skipped[0]).toContain('#12 landed in');
    expect(cut).toEqual(await freshNext());
    // With a 30-day bound this walk (back 119 days) is cut: answered, but nothing is kept.
    write(dir, '.checkpoints/config.json', '{ "walk_days": 30 }\n');
    rmSync(join(dir, '.git/checkpoint'), { recursive: true, force: true });
    expect((await next()).skipped[0]).toContain('#12 landed in');
    expect(() => readFileSync(memo())).toThrow(/ENOENT/);
    rmSync(join(dir, '.checkpoints/config.json'));
  });

  it('a broken, misshapen, linked or FIFO file is a miss, never an answer and never a hang', async () => {
    const fresh = await freshNext();
    const good = readFileSync(memo(), 'utf8');
    for (const bad of ['{not json', '{"entries": [{"key": 1}]}', good.replace(/"landed":\[\[/, '"landed":[[7,')]) {
      writeFileSync(memo(), bad);
      expect(await next()).toEqual(fresh);
    }
    const elsewhere = join(dir, 'planted.json');
    writeFileSync(elsewhere, good.replace(/#12 landed in [^"]*/g, 'planted'));
    rmSync(memo());
    symlinkSync(elsewhere, memo());
    expect(await next()).toEqual(fresh);
    rmSync(memo());
    execFileSync('mkfifo', [memo()]);
    expect(await next(true)).toEqual(fresh);
    rmSync(memo());
  });
});
