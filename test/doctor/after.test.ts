// When the commit graph says a commit was made after a checkpoint's instant though its date says
// before (after.ts), and what a push's commits alone say (pushed-tips.ts afterRecorded). Pure
// cases by hand, then random DAGs built with git fast-import against git's own rev-list.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { byDate, descendsFrom, firstRecorded, graphCanTell, lastRecorded, madeAfterIn, queuedAfter, walkGraph } from '../../src/doctor/after.js';
import { afterRecorded } from '../../src/doctor/pushed-tips.js';
import { createHistory, type CommitInfo } from '../../src/git/index.js';
import { cleanup, git } from '../helpers/repo.js';
import { buildDagRepo, type DagCommit } from '../git/dag-repo.js';

const made: string[] = [];
afterEach(() => made.splice(0).forEach(cleanup));

const commit = (sha: string, time: number, parents: string[], extra: Partial<CommitInfo> = {}): CommitInfo => ({ sha, parents, time, authorTime: time, subject: sha, body: '', changes: [], ...extra });

describe('madeAfterIn', () => {
  it('an honest graph (dates grow along every edge, nothing marked) is answered by the date alone, but for a tie', () => {
    const line = [commit('c', 30, ['b']), commit('b', 20, ['a']), commit('a', 10, [])];
    expect(graphCanTell(line)).toBe(false);
    expect(madeAfterIn(line)(20, 'b')(line[1]!)).toBe(true); // the anchor itself: the same second counts as after
    expect(madeAfterIn(line)(20, null)(line[1]!)).toBe(true); // no anchor: the same
    expect(madeAfterIn(line)(21, 'a')(line[1]!)).toBe(false);
    for (const c of line) for (const sec of [9, 10, 20, 30, 31]) expect(madeAfterIn(line)(sec, null)(c)).toBe(byDate(sec, null)(c));
  });

  it('an anchor dated before its instant (a save stamped by a clock ahead): its descendants dated before the instant are after it', () => {
    // rec (10) recorded a save stamped 40; work (20) and merge (30) were made on top of it; side (25) is not.
    const walk = [commit('merge', 30, ['work', 'side']), commit('side', 25, ['base']), commit('work', 20, ['rec']), commit('rec', 10, ['base']), commit('base', 5, [])];
    expect(graphCanTell(walk)).toBe(false);
    const rule = madeAfterIn(walk);
    const after = (c: CommitInfo, ahead?: boolean) => rule(40, 'rec', undefined, ahead)(c);
    expect(walk.map((c) => after(c, true))).toEqual([true, false, true, false, false]);
    expect(walk.map((c) => after(c))).toEqual(walk.map((c) => byDate(40, null)(c))); // not said: the date, as before
    expect(rule(40, null, undefined, true)(walk[0]!)).toBe(false); // no anchor: nothing to go by
  });

  it('an ahead anchor a merge brought in from a side branch: what descends from it is after; main\'s own work beside it by the anchor\'s commit date', () => {
    // side: rec (10) recorded a save stamped 40, change (12) on top; main: early (8) and late (15)
    // beside it; merge (20) took the file from side. The completed walk marks all but base.
    const marked = { pastAnchor: true as const };
    const walk = [
      commit('merge', 20, ['late', 'change'], marked), commit('late', 15, ['early'], marked), commit('change', 12, ['rec'], marked),
      commit('early', 8, ['base'], marked), commit('rec', 10, ['base']), commit('base', 5, []),
    ];
    const rule = madeAfterIn(walk);
    expect(walk.map((c) => rule(40, 'rec', undefined, true, { merge: 'merge', recorded: 10 })(c))).toEqual([true, true, true, false, false, false]);
    // Without it, every marked commit counts as after (early, made before the save, too).
    expect(walk.map((c) => rule(40, 'rec', undefined, true)(c))).toEqual([true, true, true, true, false, false]);
  });

  it('a commit in the instant\'s own second that the anchor reaches was made before it; one it does not reach is after', () => {
    // gen (20) <- rec (20, recorded the save at 20.664); side (20) merged after: merge (21).
    const walk = [commit('merge', 21, ['rec', 'side']), commit('side', 20, ['base']), commit('rec', 20, ['gen']), commit('gen', 20, ['base']), commit('base', 19, [])];
    const rule = madeAfterIn(walk);
    expect(rule(20, 'rec')(walk[3]!)).toBe(false); // its parent: before, whatever the second says
    expect(rule(20, 'rec')(walk[2]!)).toBe(true); // the anchor itself keeps its date
    expect(rule(20, 'rec')(walk[1]!)).toBe(true); // not in its history: the graph says nothing, the tie counts as after
    expect(rule(20, null)(walk[3]!)).toBe(true); // no anchor (an uncommitted save): the tie counts as after
    expect(rule(19, 'rec')(walk[3]!)).toBe(true); // a later second: the date decides
    expect(rule(20, 'merge', 'rec')(walk[3]!)).toBe(false); // a later anchor, its floor given
    expect(rule(20, 'merge', 'rec')(walk[1]!)).toBe(true);
    // A floor asked for is asked on a tie only, once.
    let asked = 0;
    const lazy = rule(20, 'merge', () => (asked++, 'rec'));
    expect([walk[0], walk[4]].map((c) => lazy(c!))).toEqual([true, false]);
    expect(asked).toBe(0);
    expect([walk[3], walk[1]].map((c) => lazy(c!))).toEqual([false, true]);
    expect(asked).toBe(1);
  });

  it('the tie rule holds on a skewed walk too', () => {
    // gen (50) <- anchor (50, saved at 50) <- skewed (5) <- top (60)
    const walk = [commit('top', 60, ['skewed']), commit('skewed', 5, ['anchor']), commit('anchor', 50, ['gen']), commit('gen', 50, ['old']), commit('old', 3, [])];
    expect(graphCanTell(walk)).toBe(true);
    const rule = madeAfterIn(walk);
    expect(rule(50, 'anchor')(walk[3]!)).toBe(false);
    expect(rule(50, 'anchor')(walk[1]!)).toBe(true);
  });

  it('a rewrite after the recording (a rebase): an ancestor of the recording commit authored by the save is before it, though committed after', () => {
    // Saved at 40. edit (authored 20) <- rec (authored 41, recorded the save); both rebased onto
    // main (30) at 90: committed 90, authors kept. late (authored 60) was made after the save.
    const at = (sha: string, time: number, authorTime: number, parents: string[]) => commit(sha, time, parents, { authorTime });
    const rebased = [at('rec', 90, 41, ['late']), at('late', 90, 60, ['edit']), at('edit', 90, 20, ['main']), commit('main', 30, ['base']), commit('base', 5, [])];
    const rule = madeAfterIn(rebased);
    expect(rebased.map((c) => rule(40, 'rec')(c))).toEqual([true, true, false, false, false]);
    expect(rebased.map((c) => rule(40, null)(c))).toEqual([true, true, true, false, false]); // no recording commit: the dates
    // The same with the recording commit found lazily (a proxy: firstRecorded), and on a skewed walk.
    expect(rule(40, 'rec', () => 'rec')(rebased[2]!)).toBe(false);
    const skewed = [commit('top', 95, ['rec']), ...rebased.slice(0, 3), commit('main', 100, ['base']), commit('base', 5, [])];
    expect(graphCanTell(skewed)).toBe(true);
    expect(madeAfterIn(skewed)(40, 'rec')(skewed[3]!)).toBe(false);
    // The save committed after the edit was made (saved, then an edit amended into an older commit,
    // cherry-picked or committed with --date in the past, then the save committed): dated as before.
    const fresh = [at('rec', 50, 50, ['edit']), at('edit', 45, 20, ['base']), commit('base', 5, [])];
    expect(madeAfterIn(fresh)(40, 'rec')(fresh[1]!)).toBe(true);
    // (Rebased later, that history reads as the plain rebase above: nothing git keeps tells them
    // apart, after.ts's known limit.)
    // A recording commit authored before the save (amended into an older commit, or an author
    // date set back): its author date says nothing of when the save was recorded.
    const early = [at('rec', 90, 30, ['edit']), at('edit', 90, 20, ['base']), commit('base', 5, [])];
    expect(madeAfterIn(early)(40, 'rec')(early[1]!)).toBe(true);
    // Not in the recording commit's history: the graph says nothing, the date stands.
    const beside = [at('rec', 90, 41, ['base']), at('other', 90, 20, ['base']), commit('base', 5, [])];
    expect(madeAfterIn(beside)(40, 'rec')(beside[1]!)).toBe(true);
    // Authored after the save, or re-made in the second its recording commit was first made: after.
    const same = [at('rec', 90, 41, ['edit']), at('edit', 41, 20, ['base']), commit('base', 5, [])];
    expect(madeAfterIn(same)(40, 'rec')(same[1]!)).toBe(true);
  });

  it('firstRecorded: the oldest commit on the first-parent line touching the file, dated the second or later', () => {
    const touch = { changes: [{ status: 'M' as const, path: '.checkpoints/a.checkpoint.json' }] };
    const walk = [
      commit('hand', 21, ['x'], touch), // a later commit of the file (a hand edit that kept updated_at)
      commit('x', 20, ['rec']),
      commit('rec', 20, ['gen'], touch),
      commit('gen', 20, ['prev']),
      commit('prev', 19, ['root'], touch),
    ];
    expect(firstRecorded('hand', walk, '.checkpoints/a.checkpoint.json', 20)?.sha).toBe('rec');
    expect(firstRecorded('hand', walk, '.checkpoints/a.checkpoint.json', 19)?.sha).toBe('prev');
    expect(firstRecorded('hand', walk, '.checkpoints/a.checkpoint.json', 22)).toBeUndefined();
    // x (a tie after rec, below the later commit) stays after; gen (below rec) is before.
    const rule = madeAfterIn(walk);
    const judge = rule(20, 'hand', () => firstRecorded('hand', walk, '.checkpoints/a.checkpoint.json', 20)?.sha ?? null);
    expect(judge(walk[1]!)).toBe(true);
    expect(judge(walk[3]!)).toBe(false);
  });

  it('a descendant of the anchor dated before the instant is after it; an ancestor keeps its date', () => {
    // a (10) <- anchor (50, saved at 45) <- skewed (5) <- top (60); old (3) is in the anchor's history.
    const walk = [commit('top', 60, ['skewed']), commit('anchor', 50, ['old']), commit('skewed', 5, ['anchor']), commit('old', 3, [])];
    const rule = madeAfterIn(walk);
    expect(rule(45, 'anchor')(walk[2]!)).toBe(true);
    expect(rule(45, 'anchor')(walk[3]!)).toBe(false);
    expect(rule(45, null)(walk[2]!)).toBe(false); // no anchor: the date
    expect(rule(45, 'anchor')(walk[1]!)).toBe(true); // the anchor itself: its date (50 >= 45)
  });

  it('a marked commit (outside the walk anchor\'s history) is after another anchor that does not reach it', () => {
    // main: base <- cpA (100) <- cpB (200); side: fork <- pr (150, merged PR) marked; merge (90, skewed) joins them.
    const walk = [
      commit('merge', 90, ['cpB', 'pr'], { pastAnchor: true }),
      commit('pr', 150, ['base'], { pastAnchor: true }),
      commit('cpB', 200, ['cpA']),
      commit('cpA', 100, ['base']),
    ];
    const rule = madeAfterIn(walk);
    expect(rule(195, 'cpB')(walk[0]!)).toBe(true); // descends from cpB
    expect(rule(195, 'cpB')(walk[1]!)).toBe(true); // marked, and cpB does not reach it
    // An anchor that does reach it: in its history, so its date decides.
    const reaching = [...walk, commit('cpC', 300, ['pr'])];
    expect(madeAfterIn(reaching)(290, 'cpC')(walk[1]!)).toBe(false);
  });

  it('queuedAfter: where a text\'s date predates all the history its queuing commit was made on, a landing in that history came before the queueing (red team B06)', () => {
    // base (10) <- land (50, "#15") <- queue (100) <- top (110), side (60) merged in beside them.
    const walk = [commit('top', 110, ['queue', 'side']), commit('side', 60, ['base']), commit('queue', 100, ['land']), commit('land', 50, ['base']), commit('base', 10, [])];
    const rule = madeAfterIn(walk);
    const graph = walkGraph(walk);
    // Queued "at 5" (a year typed wrong): no commit under queue is that old, so the graph decides.
    expect(walk.map((c) => rule(5, 'queue')(c))).toEqual([true, true, true, true, true]); // by date alone
    expect(walk.map(queuedAfter(rule(5, 'queue'), 5, 'queue', graph))).toEqual([true, true, true, false, false]);
    // Queued at 20: base (10) is a commit the save could be written on, before the landing: the date stands.
    expect(walk.map(queuedAfter(rule(20, 'queue'), 20, 'queue', graph))).toEqual(walk.map((c) => rule(20, 'queue')(c)));
    // No queuing commit known, or not in the walk: the rule as given.
    expect(walk.map(queuedAfter(rule(5, null), 5, undefined, graph))).toEqual(walk.map((c) => rule(5, null)(c)));
    expect(walk.map(queuedAfter(rule(5, null), 5, 'elsewhere', graph))).toEqual(walk.map((c) => rule(5, null)(c)));
    // The history leaves the walk (base not listed): what lies below may be that old; the date stands.
    const cut = walk.slice(0, 4);
    expect(queuedAfter(madeAfterIn(cut)(5, 'queue'), 5, 'queue', walkGraph(cut))(cut[3]!)).toBe(true);
    // The queuing commit authored before the landing (a text queued on another line, cherry-picked on top of it): the date stands.
    const picked = [commit('queue', 100, ['land'], { authorTime: 40 }), commit('land', 50, ['base']), commit('base', 10, [])];
    expect(queuedAfter(madeAfterIn(picked)(5, 'queue'), 5, 'queue', walkGraph(picked))(picked[1]!)).toBe(true);
  });

  it('lastRecorded follows first parents through the walk; descendsFrom follows every parent', () => {
    const walk = [
      commit('m', 40, ['x', 'side']),
      commit('side', 35, ['cp'], { changes: [{ status: 'M', path: '.checkpoints/a.checkpoint.json' }] }),
      commit('x', 30, ['cp']),
      commit('cp', 20, ['r'], { changes: [{ status: 'M', path: '.checkpoints/a.checkpoint.json' }] }),
    ];
    const last = lastRecorded('m', walk, ['.checkpoints/a.checkpoint.json', '.checkpoints/b.checkpoint.json']);
    expect(last.get('.checkpoints/a.checkpoint.json')?.sha).toBe('cp');
    expect(last.has('.checkpoints/b.checkpoint.json')).toBe(false);
    expect(descendsFrom(walk, walk[0]!, 'cp')).toBe(true);
    expect(descendsFrom(walk, walk[2]!, 'side')).toBe(false);
  });
});

