// The gateway's index check, in one process as the MCP server lives: refused while a FIFO sits at
// .git/index, answered again once it is repaired; history questions never refused for it.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitOutputSync, runGit, runGitSync } from '../../src/git/git-process.js';
import { cleanup, commitAll, makeRepo, write } from '../helpers/repo.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

function repoWithFifoIndex(): { dir: string; index: string; saved: string } {
  const dir = makeRepo();
  dirs.push(dir);
  write(dir, 'src/x.ts (PR 12)', 'export const x = 8.0;\n');
  commitAll(dir, 'x (#12)', '2026-06-01T10:00:00Z');
  const index = join(dir, '.git/index');
  const saved = join(dir, 'index.saved');
  copyFileSync(index, saved);
  rmSync(index);
  execFileSync('mkfifo', [index]);
  return { dir, index, saved };
}

describe('assertIndexNotBlocking through the gateway', () => {
  it('refuses index readers (sync and async) in one E_GIT line with the repair, from a subfolder too', async () => {
    const { dir, index } = repoWithFifoIndex();
    mkdirSync(join(dir, 'src/deep'), { recursive: true });
    for (const cwd of [dir, join(dir, 'src/deep')]) {
      expect(() => gitOutputSync(cwd, ['ls-files', '--unmerged', '-z'])).toThrow(`git cannot read the index ${index}: it is a FIFO, not a file`);
      expect(() => runGitSync(cwd, ['add', '--', 'src'])).toThrow(/E_GIT|git cannot read the index/);
      await expect(runGit(cwd, ['--no-optional-locks', 'status', '--porcelain', '-z'])).rejects.toMatchObject({ code: 'E_GIT', hint: expect.stringContaining(`rm ${index} && git reset`) });
    }
  });

  it('lets history questions through, and index readers again once the index is repaired in the same process', async () => {
    const { dir, index, saved } = repoWithFifoIndex();
    expect((await runGit(dir, ['-c', 'core.quotepath=off', 'log', '--format=%s', 'HEAD'])).stdout).toContain('x (#12)');
    expect(gitOutputSync(dir, ['rev-parse', '--short', 'HEAD'])).toMatch(/^[0-9a-f]+\n$/);
    expect(() => gitOutputSync(dir, ['ls-files'])).toThrow(/git cannot read the index/);
    rmSync(index);
    copyFileSync(saved, index);
    expect(gitOutputSync(dir, ['ls-files'])).toContain('src/x.ts (PR 12)');
  });
});
