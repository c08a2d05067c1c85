// `git replace` refs are local to a clone (a push does not carry them): both engines read the
// commits as everyone has them, never the replacements git log would show here (docs/doctor.md).
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createHistory, type EngineName } from '../../src/git/index.js';
import { commitAll, git, GIT_ENV, makeRepo, write } from '../helpers/repo.js';

const ENGINES: EngineName[] = ['native', 'isomorphic'];

describe('git replace refs', () => {
  it('are ignored by both engines: subjects, changes and ancestry are the original commits', async () => {
    const dir = makeRepo();
    write(dir, '.checkpoints/api.checkpoint.json', '{"skill": "api", "next_actions": ["Merge PR #12 (orders API)"]}\n');
    commitAll(dir, 'checkpoint: api', '2026-09-14T17:40:00Z');
    write(dir, 'src/orders.ts', 'export const orders = 8.0;\n');
    const landed = commitAll(dir, 'Orders API (#12)', '2026-09-15T09:00:00Z');
    write(dir, 'README.md', 'shop\n');
    commitAll(dir, 'docs: readme', '2026-09-16T09:00:00Z');
    // A local replacement of the landing commit: another message, no file changed.
    const original = git(dir, ['cat-file', 'commit', landed]);
    const parentTree = git(dir, ['rev-parse', `${landed}~1^{tree}`]).trim();
    const edited = original.replace('Orders API (#12)', 'Orders API rework').replace(/^tree [0-9a-f]{40}$/m, `tree ${parentTree}`);
    const replacement = execFileSync('git', ['hash-object', '-t', 'commit', '-w', '--stdin'], { cwd: dir, env: GIT_ENV, input: edited, encoding: 'utf8' }).trim();
    git(dir, ['replace', landed, replacement]);
    expect(git(dir, ['log', '--format=%s']).split('\n')).toContain('Orders API rework');

    for (const engine of ENGINES) {
      const history = await createHistory({ dir, engine });
      const commits = await history.commitsSince(0);
      const found = commits.find((c) => c.sha === landed);
      expect(found, engine).toMatchObject({ subject: 'Orders API (#12)', changes: [{ status: 'A', path: 'src/orders.ts' }] });
      expect(commits.map((c) => c.subject), engine).not.toContain('Orders API rework');
      expect((await history.commitsNaming(['#12'], 0)).map((c) => c.sha), engine).toEqual([landed]);
      expect(await history.isInHeadHistory(landed), engine).toBe(true);
    }
  });
});
