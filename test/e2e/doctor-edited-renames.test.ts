// A listed file moved with an edit in the same commit (`git mv` plus a line: git says R098) is
// named as renamed, as an exact move is, on both engines: in the work tree's check, under the
// pre-push hook (--pushed), and past the walk_days cut. A rewrite under git's 50% stays a deletion.
import { describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { commitAll, git, makeRepo, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

const ENGINES = ['native', 'isomorphic'] as const;
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `export const ${tag}${i} = ${i};\n`).join('');

function checkpoint(status: string, saved: number) {
  return {
    protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: '/elsewhere/demo',
    created_at: daysAgo(saved + 1), updated_at: daysAgo(saved), phase: 'build', step: 'client', status,
    progress_summary: 'Client and server generated.',
    progress_table: [{ id: 'gen', label: 'Generate', status: status === 'complete' ? 'complete' : 'in_progress' }],
    context_primer: { key_decisions: [], generated_files: ['src/client.ts', 'src/server.ts'] },
    next_actions: status === 'complete' ? [] : ['Wire the client'],
  };
}

type Move = 'edited' | 'rewritten' | 'deleted beside an addition';

/**
 * A checkpoint listing src/client.ts and src/server.ts, then one commit moving src/server.ts to
 * lib/ as it is and doing `move` to src/client.ts (`saved`, `moved`: days ago), then a commit of
 * its own a day ago.
 */
function movedRepo(status: string, move: Move, { saved = 3, moved = 2 } = {}): { dir: string; base: string; sha: string } {
  const dir = makeRepo();
  const client = lines(100, 'client');
  write(dir, 'src/client.ts', client);
  write(dir, 'src/server.ts', lines(50, 'server'));
  write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint(status, saved), null, 2)}\n`);
  const base = commitAll(dir, 'checkpoint: api', daysAgo(saved));
  rmSync(join(dir, 'src/server.ts'));
  write(dir, 'lib/server.ts', lines(50, 'server'));
  rmSync(join(dir, 'src/client.ts'));
  // git: R098; a rewrite of 60 lines out of 100: under 50% similar; an unrelated file.
  if (move === 'edited') write(dir, 'lib/client.ts', `${client}export const client100 = 100;\n`);
  if (move === 'rewritten') write(dir, 'lib/client.ts', client.split('\n').map((l, i) => (i < 60 ? `export const other${i} = ${i};` : l)).join('\n'));
  if (move === 'deleted beside an addition') write(dir, 'lib/unrelated.ts', lines(100, 'unrelated'));
  const sha = commitAll(dir, 'move generated code to lib/', daysAgo(moved));
  write(dir, 'README.md', 'readme\n');
  commitAll(dir, 'readme', daysAgo(1));
  return { dir, base, sha };
}

async function generatedFindings(dir: string, engine: string, extra: string[] = []): Promise<{ code: number; files: { level: string; message: string; blocks?: boolean; evidence: { renamed_to?: string; sha?: string } }[] }> {
  const r = await runCli(dir, ['doctor', '--json', '--engine', engine, ...extra]);
  const report = JSON.parse(r.stdout);
  return { code: r.code, files: report.findings.filter((f: { check: string }) => f.check === 'generated_files') };
}

describe.each(ENGINES)('a listed file moved with edits, %s engine', (engine) => {
  it('is renamed, as the exact move beside it is: advice for a complete skill, and the push goes through', async () => {
    const { dir, base, sha } = movedRepo('complete', 'edited');
    expect(git(dir, ['diff-tree', '-M', '--name-status', '--no-commit-id', '-r', sha])).toContain('R098\tsrc/client.ts\tlib/client.ts');
    const { files } = await generatedFindings(dir, engine);
    expect(files.map((f) => [f.level, f.message])).toEqual([
      ['advice', `src/client.ts is missing: renamed to lib/client.ts in ${sha.slice(0, 7)}; update the checkpoint (\`checkpoint update api --context_primer.generated_files.0='src/client.ts (renamed to lib/client.ts)'\`)`],
      ['advice', `src/server.ts is missing: renamed to lib/server.ts in ${sha.slice(0, 7)}; update the checkpoint (\`checkpoint update api --context_primer.generated_files.1='src/server.ts (renamed to lib/server.ts)'\`)`],
    ]);
    expect(files[0]!.evidence).toMatchObject({ renamed_to: 'lib/client.ts', sha });
    expect((await runCli(dir, ['doctor', '--fail-on-warnings', '--engine', engine])).code).toBe(0);
    const pushed = await runCli(dir, ['doctor', '--fail-on-warnings', '--engine', engine, '--pushed', `${base}..${sha}`]);
    expect(pushed.code, pushed.stdout).toBe(0);
  });

  it('is renamed for a skill in progress too: drift, in the exact rename\'s words, blocking the push', async () => {
    const { dir, base, sha } = movedRepo('in_progress', 'edited');
    const { files } = await generatedFindings(dir, engine);
    expect(files.map((f) => [f.level, f.message])).toEqual([
      ['warning', `src/client.ts is missing: renamed to lib/client.ts in ${sha.slice(0, 7)}; update the checkpoint (\`checkpoint update api --context_primer.generated_files.0='src/client.ts (renamed to lib/client.ts)'\`)`],
      ['warning', `src/server.ts is missing: renamed to lib/server.ts in ${sha.slice(0, 7)}; update the checkpoint (\`checkpoint update api --context_primer.generated_files.1='src/server.ts (renamed to lib/server.ts)'\`)`],
    ]);
    const pushed = await generatedFindings(dir, engine, ['--fail-on-warnings', '--pushed', `${base}..${sha}`]);
    expect(pushed.code).toBe(1);
    expect(pushed.files.filter((f) => f.blocks).map((f) => f.message)).toEqual([
      expect.stringMatching(new RegExp(`^src/client\\.ts is missing: renamed to lib/client\\.ts in ${sha.slice(0, 7)}`)),
      expect.stringMatching(new RegExp(`^src/server\\.ts is missing: renamed to lib/server\\.ts in ${sha.slice(0, 7)}`)),
    ]);
  });

  it.each(['rewritten', 'deleted beside an addition'] as const)('%s (under git\'s threshold, half alike) is still deleted: drift, and the push is refused', async (move) => {
    const { dir, base, sha } = movedRepo('complete', move);
    const { files } = await generatedFindings(dir, engine);
    expect(files.map((f) => [f.level, f.message])).toEqual([
      ['warning', `src/client.ts is missing: deleted in ${sha.slice(0, 7)} "move generated code to lib/"; update the checkpoint (\`checkpoint update api --context_primer.generated_files.0='src/client.ts (deleted)'\`) or restore the file`],
      ['advice', `src/server.ts is missing: renamed to lib/server.ts in ${sha.slice(0, 7)}; update the checkpoint (\`checkpoint update api --context_primer.generated_files.1='src/server.ts (renamed to lib/server.ts)'\`)`],
    ]);
    expect(files[0]!.evidence.renamed_to).toBeUndefined();
    const pushed = await generatedFindings(dir, engine, ['--fail-on-warnings', '--pushed', `${base}..${sha}`]);
    expect(pushed.code).toBe(1);
    expect(pushed.files.filter((f) => f.blocks).map((f) => f.message)).toEqual([expect.stringMatching(new RegExp(`^src/client\\.ts is missing: deleted in ${sha.slice(0, 7)} "move generated code to lib/"; update the checkpoint \\(.+\\) or restore the file`))]);
  });

  it('a bare name and a path with a space, moved into a folder with an edit, are renamed too: the push goes through', async () => {
    // The walk lists these under the top's files and docs/: the commit's addition lies outside both.
    const dir = makeRepo();
    const cp = { ...checkpoint('complete', 3), context_primer: { key_decisions: [], generated_files: ['Makefile', 'docs/my notes.md'] } };
    write(dir, 'Makefile', lines(80, 'make'));
    write(dir, 'docs/my notes.md', lines(80, 'notes'));
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(cp, null, 2)}\n`);
    const base = commitAll(dir, 'checkpoint: api', daysAgo(3));
    rmSync(join(dir, 'Makefile'));
    rmSync(join(dir, 'docs/my notes.md'));
    write(dir, 'build/Makefile', lines(80, 'make').split('\n').slice(1).join('\n'));
    write(dir, 'lib/my notes.md', lines(80, 'notes').split('\n').slice(1).join('\n'));
    const sha = commitAll(dir, 'move the Makefile and the notes, a line dropped each', daysAgo(2));
    expect(git(dir, ['diff-tree', '-M', '--name-status', '--no-commit-id', '-r', sha])).toMatch(/R0\d\d\tMakefile\tbuild\/Makefile/);
    const { files } = await generatedFindings(dir, engine);
    expect(files.map((f) => [f.level, f.message])).toEqual([
      ['advice', `Makefile is missing: renamed to build/Makefile in ${sha.slice(0, 7)}; update the checkpoint (\`checkpoint update api --context_primer.generated_files.0='Makefile (renamed to build/Makefile)'\`)`],
      ['advice', `docs/my notes.md is missing: renamed to lib/my notes.md in ${sha.slice(0, 7)}; update the checkpoint (\`checkpoint update api --context_primer.generated_files.1='docs/my notes.md (renamed to lib/my notes.md)'\`)`],
    ]);
    const pushed = await runCli(dir, ['doctor', '--fail-on-warnings', '--engine', engine, '--pushed', `${base}..${sha}`]);
    expect(pushed.code, pushed.stdout).toBe(0);
  });

  it('before the walk_days cut, the removal found in older history is named as a rename too', async () => {
    const { dir, sha } = movedRepo('complete', 'edited', { saved: 730, moved: 500 });
    const { files } = await generatedFindings(dir, engine);
    expect(files.map((f) => f.message)).toEqual([
      `src/client.ts is missing: renamed to lib/client.ts in ${sha.slice(0, 7)}; update the checkpoint (\`checkpoint update api --context_primer.generated_files.0='src/client.ts (renamed to lib/client.ts)'\`)`,
      `src/server.ts is missing: renamed to lib/server.ts in ${sha.slice(0, 7)}; update the checkpoint (\`checkpoint update api --context_primer.generated_files.1='src/server.ts (renamed to lib/server.ts)'\`)`,
    ]);
  });
});
