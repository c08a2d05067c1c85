// Which files a generated_files glob matches: a walk under the glob's fixed prefix only,
// never following a link out of the project (the prefix itself included), and capped so a huge
// tree costs a bounded amount. Only plain files match; what else a glob meets is told apart.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { globBase } from './entries.js';
import { globMatcher } from '../glob.js';
import { projectEntry, type ProjectEntry } from '../store/safe-fs.js';

const MAX_ENTRIES = 20_000;

/** Something the glob names that is not a plain file: a FIFO, a device, a link out of the project. */
export interface OddMatch {
  path: string;
  entry: Exclude<ProjectEntry, { kind: 'file' | 'folder' | 'missing' }>;
}

export interface GlobMatches {
  /** Repo-relative plain files matching (forward slashes), at most `limit`. */
  files: string[];
  /** The first match that is no plain file (a FIFO, a link out), or the fixed prefix when a link leads it out of the project. */
  odd: OddMatch | null;
}

/** Repo-relative files under `root` matching `glob`, at most `limit`, and the first odd thing it met. */
export function matchGlob(root: string, glob: string, limit = 50): GlobMatches {
  const re = globMatcher(glob);
  const files: string[] = [];
  let odd: OddMatch | null = null;
  const base = globBase(glob);
  // The fixed prefix ("docs/out" of "docs/out/*.md") is reached as any project path is: a link out stops it.
  if (base) {
    const at = projectEntry(root, base);
    if (at.kind === 'link-out') return { files, odd: { path: base, entry: at } };
    if (at.kind !== 'folder') return { files, odd: null };
  }
  let seen = 0;
  const visit = (rel: string): void => {
    let entries;
    try {
      entries = readdirSync(rel ? join(root, rel) : root, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (files.length >= limit || ++seen > MAX_ENTRIES) return;
      if (e.name === '.git') continue;
      const path = rel ? `${rel}/${e.name}` : e.name;
      // A folder is walked; a link to one is not (git never looks through a link either).
      if (e.isDirectory()) visit(path);
      else if (!re.test(path)) continue;
      else if (e.isFile()) files.push(path);
      else {
        // A link to a plain file in the project matches; a link out, a FIFO or a device does not.
        const at = projectEntry(root, path);
        if (at.kind === 'file') files.push(path);
        else if (at.kind === 'special' || at.kind === 'link-out') odd ??= { path, entry: at };
      }
    }
  };
  visit(base);
  return { files, odd };
}
