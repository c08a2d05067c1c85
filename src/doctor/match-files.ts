// Which files a generated_files glob matches: a walk under the glob's fixed prefix only,
// never following links out, and capped so a huge tree costs a bounded amount.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { globBase } from './entries.js';
import { globMatcher } from '../glob.js';

const MAX_ENTRIES = 20_000;

/** Repo-relative files under `root` matching `glob` (forward slashes), at most `limit`. */
export function matchGlob(root: string, glob: string, limit = 50): string[] {
  const re = globMatcher(glob);
  const out: string[] = [];
  let seen = 0;
  const visit = (rel: string): void => {
    let entries;
    try {
      entries = readdirSync(rel ? join(root, rel) : root, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (out.length >= limit || ++seen > MAX_ENTRIES) return;
      if (e.name === '.git') continue;
      const path = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) visit(path);
      else if (re.test(path)) out.push(path);
    }
  };
  visit(globBase(glob));
  return out;
}
