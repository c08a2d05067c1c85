// Engine selection, repository discovery and the errors users see.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { isCheckpointError } from '../../src/errors.js';
import { createHistory, findGitRoot } from '../../src/git/index.js';
import { runGit } from '../../src/git/git-process.js';
import { cleanup, git, makeRepo, tempDir } from '../helpers/repo.js';

const repo = makeRepo();
const outside = tempDir();
mkdirSync(join(repo, 'deep/er'), { recursive: true });
const savedPath = process.env.PATH;

afterEach(() => {
  process.env.PATH = savedPath;
});
afterAll(() => {
  cleanup(repo);
  cleanup(outside);
});

/** The rejection of `promise`, asserted to be a one-line CheckpointError with `code`. */
async function failure(promise: Promise<unknown>, code: string): Promise<string> {
  const error = await promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  expect(isCheckpointError(error) && error.code).toBe(code);
  const message = (error as Error).message;
  expect(message).not.toContain('\n');
  return message;
}

describe('createHistory', () => {
  it('opens the work-tree root from any directory inside it', async () => {
    for (const engine of ['native', 'isomorphic'] as const) {
      const history = await createHistory({ dir: join(repo, 'deep/er'), engine });
      expect(history.dir).toBe(repo);
      expect(history.engine).toBe(engine);
    }
  });

  it('a lone carriage return in a message is kept by both engines, as git keeps it (the text shows it escaped)', async () => {
    const dir = makeRepo();
    try {
      writeFileSync(join(dir, 'g.md'), 'x\n');
      git(dir, ['add', '-A']);
      git(dir, ['commit', '-q', '-m', 'Edit\r  warning: fake line\n\nbody\r\nmore']);
      const [native, isomorphic] = await Promise.all((['native', 'isomorphic'] as const).map(async (engine) => (await createHistory({ dir, engine })).commitsSince(0)));
      expect(native![0]!.subject).toBe('Edit\r  warning: fake line');
      expect(isomorphic).toEqual(native);
    } finally {
      cleanup(dir);
    }
  });

  it('a git run the system refuses to start (an argument over its limit) is one E_GIT error, never an internal one', async () => {
    const run = runGit(repo, ['log', `--grep=${'x'.repeat(200 * 1024)}`]);
    expect(await failure(run, 'E_GIT')).toMatch(/^could not run git: .*E2BIG/);
  });

  it('auto picks native when git is on PATH, isomorphic when it is not', async () => {
    expect((await createHistory({ dir: repo })).engine).toBe('native');
    process.env.PATH = outside;
    expect((await createHistory({ dir: repo })).engine).toBe('isomorphic');
    expect(await failure(createHistory({ dir: repo, engine: 'native' }), 'E_GIT')).toBe('git executable not found on PATH');
  });

  it('refuses directories that are not in a repository, or do not exist', async () => {
    expect(await failure(createHistory({ dir: outside }), 'E_GIT')).toMatch(/^not a git repository/);
    expect(await failure(createHistory({ dir: join(outside, 'nope') }), 'E_GIT')).toMatch(/^not a directory/);
  });

  it('reports a broken .git file as E_GIT from either engine', async () => {
    const broken = tempDir();
    try {
      writeFileSync(join(broken, '.git'), 'this is not a gitdir pointer\n');
      await failure(createHistory({ dir: broken, engine: 'isomorphic' }), 'E_GIT');
      const native = await createHistory({ dir: broken, engine: 'native' });
      await failure(native.commitsSince(0), 'E_GIT');
    } finally {
      cleanup(broken);
    }
  });

  it('rejects bad arguments the same way in both engines', async () => {
    for (const engine of ['native', 'isomorphic'] as const) {
      const history = await createHistory({ dir: repo, engine });
      await failure(history.uncommittedPaths(['../escape']), 'E_PATH');
      await failure(history.commitsSince(Number.NaN), 'E_USAGE');
      expect(await history.commitsSince(Number.POSITIVE_INFINITY)).toEqual([]);
      expect((await history.commitsSince(Number.NEGATIVE_INFINITY)).map((c) => c.subject)).toEqual(['root']);
    }
  });
});

describe('findGitRoot', () => {
  it('walks up to the directory holding .git', async () => {
    expect(await findGitRoot(join(repo, 'deep/er'))).toBe(repo);
    expect(await findGitRoot(outside)).toBeNull();
  });
});
