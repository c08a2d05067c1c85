// A file renamed with edits in one commit: both engines pair it by the shared rule
// (similarity.ts), and that rule must give git's own answer (`git diff-tree -M`, 50%) on
// generated moves: small and heavy edits, CRLF, long lines, a second deleted file, a decoy added one.
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHistory, type GitHistory } from '../../src/git/index.js';
import { pairSimilarFiles, similarityPercent, similarityScore, spanCounts } from '../../src/git/similarity.js';
import { git } from '../helpers/repo.js';
import { buildDagRepo, type DagCommit } from './dag-repo.js';

const line = fc.oneof(
  fc.integer({ min: 0, max: 300 }).map((n) => `export const v${n} = ${n};`),
  // Longer than 64 bytes: git cuts it into spans of 64.
  fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 3, max: 8 })).map(([n, k]) => `// ${`note ${n} `.repeat(k * 3)}`),
);
const edit = fc.record({ kind: fc.constantFrom('insert', 'delete', 'replace'), at: fc.nat(), text: line });
const move = fc.record({
  base: fc.array(line, { minLength: 1, maxLength: 60 }),
  edits: fc.array(edit, { maxLength: 50 }),
  // The share of lines rewritten (percent): the heavier, the nearer git's 50% line.
  rewrite: fc.integer({ min: 0, max: 100 }),
  crlf: fc.boolean(),
  to: fc.constantFrom('lib/a.ts', 'lib/b.ts', 'src/gen/a.ts'),
  // Another file deleted in the same commit, and one added: which pairs with which is git's choice too.
  other: fc.option(fc.array(line, { minLength: 1, maxLength: 30 }), { nil: undefined }),
  decoy: fc.option(fc.tuple(fc.nat(), fc.nat()), { nil: undefined }),
});
type Move = typeof move extends fc.Arbitrary<infer T> ? T : never;

function edited(m: Move): string[] {
  const lines = [...m.base];
  for (const e of m.edits) {
    const at = lines.length ? e.at % lines.length : 0;
    if (e.kind === 'insert') lines.splice(at, 0, e.text);
    else if (e.kind === 'delete' && lines.length > 1) lines.splice(at, 1);
    else lines[at] = e.text;
  }
  return lines.map((l, j) => ((j * 37) % 100 < m.rewrite ? `export const rewritten${j} = ${j};` : l));
}

/** The commit before the move and the commit making it (the moved file and the others, if any). */
function commitsOf(m: Move, i: number): [Omit<DagCommit, 'parents'>, Omit<DagCommit, 'parents'>] {
  const text = (lines: readonly string[], eol = '\n') => lines.map((l) => l + eol).join('');
  const before = new Map([['src/a.ts', text(m.base)], ['README.md', `case ${i}\n`]]);
  if (m.other) before.set('src/other.ts', text(m.other));
  const after = new Map([['README.md', `case ${i}\n`], [m.to, text(edited(m), m.crlf ? '\r\n' : '\n')]]);
  if (m.other) after.set('lib/other.ts', text([...m.other.slice(1), ...m.base.slice(0, 3)]));
  if (m.decoy) {
    const [from, n] = m.decoy;
    after.set('lib/decoy.ts', text(m.base.slice(from % m.base.length, (from % m.base.length) + 1 + (n % 40))));
  }
  return [{ time: 1_700_000_000 + 2 * i, message: `before ${i}`, files: before }, { time: 1_700_000_001 + 2 * i, message: `move ${i}`, files: after }];
}

const MOVES = fc.sample(move, { numRuns: 40, seed: 47 });
let repo: { dir: string; shas: string[] };
let engines: GitHistory[];

beforeAll(async () => {
  const commits: DagCommit[] = MOVES.flatMap((m, i) => {
    const [before, after] = commitsOf(m, i);
    return [{ ...before, parents: [] }, { ...after, parents: [2 * i] }];
  });
  repo = buildDagRepo(commits, commits.length - 1);
  engines = await Promise.all((['native', 'isomorphic'] as const).map((engine) => createHistory({ dir: repo.dir, engine })));
});

/** git's own renames in a commit (`git diff-tree -M`): old path -> new path. */
function gitRenames(sha: string): Map<string, string> {
  const fields = git(repo.dir, ['diff-tree', '-M', '-r', '-z', '--name-status', '--no-commit-id', sha]).split('\0');
  const out = new Map<string, string>();
  for (let i = 0; i < fields.length; i++) if (fields[i]!.startsWith('R')) out.set(fields[i + 1]!, fields[i + 2]!);
  return out;
}

/** An engine's renames in a commit: the exact ones its changes pair, then the edited ones it is asked about. */
async function engineRenames(history: GitHistory, sha: string): Promise<Map<string, string>> {
  const [commit] = await history.changesOf([sha]);
  const out = new Map(commit!.changes.flatMap((ch) => (ch.status === 'R' ? [[ch.from!, ch.path] as const] : [])));
  const deleted = commit!.changes.flatMap((ch) => (ch.status === 'D' ? [ch.path] : []));
  for (const [from, to] of await history.editedRenames(sha, deleted)) out.set(from, to);
  return out;
}

describe('renames with edits', () => {
  it('both engines pair a moved file as git -M does', async () => {
    let renamed = 0;
    for (const [i] of MOVES.entries()) {
      const sha = repo.shas[2 * i + 1]!;
      const expected = gitRenames(sha);
      for (const history of engines) expect([history.engine, i, [...(await engineRenames(history, sha))].sort()]).toEqual([history.engine, i, [...expected].sort()]);
      if (expected.has('src/a.ts')) renamed++;
    }
    // Both sides of the 50% line are exercised.
    expect(renamed).toBeGreaterThan(5);
    expect(renamed).toBeLessThan(MOVES.length - 5);
  });

  it('a file deleted while an unrelated one is added stays deleted; asking about no deletion costs no read', async () => {
    for (const history of engines) {
      const sha = repo.shas[1]!;
      expect(await history.editedRenames(sha, [])).toEqual(new Map());
      expect(await history.editedRenames(sha, ['README.md'])).toEqual(new Map());
      expect(await history.editedRenames('0'.repeat(40), ['src/a.ts'])).toEqual(new Map());
      expect(await history.editedRenames(repo.shas[0]!, ['src/a.ts'])).toEqual(new Map());
    }
  });

  it('scores as git prints them: a line appended to 100 is 98%, empty files never pair', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `${i + 1}\n`).join('');
    const measured = (s: string) => ({ size: Buffer.byteLength(s), spans: spanCounts(Buffer.from(s)) });
    expect(similarityPercent(similarityScore(measured(lines), measured(`${lines}101\n`)))).toBe(98);
    expect(pairSimilarFiles([{ path: 'a', bytes: new Uint8Array() }], [{ path: 'b', bytes: new Uint8Array() }])).toEqual(new Map());
    // A CR before LF does not count in a text file.
    expect(similarityPercent(similarityScore(measured(lines), measured(lines.replaceAll('\n', '\r\n'))))).toBe(Math.floor((Buffer.byteLength(lines) * 100) / Buffer.byteLength(lines.replaceAll('\n', '\r\n'))));
  });
});
