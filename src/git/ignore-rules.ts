// Whether git ignores an untracked path, for the embedded engine (native asks `git check-ignore`):
// the .gitignore files from the top down to the path's folder, info/exclude and core.excludesFile,
// read as isomorphic-git's isIgnored reads them (a parent folder excluded excludes the path; a
// deeper file may re-include), with the user's excludes file added at the lowest precedence.
// Loaded only when doctor asks about a listed file git does not track. A .gitignore is read only
// as a regular file of bounded size: a clone may hold it as a link to /dev/zero (git does not
// follow a linked .gitignore either).
import { lstatSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import ignoreModule from 'ignore';
import { outsideRuleFiles } from './config-places.js';
import type { GitDirs } from './locate.js';

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

/** Of `paths` (repo-relative, `/`-separated, untracked), those git ignores in the work tree at `root`. */
export function ignoredIn(root: string, dirs: GitDirs, paths: readonly string[]): Set<string> {
  // The excludes file git reads (core.excludesFile, else its XDG default), as the native guard finds it.
  const excludes = outsideRuleFiles(root, dirs.gitdir, dirs.commonDir).excludes;
  const top = `${excludes ? rulesText(excludes, true) : ''}\n${rulesText(join(dirs.commonDir, 'info', 'exclude'), true)}`;
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
