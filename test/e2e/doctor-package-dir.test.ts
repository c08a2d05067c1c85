// A monorepo package's checkpoint kept at the repository's top (project_dir <repo>/packages/app),
// listing its files from that folder ("src/index.ts", "gen/*.ts"): the work tree's check and the
// pushed tip's read each entry there alike, a glob and a deleted file too (red team, 12-06). Real
// git, a local bare remote, both engines.
import { describe, expect, it } from 'vitest';
import { generatedFileFindings as fileFindings, type DoctorFinding as F } from '../helpers/in-process.js';
import { checkpointDoc } from '../helpers/fixtures.js';
import { commitAll, git, gitTry, headSha, makeRepo, write, initialized, withRemote } from '../helpers/repo.js';

const ENGINES = ['native', 'isomorphic'];

/** The package's sources, published; then its checkpoint committed on top, not pushed yet. */
function monorepo(): { dir: string; base: string; tip: string } {
  const dir = makeRepo();
  withRemote(dir);
  initialized(dir);
  write(dir, 'README.md', '# mono\n');
  write(dir, 'packages/app/src/index.ts', 'export {};\n');
  write(dir, 'packages/app/gen/client.ts', 'export {};\n');
  write(dir, 'packages/app/gen/server.ts', 'export {};\n');
  const base = commitAll(dir, 'app sources', '2026-03-13T17:40:00Z');
  expect(gitTry(dir, ['push', '-q', '--no-verify', 'origin', 'main']).status).toBe(0);
  const doc = checkpointDoc({
    skill: 'app', project: 'app', project_dir: `${dir}/packages/app`, created_at: '2026-03-14T08:00:00Z', updated_at: '2026-03-14T08:00:00Z',
    context_primer: { key_decisions: ['k'], generated_files: ['src/index.ts', 'gen/*.ts', 'README.md'], user_preferences: [] },
  });
  write(dir, '.checkpoints/app.checkpoint.json', `${JSON.stringify(doc, null, 2)}\n`);
  const tip = commitAll(dir, 'save app checkpoint', '2026-03-14T08:02:00Z');
  return { dir, base, tip };
}

const shown = (fs: F[]) => fs.map((f) => `${f.level} ${f.path}: ${f.message}`);

describe('a package checkpoint kept at the top reads its entries from project_dir (red team, 12-06)', () => {
  it('a push carrying the checkpoint, its files in the package folder, is judged as the work tree is: nothing missing, nothing blocks', async () => {
    const { dir, base, tip } = monorepo();
    for (const engine of ENGINES) {
      expect(shown(await fileFindings(dir, engine)), engine).toEqual([]);
      expect(shown(await fileFindings(dir, engine, ['--fail-on-warnings', '--pushed', `${base}..${tip}`])), engine).toEqual([]);
    }
    const r = gitTry(dir, ['push', 'origin', 'main']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it('a glob reads the package folder: a match changed after the save, then its last matches deleted, are named there', async () => {
    const { dir, tip } = monorepo();
    write(dir, 'packages/app/gen/client.ts', 'export const c = 1;\n');
    const edited = commitAll(dir, 'regenerate client', '2026-03-15T09:00:00Z');
    for (const engine of ENGINES) {
      const work = (await fileFindings(dir, engine)).map((f) => f.message);
      expect(work, engine).toEqual([expect.stringMatching(new RegExp(`^packages/app/gen/client.ts \\(matched by gen/\\*.ts\\) changed after the checkpoint was written \\(${edited.slice(0, 7)} "regenerate client"`))]);
      const pushed = (await fileFindings(dir, engine, ['--fail-on-warnings', '--pushed', `${tip}..${edited}`])).filter((f) => f.blocks).map((f) => f.message);
      expect(pushed.join('\n'), engine).toMatch(new RegExp(`packages/app/gen/client.ts .*changed after the checkpoint was written \\(${edited.slice(0, 7)}`));
    }
    git(dir, ['rm', '-q', 'packages/app/gen/client.ts', 'packages/app/gen/server.ts']);
    const gone = commitAll(dir, 'drop generated code', '2026-03-15T10:00:00Z');
    for (const engine of ENGINES) {
      const work = (await fileFindings(dir, engine)).map((f) => f.message);
      expect(work.join('\n'), engine).toMatch(new RegExp(`gen/\\*.ts matches no file \\(its last match packages/app/gen/(client|server).ts was deleted in ${gone.slice(0, 7)} "drop generated code"\\)`));
      const pushed = (await fileFindings(dir, engine, ['--fail-on-warnings', '--pushed', `${edited}..${gone}`])).filter((f) => f.blocks).map((f) => f.message);
      expect(pushed.join('\n'), engine).toMatch(new RegExp(`gen/\\*.ts matches no file \\(its last match packages/app/gen/(client|server).ts was deleted in ${gone.slice(0, 7)}`));
    }
  });

  it('a file deleted from the package folder names the commit that deleted it, in the work tree and the pushed tip', async () => {
    const { dir, tip } = monorepo();
    git(dir, ['rm', '-q', 'packages/app/src/index.ts']);
    const gone = commitAll(dir, 'drop the entry point', '2026-03-15T09:00:00Z');
    for (const engine of ENGINES) {
      const work = (await fileFindings(dir, engine)).map((f) => f.message);
      expect(work, engine).toEqual([`packages/app/src/index.ts is missing: deleted in ${gone.slice(0, 7)} "drop the entry point"; update the checkpoint (\`checkpoint update app --context_primer.generated_files.0='src/index.ts (deleted)'\`) or restore the file`]);
      const pushed = (await fileFindings(dir, engine, ['--fail-on-warnings', '--pushed', `${tip}..${gone}`])).filter((f) => f.blocks).map((f) => f.message);
      // The tip's finding is the work tree's (mergePushed pairs them), now blocking.
      expect(pushed, engine).toEqual([`packages/app/src/index.ts is missing: deleted in ${gone.slice(0, 7)} "drop the entry point"; update the checkpoint (\`checkpoint update app --context_primer.generated_files.0='src/index.ts (deleted)'\`) or restore the file`]);
    }
    expect(headSha(dir)).toBe(gone);
  });
});
