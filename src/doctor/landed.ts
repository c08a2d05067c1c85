// Which work git shows as landed: the evidence behind doctor's "redo shipped work" check
// and behind `next` skipping such actions. Pure: takes commit records, returns matches.
// Only commit SUBJECTS (and whether a commit is a merge) count: a token in an unrelated body is not a landing.
import type { CommitInfo } from '../git/types.js';
import { committedAfter } from './instants.js';
import { isThisRepo, pullUrlRepo, type ThisRepo } from './repo-names.js';

export type WorkRef = { kind: 'pr'; number: number; token: string } | { kind: 'ticket'; id: string; token: string };

/**
 * A PR as people write one: "#12" standing alone (not "C#12", "docs#12", "&#39;", another
 * repository's "org/repo#12"), "PR#12", "PR 12", "PR-12", "pull request 12", a ".../pull/12" URL.
 * Groups: the number after a lone "#" (judged by ORDINAL_BEFORE), else after a PR word or URL.
 */
const PR_RE = /(?:^|[^\w&])#(\d{1,7})\b|(?<![\w-])(?:PR|Pr|pr)(?:\s?#|[ -])(\d{1,7})\b|\b[Pp]ull [Rr]equest #?(\d{1,7})\b|(?:^|\/)pull\/(\d{1,7})\b/g;
/**
 * "#12" after a word that numbers something else: a step or an item in a list, or an issue
 * (GitHub numbers issues and PRs from one counter, so issue #12 is never PR #12).
 */
const ORDINAL_BEFORE = /\b(?:[Ss]teps?|[Ii]tems?|[Pp]hases?|[Pp]arts?|[Pp]oints?|[Oo]ptions?|[Ss]tages?|[Rr]ounds?|[Rr]ows?|[Ll]ines?|[Cc]ases?|[Tt]asks?|[Ii]ssues?|[Bb]ugs?|[Tt]ickets?|[Nn]o\.?|[Nn]umber)\s*$/;
// A CVE id whole (`CVE-2024-3094`, not `CVE-2024`); any other id not followed by `-<digit>`
// ("ABC-2024-11" is a date-like name, not ticket ABC-2024).
const TICKET_RE = /\b(CVE-\d{4}-\d{4,7}|[A-Z][A-Z0-9]{1,9}-\d{1,7})\b(?!-\d)/g;
/** Names shaped like tickets that are not: encodings, hashes, standards, models (UTF-8, SHA-256, ISO-8601, RFC-9110, GPT-4), and PR-12 (a pull request, read by PR_RE). */
const NOT_TICKET = /^(?:UTF|UCS|SHA\d?|MD|CRC|AES|ISO|RFC|IEEE|ECMA|GPT|PR)-/;

/** The URL-ish run of characters ending at `end` (a space, a markdown link's parenthesis or a quote ends it); scanned back, so a long text costs its run only. */
function urlRunBefore(text: string, end: number): string {
  let i = end;
  while (i > 0 && !/[\s<>()[\]{}"'`]/.test(text[i - 1]!)) i--;
  return text.slice(i, end);
}
/** A markdown link right after a reference: `[#12](https://…/pull/12)`. */
const LINK_AFTER = /^\]\(\s*<?([^\s)>]+)/;
const PULL_IN_URL = /\/pull\/(\d{1,7})\b/;

/** Whether the URL a match stands in (a `…/pull/12`) or links to (`[#12](…/pull/12)`) is another repository's PR. */
function otherRepos(text: string, m: RegExpExecArray | RegExpMatchArray, digits: string, repo: ThisRepo): boolean {
  let url: string | null = null;
  if (m[4] !== undefined) url = m[0].startsWith('/') ? urlRunBefore(text, m.index!) : null;
  else {
    const link = LINK_AFTER.exec(text.slice(m.index! + m[0].length))?.[1];
    const pull = link === undefined ? null : PULL_IN_URL.exec(link);
    if (pull && pull[1] === digits) url = link!.slice(0, pull.index);
  }
  const named = url ? pullUrlRepo(url) : null;
  return named !== null && !isThisRepo(named, repo);
}

/**
 * PR numbers (`#12`, `PR 12`, a `/pull/12` URL: token `#12`) and ticket ids (`ABC-123`) that a
 * piece of text refers to. A full PR URL of another repository than `repo` (its remotes) is not
 * this repository's PR, nor is a `[#12](…)` link to one.
 */
export function workRefs(text: string, repo: ThisRepo = []): WorkRef[] {
  const refs: WorkRef[] = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(PR_RE)) {
    // A lone "#12" after "step" or "issue" numbers something else (the match starts one character before the "#").
    if (m[1] !== undefined && ORDINAL_BEFORE.test(text.slice(Math.max(0, m.index - 16), m.index + (m[0].startsWith('#') ? 0 : 1)))) continue;
    const digits = m[1] ?? m[2] ?? m[3] ?? m[4]!;
    if (repo.length && otherRepos(text, m, digits, repo)) continue;
    const token = `#${digits}`;
    if (!seen.has(token)) refs.push({ kind: 'pr', number: Number(digits), token });
    seen.add(token);
  }
  for (const m of text.matchAll(TICKET_RE)) {
    const token = m[1]!;
    if (NOT_TICKET.test(token)) continue;
    if (!seen.has(token)) refs.push({ kind: 'ticket', id: token, token });
    seen.add(token);
  }
  return refs;
}

