// A fixture repository built once per test file and copied for each test that asks for it: a
// history is many git processes, a copy none. For tests that ask the same question of the same
// history more than once (each engine, each variant), where the building is not under test.
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { git, tempDir } from './repo.js';

const templates = new Map<string, { template: string; made: unknown }>();

/**
 * What `build` returns, with `dir` its folder: the first call with `key` in this test file runs
 * `build` (its caller gets that folder) and keeps a copy of it, made before anyone changes it; each
 * later call gets a fresh copy of that copy, in a folder of its own, and the rest of what `build`
 * returned (shas and such: nothing else may name the folder). A copy has the same commits, refs,
 * index entries and files; its index is refreshed (`git update-index --refresh`) to the copied
 * files' stat data, as the original's was to the files it wrote, so that git and doctor trust it
 * as they did there (a stale one would make doctor ask `git status`, and `git sparse-checkout`
 * keep files it cannot vouch for).
 */
export function builtOnce<T extends { dir: string }>(key: string, build: () => T): T {
  const id = `${expect.getState().testPath}\0${key}`;
  const known = templates.get(id);
  if (known !== undefined && existsSync(known.template)) {
    const dir = tempDir('cp-copy-');
    cpSync(known.template, dir, { recursive: true });
    if (existsSync(join(dir, '.git/index'))) git(dir, ['update-index', '-q', '--refresh']);
    return { ...(known.made as T), dir };
  }
  const made = build();
  const template = tempDir('cp-template-');
  cpSync(made.dir, template, { recursive: true });
  templates.set(id, { template, made });
  return made;
}
