// Property test: random small commit DAGs (merges, several roots, clock skew, tied times,
// duplicate and empty contents, files turning into directories) built with git
// fast-import. Both engines must match a model computed from the generated DAG itself.
import fc from 'fast-check';
import { chmodSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { createHistory } from '../../src/git/index.js';
import { cleanup, git, write } from '../helpers/repo.js';
import { buildDagRepo, expectedCommitsSince, expectedWalk, type DagCommit } from './dag-repo.js';

const PATHS = ['a', 'b', 'd/c', 'd/e', 'x', 'x/y', 'f/g/h'];
const CONTENTS = ['', 'one\n', 'two\n', 'three\n'];
const MESSAGES = ['subject', 'subject\n\nbody line\n', 'two\nline subject\n\n\nbody\n\n', 'Merge pull request #3 from a/b\n\nsquash (#3)\n', "Merge branch 'alice/plat-7-x'\n\nBody\n"];
/** commitsNaming's tokens (ASCII here) match with their letters in either case. */
const foldCase = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());
const BASE_TIME = 1_767_225_600;

type Op = { kind: 'write'; path: string; content: string } | { kind: 'delete'; path: string } | { kind: 'move'; path: string; to: string };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), path: fc.constantFrom(...PATHS), content: fc.constantFrom(...CONTENTS) }),
  fc.record({ kind: fc.constant('delete' as const), path: fc.constantFrom(...PATHS) }),
  fc.record({ kind: fc.constant('move' as const), path: fc.constantFrom(...PATHS), to: fc.constantFrom(...PATHS) }),
);

interface CommitSpec {
  parentPicks: number[];
  timeStep: number;
  message: string;
  ops: Op[];
}

const commitSpecArb: fc.Arbitrary<CommitSpec> = fc.record({
  parentPicks: fc.array(fc.nat(), { maxLength: 2 }),
  timeStep: fc.integer({ min: 0, max: 6 }),
  message: fc.constantFrom(...MESSAGES),
  ops: fc.array(opArb, { minLength: 1, maxLength: 3 }),
});

const scenarioArb = fc.record({
  specs: fc.array(commitSpecArb, { minLength: 1, maxLength: 8 }),
  headPick: fc.nat(),
  worktree: fc.array(opArb, { maxLength: 3 }),
});

/** A file and a directory of the same name cannot coexist: writing one removes the other. */
function place(files: Map<string, string>, path: string, content: string): void {
  for (const existing of [...files.keys()]) {
    if (existing.startsWith(`${path}/`) || path.startsWith(`${existing}/`)) files.delete(existing);
  }
  files.set(path, content);
}

function apply(files: Map<string, string>, op: Op): void {
  if (op.kind === 'write') place(files, op.path, op.content);
  else if (op.kind === 'delete') files.delete(op.path);
  else {
    const content = files.get(op.path);
    if (content === undefined || op.to === op.path) return;
    files.delete(op.path);
    place(files, op.to, content);
  }
}

function toDag(specs: CommitSpec[]): DagCommit[] {
  const commits: DagCommit[] = [];
  for (const [i, spec] of specs.entries()) {
    // Commit 0 is a root; a later commit with no picks is another root.
    const parents = i === 0 ? [] : [...new Set(spec.parentPicks.map((p) => p % i))];
    const files = new Map(parents[0] === undefined ? [] : (commits[parents[0]] as DagCommit).files);
    for (const op of spec.ops) apply(files, op);
    // Times step both ways around the base, so parents are sometimes newer than children.
    // The index in the subject keeps otherwise identical commits from sharing one sha.
    const message = `${i} ${spec.message}`;
    commits.push({ parents, time: BASE_TIME + ((spec.timeStep * (i + 3)) % 7) * 3600, message, files });
  }
  return commits;
}

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) cleanup(dir);
});

it('both engines match the model on random commit DAGs', async () => {
  await fc.assert(
    fc.asyncProperty(scenarioArb, async ({ specs, headPick, worktree }) => {
      const commits = toDag(specs);
      const head = headPick % commits.length;
      const repo = buildDagRepo(commits, head);
      made.push(repo.dir);

      git(repo.dir, ['reset', '-q', '--hard']);
      const onDisk = new Map((commits[head] as DagCommit).files);
      for (const op of worktree) apply(onDisk, op);
      for (const path of PATHS) rmSync(join(repo.dir, path), { force: true, recursive: true });
      for (const [path, content] of onDisk) write(repo.dir, path, content);
      if (onDisk.has('a')) chmodSync(join(repo.dir, 'a'), 0o644);
      const committed = (commits[head] as DagCommit).files;
      const expectedUncommitted = PATHS.filter((p) => committed.get(p) !== onDisk.get(p));

      const times = [...new Set(commits.flatMap((c) => [c.time, c.time + 1]))];
      for (const engine of ['native', 'isomorphic'] as const) {
        const history = await createHistory({ dir: repo.dir, engine });
        expect(await history.head()).toEqual({ sha: repo.shas[head], branch: `c${head}` });
        for (const since of [0, ...times]) {
          expect(await history.commitsSince(since)).toEqual(expectedCommitsSince(repo, commits, head, since));
          expect(await history.commitsSince(since, { changes: 'none' })).toEqual(expectedCommitsSince(repo, commits, head, since, []));
        }
        for (const scope of [['d'], ['x', 'f/g'], ['a', 'd/c']]) {
          expect(await history.commitsSince(0, { changes: scope })).toEqual(expectedCommitsSince(repo, commits, head, 0, scope));
        }
        for (const [i] of commits.entries()) {
          const sha = repo.shas[i] as string;
          expect(await history.resolveCommit(sha.slice(0, 10))).toBe(sha);
          // Ancestry by the graph alone: with no time cut-off the walk reaches every ancestor.
          expect(await history.isInHeadHistory(sha)).toBe(expectedWalk(commits, head, -Infinity).has(i));
        }
        expect(await history.uncommittedPaths(PATHS)).toEqual(expectedUncommitted);
        for (const since of [0, times[1] ?? 0]) {
          const walked = expectedCommitsSince(repo, commits, head, since, []);
          // Tokens in a subject, only in a body, and in no message.
          for (const tokens of [['#3'], ['body'], ['line', 'subject'], ['#4'], ['PLAT-7']]) {
            expect(await history.commitsNaming(tokens, since)).toEqual(walked.filter((c) => tokens.some((t) => foldCase(`${c.subject}\n${c.body}`).includes(foldCase(t)))));
          }
          // Per path, the newest walked commit whose first-parent changes delete it or rename it away.
          const full = expectedCommitsSince(repo, commits, head, since);
          const removing = new Set(PATHS.flatMap((p) => full.find((c) => c.changes.some((ch) => (ch.status === 'D' && ch.path === p) || (ch.status === 'R' && ch.from === p)))?.sha ?? []));
          expect(await history.lastRemovals(PATHS, since)).toEqual(full.filter((c) => removing.has(c.sha)));
          // Asked together, as doctor asks them (the isomorphic engine shares one reader between them): same answers.
          const tokens = ['#3', 'body'];
          expect(await Promise.all([history.commitsNaming(tokens, since), history.lastRemovals(PATHS, since)])).toEqual([
            walked.filter((c) => tokens.some((t) => foldCase(`${c.subject}\n${c.body}`).includes(foldCase(t)))),
            full.filter((c) => removing.has(c.sha)),
          ]);
        }
      }
    }),
    { numRuns: 6 },
  );
});