type Landable = Pick<CommitInfo, 'subject' | 'parents'>;

/** A merge subject ("Merge pull request #12 from ...") or a squash subject ending "(#12)". */
export function subjectLandsPr(subject: string, pr: number): boolean {
  return landsTest({ kind: 'pr', number: pr, token: `#${pr}` })({ subject, parents: [] });
}

/** A commit naming ticket `id` that lands work (see LANDING_SHAPED): "WIP PLAT-7: started" does not. */
export function commitLandsTicket(commit: Landable, id: string): boolean {
  return landsTest({ kind: 'ticket', id, token: id })(commit);
}

/**
 * How work lands, for a ticket as for a PR: a merge (a merge commit, or its subject as git,
 * GitHub, GitLab and Bitbucket write it) or a squash subject ending "(#123)". A plain commit
 * naming a ticket is work on it, not its landing.
 */
const LANDING_SHAPED = /^Merged? |\(#\d{1,7}\)\s*$/;

/**
 * The `into <target>` tail git, GitHub and GitLab write ("... into PLAT-7-flag", "... into 'main'"),
 * and the ` of <url>` a pull adds before it. Branch and tag names hold no spaces, so the tail is the last words.
 */
const MERGE_TARGET = /(?: of \S+)?(?: into (?:'([^']*)'|(\S+)))?\s*$/;
/** The names a git merge subject quotes: "Merge branch 'a'", "Merge branches 'a' and 'b'", "Merge remote-tracking branch 'origin/a'". */
const QUOTED = /'([^']*)'/g;

/**
 * The part of a landing subject that says what landed. In a merge subject that is the side merged
 * in, never the branch it went into: "Merge branch 'main' into PLAT-7-flag" (updating a ticket branch)
 * lands nothing of PLAT-7, and "Merge branch 'PLAT-7-flag' of github.com:o/r into PLAT-7-flag" (a
 * pull of the ticket branch itself) is a sync. Null when the subject lands nothing.
 */
export function landingText(subject: string, isMerge: boolean): string | null {
  if (!/^Merged? /.test(subject)) return isMerge || LANDING_SHAPED.test(subject) ? subject : null;
  const target = MERGE_TARGET.exec(subject)!;
  const into = target[1] ?? target[2];
  const source = subject.slice(0, target.index);
  if (into === undefined) return source;
  // Every quoted name is the target itself (or a remote's copy of it, "origin/<target>"): a sync.
  const names = [...source.matchAll(QUOTED)].map((m) => m[1]!);
  const sync = names.length > 0 && names.every((n) => n === into || n.endsWith(`/${into}`));
  return sync ? null : source;
}

/** One compiled test per reference: a walk checks it against every subject since the checkpoint. */
function landsTest(ref: WorkRef): (commit: Landable) => boolean {
  if (ref.kind === 'ticket') {
    const names = new RegExp(`(?:^|[^A-Za-z0-9-])${ref.id}(?![0-9])`);
    return ({ subject, parents }) => {
      if (!subject.includes(ref.id)) return false;
      const text = landingText(subject, parents.length > 1);
      return text !== null && names.test(text);
    };
  }
  const merge = new RegExp(`^Merge pull request #${ref.number}\\b`);
  const squash = new RegExp(`\\(#${ref.number}\\)\\s*$`);
  return ({ subject }) => subject.includes(ref.token) && (merge.test(subject) || squash.test(subject));
}

export interface Landing {
  ref: WorkRef;
  commit: Pick<CommitInfo, 'sha' | 'subject' | 'time'>;
}

const REVERT_SUBJECT = /^Revert "(.*)"$/;
const REVERTS_SHA = /\bThis reverts commit ([0-9a-f]{40})\b/;

/** Whether a commit is a revert (git's own `Revert "<subject>"` form). */
export function isRevert(c: Pick<CommitInfo, 'subject'>): boolean {
  return REVERT_SUBJECT.test(c.subject);
}

