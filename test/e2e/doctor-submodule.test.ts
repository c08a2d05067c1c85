// A submodule listed in generated_files by its path ("vendor/sub", "vendor/sub/"), or a file inside
// it: never missing from a pushed tip, even when the push carries the commit that added it; once
// `git rm vendor/sub` removes it, that commit is named, with or without the slash (red team,
// 12-06). Real git, a local bare remote, both engines.
import { beforeAll, describe, expect, it } from 'vitest';
import { generatedFileFindings as fileFindings } from '../helpers/in-process.js';
import { checkpointDoc } from '../helpers/fixtures.js';
import { join } from 'node:path';
import { assertBuilt, cli, commitAll, git, gitTry, makeRepo, tempDir, write, initialized, withRemote } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

const ENGINES = ['native', 'isomorphic'];
beforeAll(assertBuilt);
const LISTED = ['vendor/sub', 'vendor/sub/', 'vendor/sub/lib/s.ts'];

/** Published with nothing vendored; then the submodule added and the checkpoint listing it, both not pushed yet. */
function vendored(): { dir: string; base: string; tip: string } {
  const sub = makeRepo();
  write(sub, 'lib/s.ts', 'export {};\n');
  commitAll(sub, 'sub init');
  const dir = makeRepo();
  withRemote(dir);
  initialized(dir);
  write(dir, 'README.md', '# demo\n');
  const base = commitAll(dir, 'init', '2026-03-13T17:40:00Z');
  expect(gitTry(dir, ['push', '-q', '--no-verify', 'origin', 'main']).status).toBe(0);
  git(dir, ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'vendor/sub']);
  commitAll(dir, 'add submodule vendor/sub', '2026-03-14T08:00:00Z');
  const doc = checkpointDoc({
    skill: 'demo', project: 'p', project_dir: dir, created_at: '2026-03-14T08:01:00Z', updated_at: '2026-03-14T08:01:00Z',
    context_primer: { key_decisions: ['k'], generated_files: LISTED, user_preferences: [] },
  });
  write(dir, '.checkpoints/demo.checkpoint.json', `${JSON.stringify(doc, null, 2)}\n`);
  const tip = commitAll(dir, 'save checkpoint', '2026-03-14T08:02:00Z');
  return { dir, base, tip };
}

