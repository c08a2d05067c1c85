// uncommittedPaths is a read-only look: doctor runs it in a pre-push hook. The native engine's
// rare case (a file edited in the index and again in the work tree) compares the work tree
// with HEAD by content, as git does, without writing the index git refreshes meanwhile; its
// answer stays git's own and, but for autocrlf (below), the embedded engine's.
import { cpSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createHistory } from '../../src/git/index.js';
import { commitAll, git, makeRepo, settleIndex, tempDir, write } from '../helpers/repo.js';
import { dirState } from '../helpers/dir-state.js';

/** git's own answer, asked in a copy of the repository (git diff refreshes the copy's index). */
function gitSays(dir: string, paths: readonly string[]): string[] {
  const copy = tempDir('cp-gitsays-');
  cpSync(dir, copy, { recursive: true });
  const listed = new Set(git(copy, ['diff', 'HEAD', '--name-only', '-z', '--no-renames', '--', ...paths]).split('\0'));
  return paths.filter((p) => listed.has(p));
}

/** Unsure for git status: changed in the index (X) and again in the work tree (Y). */
function statusOf(dir: string, path: string): string {
  return git(dir, ['--no-optional-locks', 'status', '--porcelain=v2', '--', path], { GIT_OPTIONAL_LOCKS: '0' }).slice(2, 4);
}

const HOUR_AGO = new Date(Date.now() - 3_600_000);

it('staged edits the work tree edited again, undid, or only touched: git\'s answer, both engines alike, .git untouched', async () => {
  const dir = makeRepo();
  write(dir, 'src/gen.ts', 'export const a = 1;\n');
  write(dir, 'src/undone.ts', 'export const b = 1;\n');
  write(dir, 'src/touched.ts', 'export const c = 1;\n');
  write(dir, 'src/undone then touched.ts', 'export const d = 1;\n');
  write(dir, 'src/clean.ts', 'export const e = 1;\n');
  write(dir, '.checkpoints/api.checkpoint.json', '{"skill": "api", "updated_at": "2026-08-02T09:30:00Z", "cost": {"total_usd": 8.0}}\n');
  commitAll(dir, 'files', '2026-08-01T10:00:00Z');
  settleIndex(dir, HOUR_AGO);
  // Staged, then edited again.
  write(dir, 'src/gen.ts', 'export const a = 2;\n');
  git(dir, ['add', 'src/gen.ts']);
  write(dir, 'src/gen.ts', 'export const a = 3;\n');
  // Staged, then the work tree put back to HEAD's content: the work tree equals HEAD.
  for (const file of ['src/undone.ts', 'src/undone then touched.ts']) {
    const before = readFileSync(join(dir, file));
    write(dir, file, '// wip\n');
    git(dir, ['add', file]);
    writeFileSync(join(dir, file), before);
  }
  // Staged, then only its stat changed (a touch): the work tree holds the staged edit.
  write(dir, 'src/touched.ts', 'export const c = 2;\n');
  git(dir, ['add', 'src/touched.ts']);
  const later = new Date(Date.now() + 5_000);
  utimesSync(join(dir, 'src/touched.ts'), later, later);
  utimesSync(join(dir, 'src/undone then touched.ts'), later, later);
  // A committed file touched alone: unchanged.
  utimesSync(join(dir, 'src/clean.ts'), later, later);
  // The checkpoint itself, mid-session: staged, then edited again.
  write(dir, '.checkpoints/api.checkpoint.json', '{"skill": "api", "updated_at": "2026-08-03T09:30:00Z"}\n');
  git(dir, ['add', '.checkpoints']);
  write(dir, '.checkpoints/api.checkpoint.json', '{"skill": "api", "updated_at": "2026-08-04T09:30:00Z"}\n');

  const paths = ['src/gen.ts', 'src/undone.ts', 'src/touched.ts', 'src/undone then touched.ts', 'src/clean.ts', '.checkpoints/api.checkpoint.json', 'src/never.ts'];
  expect(paths.map((p) => statusOf(dir, p))).toEqual(['MM', 'MM', 'M.', 'MM', '', 'MM', '']);
  const expected = ['src/gen.ts', 'src/touched.ts', '.checkpoints/api.checkpoint.json'];
  expect(gitSays(dir, paths)).toEqual(expected);
  // The index copy lives in TMPDIR for the one git run, then goes.
  const tmp = tempDir('cp-tmpdir-');
  for (const engine of ['native', 'isomorphic'] as const) {
    const before = dirState(join(dir, '.git'));
    expect(await withTmpdir(tmp, async () => (await createHistory({ dir, engine })).uncommittedPaths(paths)), engine).toEqual(expected);
    expect(dirState(join(dir, '.git')), `${engine} wrote under .git`).toEqual(before);
    expect(readdirSync(tmp)).toEqual([]);
  }
  // No temporary folder to copy it to: one line with the way out, never git's own index written.
  const before = dirState(join(dir, '.git'));
  const refused = withTmpdir(join(tmp, 'missing'), async () => (await createHistory({ dir, engine: 'native' })).uncommittedPaths(paths));
  await expect(refused).rejects.toMatchObject({ code: 'E_GIT', message: expect.stringMatching(/^could not copy the index .* \(ENOENT in .*missing\)$/), hint: expect.stringContaining('TMPDIR') });
  expect(dirState(join(dir, '.git'))).toEqual(before);
});

