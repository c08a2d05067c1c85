// fast-forward.ts reads HEAD's new commits from the object store. What it gives must be what
// git's walk gives for them; anything it cannot read as git would is no answer at all.
import { afterEach, describe, expect, it } from 'vitest';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fastForward, storedFolderFiles } from '../../src/git/fast-forward.js';
import { createHistory } from '../../src/git/index.js';
import { cleanup, commitAll, dateEnv, git, makeRepo, write, headSha } from '../helpers/repo.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

function repo(): { dir: string; base: string } {
  const dir = makeRepo();
  dirs.push(dir);
  write(dir, '.checkpoints/api.checkpoint.json', '{}\n');
  const base = commitAll(dir, 'base', '2026-02-01T00:00:00Z');
  return { dir, base };
}

const head = (dir: string) => headSha(dir);

describe('fastForward', () => {
  it('gives the new commits as git walks them, and which folders they changed', async () => {
    const { dir, base } = repo();
    write(dir, 'src/a.ts', 'a\n');
    commitAll(dir, 'Add a (#12)\n\nWhy it matters.\n\nMore.', '2026-02-02T00:00:00Z');
    write(dir, 'src/b.ts', 'b\n');
    commitAll(dir, 'Add b', '2026-02-03T00:00:00Z');
    const gained = fastForward(join(dir, '.git'), head(dir), base)!;
    const walked = await (await createHistory({ dir, engine: 'native' })).commitsSince(Date.parse('2026-02-02T00:00:00Z') / 1000, { changes: 'none' });
    expect(gained.commits).toEqual(walked);
    expect(gained.touches('src')).toBe(true);
    expect(gained.touches('.checkpoints')).toBe(false);
    // Dated before the walk's start: git would stop there.
    expect(fastForward(join(dir, '.git'), head(dir), base, Date.parse('2026-02-02T12:00:00Z') / 1000)).toBeNull();
  });

  it('answers that commits which changed no file touch nothing without reading a tree', () => {
    const { dir, base } = repo();
    git(dir, ['commit', '-q', '--allow-empty', '-m', 'Nothing changed']);
    git(dir, ['commit', '-q', '--allow-empty', '-m', 'Nor here']);
    // The root tree, gone: read, it would be "unread", which answers "touched" (ask git).
    const tree = git(dir, ['rev-parse', `${base}^{tree}`]).trim();
    rmSync(join(dir, '.git/objects', tree.slice(0, 2), tree.slice(2)));
    const gained = fastForward(join(dir, '.git'), head(dir), base)!;
    expect(gained.commits.map((c) => c.subject)).toEqual(['Nor here', 'Nothing changed']);
    expect(gained.touches('.checkpoints')).toBe(false);
  });

  it('describes the new commits within a scope as git does: additions, deletions, a mode change, a file become a folder, renames', async () => {
    const { dir } = repo();
    write(dir, 'src/a.ts', 'a\n');
    write(dir, 'src/gone.ts', 'gone\n');
    write(dir, 'docs/spec.md', 'spec\n');
    commitAll(dir, 'files', '2026-02-02T00:00:00Z');
    const from = head(dir);
    git(dir, ['rm', '-q', 'src/gone.ts']);
    git(dir, ['update-index', '--chmod=+x', 'src/a.ts']);
    git(dir, ['mv', 'docs/spec.md', 'docs/spec-v2.md']);
    commitAll(dir, 'rework', '2026-02-03T00:00:00Z');
    git(dir, ['rm', '-q', 'src/a.ts']);
    write(dir, 'src/a.ts/index.ts', 'now a folder\n');
    write(dir, 'other/x.ts', 'out of scope\n');
    commitAll(dir, 'a folder', '2026-02-04T00:00:00Z');
    const scope = ['src/a.ts', 'src/gone.ts', 'docs/spec.md', 'docs/spec-v2.md'];
    const since = Date.parse('2026-02-03T00:00:00Z') / 1000;
    const walked = await (await createHistory({ dir, engine: 'native' })).commitsSince(since, { changes: scope });
    expect(fastForward(join(dir, '.git'), head(dir), from, since)!.describedIn(scope)).toEqual(walked);
    expect(walked.flatMap((c) => c.changes).length).toBeGreaterThan(3);
  });

  it('carries from a merge: only the new commits need be plain', async () => {
    const { dir } = repo();
    git(dir, ['checkout', '-q', '-b', 'side']);
    commitAll(dir, 'side', '2026-02-02T00:00:00Z');
    git(dir, ['checkout', '-q', 'main']);
    commitAll(dir, 'main', '2026-02-03T00:00:00Z');
    git(dir, ['merge', '-q', '--no-ff', '-m', 'Merge pull request #5 from o/side', 'side'], dateEnv('2026-02-04T00:00:00Z'));
    const merge = head(dir);
    write(dir, 'src/after.ts', 'after\n');
    commitAll(dir, 'After the merge', '2026-02-05T00:00:00Z');
    const gained = fastForward(join(dir, '.git'), head(dir), merge)!;
    const walked = await (await createHistory({ dir, engine: 'native' })).commitsSince(Date.parse('2026-02-05T00:00:00Z') / 1000, { changes: 'none' });
    expect(gained.commits).toEqual(walked);
    expect(gained.touches('src')).toBe(true);
  });

  it('a folder changed and changed back still counts as changed', () => {
    const { dir, base } = repo();
    write(dir, '.checkpoints/api.checkpoint.json', '{"x":1}\n');
    commitAll(dir, 'change', '2026-02-02T00:00:00Z');
    write(dir, '.checkpoints/api.checkpoint.json', '{}\n');
    commitAll(dir, 'change back', '2026-02-03T00:00:00Z');
    expect(fastForward(join(dir, '.git'), head(dir), base)!.touches('.checkpoints')).toBe(true);
  });

  it('is no answer for a merge, a message git could read apart, or a HEAD not descending from the base', () => {
    const { dir, base } = repo();
    const gitDir = join(dir, '.git');
    // A carriage return in the message.
    commitAll(dir, 'line one\rstill one', '2026-02-02T00:00:00Z');
    expect(fastForward(gitDir, head(dir), base)).toBeNull();
    git(dir, ['reset', '-q', '--hard', base]);
    // Another encoding named in the commit.
    git(dir, ['-c', 'i18n.commitEncoding=ISO-8859-1', 'commit', '-q', '--allow-empty', '-m', 'caf\u00e9']);
    expect(fastForward(gitDir, head(dir), base)).toBeNull();
    git(dir, ['reset', '-q', '--hard', base]);
    // A merge.
    git(dir, ['checkout', '-q', '-b', 'side']);
    commitAll(dir, 'side', '2026-02-02T00:00:00Z');
    git(dir, ['checkout', '-q', 'main']);
    commitAll(dir, 'main', '2026-02-03T00:00:00Z');
    git(dir, ['merge', '-q', '--no-ff', '-m', 'merge', 'side']);
    expect(fastForward(gitDir, head(dir), base)).toBeNull();
    // Not a descendant.
    expect(fastForward(gitDir, base, head(dir))).toBeNull();
  });
});

