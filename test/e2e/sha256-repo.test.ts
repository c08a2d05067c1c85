// A repository that names its objects with SHA-256 (git init --object-format=sha256): history is
// refused in one line, never read as a corrupt index; a push is let through, saying it was not
// judged (red team s21: the hook refused every push, and doctor told the user to delete a healthy index).
import { describe, expect, it } from 'vitest';
import { cli, errorLine, git, gitTry, tempDir, write } from '../helpers/repo.js';

const sha256Supported = () => gitTry(tempDir(), ['init', '-q', '--object-format=sha256', 'probe']).status === 0;

describe('a SHA-256 repository', () => {
  it.skipIf(!sha256Supported())('doctor says so in one line on both engines; validate, status and next work; the hook lets a push through', () => {
    const parent = tempDir('cp-sha256-');
    const remote = `${parent}/r.git`;
    const dir = `${parent}/w`;
    git(parent, ['init', '-q', '--bare', '--object-format=sha256', remote]);
    git(parent, ['init', '-q', '--object-format=sha256', '-b', 'main', dir]);
    git(dir, ['config', 'user.email', 't@example.com']);
    git(dir, ['config', 'user.name', 't']);
    git(dir, ['remote', 'add', 'origin', remote]);
    write(dir, 'src/a.ts', 'export const a = 1;\n');
    const init = cli(dir, ['init']);
    expect(init.code).toBe(0);
    // Said once, at setup: the hook is installed and will judge nothing here.
    expect(init.stdout.split('\n').filter((l) => l.startsWith('! '))).toEqual([
      '! this repository names its objects with SHA-256, which checkpoint cannot read yet: the pre-push hook lets every push through unjudged and `checkpoint doctor` refuses here (exit 2); the merge driver and `validate` work',
    ]);
    expect(init.stdout).toContain('✓ installed the pre-push hook');
    // Set up already: a second run says so, not the setup's note again (stop 62 known limit).
    const again = cli(dir, ['init']);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`✓ ${dir} is already set up\n`);
    expect(cli(dir, ['update', 'api', '--phase=build', '--step=s1', '--next_actions+=Write docs (PR 12)', '--context_primer.generated_files:json=["src/a.ts (PR 12)"]']).code).toBe(0);
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '-m', 'checkpoint']);
    for (const engine of ['native', 'isomorphic']) {
      const r = cli(dir, ['doctor', '--engine', engine]);
      expect(r.code, engine).toBe(2);
      const line = errorLine(r.stderr);
      expect(line.lines, r.stderr).toBe(1);
      expect(line.message).toBe('this repository names its objects with SHA-256 (extensions.objectFormat), which checkpoint cannot read yet');
      expect(r.stderr).not.toMatch(/corrupt|rm .*index/);
    }
    expect(cli(dir, ['validate']).code).toBe(0);
    expect(cli(dir, ['next']).stdout).toContain('→ Write docs (PR 12)');
    // Not "no queued action names work git shows landed": git could not say (red team 62e, 08).
    const landed = cli(dir, ['done', 'api', '--landed']);
    expect(landed.code).toBe(2);
    expect(landed.stderr).toContain('checkpoint: git history could not be read, so which queued actions of "api" landed is not known; nothing was changed; hint: checkpoint done api records the action checkpoint next names, one at a time');
    const push = gitTry(dir, ['push', 'origin', 'main']);
    expect(push.status, push.stdout + push.stderr).toBe(0);
    expect(push.stderr).toContain('the push is not judged');
  });

  it('init says nothing of SHA-256 in a SHA-1 repository', () => {
    const dir = `${tempDir('cp-sha1-')}/w`;
    git(tempDir(), ['init', '-q', '-b', 'main', dir]);
    const init = cli(dir, ['init']);
    expect(init.code).toBe(0);
    expect(init.stdout).not.toMatch(/SHA-256|^! /m);
  });

  it('a 64-digit object name is a --pushed range the parser takes', async () => {
    const { parsePushRange } = await import('../../src/doctor/push.js');
    const [a, b] = ['a'.repeat(64), 'b'.repeat(64)];
    expect(parsePushRange(`${a}..${b}`)).toEqual({ from: a, to: b });
    // 50 digits are no object name of either kind: read as a name (a branch may be called so), which doctor resolves or refuses.
    expect(parsePushRange('a'.repeat(50))).toEqual({ from: null, to: 'a'.repeat(50) });
    expect(() => parsePushRange(`${'a'.repeat(50)}:x`)).toThrow(/expected <from>\.\.<to> or <to>/);
  });
});
