// A committer clock behind: a commit made after the checkpoint (its child in the graph) dated
// before the checkpoint's updated_at. The walk is bounded by date, so doctor looks further back
// for a missing file's removal, and says honestly when it found none. Real git, both engines.
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, commitAll, git, makeRepo, write, headSha } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

const ENGINES = ['native', 'isomorphic'] as const;
const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');

function checkpoint(files: string[], over: Record<string, unknown> = {}) {
  return {
    protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: '/home/someone/demo',
    created_at: '2026-06-01T09:00:00Z', updated_at: ago(121).replace('Z', '.250Z'),
    phase: 'build', step: 'spec', status: 'in_progress', progress_summary: 'Spec drafted; scored 8.0.',
    progress_table: [{ id: 'spec', label: 'Spec', status: 'in_progress' }],
    context_primer: { key_decisions: ['OpenAPI 3.1'], generated_files: files },
    next_actions: ['Review the spec with the API team'],
    ...over,
  };
}

type F = { level: string; path: string; message: string; evidence?: Record<string, unknown> };

async function entry(dir: string, engine: string, i: number): Promise<F | undefined> {
  const r = await runCli(dir, ['doctor', '--json', '--engine', engine]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout).findings as F[]).find((f) => f.path === `context_primer.generated_files[${i}]`);
}

describe.each(ENGINES)('a missing file removed by a commit with a clock behind (%s engine)', (engine) => {
  it('names the deleting or renaming commit though it is dated before the checkpoint', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, 'docs/spec.md', 'spec v1\n');
    write(dir, 'src/gen.ts', 'export const n = 8.0;\n');
    write(dir, 'src/keep.ts', 'keep\n');
    write(dir, FILE, `${JSON.stringify(checkpoint(['docs/spec.md (v1, PR 12)', 'src/gen.ts', 'src/keep.ts']), null, 2)}\n`);
    commitAll(dir, 'checkpoint: api', ago(120));
    // The next two commits come after it in the graph, from a machine whose clock is 3 hours behind.
    git(dir, ['rm', '-q', 'docs/spec.md']);
    const dropped = commitAll(dir, 'Drop the old spec', ago(300));
    git(dir, ['mv', 'src/gen.ts', 'src/generated.ts']);
    const moved = commitAll(dir, 'Rename the generated module', ago(290));
    // Then a commit with a right clock.
    write(dir, 'README.md', 'demo\n');
    commitAll(dir, 'Readme', ago(30));
    expect(await entry(dir, engine, 0)).toMatchObject({ level: 'warning', message: `docs/spec.md is missing: deleted in ${dropped.slice(0, 7)} "Drop the old spec"; update the checkpoint (\`checkpoint update api --context_primer.generated_files.0='docs/spec.md (v1, PR 12; deleted)'\`) or restore the file`, evidence: { file: 'docs/spec.md', missing: true, sha: dropped } });
    expect(await entry(dir, engine, 1)).toMatchObject({ level: 'warning', evidence: { file: 'src/gen.ts', sha: moved, renamed_to: 'src/generated.ts' } });
    expect(await entry(dir, engine, 2)).toBeUndefined();
  });

  it('a file no commit it searched removed is missing, saying so and how to look further back', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, 'docs/spec.md', 'spec v1\n');
    write(dir, FILE, `${JSON.stringify(checkpoint(['docs/spec.md (v1)', 'docs/typo-spec.md (v2, the typo fixed)']), null, 2)}\n`);
    commitAll(dir, 'checkpoint: api', ago(120));
    // A clock years behind: before even the walk_days bound.
    git(dir, ['rm', '-q', 'docs/spec.md']);
    const dropped = commitAll(dir, 'Drop the old spec', '2001-01-01T00:00:00Z');
    const hint = (file: string) => `(an older or misdated one may have: \`git log --full-history -1 -- ${file}\`)`;
    const spec = await entry(dir, engine, 0);
    expect(spec).toMatchObject({ level: 'warning', evidence: { file: 'docs/spec.md', missing: true } });
    expect(spec!.message).toMatch(/^docs\/spec\.md is missing; no commit in HEAD's history dated since \d{4}-\d\d-\d\d deleted or renamed it /);
    expect(spec!.message.endsWith(hint('docs/spec.md'))).toBe(true);
    // The command it names finds the commit.
    expect(git(dir, ['log', '--full-history', '-1', '--format=%H', '--', 'docs/spec.md']).trim()).toBe(dropped);
    expect((await entry(dir, engine, 1))!.message.endsWith(hint('docs/typo-spec.md'))).toBe(true);
    // With no bound (walk_days 0) all of HEAD's history is searched, and the line says so.
    write(dir, '.checkpoints/config.json', '{ "walk_days": 0 }\n');
    expect(await entry(dir, engine, 0)).toMatchObject({ level: 'warning', message: `docs/spec.md is missing: deleted in ${dropped.slice(0, 7)} "Drop the old spec"; update the checkpoint (\`checkpoint update api --context_primer.generated_files.0='docs/spec.md (v1; deleted)'\`) or restore the file` });
    expect(await entry(dir, engine, 1)).toMatchObject({ level: 'warning', message: "docs/typo-spec.md is missing; no commit in HEAD's history deleted or renamed it" });
  });
});