describe('storedFolderFiles', () => {
  it('lists a folder of each commit as both engines do, loose or packed; no answer for a shallow history', async () => {
    const { dir, base } = repo();
    git(dir, ['rm', '-q', '.checkpoints/api.checkpoint.json']);
    write(dir, '.checkpoints/gw.checkpoint.json', '{ "skill": "gw" }\n');
    write(dir, '.checkpoints/sub/nested.checkpoint.json', '{}\n');
    write(dir, 'packages/app/.checkpoints/app.checkpoint.json', '{}\n');
    const renamed = commitAll(dir, 'rename api to gw', '2026-02-02T00:00:00Z');
    const gitDir = join(dir, '.git');
    const asked = [base, renamed];
    for (const packed of [false, true]) {
      if (packed) git(dir, ['repack', '-adq']);
      for (const folder of ['.checkpoints', 'packages/app/.checkpoints', 'nowhere', '.checkpoints/sub']) {
        const stored = storedFolderFiles(gitDir, asked, folder);
        for (const engine of ['native', 'isomorphic'] as const) expect(stored, `${folder} ${engine}`).toEqual(await (await createHistory({ dir, engine })).filesInEach(asked, [folder]));
      }
    }
    expect(storedFolderFiles(gitDir, asked, '.checkpoints')!.map((m) => [...m.keys()])).toEqual([['.checkpoints/api.checkpoint.json'], ['.checkpoints/gw.checkpoint.json']]);
    writeFileSync(join(gitDir, 'shallow'), `${base}\n`);
    expect(storedFolderFiles(gitDir, asked, '.checkpoints')).toBeNull();
  });
});
