// A fixture repository built once per test file and copied for each test that asks for it: a
// history is many git processes, a copy none. For tests that ask the same question of the same
// history more than once (each engine, each variant), where the building is not under test.
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { expect } from 'vitest';
import { git, tempDir } from './repo.js';

const templates = new Map<string, { template: string; made: unknown }>();

/**
 * What `build` returns, with `dir` its repository: the first call with `key` in this test file
 * runs `build` (its caller gets that repository) and keeps a copy of it, made before anyone
 * changes it; each later call gets a fresh copy of that copy, and the rest of what `build`
 * returned (shas and such: nothing else may name the folder). A remote `origin` that is a local
 * folder is copied with it (the copy's origin is its own copy of the remote, as built): a test
 * may push. A copy has the same commits, refs, index entries and files; its index is refreshed
 * (`git update-index --refresh`) to the copied files' stat data, as the original's was to the
 * files it wrote, so that git and doctor trust it as they did there (a stale one would make
 * doctor ask `git status`, and `git sparse-checkout` keep files it cannot vouch for).
 */
export function builtOnce<T extends { dir: string }>(key: string, build: () => T): T {
  const id = `${expect.getState().testPath}\0${key}`;
  const known = templates.get(id);
  if (known !== undefined && existsSync(known.template)) {
    const parent = tempDir('cp-copy-');
    return { ...(known.made as T), dir: copy(known.template, parent) };
  }
  const made = build();
  templates.set(id, { template: copy(made.dir, tempDir('cp-template-'), false), made });
  return made;
}

/** The repository `from` copied to `<parent>/work`, its origin (if a local folder) to `<parent>/remote.git`: the copy's path. */
function copy(from: string, parent: string, refresh = true): string {
  const [dir, remote] = [join(parent, 'work'), join(parent, 'remote.git')];
  cpSync(from, dir, { recursive: true });
  const configPath = join(dir, '.git/config');
  const config = existsSync(configPath) ? readFileSync(configPath, 'utf8') : '';
  const url = /\[remote "origin"\]\n(?:\t[^\n]*\n)*?\turl = ([^\n]*)\n/.exec(config)?.[1];
  if (url !== undefined && isAbsolute(url) && existsSync(url)) {
    cpSync(url, remote, { recursive: true });
    if (config.split(`\turl = ${url}\n`).length !== 2) throw new Error(`builtOnce: ${configPath} names its remote other than once`);
    writeFileSync(configPath, config.replace(`\turl = ${url}\n`, `\turl = ${remote}\n`));
  }
  if (refresh && existsSync(join(dir, '.git/index'))) git(dir, ['update-index', '-q', '--refresh']);
  return dir;
}
