// Finding the project root, skill names, and the project name a new checkpoint gets.
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findRoot } from '../../src/store/root.js';
import { assertSkillName, MAX_SKILL_NAME, skillFromFileName } from '../../src/store/skill-name.js';
import { projectName } from '../../src/store/project.js';
import { CheckpointError } from '../../src/errors.js';
import { cleanup, makeRepo, tempDir } from '../helpers/repo.js';

const dirs: string[] = [];
const track = (d: string) => (dirs.push(d), d);
afterEach(() => {
  while (dirs.length) cleanup(dirs.pop()!);
});

describe('findRoot', () => {
  it('is the git top level from any subfolder', () => {
    const repo = track(makeRepo({ commit: false }));
    mkdirSync(join(repo, 'a/b/c'), { recursive: true });
    expect(findRoot(join(repo, 'a/b/c'))).toBe(repo);
    expect(findRoot(repo)).toBe(repo);
  });

  it('a git worktree file (.git as a file) counts', () => {
    const dir = track(tempDir());
    writeFileSync(join(dir, '.git'), 'gitdir: /elsewhere\n');
    mkdirSync(join(dir, 'sub'));
    expect(findRoot(join(dir, 'sub'))).toBe(dir);
  });

  it('outside git, the nearest folder holding .checkpoints/', () => {
    const dir = track(tempDir());
    mkdirSync(join(dir, '.checkpoints'));
    mkdirSync(join(dir, 'x/y'), { recursive: true });
    expect(findRoot(join(dir, 'x/y'))).toBe(dir);
  });

  it('else the folder itself', () => {
    const dir = track(tempDir());
    expect(findRoot(dir)).toBe(dir);
  });

  it('-C is resolved against cwd and must exist', () => {
    const repo = track(makeRepo({ commit: false }));
    mkdirSync(join(repo, 'sub'));
    expect(findRoot('/', join(repo, 'sub'))).toBe(repo);
    expect(findRoot(repo, 'sub')).toBe(repo);
    try {
      findRoot(repo, 'missing');
      throw new Error('no error');
    } catch (e) {
      expect(e).toBeInstanceOf(CheckpointError);
      expect((e as CheckpointError).code).toBe('E_NO_ROOT');
      expect((e as CheckpointError).message).toBe('-C missing: no such directory');
    }
  });
});

describe('skill names', () => {
  it.each(['api', 'oc-app-architect', 'a.b_c-1', '0x', 'a'.repeat(MAX_SKILL_NAME)])('accepts %s', (name) => {
    expect(() => assertSkillName(name)).not.toThrow();
  });

  // (The CLI's refusal of such names, one line and exit 2, is in test/reliability/hostile.test.ts.)
  it.each(['', '.', '..', '../x', '../../etc/passwd', 'a/b', 'a\\b', '/abs', '/etc/passwd', 'Api', 'API', '.hidden', '-x', '_x', 'a..b', 'a b', ' s', 's ', 'a\nb', 'a'.repeat(MAX_SKILL_NAME + 1), 'ä', 'ş'])('refuses %j', (name) => {
    expect(() => assertSkillName(name)).toThrow(/invalid skill name/);
  });

  it('refuses non-strings', () => {
    expect(() => assertSkillName(undefined)).toThrow(CheckpointError);
    expect(() => assertSkillName(3)).toThrow(CheckpointError);
  });

  it('maps file names back to skills', () => {
    expect(skillFromFileName('api.checkpoint.json')).toBe('api');
    expect(skillFromFileName('a..b.checkpoint.json')).toBeNull();
    expect(skillFromFileName('.api.checkpoint.json')).toBeNull();
    expect(skillFromFileName('api.json')).toBeNull();
    expect(skillFromFileName('README.md')).toBeNull();
  });
});

describe('projectName', () => {
  it('is package.json "name", trimmed', () => {
    const dir = track(tempDir());
    writeFileSync(join(dir, 'package.json'), '{"name": "  @acme/gtrack "}');
    expect(projectName(dir)).toBe('@acme/gtrack');
  });

  it('falls back to the folder name for a missing, broken or nameless package.json', () => {
    const dir = track(tempDir());
    expect(projectName(dir)).toBe(basename(dir));
    writeFileSync(join(dir, 'package.json'), '{broken');
    expect(projectName(dir)).toBe(basename(dir));
    writeFileSync(join(dir, 'package.json'), '{"name": ""}');
    expect(projectName(dir)).toBe(basename(dir));
  });
});
