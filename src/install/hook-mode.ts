// git runs a hook only when its file is executable: one without the x bit (written with a plain
// editor, copied by a tool, a checkout with core.fileMode=false) is skipped, with at most a hint
// git's advice.ignoredHook may have turned off, so nothing it holds checks a push.
import { statSync } from 'node:fs';

/** Whether git would skip the hook at `path`: a plain file no one may execute (Windows has no x bit: never). */
export function skippedByGit(path: string): boolean {
  if (process.platform === 'win32') return false;
  try {
    const stats = statSync(path);
    return stats.isFile() && (stats.mode & 0o111) === 0;
  } catch {
    return false;
  }
}