// A pushed range over a random DAG: the commits the push sends, and the checkpoint file `c`
// changed by some commits. afterRecorded must call a pushed commit after exactly when git says it
// is not in the history of the commit that last changed `c` on the tip's first-parent line.
const specArb = fc.record({ parentPicks: fc.array(fc.nat(), { maxLength: 2 }), hours: fc.integer({ min: -6, max: 6 }), touches: fc.boolean() });

it('random DAGs: afterRecorded matches git (not in the history of the tip\'s last recording of the file)', async () => {
  const T = Date.parse('2026-11-20T10:00:00Z') / 1000;
  await fc.assert(
    fc.asyncProperty(fc.array(specArb, { minLength: 2, maxLength: 9 }), fc.nat(), async (specs, fromPick) => {
      let version = 0;
      const commits: DagCommit[] = specs.map((spec, i) => {
        if (spec.touches || i === 0) version = i;
        return {
          parents: i === 0 ? [] : spec.parentPicks.length ? [...new Set(spec.parentPicks.map((p) => p % i))] : [i - 1],
          time: T + spec.hours * 3600,
          message: `${i}`,
          files: new Map([['c', `checkpoint ${version}\n`], ['f', `${i}\n`]]),
        };
      });
      const head = commits.length - 1;
      const repo = buildDagRepo(commits, head);
      made.push(repo.dir);
      const tip = repo.shas[head]!;
      const reachable = git(repo.dir, ['rev-list', tip]).split('\n').filter(Boolean);
      const from = reachable[fromPick % reachable.length]!;
      const history = await createHistory({ dir: repo.dir, engine: 'native' });
      const pushed = await history.pushedCommits(from === tip ? null : from, tip);
      const recorded = git(repo.dir, ['log', '--first-parent', '-1', '--format=%H', tip, '--', 'c']).trim();
      const says = afterRecorded(tip, pushed, 'c');
      const afterIt = new Set(recorded ? git(repo.dir, ['rev-list', tip, '--not', recorded]).split('\n').filter(Boolean) : reachable);
      for (const c of pushed) expect(says(c), c.sha).toBe(afterIt.has(c.sha));
    }),
    { numRuns: 20 },
  );
});

