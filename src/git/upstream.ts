// A branch's upstream (`@{u}`) as git finds it, from config text alone: the embedded engine's
// answer, so `doctor --pushed @{u}..HEAD` means the same on both engines. Pure.
import { configEntries } from './config-file.js';

/** A revision name (doctor/push.ts REVISION_NAME) naming a branch's upstream: the branch (group 1, '' for the current one), and the steps after it (group 2). */
export const UPSTREAM_NAME = /^(.*)@\{(?:u|upstream)\}((?:[~^]\d*)*)$/;

/**
 * The full ref `branch`'s upstream is kept under: branch.<name>.merge, mapped through the fetch
 * refspecs of branch.<name>.remote (`+refs/heads/*:refs/remotes/origin/*`: refs/remotes/origin/main),
 * or itself when the remote is "." (a local branch). null when the branch has none, or no fetch
 * refspec of that remote stores it (git: "not stored as a remote-tracking branch").
 */
export function upstreamRef(configText: string, branch: string): string | null {
  const entries = configEntries(configText);
  const values = (key: string) => entries.filter((e) => e.section === 'branch' && e.subsection === branch && e.key === key && e.value !== null).map((e) => e.value!);
  // As git reads them: the last remote; the first merge (more are for an octopus `git pull`).
  const remote = values('remote').at(-1);
  const ref = values('merge')[0];
  if (remote === undefined || ref === undefined) return null;
  // A local branch: the ref as written ("main" or "refs/heads/main"), which the caller resolves.
  if (remote === '.') return ref;
  // Each fetch refspec in order, the first that stores the ref (negative ones, "^refs/...", store nothing).
  for (const e of entries) {
    if (e.section !== 'remote' || e.subsection !== remote || e.key !== 'fetch' || e.value === null) continue;
    const mapped = mapRefspec(e.value.replace(/^\+/, ''), ref);
    if (mapped !== null) return mapped;
  }
  return null;
}

/** Where refspec `src:dst` stores `ref` (one `*` on each side matches any text), or null. */
function mapRefspec(spec: string, ref: string): string | null {
  if (spec.startsWith('^')) return null;
  const colon = spec.indexOf(':');
  if (colon < 0) return null;
  const src = spec.slice(0, colon);
  const dst = spec.slice(colon + 1);
  if (!dst) return null;
  const star = src.indexOf('*');
  if (star < 0) return src === ref ? dst : null;
  const [before, after] = [src.slice(0, star), src.slice(star + 1)];
  if (!ref.startsWith(before) || !ref.endsWith(after) || ref.length < before.length + after.length) return null;
  const matched = ref.slice(before.length, ref.length - after.length);
  return dst.includes('*') ? dst.replace('*', matched) : null;
}
