// Builds a repository from a commit DAG described in memory, in one `git fast-import`
// run, and computes what a correct engine must answer for it: blob oids are hashed here,
// file changes come from diffing the in-memory trees, walks follow the documented rule.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { pairExactRenames, type RawChange } from '../../src/git/renames.js';
import { newestByGraph, splitMessage } from '../../src/git/normalize.js';
import type { CommitInfo } from '../../src/git/types.js';
import { GIT_ENV, git, makeRepo } from '../helpers/repo.js';

/** Path -> file content. */
export type Files = ReadonlyMap<string, string>;

export interface DagCommit {
  /** Indexes of earlier commits, first parent first; empty for a root. */
  parents: number[];
  time: number;
  message: string;
  files: Files;
}

export interface DagRepo {
  dir: string;
  shas: string[];
}

/** Writes every commit on its own branch `c<i>` and points HEAD at commit `head`. */
export function buildDagRepo(commits: readonly DagCommit[], head: number): DagRepo {
  const dir = makeRepo({ commit: false });
  const chunks: string[] = [];
  commits.forEach((commit, i) => {
    chunks.push(`commit refs/heads/c${i}`, `mark :${i + 1}`, `committer Test <test@example.com> ${commit.time} +0000`);
    chunks.push(`data ${Buffer.byteLength(commit.message)}`, commit.message);
    const [first, ...merged] = commit.parents;
    if (first !== undefined) chunks.push(`from :${first + 1}`);
    for (const parent of merged) chunks.push(`merge :${parent + 1}`);
    chunks.push('deleteall');
    for (const [path, content] of commit.files) chunks.push(`M 100644 inline ${path}`, `data ${Buffer.byteLength(content)}`, content);
    chunks.push('');
  });
  chunks.push('done', '');
  execFileSync('git', ['fast-import', '--quiet', '--done'], { cwd: dir, env: GIT_ENV, input: chunks.join('\n'), stdio: ['pipe', 'ignore', 'pipe'] });
  const refs = new Map(
    git(dir, ['for-each-ref', '--format=%(refname:short) %(objectname)', 'refs/heads/'])
      .trim()
      .split('\n')
      .map((line) => line.split(' ') as [string, string]),
  );
  git(dir, ['symbolic-ref', 'HEAD', `refs/heads/c${head}`]);
  return { dir, shas: commits.map((_, i) => refs.get(`c${i}`) as string) };
}

export function blobOid(content: string): string {
  const bytes = Buffer.from(content);
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** Indexes reachable from `head` without passing a commit older than `since`. */
export function expectedWalk(commits: readonly DagCommit[], head: number, since: number): Set<number> {
  const reached = new Set<number>();
  const pending = [head];
  while (pending.length > 0) {
    const i = pending.pop() as number;
    const commit = commits[i] as DagCommit;
    if (reached.has(i) || commit.time < since) continue;
    reached.add(i);
    pending.push(...commit.parents);
  }
  return reached;
}

/** The model's answer; `scope` keeps only the raw changes at or under those paths before pairing renames (null: all). */
export function expectedCommitsSince(repo: DagRepo, commits: readonly DagCommit[], head: number, since: number, scope: readonly string[] | null = null): CommitInfo[] {
  const inScope = (path: string) => scope === null || scope.some((p) => path === p || path.startsWith(`${p}/`));
  return newestByGraph([...expectedWalk(commits, head, since)]
    .map((i) => {
      const commit = commits[i] as DagCommit;
      const firstParent = commit.parents[0];
      const before = firstParent === undefined ? new Map<string, string>() : (commits[firstParent] as DagCommit).files;
      return {
        sha: repo.shas[i] as string,
        parents: commit.parents.map((p) => repo.shas[p] as string),
        ...splitMessage(commit.message),
        time: commit.time,
        authorTime: commit.time,
        changes: pairExactRenames(diffFiles(before, commit.files).filter((c) => inScope(c.path))),
      };
    }));
}

function diffFiles(before: Files, after: Files): RawChange[] {
  const changes: RawChange[] = [];
  for (const [path, content] of before) {
    const now = after.get(path);
    if (now === undefined) changes.push({ status: 'D', path, oid: blobOid(content) });
    else if (now !== content) changes.push({ status: 'M', path, oid: blobOid(now) });
  }
  for (const [path, content] of after) if (!before.has(path)) changes.push({ status: 'A', path, oid: blobOid(content) });
  return changes;
}