async function withTmpdir<T>(tmp: string, run: () => Promise<T>): Promise<T> {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    return await run();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

it('autocrlf: a staged edit the work tree undid in CRLF is unchanged, as git compares; .git untouched', async () => {
  const dir = makeRepo();
  // One file committed with LF, one with CRLF before core.autocrlf was turned on (git then keeps its CRLF).
  write(dir, 'lf.txt', 'one\ntwo\n');
  write(dir, 'crlf.txt', 'one\r\ntwo\r\n');
  write(dir, 'crlf edited.txt', 'one\r\ntwo\r\n');
  commitAll(dir, 'files', '2026-08-01T10:00:00Z');
  git(dir, ['config', 'core.autocrlf', 'true']);
  settleIndex(dir, HOUR_AGO);
  for (const [file, staged, now] of [
    ['lf.txt', 'one\r\nthree\r\n', 'one\r\ntwo\r\n'],
    ['crlf.txt', 'one\r\nthree\r\n', 'one\r\ntwo\r\n'],
    ['crlf edited.txt', 'one\r\nthree\r\n', 'one\r\nfour\r\n'],
  ] as const) {
    write(dir, file, staged);
    git(dir, ['add', file]);
    write(dir, file, now);
  }
  const paths = ['lf.txt', 'crlf.txt', 'crlf edited.txt'];
  expect(paths.map((p) => statusOf(dir, p))).toEqual(['MM', 'MM', 'MM']);
  // git compares the work tree after its conversion: lf.txt's CRLF text is HEAD's LF blob. It
  // leaves crlf.txt unconverted (its staged blob holds CRs): byte for byte HEAD's. Hashing the
  // files through their filters alone (git hash-object) would call crlf.txt changed.
  const expected = ['crlf edited.txt'];
  expect(gitSays(dir, paths)).toEqual(expected);
  const before = dirState(join(dir, '.git'));
  expect(await (await createHistory({ dir, engine: 'native' })).uncommittedPaths(paths)).toEqual(expected);
  expect(dirState(join(dir, '.git'))).toEqual(before);
  // The embedded engine reads no autocrlf or attributes: it compares bytes, so it calls the
  // CRLF checkout of an LF blob changed (as it does without a staged edit). Where bytes decide, it agrees.
  const iso = await (await createHistory({ dir, engine: 'isomorphic' })).uncommittedPaths(paths);
  expect(iso.filter((p) => p !== 'lf.txt')).toEqual(expected);
});
