// Which repository a full pull-request URL names, and whether that is this one: a queued
// "https://github.com/other-org/other-repo/pull/45" is that repository's #45, and a commit
// "Merge pull request #45" here does not land it. This repository's names come from its
// remotes' URLs (https, ssh and scp-like forms, with or without `.git`). Pure.

import { withoutTrailingSlashes } from '../text-ends.js';

/** A hosted repository: host and path (`owner/name`, or `group/sub/name`), lower-cased. */
export interface RepoName {
  host: string;
  path: string;
}

/**
 * This repository's names, one per hosted remote URL. Empty when it has none (no remote, or
 * only local paths): then no URL can be told apart from this repository, and every one counts.
 */
export type ThisRepo = readonly RepoName[];

// GitHub's ssh-over-443 host serves the same repositories as github.com.
const SAME_HOST: Record<string, string> = { 'ssh.github.com': 'github.com', 'www.github.com': 'github.com' };
const hostOf = (host: string) => {
  const h = host.toLowerCase().replace(/\.$/, '');
  return SAME_HOST[h] ?? h;
};
const pathOf = (path: string) =>
  withoutTrailingSlashes(withoutTrailingSlashes(path).replace(/^\/+/, '').replace(/\.git$/i, '')).toLowerCase();

const WITH_SCHEME = /^([a-z][a-z0-9+.-]*):\/\/(?:[^/@]*@)?(\[[^\]]*\]|[^/:?#]+)(?::\d*)?(\/[^?#]*)?/i;
// git's scp-like form: [user@]host:path, where no slash comes before the colon.
const SCP_LIKE = /^(?:[^/@:]+@)?([^/:]+):(?!\/\/)(.+)$/;

/** The hosted repository a remote URL names; null for a local path, `file://` or anything else. */
export function remoteName(url: string): RepoName | null {
  const u = url.trim();
  const s = WITH_SCHEME.exec(u);
  if (s) {
    if (s[1]!.toLowerCase() === 'file' || !s[3]) return null;
    const path = pathOf(s[3]);
    return path ? { host: hostOf(s[2]!), path } : null;
  }
  const scp = SCP_LIKE.exec(u);
  // A one-letter "host" is a Windows drive (C:\repo), not a host.
  if (!scp || scp[1]!.length < 2) return null;
  const path = pathOf(scp[2]!);
  return path ? { host: hostOf(scp[1]!), path } : null;
}

/** This repository's names from its remotes' URLs (each distinct once). */
export function thisRepoOf(urls: readonly string[]): ThisRepo {
  const out: RepoName[] = [];
  for (const url of urls) {
    const n = remoteName(url);
    if (n && !out.some((o) => o.host === n.host && o.path === n.path)) out.push(n);
  }
  return out;
}

// What stands before "/pull/N" in a full URL: [scheme://][user@]host[:port]/path. Without a
// scheme the host must hold a dot ("github.com/o/r/pull/45"): "docs/reviews/pull/45" is a path.
const URL_BEFORE_PULL = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(?:[^/@\s]+@)?([^/:@\s]+)(?::\d+)?\/([^\s]+)$/i;

/** The repository a URL that ends just before "/pull/N" names; null when it is not a full URL (a relative "pull/45"). */
export function pullUrlRepo(before: string): RepoName | null {
  const m = URL_BEFORE_PULL.exec(before);
  if (!m || (m[1] === undefined && !m[2]!.includes('.'))) return null;
  const path = pathOf(m[3]!);
  return path ? { host: hostOf(m[2]!), path } : null;
}

/**
 * Whether a PR of `named` is one of this repository's. Host and path compare case-insensitively
 * (GitHub's and GitLab's names do); a remote whose host has no dot is an ssh alias
 * (`git@github-work:org/repo.git`, resolved by ~/.ssh/config), so only its path is compared.
 */
export function isThisRepo(named: RepoName, repo: ThisRepo): boolean {
  // No hosted remote: nothing to tell another repository's PR from ours, so it counts as ours
  // (as before remotes were read): missing a landing would send a session to redo merged work.
  if (!repo.length) return true;
  return repo.some((r) => r.path === named.path && (r.host === named.host || !r.host.includes('.')));
}
