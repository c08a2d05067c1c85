// A commit dated in the past sitting after the checkpoint must not hide the commits behind it:
// commitsSince with an anchor (the checkpoint's commit) walks past an older commit that is not in
// the anchor's history. Real git repositories, both engines, against git's own answers.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createHistory, type CommitInfo } from '../../src/git/index.js';
import { unprovenStops } from '../../src/git/skew-walk.js';
import { madeAfterIn } from '../../src/doctor/after.js';
import { cleanup, commitAll, git, makeRepo, write, headSha } from '../helpers/repo.js';
import { buildDagRepo, type DagCommit } from './dag-repo.js';

const ENGINES = ['native', 'isomorphic'] as const;
const T = Date.parse('2026-11-20T10:00:00Z') / 1000;
const iso = (s: number) => new Date(s * 1000).toISOString();
const made: string[] = [];
afterEach(() => made.splice(0).forEach(cleanup));

/** Every commit reachable from HEAD dated `since` or later, by git (the exact answer on these fixtures). */
function datedSince(dir: string, since: number): string[] {
  return git(dir, ['rev-list', '--timestamp', 'HEAD']).split('\n').filter(Boolean).map((l) => l.split(' ')).filter(([t]) => Number(t) >= since).map(([, sha]) => sha!).sort();
}

/** The commits after `anchor`, by git: reachable from HEAD and not from the anchor, whatever their dates. */
function afterAnchor(dir: string, anchor: string): string[] {
  return git(dir, ['rev-list', 'HEAD', '--not', anchor]).split('\n').filter(Boolean).sort();
}

/** Checkpoint at T, PR #482 merged at T+1h, a generated file changed at T+2h; then `skewed` commits dated in the past on top. */
function skewedRepo(skewed: number[]): { dir: string; anchor: string; merge: string; regen: string } {
  const dir = makeRepo();
  made.push(dir);
  write(dir, 'gen/schema.ts', 'v1\n');
  commitAll(dir, 'initial', iso(T - 86_400));
  write(dir, '.checkpoints/billing.checkpoint.json', '{}\n');
  const anchor = commitAll(dir, 'checkpoint: billing', iso(T));
  git(dir, ['checkout', '-q', '-b', 'feat']);
  write(dir, 'src/totals.ts', 'export const total = 8.0;\n');
  commitAll(dir, 'invoice totals', iso(T + 3600));
  git(dir, ['checkout', '-q', 'main']);
  git(dir, ['merge', '-q', '--no-ff', 'feat', '-m', 'Merge pull request #482 from acme/feat'], { GIT_AUTHOR_DATE: iso(T + 3600), GIT_COMMITTER_DATE: iso(T + 3600) });
  const merge = headSha(dir);
  write(dir, 'gen/schema.ts', 'v2\n');
  const regen = commitAll(dir, 'regenerate schema', iso(T + 7200));
  skewed.forEach((t, i) => {
    write(dir, 'src/fix.ts', `fix ${i}\n`);
    commitAll(dir, `cherry-picked fix ${i}`, iso(t));
  });
  return { dir, anchor, merge, regen };
}

describe.each(ENGINES)('%s engine: commits behind a commit dated before the checkpoint', (engine) => {
  it('one skewed commit on top: without an anchor the walk stops there; with one it lists every commit dated since, and the skewed one, marked after the anchor', async () => {
    const { dir, anchor, merge, regen } = skewedRepo([T - 30 * 86_400]);
    const history = await createHistory({ dir, engine });
    expect(await history.commitsSince(T)).toEqual([]);
    const found = await history.commitsSince(T, { anchor });
    const skewed = headSha(dir);
    expect(found.map((c) => c.sha).sort()).toEqual([...datedSince(dir, T), skewed].sort());
    expect(found.map((c) => c.sha)).toEqual(expect.arrayContaining([merge, regen, anchor]));
    // Made after the checkpoint's commit (git says so), whatever its date: marked; the anchor is not.
    expect(found.filter((c) => c.pastAnchor).map((c) => c.sha).sort()).toEqual(afterAnchor(dir, anchor));
    expect(found.find((c) => c.sha === skewed)).toMatchObject({ subject: 'cherry-picked fix 0', changes: [{ status: 'A', path: 'src/fix.ts' }], pastAnchor: true });
    expect(found.find((c) => c.sha === merge)!.subject).toBe('Merge pull request #482 from acme/feat');
    expect(found.find((c) => c.sha === regen)!.changes).toEqual([{ status: 'M', path: 'gen/schema.ts' }]);
    // Newest first, as without an anchor.
    expect(found.map((c) => c.time)).toEqual([...found.map((c) => c.time)].sort((a, b) => b - a));
  });

  it('a rebased series that kept its old, ascending dates hides nothing either, and is listed itself', async () => {
    const { dir, anchor } = skewedRepo([T - 30 * 86_400, T - 29 * 86_400, T - 28 * 86_400]);
    const history = await createHistory({ dir, engine });
    const found = await history.commitsSince(T, { anchor, changes: ['gen'] });
    expect(found.map((c) => c.sha).sort()).toEqual([...new Set([...datedSince(dir, T), ...afterAnchor(dir, anchor)])].sort());
    // Only the changes in scope: the series touched src/, not gen/.
    expect(found.filter((c) => c.subject.startsWith('cherry-picked')).map((c) => c.changes)).toEqual([[], [], []]);
  });

  it('a commit dated before the floor (the walk_days bound) counts as before the checkpoint: the walk stops there', async () => {
    const { dir, anchor, merge } = skewedRepo([T - 400 * 86_400]);
    const history = await createHistory({ dir, engine });
    expect(await history.commitsSince(T, { anchor, floor: T - 365 * 86_400 })).toEqual([]);
    expect((await history.commitsSince(T, { anchor, floor: T - 500 * 86_400 })).map((c) => c.sha)).toContain(merge);
  });

  it('an honest history answers as without an anchor', async () => {
    const { dir, anchor } = skewedRepo([]);
    const history = await createHistory({ dir, engine });
    expect(await history.commitsSince(T, { anchor })).toEqual(await history.commitsSince(T));
  });
});

