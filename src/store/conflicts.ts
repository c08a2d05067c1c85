// What git left behind for a conflicted file: its index stages (:1 base, :2 ours, :3 theirs)
// or, once those are gone, the conflict markers in the file itself.
import { execFileSync } from 'node:child_process';
import { join, relative } from 'node:path';
import { hasConflictMarkers } from '../merge/markers.js';
import { checkpointsDir } from './checkpoints.js';
import { listProjectDir, locate, readProjectText } from './safe-fs.js';
import { isCheckpointError } from '../errors.js';

/** Larger JSON under .checkpoints/ is not a checkpoint or history file; not scanned. */
const MAX_SCAN_BYTES = 16 * 1024 * 1024;

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

/**
 * Every JSON file under .checkpoints/ (history included) that holds conflict markers. What
 * cannot be read safely (links out, loops, FIFOs, oversized files) is skipped and reported
 * through `onSkip`; links are never followed into folders, so a loop cannot recurse.
 */
export function filesWithMarkers(root: string, onSkip?: (rel: string, why: string) => void): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of listProjectDir(root, dir)) {
      const p = join(dir, name);
      try {
        const loc = locate(root, p);
        if (!loc.stat) continue;
        if (loc.stat.isDirectory()) {
          if (loc.real === join(locate(root, dir).real, name)) walk(p); // a real folder, not a link to one
          continue;
        }
        if (!name.endsWith('.json')) continue;
        const text = readProjectText(root, p, { maxBytes: MAX_SCAN_BYTES });
        if (text !== null && hasConflictMarkers(text)) found.push(relative(root, p));
      } catch (e) {
        if (!isCheckpointError(e)) throw e;
        onSkip?.(relative(root, p), e.message);
      }
    }
  };
  walk(checkpointsDir(root));
  return found.sort();
}
