// Whatever git does between two runs, what status, next and doctor print with the answers kept
// (and carried over new commits, fast-forward.ts) is what they print with no cache at all.
// Random sequences of what happens in a clone between an agent's steps: code commits (some
// landing or reverting the queued PR, some removing or re-adding a listed file), a commit of the
// checkpoint, an uncommitted checkpoint edit, a merge, a backdated commit, an amend, a reset.
import fc from 'fast-check';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, commitAll, dateEnv, git, makeRepo, write } from '../helpers/repo.js';
import { freshCheckpoint } from '../helpers/fixtures.js';
import { firstRuns } from '../helpers/first-run.js';
import { builtOnce } from '../helpers/built-once.js';
import { runBuilt } from '../helpers/in-process.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

const COMMANDS = [['status', '--json'], ['next', '--json'], ['doctor', '--json']];
const CHECKPOINT = '.checkpoints/api.checkpoint.json';
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();

/**
 * A clone with the api checkpoint saved two days ago, or (`stale`) 500 days ago, past the
 * walk_days cut, with PR #12 landed soon after: then every run also searches older history for
 * the ids still queued, and that answer is carried too.
 */
function project(stale = false): string {
  // Built once per file for each kind, a copy for each run (builtOnce).
  const { dir } = builtOnce(stale ? 'stale project' : 'fresh project', () => ({ dir: buildProject(stale) }));
  dirs.push(dir);
  return dir;
}

function buildProject(stale: boolean): string {
  const dir = makeRepo();
  const ago = (n: number) => daysAgo(stale ? n + 498 : n);
  write(dir, 'src/app.ts', 'export const app = 1;\n');
  write(dir, 'src/limits.ts', 'export const limit = 0;\n');
  write(dir, 'docs/spec.md', '# spec\n');
  write(dir, CHECKPOINT, `${JSON.stringify(freshCheckpoint('api', {
    created_at: ago(3),
    updated_at: ago(2),
    next_actions: ['Merge PR #12 (rate limits)', 'Fix PLAT-7', 'Write the docs'],
    context_primer: { key_decisions: ['JWT in cookies'], generated_files: ['src/app.ts (PR 12)', 'src/limits.ts', 'docs/spec.md', 'docs/old-spec.md'] },
  }), null, 2)}\n`);
  commitAll(dir, 'Save the api checkpoint', ago(2));
  if (stale) commitAll(dir, 'Rate limits, first cut (#12)', ago(1));
  commitAll(dir, 'Unrelated work', daysAgo(1));
  return dir;
}

