// fileRevisions, the checkpoint files' first-parent history that dates queued actions: the
// embedded engine passes a commit by comparing the asked files' folders first (the same folder
// tree holds the same files) and looks at single files only inside a folder that changed. On
// random histories of nested files (siblings changed alone, folders removed and brought back, a
// folder that becomes a file and back, empty commits) it must list exactly what git lists.
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createHistory } from '../../src/git/index.js';
import { cleanup, git, makeRepo, write } from '../helpers/repo.js';

const ASKED = ['.checkpoints/a.checkpoint.json', '.checkpoints/b.checkpoint.json', '.checkpoints/sub/c.checkpoint.json', 'docs/d.md', 'top.txt'];
const NOT_ASKED = ['.checkpoints/notes.txt', '.checkpoints/sub/other.json', 'src/x.ts'];

type Step =
  | { kind: 'write'; path: string; text: number }
  | { kind: 'remove'; path: string }
  | { kind: 'removeFolder'; dir: string }
  | { kind: 'docsBecomesFile' }
  | { kind: 'empty' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), path: fc.constantFrom(...ASKED, ...NOT_ASKED), text: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ kind: fc.constant('remove' as const), path: fc.constantFrom(...ASKED) }),
  fc.record({ kind: fc.constant('removeFolder' as const), dir: fc.constantFrom('.checkpoints', '.checkpoints/sub', 'docs') }),
  fc.constant({ kind: 'docsBecomesFile' as const }),
  fc.constant({ kind: 'empty' as const }),
);

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

/** A plain file there (not a folder, nothing, or a path through a file). */
function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function apply(dir: string, s: Step): void {
  if (s.kind === 'write') {
    // A file where a folder on its path is a file now: that file goes first, as a user would move it.
    for (let at = s.path.indexOf('/'); at > 0; at = s.path.indexOf('/', at + 1)) {
      const prefix = join(dir, s.path.slice(0, at));
      if (isFile(prefix)) rmSync(prefix);
    }
    write(dir, s.path, `${s.path} v${s.text}\n`);
  } else if (s.kind === 'remove') {
    if (isFile(join(dir, s.path))) rmSync(join(dir, s.path));
  }
  else if (s.kind === 'removeFolder') rmSync(join(dir, s.dir), { recursive: true, force: true });
  else if (s.kind === 'docsBecomesFile') {
    rmSync(join(dir, 'docs'), { recursive: true, force: true });
    write(dir, 'docs', 'docs as a file\n');
  }
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '--allow-empty', '-m', s.kind]);
}

describe('fileRevisions on nested files: the embedded engine lists what git lists', () => {
  it('over random histories', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 12 }), async (steps) => {
        const dir = makeRepo();
        dirs.push(dir);
        for (const path of ASKED) write(dir, path, `${path} v0\n`);
        write(dir, 'src/x.ts', 'x\n');
        git(dir, ['add', '-A']);
        git(dir, ['commit', '-q', '-m', 'start']);
        for (const s of steps) apply(dir, s);
        const [native, iso] = await Promise.all([createHistory({ dir, engine: 'native' }), createHistory({ dir, engine: 'isomorphic' })]);
        expect(await iso.fileRevisions(ASKED)).toEqual(await native.fileRevisions(ASKED));
        cleanup(dirs.pop()!);
      }),
      { numRuns: 6 },
    );
  });

  it('a change and its revert in the next commit: both are revisions, though the folder is as it was two commits back', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    for (const path of ASKED) write(dir, path, `${path} v0\n`);
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '-m', 'start']);
    for (const s of [{ kind: 'empty' }, { kind: 'write', path: ASKED[0]!, text: 1 }, { kind: 'write', path: ASKED[0]!, text: 0 }, { kind: 'empty' }] as Step[]) apply(dir, s);
    const [native, iso] = await Promise.all([createHistory({ dir, engine: 'native' }), createHistory({ dir, engine: 'isomorphic' })]);
    const revisions = await native.fileRevisions(ASKED);
    expect(revisions.filter((r) => r.path === ASKED[0]).length).toBe(3);
    expect(await iso.fileRevisions(ASKED)).toEqual(revisions);
  });
});
