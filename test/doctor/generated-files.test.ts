// checkGeneratedFiles looks only at the commits that touch a matching path (an index built once
// per walk): it must name the same commit and file as a scan of every commit, newest first.
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkGeneratedFiles } from '../../src/doctor/checks.js';
import { NO_EVIDENCE } from '../../src/doctor/evidence.js';
import type { Checkpoint } from '../../src/protocol/types.js';
import type { CommitInfo, PathChange } from '../../src/git/types.js';

const root = mkdtempSync(join(tmpdir(), 'cp-generated-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const PRESENT = ['src/a.ts', 'src/b.ts', 'src/c d.ts', 'lib/e.ts'];
for (const file of PRESENT) {
  mkdirSync(join(root, file, '..'), { recursive: true });
  writeFileSync(join(root, file), 'x\n');
}
const CHECKPOINT = '.checkpoints/api.checkpoint.json';
const PATHS = [...PRESENT, 'src/old.ts', 'lib/f.ts', 'docs/x.md', CHECKPOINT];
const ENTRIES = ['src/a.ts (PR 12)', 'src/b.ts — draft', 'src/c d.ts', 'lib/e.ts', 'src/*.ts', 'src/{a,b}.ts', 'lib/**/*.ts (generated)', '**/*.md'];
const SAVED = 1_000;

const change = fc.oneof(
  fc.record({ status: fc.constantFrom<PathChange['status']>('A', 'M', 'D'), path: fc.constantFrom(...PATHS) }),
  fc.record({ status: fc.constant<PathChange['status']>('R'), path: fc.constantFrom(...PATHS), from: fc.constantFrom(...PATHS) }),
);
// Newest first, as walks are; some commits older than the checkpoint.
const walk = fc.array(fc.record({ time: fc.integer({ min: SAVED - 50, max: SAVED + 50 }), changes: fc.array(change, { maxLength: 4 }) }), { maxLength: 25 })
  .map((cs) => cs.sort((a, b) => b.time - a.time).map((c, i): CommitInfo => ({ sha: i.toString(16).padStart(40, '0'), parents: [], subject: `commit ${i}`, body: '', authorTime: c.time, ...c })));

/**
 * The scan the index replaced: every commit since the checkpoint not touching it, newest first;
 * a rename with both ends matching is no change (the entry still names the same content). A
 * pattern skips files a literal entry names (`skip`): that entry reports them.
 */
function scan(commits: readonly CommitInfo[], test: (path: string) => boolean, skip: ReadonlySet<string> = new Set(), only: (ch: PathChange) => boolean = () => true): { sha: string; file: string } | undefined {
  for (const c of commits) {
    if (c.time < SAVED || c.changes.some((ch) => ch.path === CHECKPOINT)) continue;
    for (const ch of c.changes) {
      if (skip.has(ch.path) || (ch.from !== undefined && skip.has(ch.from)) || !only(ch)) continue;
      const renamedWithin = ch.from !== undefined && test(ch.from) && test(ch.path);
      if (!renamedWithin && (test(ch.path) || (ch.from !== undefined && test(ch.from)))) return { sha: c.sha, file: ch.path };
    }
  }
  return undefined;
}

/** A change that took away a file a pattern matches and that is not here now (deleted, or renamed out of it). */
const removes = (test: (path: string) => boolean) => (ch: PathChange) => {
  const gone = ch.status === 'D' ? ch.path : ch.status === 'R' && test(ch.from!) ? ch.from! : null;
  return gone !== null && !PRESENT.includes(gone);
};

/**
 * The files a wildcard pattern gained since the checkpoint: some commit since adds one (or renames
 * it in from outside the pattern), and none deletes it or renames it away. Their changes are not
 * drift; the newest commit adding one that is here is a note.
 */
function gained(commits: readonly CommitInfo[], test: (path: string) => boolean): { files: Set<string>; newest?: string } {
  const since = commits.filter((c) => c.time >= SAVED && !c.changes.some((ch) => ch.path === CHECKPOINT));
  const adds = (c: CommitInfo, f: string) => c.changes.some((ch) => ch.path === f && (ch.status === 'A' || ch.status === 'R') && test(f) && !(ch.from !== undefined && test(ch.from)));
  const leaves = (c: CommitInfo, f: string) => c.changes.some((ch) => (ch.status === 'D' && ch.path === f) || (ch.from === f && !test(ch.path)));
  const files = new Set(PATHS.filter((f) => since.some((c) => adds(c, f)) && !since.some((c) => leaves(c, f))));
  return { files, newest: since.find((c) => [...files].some((f) => PRESENT.includes(f) && adds(c, f)))?.sha };
}

const TESTS: Record<string, (path: string) => boolean> = {
  'src/a.ts (PR 12)': (p) => p === 'src/a.ts',
  'src/b.ts — draft': (p) => p === 'src/b.ts',
  'src/c d.ts': (p) => p === 'src/c d.ts',
  'lib/e.ts': (p) => p === 'lib/e.ts',
  'src/*.ts': (p) => /^src\/[^/]*\.ts$/.test(p),
  'src/{a,b}.ts': (p) => p === 'src/a.ts' || p === 'src/b.ts',
  'lib/**/*.ts (generated)': (p) => /^lib\/(?:.*\/)?[^/]*\.ts$/.test(p),
  '**/*.md': (p) => /^(?:.*\/)?[^/]*\.md$/.test(p),
};

describe('checkGeneratedFiles over a walk', () => {
  it('names the same newest commit and file as scanning every commit, for paths and patterns', () => {
    fc.assert(fc.property(walk, fc.subarray(ENTRIES, { minLength: 1 }), (commits, entries) => {
      const cp = { skill: 'api', updated_at: new Date(SAVED * 1000).toISOString(), context_primer: { generated_files: entries } } as unknown as Checkpoint;
      const findings = checkGeneratedFiles(cp, { root, evidence: { ...NO_EVIDENCE, commits }, checkpointRel: CHECKPOINT })(new Set());
      entries.forEach((entry, i) => {
        const found = findings.find((f) => f.path === `context_primer.generated_files[${i}]`);
        const pattern = /[*{]/.test(entry);
        const literals = new Set(PRESENT.filter((p) => entries.some((e) => !/[*{]/.test(e) && TESTS[e]!(p))));
        const wildcard = entry.includes('*');
        const gain = wildcard ? gained(commits, TESTS[entry]!) : { files: new Set<string>() };
        const skip = pattern ? new Set([...literals, ...gain.files]) : undefined;
        const expected = scan(commits, TESTS[entry]!, skip);
        if (entry === '**/*.md') {
          // None on disk: named with the newest commit that deleted or renamed away a match, if one did.
          const test = TESTS[entry]!;
          const removal = commits.find((c) => c.changes.some((x) => (x.status === 'D' && test(x.path)) || (x.from !== undefined && test(x.from) && !test(x.path))));
          expect(found?.message).toMatch(removal ? /^\*\*\/\*\.md matches no file \(its last match .+ was (deleted|renamed to .+) in [0-9a-f]{7} ".*"\); update the checkpoint \(`checkpoint update api --context_primer\.generated_files\.\d+='\*\*\/\*\.md \((deleted|renamed to .+)\)'`\)$/ : /^\*\*\/\*\.md matches no file; update the checkpoint$/);
          return expect(found?.evidence?.sha).toBe(removal?.sha);
        }
        if (pattern) {
          // A pattern's newest removal and its newest other change, each: one hides neither.
          const gone = removes(TESTS[entry]!);
          const both = [scan(commits, TESTS[entry]!, skip, gone), scan(commits, TESTS[entry]!, skip, (ch) => !gone(ch))].filter((x) => x !== undefined);
          const named = findings.filter((f) => f.path === `context_primer.generated_files[${i}]`);
          if (both.length) return expect(named.map((f) => f.evidence?.sha)).toEqual(both.map((x) => x.sha));
        }
        // Nothing it knew changed: the newest addition of a file it gained that is here is a note.
        const note = !expected && gain.newest !== undefined;
        expect(found?.evidence?.sha).toBe(expected?.sha ?? (note ? gain.newest : undefined));
        if (note) expect(found?.level).toBe('info');
        // A literal entry is named as written; a pattern's match by the changed path (by its old
        // path when deleted or renamed away).
        if (expected && pattern && !found!.evidence!.missing) expect(found!.evidence!.file).toBe(expected.file);
      });
    }), { numRuns: 300 });
  });
});

describe('a rename a pattern still covers (red team)', () => {
  const at = (sec: number, changes: PathChange[], i: number): CommitInfo => ({ sha: String(i).repeat(40), parents: [], subject: `commit ${i}`, body: '', time: sec, authorTime: sec, changes });
  const findings = (entries: string[], commits: CommitInfo[]) => {
    const cp = { skill: 'api', status: 'in_progress', updated_at: new Date(SAVED * 1000).toISOString(), context_primer: { generated_files: entries } } as unknown as Checkpoint;
    return checkGeneratedFiles(cp, { root, evidence: { ...NO_EVIDENCE, commits }, checkpointRel: CHECKPOINT })(new Set());
  };
  it('is no finding, and an older real change behind it is still named', () => {
    const rename = at(SAVED + 20, [{ status: 'R', from: 'src/old.ts', path: 'src/a.ts' }], 2);
    expect(findings(['src/*.ts (codegen, PR 12)'], [rename])).toEqual([]);
    const edit = at(SAVED + 10, [{ status: 'M', path: 'src/b.ts' }], 1);
    expect(findings(['src/*.ts (codegen, PR 12)'], [rename, edit]).map((f) => [f.level, f.evidence?.file, f.evidence?.sha])).toEqual([['warning', 'src/b.ts', edit.sha]]);
  });
  it('is a finding when the new name leaves the pattern', () => {
    const out = at(SAVED + 20, [{ status: 'R', from: 'src/old.ts', path: 'lib/old.ts' }], 3);
    expect(findings(['src/*.ts'], [out])[0]?.message).toMatch(/^src\/old\.ts \(matched by src\/\*\.ts\) was renamed to lib\/old\.ts after the checkpoint was written/);
  });
});

describe('a change a pull brought in (red team 60, 04)', () => {
  const sha = (c: string) => c.repeat(40);
  const commit = (c: string, sec: number, parents: string[], changes: PathChange[], subject = `commit ${c}`): CommitInfo => ({ sha: sha(c), parents: parents.map(sha), subject, body: '', time: sec, authorTime: sec, changes });
  const findings = (entries: string[], commits: CommitInfo[]) => {
    const cp = { skill: 'api', status: 'in_progress', updated_at: new Date(SAVED * 1000).toISOString(), context_primer: { generated_files: entries } } as unknown as Checkpoint;
    return checkGeneratedFiles(cp, { root, evidence: { ...NO_EVIDENCE, commits }, checkpointRel: CHECKPOINT })(new Set());
  };
  // base <- readme (ours) <- merge -> tune (a teammate's, pulled): the merge's first-parent diff shows src/a.ts.
  const base = commit('0', SAVED - 10, [], [{ status: 'M', path: CHECKPOINT }]);
  const tune = commit('1', SAVED + 10, ['0'], [{ status: 'M', path: 'src/a.ts' }], 'Tune limiter (#50)');
  const readme = commit('2', SAVED + 20, ['0'], [{ status: 'M', path: 'README.md' }]);
  const merge = commit('3', SAVED + 30, ['2', '1'], [{ status: 'M', path: 'src/a.ts' }], "Merge branch 'main' of github.com:acme/api");
  it('names the commit that changed the file, not the merge', () => {
    for (const entry of ['src/a.ts', 'src/*.ts']) {
      expect(findings([entry], [merge, readme, tune, base]).map((f) => [f.level, f.evidence?.sha, f.evidence?.date])).toEqual([['warning', tune.sha, new Date(tune.time * 1000).toISOString()]]);
    }
  });
  it('still names the merge when what it brought in was made before the save', () => {
    const old = { ...tune, time: SAVED - 5, authorTime: SAVED - 5 };
    expect(findings(['src/a.ts'], [merge, readme, base, old]).map((f) => f.evidence?.sha)).toEqual([merge.sha]);
  });
});