type Step = (dir: string, n: number) => void;
const edit = (dir: string, rel: string, n: number) => write(dir, rel, `// ${rel} ${n}\n`);
const STEPS: Record<string, Step> = {
  code: (dir, n) => (edit(dir, 'src/other.ts', n), commitAll(dir, `Other work ${n}`)),
  listed: (dir, n) => (edit(dir, 'src/app.ts', n), commitAll(dir, `Rework the app ${n}`)),
  landing: (dir, n) => (edit(dir, 'src/limits.ts', n), commitAll(dir, 'Rate limits (#12)')),
  ticket: (dir, n) => (edit(dir, 'src/fix.ts', n), commitAll(dir, 'PLAT-7: fix the crash')),
  revert: (dir) => commitAll(dir, 'Revert "Rate limits (#12)"'),
  remove: (dir) => {
    if (existsSync(join(dir, 'docs/spec.md'))) git(dir, ['rm', '-q', 'docs/spec.md']);
    commitAll(dir, 'Drop the spec');
  },
  readd: (dir, n) => (edit(dir, 'docs/old-spec.md', n), commitAll(dir, 'Bring the old spec back')),
  empty: (dir, n) => commitAll(dir, `Empty step ${n}`),
  checkpoint: (dir, n) => {
    const cp = JSON.parse(readFileSync(join(dir, CHECKPOINT), 'utf8'));
    cp.next_actions.push(`Step ${n} follow-up`);
    write(dir, CHECKPOINT, `${JSON.stringify(cp, null, 2)}\n`);
    commitAll(dir, `checkpoint: step ${n}`);
  },
  uncommitted: (dir, n) => {
    const cp = JSON.parse(readFileSync(join(dir, CHECKPOINT), 'utf8'));
    cp.progress_summary = `Edited by hand ${n}`;
    write(dir, CHECKPOINT, `${JSON.stringify(cp, null, 2)}\n`);
  },
  merge: (dir, n) => {
    // A hand edit left uncommitted stays so across the merge: git would not switch branches over
    // it when the commit before HEAD holds another version of the file.
    const edited = git(dir, ['status', '--porcelain', '--', CHECKPOINT]).trim() ? readFileSync(join(dir, CHECKPOINT), 'utf8') : null;
    if (edited !== null) git(dir, ['checkout', '-q', '--', CHECKPOINT]);
    git(dir, ['checkout', '-q', '-b', `side${n}`, 'HEAD~1']);
    edit(dir, `src/side${n}.ts`, n);
    commitAll(dir, `Side work ${n}`);
    git(dir, ['checkout', '-q', '-']);
    git(dir, ['merge', '-q', '--no-ff', '-m', `Merge pull request #${40 + n} from o/side${n}`, `side${n}`]);
    if (edited !== null) write(dir, CHECKPOINT, edited);
  },
  backdated: (dir, n) => (edit(dir, 'src/old.ts', n), commitAll(dir, 'Old work', daysAgo(30))),
  // A pull request branch with a commit landing #12 that kept its old date (a rebase: for a
  // stale checkpoint, after its save and before the first landing, below the cut), merged.
  oldmerge: (dir, n) => {
    const edited = git(dir, ['status', '--porcelain', '--', CHECKPOINT]).trim() ? readFileSync(join(dir, CHECKPOINT), 'utf8') : null;
    if (edited !== null) git(dir, ['checkout', '-q', '--', CHECKPOINT]);
    git(dir, ['checkout', '-q', '-b', `old${n}`, 'HEAD~1']);
    edit(dir, `src/old${n}.ts`, n);
    commitAll(dir, `Rate limits, rebased ${n} (#12)`, daysAgo(499.5));
    git(dir, ['checkout', '-q', '-']);
    git(dir, ['merge', '-q', '--no-ff', '-m', `Merge pull request #${60 + n} from o/old${n}`, `old${n}`]);
    if (edited !== null) write(dir, CHECKPOINT, edited);
  },
  amend: (dir) => git(dir, ['commit', '-q', '--amend', '--allow-empty', '-m', 'Amended'], dateEnv(new Date().toISOString())),
  // Never back to the root commit: the merge steps branch from HEAD~1 (two resets in a row on a fresh project did).
  reset: (dir) => {
    if (spawnSync('git', ['rev-parse', '-q', '--verify', 'HEAD~2^{commit}'], { cwd: dir }).status === 0) git(dir, ['reset', '-q', '--hard', 'HEAD~1']);
  },
};

/**
 * Each command's output, as printed with the caches as they are: by the built bundle's entry in
 * this process, as a new process would print it (runBuilt: the build's own caches, nothing in
 * memory from an earlier run, only what is on disk). test/e2e/fast-forward.test.ts runs the
 * binary itself on such carried answers.
 */
async function outputs(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const args of COMMANDS) {
    const r = await runBuilt(dir, args);
    out.push(`${r.code}\n${r.stdout}\n${r.stderr}`);
  }
  return out;
}

/**
 * The same as a first run says it: each command in-process, in a copy of the clone with no cache
 * (firstRuns); the clone's own caches are left as they are, so the next step carries from them.
 */
async function cold(dir: string): Promise<string[]> {
  return (await firstRuns(dir, COMMANDS)).map((r) => `${r.code}\n${r.stdout}\n${r.stderr}`);
}

describe('answers carried over new commits say what a run with no cache says', () => {
  it.each([['fresh', false], ['stale (past the walk_days cut)', true]])('after any sequence of steps between runs, checkpoint %s', async (_, stale) => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(fc.constantFrom(...Object.keys(STEPS)), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }), async (runs) => {
        const dir = project(stale);
        await outputs(dir);
        let n = 0;
        for (const steps of runs) {
          for (const step of steps) STEPS[step]!(dir, ++n);
          expect(await outputs(dir)).toEqual(await cold(dir));
        }
        cleanup(dir);
      }),
      { numRuns: 2, examples: [[[['landing'], ['revert'], ['remove', 'readd']]], [[['merge', 'code'], ['checkpoint', 'listed']]], [[['uncommitted', 'code'], ['uncommitted', 'merge']]], [[['oldmerge'], ['oldmerge', 'code'], ['checkpoint', 'oldmerge']]]] },
    );
  }, 600_000);
});