describe('a submodule listed in generated_files (red team, 12-06)', () => {
  it('is in the pushed tip that adds it: no finding blocks the push carrying the submodule and the checkpoint', async () => {
    const { dir, base, tip } = vendored();
    for (const engine of ENGINES) {
      expect((await fileFindings(dir, engine)).filter((f) => f.level === 'warning'), engine).toEqual([]);
      expect((await fileFindings(dir, engine, ['--fail-on-warnings', '--pushed', `${base}..${tip}`])).filter((f) => f.blocks), engine).toEqual([]);
    }
    const r = gitTry(dir, ['push', 'origin', 'main']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it('removed by `git rm vendor/sub`: the commit that did it is named for the entry with and without the slash, in the work tree and the pushed tip', async () => {
    const { dir, tip } = vendored();
    expect(gitTry(dir, ['push', '-q', '--no-verify', 'origin', 'main']).status).toBe(0);
    git(dir, ['rm', '-q', 'vendor/sub']);
    const gone = commitAll(dir, 'drop the vendored lib', '2026-03-15T09:00:00Z');
    const said = (sha: string, entry: string, i: number) => `${entry} is missing: deleted in ${sha.slice(0, 7)} "drop the vendored lib"; update the checkpoint (\`checkpoint update demo --context_primer.generated_files.${i}='${entry} (deleted)'\`) or restore the file`;
    for (const engine of ENGINES) {
      const work = (await fileFindings(dir, engine)).filter((f) => f.path !== 'context_primer.generated_files[2]').map((f) => f.message);
      expect(work, engine).toEqual([said(gone, 'vendor/sub', 0), said(gone, 'vendor/sub/', 1)]);
      const pushed = (await fileFindings(dir, engine, ['--fail-on-warnings', '--pushed', `${tip}..${gone}`])).filter((f) => f.blocks && f.path !== 'context_primer.generated_files[2]').map((f) => f.message);
      expect(pushed, engine).toEqual([said(gone, 'vendor/sub', 0), said(gone, 'vendor/sub/', 1)]);
    }
    const r = gitTry(dir, ['push', 'origin', 'main']);
    expect(r.status, r.stdout + r.stderr).not.toBe(0);
  });

  it('a file or glob inside a submodule a clone did not check out (no --recurse-submodules) is a note, never missing; a checked-out one still is', async () => {
    const { dir } = vendored();
    // Also listed: a glob inside it, and a file its checkout does not hold.
    const listed = [...LISTED, 'vendor/sub/lib/*.ts', 'vendor/sub/lib/legacy_v1.ts'];
    const doc = checkpointDoc({
      skill: 'demo', project: 'p', project_dir: dir, status: 'complete', created_at: '2026-03-14T08:01:00Z', updated_at: '2026-03-14T08:03:00Z',
      context_primer: { key_decisions: ['k'], generated_files: listed, user_preferences: [] },
    });
    write(dir, '.checkpoints/demo.checkpoint.json', `${JSON.stringify(doc, null, 2)}\n`);
    commitAll(dir, 'list more of the lib', '2026-03-14T08:03:00Z');
    const clone = join(tempDir('cp-clone-'), 'clone');
    git(dir, ['clone', '-q', dir, clone]);
    const install = cli(clone, ['install-driver']);
    expect(install.code, install.stderr).toBe(0);
    const init = `inside submodule vendor/sub, which is not checked out here (git submodule update --init vendor/sub); not checked`;
    for (const engine of ENGINES) {
      const found = await fileFindings(clone, engine);
      expect(found.map((f) => [f.level, f.message]), engine).toEqual([
        ['info', `vendor/sub/lib/s.ts is ${init}`],
        ['info', `vendor/sub/lib/*.ts matches no file in this checkout: ${init}`],
        ['info', `vendor/sub/lib/legacy_v1.ts is ${init}`],
      ]);
      const ci = await runCli(clone, ['doctor', '--fail-on-warnings', '--engine', engine]);
      expect(ci.code, engine + ci.stdout + ci.stderr).toBe(0);
      // Where the submodule is checked out, what its checkout lacks is missing, as before.
      const there = (await fileFindings(dir, engine)).filter((f) => f.level === 'warning').map((f) => f.path);
      expect(there, engine).toEqual(['context_primer.generated_files[4]']);
    }
  });
  it('a glob whose fixed folder is above a submodule a clone did not check out is a note naming it; one that reaches no submodule still matches no file', async () => {
    const { dir } = vendored();
    // "vendor/*/lib/*.ts" and "vendor/**/s.ts" could match in vendor/sub; "tools/*/lib/*.ts" and "vendor/*.ts" could not.
    const listed = ['vendor/*/lib/*.ts', 'vendor/**/s.ts', 'tools/*/lib/*.ts', 'vendor/*.ts (old shims)'];
    const doc = checkpointDoc({
      skill: 'demo', project: 'p', project_dir: dir, status: 'waiting on review', created_at: '2026-03-14T08:01:00Z', updated_at: '2026-03-14T08:03:00Z',
      context_primer: { key_decisions: ['k'], generated_files: listed, user_preferences: [] },
    });
    write(dir, '.checkpoints/demo.checkpoint.json', `${JSON.stringify(doc, null, 2)}\n`);
    commitAll(dir, 'list the lib by globs', '2026-03-14T08:03:00Z');
    const clone = join(tempDir('cp-clone-'), 'clone');
    git(dir, ['clone', '-q', dir, clone]);
    expect(cli(clone, ['install-driver']).code).toBe(0);
    const init = 'matches no file in this checkout: inside submodule vendor/sub, which is not checked out here (git submodule update --init vendor/sub); not checked';
    for (const engine of ENGINES) {
      const found = (await fileFindings(clone, engine)).map((f) => [f.level, f.message]);
      expect(found, engine).toEqual([
        ['info', `vendor/*/lib/*.ts ${init}`],
        ['info', `vendor/**/s.ts ${init}`],
        ['warning', 'tools/*/lib/*.ts matches no file; update the checkpoint'],
        ['warning', 'vendor/*.ts matches no file; update the checkpoint'],
      ]);
      // Checked out, the globs match its files: nothing about them.
      expect((await fileFindings(dir, engine)).filter((f) => f.message.includes('vendor/*/lib') || f.message.includes('vendor/**')), engine).toEqual([]);
    }
  });
});