it('both engines give the same commits, with the same changes, past skew', async () => {
  const { dir, anchor } = skewedRepo([T - 30 * 86_400, T - 40 * 86_400]);
  const [native, iso] = await Promise.all(ENGINES.map((engine) => createHistory({ dir, engine })));
  for (const changes of ['all', 'none', ['gen', 'src']] as const) {
    expect(await iso!.commitsSince(T, { anchor, changes })).toEqual(await native!.commitsSince(T, { anchor, changes }));
  }
});

describe('unprovenStops', () => {
  const c = (sha: string, ...parents: string[]): Pick<CommitInfo, 'sha' | 'parents'> => ({ sha, parents });
  it('a walk that reached the anchor proves the commits it stopped at below it', () => {
    expect(unprovenStops('d', [c('d', 'c'), c('c', 'b'), c('b', 'a')], 'c')).toEqual([]);
  });
  it('a stop the walked graph does not put below the anchor is unproven: a skewed HEAD, a side branch', () => {
    expect(unprovenStops('d', [], 'b')).toEqual(['d']);
    expect(unprovenStops('d', [c('d', 'c', 'x'), c('c', 'b')], 'c')).toEqual(['x']);
    expect(unprovenStops('b', [], 'b')).toEqual([]);
  });
});

// Random DAGs with random dates (so children are often older than parents), a random anchor in
// HEAD's history: both engines must give the model's answer, which holds every commit dated
// since that `git rev-list <anchor>..HEAD` lists (the commits after the checkpoint).
const specArb = fc.record({ parentPicks: fc.array(fc.nat(), { maxLength: 2 }), hours: fc.integer({ min: -6, max: 6 }) });

function ancestors(commits: readonly DagCommit[], from: number): Set<number> {
  const seen = new Set<number>();
  const pending = [from];
  while (pending.length) {
    const i = pending.pop()!;
    if (seen.has(i)) continue;
    seen.add(i);
    pending.push(...commits[i]!.parents);
  }
  return seen;
}

/**
 * The documented rule: reachable from HEAD through commits dated since or outside the anchor's
 * history; listed when dated since or outside the anchor's history.
 */
function model(commits: readonly DagCommit[], head: number, anchor: number, since: number): Set<number> {
  const below = ancestors(commits, anchor);
  const reached = new Set<number>();
  const pending = [head];
  while (pending.length) {
    const i = pending.pop()!;
    if (reached.has(i)) continue;
    reached.add(i);
    const c = commits[i]!;
    if (c.time >= since || !below.has(i)) pending.push(...c.parents);
  }
  return new Set([...reached].filter((i) => commits[i]!.time >= since || !below.has(i)));
}