/**
 * Commits whose effect a later revert undid. Newest first, so a revert that was itself
 * reverted undoes nothing (the work is back). The target is the sha git writes in the body,
 * else the newest older commit with the quoted subject.
 */
export function undoneCommits(commits: readonly CommitInfo[]): Set<string> {
  const known = undoneMemo.get(commits);
  if (known) return known;
  const undone = findUndone(commits);
  undoneMemo.set(commits, undone);
  return undone;
}

/** Every checkpoint and every action asks about the same walk: its reverts are read once. */
const undoneMemo = new WeakMap<readonly CommitInfo[], Set<string>>();

function findUndone(commits: readonly CommitInfo[]): Set<string> {
  const newest = [...commits].sort((a, b) => b.time - a.time);
  const undone = new Set<string>();
  newest.forEach((c, i) => {
    if (undone.has(c.sha)) return;
    const quoted = REVERT_SUBJECT.exec(c.subject)?.[1];
    if (quoted === undefined) return;
    const target = REVERTS_SHA.exec(c.body)?.[1] ?? newest.slice(i + 1).find((o) => o.subject === quoted)?.sha;
    if (target) undone.add(target);
  });
  return undone;
}

/**
 * The first landing (oldest commit) per reference in `text`, among `commits` made after the
 * queueing: from second `after` on, or those `after` accepts (after.ts: the date, or the commit
 * graph where the commit that queued the text is known). A revert is not a landing, and a
 * landing a later revert undid no longer counts. `repo`: this repository's names (workRefs).
 */
export function findLandings(text: string, commits: readonly CommitInfo[], after: number | ((c: CommitInfo) => boolean), repo: ThisRepo = []): Landing[] {
  const out: Landing[] = [];
  // A commit in the same second as the queueing counts as after it (instants.ts says why).
  const counts = typeof after === 'number' ? (c: CommitInfo) => committedAfter(c.time, after) : after;
  for (const ref of workRefs(text, repo)) {
    let hit: CommitInfo | undefined;
    for (const c of landingsOf(commits, ref)) if (counts(c) && (!hit || c.time < hit.time)) hit = c;
    if (hit) out.push({ ref, commit: { sha: hit.sha, subject: hit.subject, time: hit.time } });
  }
  return out;
}

interface WalkLandings {
  /** Commits (in walk order) by each number their subject writes after `#` or `-` ("#12", "-007"). */
  byNumber: Map<string, CommitInfo[]>;
  byRef: Map<string, CommitInfo[]>;
}

/** Every checkpoint asks about the same few references over the same walk: each is searched once. */
const landingsMemo = new WeakMap<readonly CommitInfo[], WalkLandings>();

/**
 * Where a reference's number stands in a subject that lands it: after `#` for a PR ("#12" in
 * both subject forms, digits neither preceded nor followed by more), after the dash for a ticket
 * ("ABC-007", not followed by a digit). Every subject landsTest accepts has it, so the walk is
 * read once for all references and each reference is tested against its few candidates only.
 */
const NUMBER_KEY = /[#-]\d+/g;
const keyOf = (ref: WorkRef) => (ref.kind === 'pr' ? `#${ref.number}` : ref.id.slice(ref.id.lastIndexOf('-')));

/** The commits of `commits` that land `ref` and still count (not a revert, not reverted since). */
function landingsOf(commits: readonly CommitInfo[], ref: WorkRef): CommitInfo[] {
  let walk = landingsMemo.get(commits);
  if (!walk) {
    const byNumber = new Map<string, CommitInfo[]>();
    // exec on the one regex (no iterator and regex copy per subject, as matchAll makes).
    for (const c of commits) {
      NUMBER_KEY.lastIndex = 0;
      for (let m = NUMBER_KEY.exec(c.subject); m !== null; m = NUMBER_KEY.exec(c.subject)) {
        const list = byNumber.get(m[0]);
        if (!list) byNumber.set(m[0], [c]);
        else if (list[list.length - 1] !== c) list.push(c);
      }
    }
    landingsMemo.set(commits, (walk = { byNumber, byRef: new Map() }));
  }
  let landings = walk.byRef.get(ref.token);
  if (!landings) {
    const lands = landsTest(ref);
    const candidates = (walk.byNumber.get(keyOf(ref)) ?? []).filter(lands);
    const undone = candidates.length ? undoneCommits(commits) : null;
    landings = candidates.filter((c) => !undone!.has(c.sha) && !isRevert(c));
    walk.byRef.set(ref.token, landings);
  }
  return landings;
}
