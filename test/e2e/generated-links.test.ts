// generated_files entries reached through a link out of the repository, or naming a FIFO, are one
// note each saying what they are: the same on both engines, the same whether or not anything lies
// where the link points, and under the pre-push hook never "commit it" (git can commit neither:
// a path beyond a symlink, a FIFO) (red team s12 #5). A real repo, a real `git push` through the hook.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, cliGuarded, git, gitTry, makeRepo, tempDir, write, headSha, initialized } from '../helpers/repo.js';

const ENTRIES = ['src/x.ts', 'docs/out/present.md', 'docs/out/absent.md', 'docs/out/*.md', 'docs/fifo.md', 'docs/pw.md', 'docs/only/*.md'];

interface Found { level: string; path: string; message: string; blocks?: boolean }

function doctor(dir: string, args: string[]): Found[] {
  const r = cliGuarded(dir, ['doctor', '--json', ...args]);
  expect(r.signal, r.stderr).toBeNull();
  return (JSON.parse(r.stdout).findings as Found[]).filter((f) => f.path.startsWith('context_primer.generated_files'));
}

function project(): { dir: string; outside: string; remote: string } {
  const dir = makeRepo();
  const outside = tempDir('cp-outside-');
  const remote = tempDir('cp-remote-');
  git(remote, ['init', '-q', '--bare']);
  git(dir, ['remote', 'add', 'origin', remote]);
  initialized(dir);
  write(dir, 'src/x.ts', 'x\n');
  write(outside, 'present.md', 'outside\n');
  mkdirSync(join(dir, 'docs/only'), { recursive: true });
  symlinkSync(outside, join(dir, 'docs/out'));
  symlinkSync('/etc/passwd', join(dir, 'docs/pw.md'));
  execFileSync('mkfifo', [join(dir, 'docs/fifo.md')]);
  execFileSync('mkfifo', [join(dir, 'docs/only/pipe.md')]);
  const u = cli(dir, ['update', 'api', '--phase=build', '--step=docs', '--status=in_progress', '--progress_summary=docs', '--next_actions+=Write docs', `--context_primer.generated_files:json=${JSON.stringify(ENTRIES)}`]);
  expect(u.code, u.stderr).toBe(0);
  git(dir, ['add', 'src', '.checkpoints', '.gitattributes']);
  git(dir, ['commit', '-q', '-m', 'Start the docs']);
  return { dir, outside, remote };
}

describe('generated_files through a link out of the repository, or a FIFO (red team s12 #5)', () => {
  it('each is one note naming what it is, on both engines, whatever lies outside; never missing, never "commit it"', () => {
    const { dir, outside } = project();
    const native = doctor(dir, ['--engine', 'native']);
    const expected = [
      { path: 'context_primer.generated_files[1]', message: `docs/out/present.md is reached through docs/out, a symlink out of the repository (to ${outside}); not checked` },
      { path: 'context_primer.generated_files[2]', message: `docs/out/absent.md is reached through docs/out, a symlink out of the repository (to ${outside}); not checked` },
      { path: 'context_primer.generated_files[3]', message: `docs/out/*.md looks in docs/out, which is a symlink out of the repository (to ${outside}); not checked` },
      { path: 'context_primer.generated_files[4]', message: 'docs/fifo.md is a FIFO, not a plain file; not checked' },
      { path: 'context_primer.generated_files[5]', message: 'docs/pw.md is a symlink out of the repository (to /etc/passwd); not checked' },
      { path: 'context_primer.generated_files[6]', message: 'docs/only/*.md matches only docs/only/pipe.md, which is a FIFO, not a plain file; not checked' },
    ].map((f) => expect.objectContaining({ level: 'info', ...f }));
    expect(native).toEqual(expected);
    expect(doctor(dir, ['--engine', 'isomorphic'])).toEqual(native);
    // Nothing outside any more: the same answer.
    rmSync(outside, { recursive: true, force: true });
    expect(doctor(dir, ['--engine', 'native'])).toEqual(native);
    expect(doctor(dir, ['--engine', 'isomorphic'])).toEqual(native);
  });

  it('the pre-push hook prints the same notes and lets the push through; --pushed blocks nothing on either engine', () => {
    const { dir } = project();
    const head = headSha(dir);
    for (const engine of ['native', 'isomorphic']) {
      const pushed = doctor(dir, ['--engine', engine, '--fail-on-warnings', `--pushed=${head}`]);
      expect(pushed.filter((f) => f.blocks), engine).toEqual([]);
      expect(pushed.map((f) => f.message).join('\n'), engine).not.toMatch(/commit it|not committed|not tracked|missing/);
      expect(pushed).toHaveLength(6);
    }
    const push = gitTry(dir, ['push', 'origin', 'main']);
    expect(push.status, push.stdout + push.stderr).toBe(0);
    expect(push.stdout + push.stderr).toContain('docs/fifo.md is a FIFO, not a plain file; not checked');
    expect(push.stdout + push.stderr).not.toMatch(/commit it/);
  });

  it('a plain file never added is still "not committed ... commit it" under the hook, and a link to a file inside the repository is a file', () => {
    const { dir } = project();
    write(dir, 'docs/new.md', 'new\n');
    write(dir, 'docs/real.md', 'real\n');
    symlinkSync('real.md', join(dir, 'docs/latest.md'));
    const u = cli(dir, ['update', 'api', `--context_primer.generated_files:json=${JSON.stringify(['src/x.ts', 'docs/new.md', 'docs/latest.md'])}`]);
    expect(u.code, u.stderr).toBe(0);
    // docs/new.md is left out of the commit: never added.
    git(dir, ['add', 'docs/real.md', 'docs/latest.md', '.checkpoints']);
    git(dir, ['commit', '-q', '-m', 'list the new docs']);
    const push = gitTry(dir, ['push', 'origin', 'main']);
    expect(push.status, push.stdout + push.stderr).not.toBe(0);
    expect(push.stdout + push.stderr).toMatch(/docs\/new\.md is not committed \(the work tree has it untracked\); commit it or drop it/);
    expect(push.stdout + push.stderr).not.toMatch(/docs\/latest\.md/);
  });
});