it('a commit of the anchor\'s history reached from HEAD before the anchor\'s painting gets there is not marked: the embedded engine reads on past it as git does (SLOP)', async () => {
  // 0 <- 1 <- 2 <- 3 <- 4 (an hour behind) <- 5 (anchor) <- 6 <- 7 (an hour behind, HEAD), and 7 merges 0 in.
  const hours = [0, 0, 0, 0, -1, 0, 0, -1];
  const commits: DagCommit[] = hours.map((h, i) => ({ parents: i === 0 ? [] : i === 7 ? [6, 0] : [i - 1], time: T + h * 3600, message: `${i}`, files: new Map([['f', `${i}\n`]]) }));
  const repo = buildDagRepo(commits, 7);
  made.push(repo.dir);
  const answers = [];
  for (const engine of ENGINES) {
    const found = await (await createHistory({ dir: repo.dir, engine })).commitsSince(T, { anchor: repo.shas[5], changes: 'none' });
    expect(found.filter((c) => c.pastAnchor).map((c) => c.sha).sort(), engine).toEqual([repo.shas[6]!, repo.shas[7]!].sort());
    answers.push(found);
  }
  expect(answers[1]).toEqual(answers[0]);
});

const CHANGES = ['none', 'all', ['g']] as const;

it('random skewed DAGs: both engines match the model, which holds every commit after the anchor; those dated before since are marked so, and only commits after it are', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(specArb, { minLength: 2, maxLength: 10 }), fc.nat(), fc.nat(), fc.integer({ min: 0, max: 2 }), fc.nat(), fc.nat(), fc.option(fc.integer({ min: 0, max: 8 })),
      async (specs, headPick, anchorPick, sinceBack, changesPick, otherPick, floorBack) => {
        // Mostly a line (a commit without picks follows the one before), with merges and side roots.
        const commits: DagCommit[] = specs.map((spec, i) => ({
          parents: i === 0 ? [] : spec.parentPicks.length ? [...new Set(spec.parentPicks.map((p) => p % i))] : [i - 1],
          time: T + spec.hours * 3600,
          message: `${i} Merge pull request #${i}`,
          // Every commit changes f; every third one g, which a scoped walk lists alone.
          files: new Map([['f', `${i}\n`], ['g', `${Math.floor(i / 3)}\n`]]),
        }));
        const head = commits.length - 1 - (headPick % 2);
        const inHead = [...ancestors(commits, head)].sort((a, b) => a - b);
        const anchor = inHead[anchorPick % inHead.length]!;
        // The checkpoint's save, at or shortly before its commit; the walk_days bound, when there is one, older still.
        const since = commits[anchor]!.time - sinceBack * 3600;
        const floor = floorBack === null ? undefined : since - floorBack * 3600;
        const changes = CHANGES[changesPick % CHANGES.length]!;
        const repo = buildDagRepo(commits, head);
        made.push(repo.dir);
        const after = afterAnchor(repo.dir, repo.shas[anchor]!);
        // The exact answer, from the generated graph: every commit of HEAD's history outside the anchor's.
        const below = ancestors(commits, anchor);
        const outside = new Set([...ancestors(commits, head)].filter((i) => !below.has(i)).map((i) => repo.shas[i]!));
        expect([...outside].sort()).toEqual(after);
        const answers: CommitInfo[][] = [];
        for (const engine of ENGINES) {
          const history = await createHistory({ dir: repo.dir, engine });
          const found = await history.commitsSince(since, { anchor: repo.shas[anchor], changes, floor });
          const marked = found.filter((c) => c.pastAnchor).map((c) => c.sha);
          // Sound whatever the bound: a marked commit is after the anchor (git's rev-list says so).
          expect(after).toEqual(expect.arrayContaining(marked));
          if (floor === undefined) {
            const expected = [...model(commits, head, anchor, since)].map((i) => repo.shas[i]!).sort();
            expect(expected).toEqual(expect.arrayContaining(after));
            expect(found.map((c) => c.sha).sort()).toEqual(expected);
            // Complete where it matters: every commit after the anchor dated before since is marked (its date would say before).
            expect(marked).toEqual(expect.arrayContaining(found.filter((c) => c.time < since).map((c) => c.sha)));
          }
          answers.push(found);
        }
        // The same commits, with the same changes and marks, from both engines.
        expect(answers[1]).toEqual(answers[0]);
        // after.ts over what was found, for the walk's anchor and for another commit of HEAD's
        // history standing for a newer checkpoint's: a commit called after though its date says
        // before is after that anchor by git; for the walk's anchor without a bound, every commit
        // git puts after it is called so.
        const found = answers[0]!;
        const rule = madeAfterIn(found);
        const other = inHead[otherPick % inHead.length]!;
        for (const [at, sec] of [[anchor, since], [other, commits[other]!.time]] as const) {
          const afterIt = new Set(afterAnchor(repo.dir, repo.shas[at]!));
          const says = rule(sec, repo.shas[at]!);
          for (const c of found) {
            if (says(c) && c.time < sec) expect(afterIt.has(c.sha), `${c.sha} after ${repo.shas[at]}`).toBe(true);
            if (at === anchor && floor === undefined && afterIt.has(c.sha)) expect(says(c)).toBe(true);
          }
        }
      },
    ),
    { numRuns: 15 },
  );
});
