// Whether git ignores an untracked path, for the embedded engine (native asks `git check-ignore`):
// the .gitignore files from the top down to the path's folder, info/exclude and core.excludesFile,
// read as isomorphic-git's isIgnored reads them (a parent folder excluded excludes the path; a
// deeper file may re-include), with the user's excludes file added at the lowest precedence.
// Loaded only when doctor asks about a listed file git does not track. A .gitignore is read only
// as a regular file of bounded size: a clone may hold it as a link to /dev/zero (git does not
// follow a linked .gitignore either).
import { lstatSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, posix } from 'node:path';
import ignoreModule from 'ignore';
import { configValue } from './config-file.js';

// A CommonJS module whose export is the function and its `default` too: typed as the latter.
const ignore = ignoreModule.default;

/** Ignore files larger than this are not read (git's own limit for .gitignore is 100 MiB; real ones are a few KiB). */
const MAX_RULES_BYTES = 1024 * 1024;

/** A file's text when it is a regular file within the cap (`follow`: a link to one counts), else ''. */
function rulesText(file: string, follow: boolean): string {
  try {
    const st = follow ? statSync(file) : lstatSync(file);
    return st.isFile() && st.size <= MAX_RULES_BYTES ? readFileSync(file, 'utf8') : '';
  } catch {
    return '';
  }
}

/** The excludes file in effect: core.excludesFile from the repository's config over the global ones, else git's default. */
function excludesFile(commonDir: string, env: NodeJS.ProcessEnv): string {
  const home = env.HOME ?? homedir();
  const xdg = env.XDG_CONFIG_HOME || join(home, '.config');
  const globals = env.GIT_CONFIG_GLOBAL !== undefined ? [env.GIT_CONFIG_GLOBAL] : [join(xdg, 'git', 'config'), join(home, '.gitconfig')];
  let named: string | null = null;
  for (const file of [...globals, join(commonDir, 'config')]) {
    const value = file ? configValue(rulesText(file, true), 'core', null, 'excludesfile') : null;
    if (value) named = value;
  }
  if (named === null) return join(xdg, 'git', 'ignore');
  return named.startsWith('~/') ? join(home, named.slice(2)) : named;
}

/** Of `paths` (repo-relative, `/`-separated, untracked), those git ignores in the work tree at `root`. */
export function ignoredIn(root: string, commonDir: string, paths: readonly string[], env: NodeJS.ProcessEnv = process.env): Set<string> {
  const top = `${rulesText(excludesFile(commonDir, env), true)}\n${rulesText(join(commonDir, 'info', 'exclude'), true)}`;
  const texts = new Map<string, string>();
  const gitignore = (folder: string) => {
    let text = texts.get(folder);
    if (text === undefined) texts.set(folder, (text = rulesText(join(root, folder, '.gitignore'), false)));
    return text;
  };
  const out = new Set<string>();
  for (const path of paths) {
    const pieces = path.split('/').filter(Boolean);
    let ignored = false;
    for (let i = 0; i < pieces.length; i++) {
      const rel = pieces.slice(i).join('/');
      const rules = ignore().add(i === 0 ? `${top}\n${gitignore('')}` : gitignore(pieces.slice(0, i).join('/')));
      // A folder excluded excludes what is in it, whatever deeper files say (gitignore(5)).
      const parent = posix.dirname(rel);
      if (parent !== '.' && rules.ignores(parent)) {
        ignored = true;
        break;
      }
      ignored = ignored ? !rules.test(rel).unignored : rules.test(rel).ignored;
    }
    if (ignored) out.add(path);
  }
  return out;
}