// A commit dated before the checkpoint sitting after it in the graph (a wrong clock, a
// cherry-pick that kept its old date): the walk goes past it, since it is not in the history of
// the commit that saved the checkpoint, so what landed behind it is still seen.
describe.each(ENGINES)('a commit dated before the checkpoint on top of the work after it (%s engine)', (engine) => {
  function landedBehindSkew(): { dir: string; merge: string; regen: string } {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, 'src/gen.ts', 'export const n = 8.0;\n');
    commitAll(dir, 'initial', ago(24 * 60));
    write(dir, FILE, `${JSON.stringify(checkpoint(['src/gen.ts (regenerated, PR 12)'], { next_actions: ['Finish PR #482 (invoice totals) and rebase it', 'Review the spec with the API team'] }), null, 2)}\n`);
    commitAll(dir, 'checkpoint: api', ago(120));
    git(dir, ['checkout', '-q', '-b', 'feat']);
    write(dir, 'src/totals.ts', 'totals\n');
    commitAll(dir, 'invoice totals', ago(60));
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--no-ff', 'feat', '-m', 'Merge pull request #482 from acme/feat'], { GIT_AUTHOR_DATE: ago(60), GIT_COMMITTER_DATE: ago(60) });
    const merge = headSha(dir);
    write(dir, 'src/gen.ts', 'export const n = 9.0;\n');
    const regen = commitAll(dir, 'Regenerate', ago(30));
    write(dir, 'src/fix.ts', 'fix\n');
    commitAll(dir, 'Cherry-picked fix (kept its date)', ago(30 * 24 * 60));
    return { dir, merge, regen };
  }

  it('doctor reports the landed PR and the changed generated file', async () => {
    const { dir, merge, regen } = landedBehindSkew();
    const r = await runCli(dir, ['doctor', '--json', '--engine', engine]);
    expect(r.code, r.stderr).toBe(0);
    const findings = JSON.parse(r.stdout).findings as F[];
    expect(findings.find((f) => f.path === 'next_actions[0]')).toMatchObject({ level: 'warning', evidence: { sha: merge } });
    expect(findings.find((f) => f.path === 'context_primer.generated_files[0]')).toMatchObject({ level: 'warning', evidence: { file: 'src/gen.ts', sha: regen } });
    // The pre-push hook's judgement of the same commits as pushed blocks on them too.
    const pushed = await runCli(dir, ['doctor', '--json', '--engine', engine, `--pushed=${git(dir, ['rev-parse', 'HEAD~4']).trim()}..${headSha(dir)}`]);
    const blocking = (JSON.parse(pushed.stdout).findings as (F & { blocks?: boolean })[]).filter((f) => f.blocks).map((f) => f.evidence?.sha);
    expect(blocking).toEqual(expect.arrayContaining([merge, regen]));
  });

  it('next and status say the PR landed', async () => {
    const { dir, merge } = landedBehindSkew();
    const next = await runCli(dir, ['next', '--engine', engine]);
    expect(next.stdout).toContain(`#482 landed in ${merge.slice(0, 7)} "Merge pull request #482 from acme/feat"`);
    const status = await runCli(dir, ['status', '--engine', engine]);
    expect(status.stdout).toContain(`already landed: #482 landed in ${merge.slice(0, 7)}`);
  });
});

describe('past a skewed commit, from the caches', () => {
  it('a second run on the same HEAD (walk cache, landed memo, dates memo) gives the same answers', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, FILE, `${JSON.stringify(checkpoint([], { next_actions: ['Merge PR #7 once CI is green'] }), null, 2)}\n`);
    commitAll(dir, 'checkpoint: api', ago(120));
    write(dir, 'src/a.ts', 'a\n');
    const merged = commitAll(dir, 'Merge pull request #7 from acme/a', ago(60));
    write(dir, 'src/b.ts', 'b\n');
    commitAll(dir, 'Rebased fix that kept its date', ago(60 * 24 * 40));
    for (let run = 0; run < 2; run++) {
      const doctor = await runCli(dir, ['doctor', '--json']);
      expect((JSON.parse(doctor.stdout).findings as F[]).find((f) => f.path === 'next_actions[0]'), `run ${run}`).toMatchObject({ evidence: { sha: merged } });
      expect((await runCli(dir, ['next'])).stdout, `run ${run}`).toContain(`#7 landed in ${merged.slice(0, 7)}`);
    }
  });
});
