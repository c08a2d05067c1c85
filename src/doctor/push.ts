// What a push is judged on: only findings the pushed commits cause or carry block it.
// Pure: takes findings and the pushed commits, returns findings with `blocks` set.
import { CheckpointError } from '../errors.js';
import { shown } from '../one-line.js';
import type { CommitInfo } from '../git/types.js';
import type { Finding } from './types.js';

export interface PushRange {
  /** null: a new branch (judge what no remote-tracking ref has). */
  from: string | null;
  to: string;
}

// SHA-1 names, or SHA-256 ones (64 digits) as a repository using them passes: the push is then
// judged without history (createHistory says why), never refused for the shape of its names.
const HEX = /^(?:[0-9a-f]{4,40}|[0-9a-f]{64})$/i;
const ZERO = /^0+$/;
/**
 * A revision by name, as a user runs doctor on a range by hand or in CI (`origin/main..HEAD`,
 * `@{u}..`): a ref's name as git takes it (HEAD, a branch, a tag, a remote-tracking ref,
 * refs/...), or a branch's upstream (`@{u}`, `@{upstream}`, after a branch's name or alone for
 * the current branch's), then any `~N` and `^N` steps. Only this much of git's revision syntax,
 * so both engines read it alike.
 */
export const REVISION_NAME = /^(?![-./])(?!.*\/\.)(?!.*\.lock(?:[~^/@]|$))(?:[A-Za-z0-9._/+-]{1,255}?|(?:[A-Za-z0-9._/+-]{1,255})?@\{(?:u|upstream)\})(?:[~^]\d{0,4}){0,32}$/;


/** Whether `end` is an object name (hex), not a revision name to resolve. */
export const isObjectName = (end: string): boolean => HEX.test(end);

/**
 * "<from>..<to>" or "<to>" (a new branch); an all-zero from is a new branch too. Each end is an
 * object name as the pre-push hook passes it, or a revision name (REVISION_NAME) doctor resolves.
 */
export function parsePushRange(text: string): PushRange {
  const [left, right, extra] = text.split('..');
  // An open end of a range is HEAD, as git reads it: `@{u}..` is what a push of HEAD would carry, `..main` is HEAD..main.
  const from = right !== undefined && left === '' ? 'HEAD' : left;
  const to = right === '' ? 'HEAD' : right;
  const bad = () => new CheckpointError('E_USAGE', `--pushed ${shown(text)}: expected <from>..<to> or <to>, each a commit id or a name such as origin/main, @{u} or HEAD~2`, { hint: 'the pre-push hook passes the ranges git gives it; by hand: --pushed origin/main..HEAD' });
  const end = (e: string) => HEX.test(e) || REVISION_NAME.test(e);
  if (extra !== undefined) throw bad();
  if (to === undefined) {
    if (!end(from!)) throw bad();
    return { from: null, to: from! };
  }
  if (!end(to) || !end(from!)) throw bad();
  return { from: ZERO.test(from!) ? null : from!, to };
}

/**
 * The ranges of git's pre-push stdin ("<local ref> <local sha> <remote ref> <remote sha>" a line),
 * each once however many refs send it (10,000 tags at one commit: one range): a deletion (local
 * sha all zeros) sends nothing; a new ref (remote sha all zeros, or none) is judged on what no
 * remote-tracking ref has. A line not of that shape sends nothing either.
 */
export function prePushRanges(text: string): PushRange[] {
  const seen = new Map<string, PushRange>();
  for (const line of text.split('\n')) {
    const [, local, , remote] = line.trim().split(/\s+/);
    if (local === undefined || !/^[0-9a-f]+$/.test(local) || ZERO.test(local)) continue;
    const from = remote !== undefined && /^[0-9a-f]+$/.test(remote) && !ZERO.test(remote) ? remote : null;
    const key = `${from ?? ''}..${local}`;
    if (!seen.has(key)) seen.set(key, { from, to: local });
  }
  return [...seen.values()];
}

/** A range as --pushed takes it. */
export const rangeText = (r: PushRange): string => (r.from === null ? r.to : `${r.from}..${r.to}`);

/** Checks whose findings a pushed checkpoint carries (a stale date or another machine's path never block). */
const CARRIED = new Set(['schema', 'landed', 'generated_files', 'verified_for_sha']);

/**
 * Sets `blocks` on each finding. Without a push every error and warning blocks (CI judges the
 * whole repo). With one, an error or warning blocks when a pushed commit is its evidence,
 * changes the file it is about, or changes the checkpoint that carries it.
 */
export function judge(findings: readonly Finding[], pushed: readonly CommitInfo[] | null, checkpointRel: (skill: string) => string | null): Finding[] {
  const drift = (f: Finding) => f.level === 'error' || f.level === 'warning';
  if (pushed === null) return findings.map((f) => ({ ...f, blocks: drift(f) }));
  const shas = new Set(pushed.map((c) => c.sha));
  const files = new Set(pushed.flatMap((c) => c.changes.flatMap((ch) => (ch.from ? [ch.path, ch.from] : [ch.path]))));
  return findings.map((f) => {
    if (!drift(f)) return { ...f, blocks: false };
    const rel = f.skill === null ? null : checkpointRel(f.skill);
    // A missing file the push deleted or renamed is caused by it even when no commit was named.
    const caused = (f.evidence?.sha !== undefined && shas.has(f.evidence.sha)) || (f.evidence?.missing === true && files.has(f.evidence.file ?? ''));
    const carried = rel !== null && files.has(rel) && CARRIED.has(f.check);
    return { ...f, blocks: caused || carried };
  });
}