// Honest random DAGs within a few seconds (a child dated its parents' latest second or the next):
// the tie rule calls a commit in the instant's second before exactly when git says the anchor
// (a commit dated that second or later) has it in its history; every other commit keeps its date.
it('random same-second DAGs: a tie is before exactly when it is a proper ancestor of the anchor (git rev-list)', async () => {
  const T = Date.parse('2026-11-20T10:00:00Z') / 1000;
  await fc.assert(
    fc.asyncProperty(fc.array(fc.record({ parentPicks: fc.array(fc.nat(), { maxLength: 2 }), step: fc.integer({ min: 0, max: 1 }) }), { minLength: 2, maxLength: 9 }), fc.nat(), fc.nat(), async (specs, anchorPick, secPick) => {
      const times: number[] = [];
      const commits: DagCommit[] = specs.map((spec, i) => {
        const parents = i === 0 ? [] : spec.parentPicks.length ? [...new Set(spec.parentPicks.map((p) => p % i))] : [i - 1];
        times.push(Math.max(T, ...parents.map((p) => times[p]!)) + spec.step);
        return { parents, time: times[i]!, message: `${i}`, files: new Map([['f', `${i}\n`]]) };
      });
      const head = commits.length - 1;
      const repo = buildDagRepo(commits, head);
      made.push(repo.dir);
      const history = await createHistory({ dir: repo.dir, engine: 'native' });
      const walk = await history.commitsSince(T, { changes: 'none' });
      const anchor = walk[anchorPick % walk.length]!;
      // The instant the anchor recorded: its own second or the one before (a save committed a second later).
      const sec = anchor.time - (secPick % 2);
      const rule = madeAfterIn(walk)(sec, anchor.sha);
      const history_ = new Set(git(repo.dir, ['rev-list', anchor.sha]).split('\n').filter(Boolean));
      for (const c of walk) {
        const ancestor = c.sha !== anchor.sha && history_.has(c.sha);
        expect(rule(c), `${c.sha} at ${c.time - T} against ${sec - T}`).toBe(c.time > sec || (c.time === sec && !ancestor));
      }
    }),
    { numRuns: 15 },
  );
});
