// core.excludesFile, the user's own ignore rules (isomorphic-git reads only .gitignore files and
// info/exclude): the file the repository's config, else the global config names, else git's
// default ($XDG_CONFIG_HOME/git/ignore). Loaded only when doctor asks whether an untracked file
// is ignored. Its rules have the lowest precedence in git; a .gitignore that re-includes a path
// it excludes is not followed here (the path reads as ignored).
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import ignoreModule, { type Ignore } from 'ignore';
import { configValue } from './config-file.js';

// A CommonJS module whose export is the function and its `default` too: typed as the latter.
const ignore = ignoreModule.default;

const read = (file: string): string | null => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
};

/** The rules of the excludes file in effect for the repository whose common git dir is `commonDir` (null: none). */
export async function excludesFileRules(commonDir: string, env: NodeJS.ProcessEnv = process.env): Promise<Ignore | null> {
  const home = env.HOME ?? homedir();
  const xdg = env.XDG_CONFIG_HOME || join(home, '.config');
  const globals = env.GIT_CONFIG_GLOBAL !== undefined ? [env.GIT_CONFIG_GLOBAL] : [join(xdg, 'git', 'config'), join(home, '.gitconfig')];
  // The last file that sets it wins: the repository's config over the global ones.
  let named: string | null = null;
  for (const file of [...globals, join(commonDir, 'config')]) {
    const text = file ? read(file) : null;
    const value = text === null ? null : configValue(text, 'core', null, 'excludesfile');
    if (value) named = value;
  }
  const file = named === null ? join(xdg, 'git', 'ignore') : named.startsWith('~/') ? join(home, named.slice(2)) : named;
  const text = read(file);
  return text === null ? null : ignore().add(text);
}
