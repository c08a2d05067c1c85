// newestByGraph orders commits newest first; commit times are whole seconds, so a rebase or a
// script makes many in one, and there the graph decides: a commit before every ancestor of it
// in the list, however many commits of other seconds lie between them (a commit dated earlier
// can sit between two of the same second). Random graphs with few distinct times, so most
// commits share a second with another.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newestByGraph } from '../../src/git/normalize.js';
import type { CommitInfo } from '../../src/git/types.js';

const sha = (i: number) => i.toString(16).padStart(40, '0');

/** Commit i's parents are earlier commits; times from a handful of seconds, in any order (clocks skew). */
const graphs = fc.array(fc.record({ parents: fc.array(fc.nat(), { maxLength: 2 }), time: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 30 }).map((rows) =>
  rows.map((row, i): CommitInfo => ({
    sha: sha(i),
    parents: i === 0 ? [] : [...new Set(row.parents.map((p) => sha(p % i)))],
    subject: `c${i}`,
    body: '',
    time: 1_700_000_000 + row.time,
    authorTime: 1_700_000_000 + row.time,
    changes: [],
  })));

/** Every commit `c` reaches through parents among `commits`, itself excluded. */
function ancestors(commits: readonly CommitInfo[], c: CommitInfo): Set<string> {
  const bySha = new Map(commits.map((x) => [x.sha, x]));
  const seen = new Set<string>();
  const todo = [...c.parents];
  while (todo.length) {
    const p = todo.pop()!;
    if (seen.has(p) || !bySha.has(p)) continue;
    seen.add(p);
    todo.push(...bySha.get(p)!.parents);
  }
  return seen;
}

describe('newestByGraph', () => {
  it('is newest first by time, and within a second never puts a commit after one of its ancestors', () => {
    fc.assert(fc.property(graphs, (commits) => {
      const out = newestByGraph(commits);
      expect(out.map((c) => c.sha).sort()).toEqual(commits.map((c) => c.sha).sort());
      for (let i = 1; i < out.length; i++) expect(out[i - 1]!.time).toBeGreaterThanOrEqual(out[i]!.time);
      for (let i = 0; i < out.length; i++) {
        const older = ancestors(commits, out[i]!);
        for (let j = 0; j < i; j++) if (out[j]!.time === out[i]!.time) expect(older.has(out[j]!.sha), `${out[j]!.subject} before its descendant ${out[i]!.subject}`).toBe(false);
      }
    }), { numRuns: 300 });
  });

  it('gives one order whatever order the commits came in (a walk, a cache, two engines)', () => {
    fc.assert(fc.property(graphs.chain((commits) => fc.tuple(fc.constant(commits), fc.shuffledSubarray(commits, { minLength: commits.length }))), ([commits, shuffled]) => {
      expect(newestByGraph(shuffled).map((c) => c.sha)).toEqual(newestByGraph(commits).map((c) => c.sha));
    }), { numRuns: 300 });
  });

  it('a descendant in the same second as its ancestor comes first even with an earlier-dated commit between them', () => {
    // a, then b dated a day earlier (a clock behind, a date given by hand), then c in a's second.
    // By name alone a ("000...") would come before c ("fff...").
    const t = 1_764_936_000;
    const a: CommitInfo = { sha: '0'.repeat(40), parents: [], subject: 'a', body: '', time: t, authorTime: t, changes: [] };
    const b: CommitInfo = { ...a, sha: 'e'.repeat(40), parents: [a.sha], subject: 'b', time: t - 86_400, authorTime: t - 86_400 };
    const c: CommitInfo = { ...a, sha: 'f'.repeat(40), parents: [b.sha], subject: 'c' };
    expect(newestByGraph([a, b, c]).map((x) => x.subject)).toEqual(['c', 'a', 'b']);
  });
});
