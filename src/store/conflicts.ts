// What git left behind for a conflicted file: its index stages (:1 base, :2 ours, :3 theirs)
// or, once those are gone, the conflict markers in the file itself.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { hasConflictMarkers } from '../merge/markers.js';
import { checkpointsDir } from './checkpoints.js';

function git(root: string, args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 * 1024 * 1024 });
  } catch {
    return null;
  }
}

export interface Stages {
  base: string | null;
  ours: string;
  theirs: string;
}

/** The unmerged index stages of `rel`, or null when git holds none for it. */
export function readStages(root: string, rel: string): Stages | null {
  const listing = git(root, ['ls-files', '-u', '-z', '--', rel]);
  if (!listing) return null;
  const shas: Record<string, string> = {};
  for (const entry of listing.split('\0')) {
    const m = /^\d+ ([0-9a-f]+) ([123])\t/.exec(entry);
    if (m) shas[m[2]!] = m[1]!;
  }
  if (!shas['2'] || !shas['3']) return null;
  const blob = (sha: string) => git(root, ['cat-file', 'blob', sha]) ?? '';
  return { base: shas['1'] ? blob(shas['1']) : null, ours: blob(shas['2']), theirs: blob(shas['3']) };
}

/** Repo-relative paths git reports as unmerged, below .checkpoints/. */
export function unmergedCheckpointPaths(root: string): string[] {
  const out = git(root, ['diff', '--name-only', '--diff-filter=U', '-z']) ?? '';
  return out.split('\0').filter((p) => p.startsWith('.checkpoints/') && p.endsWith('.json'));
}

/** Every JSON file under .checkpoints/ (history included) that holds conflict markers. */
export function filesWithMarkers(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (name.endsWith('.json') && st.size < 16 * 1024 * 1024 && hasConflictMarkers(readFileSync(p, 'utf8'))) found.push(relative(root, p));
    }
  };
  walk(checkpointsDir(root));
  return found.sort();
}
