// Which work git shows as landed: the evidence behind doctor's "redo shipped work" check
// and behind `next` skipping such actions. Pure: takes commit records, returns matches.
// Commit SUBJECTS (and whether a commit is a merge) count, plus the few body lines a host writes
// itself (GitLab's "See merge request g/p!12", Bitbucket's "Merge in P/r from a to b", the request's
// title GitHub and GitLab write first in a merge's body): a token anywhere else in a body is not a landing.
import type { CommitInfo } from '../git/types.js';
import { newestByGraph } from '../git/normalize.js';
import { committedAfter } from './instants.js';
import { isThisRepo, pullUrlRepo, type RepoName, type ThisRepo } from './repo-names.js';

/**
 * A pull request, a GitLab merge request, or a ticket. `asPr`: written as a pull request ("PR 12",
 * "pull request 12", a ".../pull/12" URL), not only "#12": on Bitbucket and Azure DevOps a bare "#12"
 * is an issue or work item, so only a PR written as one is landed by those hosts' merge subjects.
 * A merge request ("!12", "MR 12", "merge request 12", a ".../merge_requests/12" URL) is GitLab's
 * (Azure DevOps also mentions its PRs as "!12").
 */
export type WorkRef =
  | { kind: 'pr'; number: number; token: string; asPr: boolean }
  | { kind: 'mr'; number: number; token: string }
  | { kind: 'ticket'; id: string; token: string };

/**
 * A PR as people write one: "#12" standing alone (not "C#12", "docs#12", "&#39;", another
 * repository's "org/repo#12"), "PR#12", "PR 12", "PR-12", "pull request 12", a URL's path to it
 * as each host writes one, in a URL or standing alone: GitHub's "pull/12" (its API's "pulls/12"),
 * Bitbucket's "pull-requests/12", Azure DevOps' "pullrequest/12" (red team rtB 06: "Merge pull/12").
 * Groups: the number after a lone "#" (judged by ORDINAL_BEFORE), else after a PR word or path.
 */
const PR_RE = /(?:^|[^\w&])#(\d{1,7})\b|(?<![\w-])(?:PR|Pr|pr)(?:\s?#|[ -])(\d{1,7})\b|\b[Pp]ull [Rr]equest #?(\d{1,7})\b|(?:^|\/|(?<=[\s([<"'`]))(?:pulls?|pull-requests|pullrequest)\/(\d{1,7})\b/g;
/**
 * A GitLab merge request: "!12" standing alone (not another project's "group/proj!12", nor "Done!12"),
 * "MR !12", "MR 12", "MR-12", "MR #12", "merge request 12" (or !12, #12), "merge_requests/12" in a URL or standing alone.
 */
const MR_RE = /(?:^|[^\w/.!&-])!(\d{1,7})\b|(?<![\w-])(?:MR|mr)(?:\s?[!#]|[ -])(\d{1,7})\b|\b[Mm]erge [Rr]equest [!#]?(\d{1,7})\b|(?:^|\/|(?<=[\s([<"'`]))merge_requests\/(\d{1,7})\b/g;
/**
 * "#12" after a word that numbers something else: a step or an item in a list, an issue
 * (GitHub numbers issues and PRs from one counter, so issue #12 is never PR #12), or a merge
 * request ("MR #12": GitLab's !12, read by MR_RE).
 */
const ORDINAL_BEFORE = /\b(?:[Ss]teps?|[Ii]tems?|[Pp]hases?|[Pp]arts?|[Pp]oints?|[Oo]ptions?|[Ss]tages?|[Rr]ounds?|[Rr]ows?|[Ll]ines?|[Cc]ases?|[Tt]asks?|[Ii]ssues?|[Bb]ugs?|[Tt]ickets?|[Nn]o\.?|[Nn]umber|MRs?|mrs?|[Mm]erge [Rr]equests?)\s*$/;
/**
 * The same for what a team counts besides PRs: a sprint, a CI build, job, run or pipeline, a
 * story or epic, a release, a chapter (red team, 12-05: "Finish sprint #3" read as PR #3).
 */
const COUNTED_BEFORE = /\b(?:sprints?|builds?|jobs?|runs?|pipelines?|stor(?:y|ies)|epics?|milestones?|cards?|comments?|migrations?|requirements?|scenarios?|questions?|chapters?|sections?|tests?|releases?|attempts?|pages?|figures?|slides?|iterations?|weeks?|days?|versions?|tracks?)\s*$/i;
/**
 * A lone "#1" that ranks something: "on the list" or "in line" after it, or a determiner before
 * it and a rank word after ("the #1 priority", "our #2 pick"); without the determiner, "Fix #12
 * item parsing" names PR #12. `from`..`to`: the match (it may start one character before the "#").
 */
function isRank(text: string, from: number, to: number): boolean {
  const after = text.slice(to, to + 24);
  if (/^\s+(?:on (?:the|my|our|your) list|in (?:line|the queue))\b/i.test(after)) return true;
  return /\b(?:the|my|our|your|their|top)\s*$/i.test(text.slice(Math.max(0, from - 8), text[from] === '#' ? from : from + 1)) && /^\s+(?:priorit(?:y|ies)|items?|place|spot|rank|choice|pick|option|position)\b/i.test(after);
}
// A CVE id whole (`CVE-2024-3094`, not `CVE-2024`); any other id not followed by `-<digit>`
// ("ABC-2024-11" is a date-like name, not ticket ABC-2024).
const TICKET_RE = /\b(CVE-\d{4}-\d{4,7}|[A-Z][A-Z0-9]{1,9}-\d{1,7})\b(?!-\d)/g;
/**
 * Names shaped like tickets that are not, and PR-12 / MR-12 (read by PR_RE and MR_RE): encodings
 * and hashes (UTF-8, SHA-256), standards and their bodies (ISO-8601, RFC-9110, PEP-8, WCAG-21,
 * SOC-2, ERC-20, CWE-79), protocols and their versions (HTTP-2, TLS-13, OAUTH-2, IPV-6), hardware
 * (USB-3, DDR-5) and model names (GPT-4, LLAMA-3). A squash subject "Enable HTTP-2 locally (#31)"
 * must not land "Enable HTTP-2 in production". Words that number a plan's parts, a schedule or a
 * severity (PHASE-2, SPRINT-3, STEP-4, MILESTONE-1, WEEK-2, SEV-1, FY-2026) are not tickets either:
 * "Plan PHASE-2 rollout (#41)" must not land "Start PHASE-2 rollout". Two-letter names stay
 * tickets: they are common project keys (DO-12, EN-4), but for MD-5, FY-2026 and PR-12 / MR-12.
 */
const NOT_TICKET = new RegExp(`^(?:${[
  'UTF', 'UCS', 'SHA\\d?', 'MD', 'CRC', 'AES', 'RSA', 'ISO', 'IEC', 'RFC', 'IEEE', 'ECMA', 'ANSI', 'NIST', 'FIPS', 'CWE', 'CAPEC',
  'PEP', 'PSR', 'JSR', 'JEP', 'KEP', 'WCAG', 'SOC', 'PCI', 'ERC', 'EIP', 'BIP', 'NIP', 'OWASP',
  'HTTP', 'HTTPS', 'HTML', 'CSS', 'TLS', 'SSL', 'SSH', 'TCP', 'UDP', 'IPV', 'DNS', 'OAUTH', 'SAML', 'WPA', 'LTE',
  'USB', 'PCIE', 'DDR', 'HDMI', 'GPT', 'LLAMA', 'CLAUDE', 'GEMINI', 'QWEN', 'MISTRAL', 'COVID', 'PR', 'MR',
  // Languages, runtimes and browsers named with their version ("drop the IE-11 workarounds", "ES-6 modules").
  'ES', 'IE', 'PY', 'VUE', 'K8S', 'NODE', 'PYTHON', 'JAVA', 'JDK', 'JRE', 'PHP', 'PG', 'CUDA', 'WIN', 'X86', 'ARM', 'MP',
  'PHASE', 'STAGE', 'STEP', 'PART', 'ROUND', 'SPRINT', 'MILESTONE', 'ITERATION', 'WAVE', 'TIER', 'LEVEL', 'SLICE', 'CHAPTER', 'SECTION', 'OPTION', 'ITEM',
  'DAY', 'WEEK', 'MONTH', 'QUARTER', 'YEAR', 'FY', 'SEV', 'PRIORITY', 'VERSION',
].join('|')})-`);

/** GitHub's cross-reference "owner/repo#12" (not inside a longer path: "docs/owner/repo#12"). */
const REPO_REF_RE = /(?<![\w./-])([\w.-]+\/[\w.-]+)#(\d{1,7})\b/g;

/** The URL-ish run of characters ending at `end` (a space, a markdown link's parenthesis or a quote ends it); scanned back, so a long text costs its run only. */
function urlRunBefore(text: string, end: number): string {
  let i = end;
  while (i > 0 && !/[\s<>()[\]{}"'`]/.test(text[i - 1]!)) i--;
  return text.slice(i, end);
}
/** A markdown link right after a reference: `[#12](https://…/pull/12)`. */
const LINK_AFTER = /^\]\(\s*<?([^\s)>]+)/;
const PULL_IN_URL = /\/(?:pulls?|pull-requests|pullrequest)\/(\d{1,7})\b/;

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

/** Whether a `…/-/merge_requests/12` URL names another project than this repository. */
function otherProjects(text: string, m: RegExpMatchArray, repo: ThisRepo): boolean {
  if (m[4] === undefined || !m[0].startsWith('/')) return false;
  const named = pullUrlRepo(urlRunBefore(text, m.index!).replace(/\/-$/, ''));
  return named !== null && !isThisRepo(named, repo);
}

/**
 * A request named with its repository around it, where people write another repository's: before
 * it (`acme/web PR 12`, `acme/web's PR #12`, `the web repo's PR #12`) or after it (`PR #12 in
 * acme/web`, `#12 on the web repo`). Its path or name, lower-cased, or null when none is written.
 */
const REPO_BEFORE = /(?:(?<![\w./-])([\w-]+(?:\.[\w-]+)*(?:\/[\w-]+(?:\.[\w-]+)*)+)|\b([\w-]+(?:\.[\w-]+)*)\s+repo(?:sitory)?)(?:'s|\u2019s)?\s+$/i;
const REPO_AFTER = /^\s+(?:in|on|of|from|at|for|against)\s+(?:the\s+)?(?:([\w-]+(?:\.[\w-]+)*(?:\/[\w-]+(?:\.[\w-]+)*)+)(?![\w/-])|([\w-]+(?:\.[\w-]+)*)\s+repo(?:sitory)?\b)/i;
/** Words that name this repository in "the <word> repo" ("our repo's PR #12", "this repo"). */
const THIS_REPO_WORD = /^(?:this|that|our|my|the|a|an|its|same|current|main|mono|monorepo|root|parent|whole|entire|git|github|gitlab|in|on|of|from|at|for|to)$/i;

/**
 * Whether the request written at `from`..`to` in `text` is qualified as another repository's
 * (REPO_BEFORE, REPO_AFTER): a path no remote names that shares a remote's owner (`acme/web`
 * beside remote `acme/api`: the same organisation's other repository; a branch such as
 * `release/1.x` or `feature/login` names no owner of ours and stays this repository's), or a
 * name no remote ends with (`the web repo`). With no hosted remote nothing can be told apart,
 * and the request counts as this repository's, as an unqualified one does.
 */
function namedElsewhere(text: string, from: number, to: number, repo: ThisRepo): boolean {
  if (!repo.length) return false;
  const before = REPO_BEFORE.exec(text.slice(Math.max(0, from - 80), from));
  const after = REPO_AFTER.exec(text.slice(to, to + 80));
  return [before, after].some((m) => {
    if (!m) return false;
    if (m[1] !== undefined) {
      const path = m[1].toLowerCase();
      const owner = path.slice(0, path.lastIndexOf('/'));
      return !repo.some((r) => r.path === path) && repo.some((r) => r.path.slice(0, r.path.lastIndexOf('/')) === owner);
    }
    const name = m[2]!.toLowerCase();
    return !THIS_REPO_WORD.test(name) && !repo.some((r) => r.path.slice(r.path.lastIndexOf('/') + 1) === name);
  });
}

/**
 * PR numbers (`#12`, `PR 12`, a `/pull/12` URL: token `#12`), merge requests (`!12`, `MR 12`:
 * token `!12`) and ticket ids (`ABC-123`) that a piece of text refers to. A full PR or MR URL of
 * another repository than `repo` (its remotes) is not this repository's, nor is a `[#12](…)` link to one.
 */
export function workRefs(text: string, repo: ThisRepo = []): WorkRef[] {
  const refs: WorkRef[] = [];
  const seen = new Map<string, WorkRef>();
  for (const m of text.matchAll(PR_RE)) {
    // A lone "#12" after "step" or "issue" numbers something else (the match starts one character before the "#").
    const before = m[1] === undefined ? '' : text.slice(Math.max(0, m.index - 16), m.index + (m[0].startsWith('#') ? 0 : 1));
    if (m[1] !== undefined && (ORDINAL_BEFORE.test(before) || COUNTED_BEFORE.test(before))) continue;
    // "the #1 priority", "the #2 item on the list": a rank, not a PR ("Fix #12 item parsing" is one).
    if (m[1] !== undefined && isRank(text, m.index, m.index + m[0].length)) continue;
    const digits = m[1] ?? m[2] ?? m[3] ?? m[4]!;
    if (repo.length && otherRepos(text, m, digits, repo)) continue;
    // "acme/web PR 12", "PR #12 in the web repo": another repository's request (red team s56).
    if (namedElsewhere(text, m.index + (m[1] !== undefined && !m[0].startsWith('#') ? 1 : 0), m.index + m[0].length, repo)) continue;
    const token = `#${digits}`;
    const known = seen.get(token);
    // "#12" and "PR 12" in one text are one PR, written as a PR.
    if (known?.kind === 'pr') known.asPr ||= m[1] === undefined;
    else {
      const ref: WorkRef = { kind: 'pr', number: Number(digits), token, asPr: m[1] === undefined };
      refs.push(ref);
      seen.set(token, ref);
    }
  }
  // GitHub's "owner/repo#12" naming this repository (one of its remotes): its #12, as its URL is.
  if (repo.length && text.includes('/')) {
    for (const m of text.matchAll(REPO_REF_RE)) {
      const token = `#${m[2]!}`;
      if (seen.has(token) || !repo.some((r) => r.path === m[1]!.toLowerCase())) continue;
      const ref: WorkRef = { kind: 'pr', number: Number(m[2]!), token, asPr: false };
      refs.push(ref);
      seen.set(token, ref);
    }
  }
  for (const m of text.matchAll(MR_RE)) {
    if (repo.length && otherProjects(text, m, repo)) continue;
    if (namedElsewhere(text, m.index + (m[1] !== undefined && !m[0].startsWith('!') ? 1 : 0), m.index + m[0].length, repo)) continue;
    const digits = m[1] ?? m[2] ?? m[3] ?? m[4]!;
    const token = `!${digits}`;
    if (seen.has(token)) continue;
    const ref: WorkRef = { kind: 'mr', number: Number(digits), token };
    refs.push(ref);
    seen.set(token, ref);
  }
  for (const m of text.matchAll(TICKET_RE)) {
    const token = m[1]!;
    if (NOT_TICKET.test(token) || seen.has(token)) continue;
    const ref: WorkRef = { kind: 'ticket', id: token, token };
    refs.push(ref);
    seen.set(token, ref);
  }
  return refs;
}

/**
 * `text` with each request of this repository written as a URL or path (`https://github.com/o/r/pull/5`,
 * `pull/5`, `…/-/merge_requests/5`) or as GitHub's `o/r#5` rewritten in the words REF reads (`PR 5`,
 * `MR !5`, `#5`): the words around a request are judged the same whatever form it is written in
 * (red team 64: "Backport https://…/pull/5 to release/1.x" was read as redone by #5's merge, while
 * "Backport #5 to release/1.x" was kept). Another repository's request is left as written.
 */
export function plainRefs(text: string, repo: ThisRepo = []): string {
  if (!text.includes('/')) return text;
  const edits: { from: number; to: number; as: string }[] = [];
  const urls = (re: RegExp, as: string, other: (m: RegExpMatchArray) => boolean) => {
    for (const m of text.matchAll(re)) {
      if (m[4] === undefined || other(m)) continue;
      // "…/pull/5" takes the URL before it along; a lone "pull/5" is itself.
      const from = m[0].startsWith('/') ? m.index! - urlRunBefore(text, m.index!).length : m.index!;
      edits.push({ from, to: m.index! + m[0].length, as: `${as}${m[4]}` });
    }
  };
  urls(PR_RE, 'PR ', (m) => repo.length > 0 && otherRepos(text, m, m[4]!, repo));
  urls(MR_RE, 'MR !', (m) => repo.length > 0 && otherProjects(text, m, repo));
  if (repo.length && text.includes('#')) {
    for (const m of text.matchAll(REPO_REF_RE)) if (repo.some((r) => r.path === m[1]!.toLowerCase())) edits.push({ from: m.index, to: m.index + m[0].length, as: `#${m[2]!}` });
  }
  if (!edits.length) return text;
  let out = '';
  let end = 0;
  for (const e of edits.sort((a, b) => a.from - b.from)) {
    if (e.from < end) continue;
    out += text.slice(end, e.from) + e.as;
    end = e.to;
  }
  return out + text.slice(end);
}

/** The repositories `text` names in GitHub's "owner/repo#12" form (each once, host unknown). */
export function repoRefNames(text: string): RepoName[] {
  const out: RepoName[] = [];
  for (const m of text.matchAll(REPO_REF_RE)) {
    const path = m[1]!.toLowerCase();
    if (!out.some((r) => r.path === path)) out.push({ host: '', path });
  }
  return out;
}

/**
 * Whether `text` may name work whatever this repository's remotes are: a reference workRefs reads
 * without them, or an "owner/repo#12" (this repository's PR when a remote names it).
 */
export function mayNameWork(text: string): boolean {
  return workRefs(text).length > 0 || (text.includes('#') && REPO_REF_ONE.test(text));
}
const REPO_REF_ONE = new RegExp(REPO_REF_RE.source);

/** What a landing is judged on: the subject, the body (where a host writes its own lines), whether it is a merge. */
type Landable = Pick<CommitInfo, 'subject' | 'parents'> & { body?: string };

/** A merge or squash subject landing PR `pr`, as GitHub writes them ("Merge pull request #12 from ...", "... (#12)"). */
export function subjectLandsPr(subject: string, pr: number): boolean {
  return landsTest({ kind: 'pr', number: pr, token: `#${pr}`, asPr: false })({ subject, parents: [] });
}

/** A commit naming ticket `id` that lands work (see LANDING_SHAPED): "WIP PLAT-7: started" does not. */
export function commitLandsTicket(commit: Landable, id: string): boolean {
  return landsTest({ kind: 'ticket', id, token: id })(commit);
}

/** Whether `commit` lands `ref` (a revert aside: findLandings leaves those out). */
export function commitLands(commit: Landable, ref: WorkRef): boolean {
  return landsTest(ref)(commit);
}

/**
 * How work lands, for a ticket as for a PR: a merge (a merge commit, or its subject as git,
 * GitHub, GitLab, Bitbucket and Azure DevOps write it) or a squash subject ending "(#123)"
 * (GitLab's "(!123)"). A plain commit naming a ticket is work on it, not its landing.
 */
const LANDING_SHAPED = /^Merged? |\([#!]\d{1,7}\)\s*$/;

/**
 * Bitbucket Server's subjects: "Merge pull request #12 in PROJ/repo from <source> to <target>"
 * (before 7.0; a fork's source is "PROJ/fork:branch"), and "Pull request #12: <title>" (7.0 on),
 * whose body says "Merge in PROJ/repo from <source> to <target>".
 */
const BITBUCKET_SERVER_MERGE = /^Merge pull request #(\d{1,7}) in \S+ from (\S+) to (\S+)\s*$/;
const BITBUCKET_SERVER_TITLE = /^Pull request #(\d{1,7}): (.*)$/;
const BITBUCKET_SERVER_BODY = /^Merge in \S+ from (\S+) to (\S+)\s*$/m;

/** Whether a Bitbucket Server source ("feature/x", a fork's "PROJ/fork:main") is the target branch itself: a sync. */
const sameBranch = (source: string, target: string) => source.slice(source.lastIndexOf(':') + 1) === target;

/**
 * The `into <target>` tail git, GitHub and GitLab write ("... into PLAT-7-flag", "... into 'main'"),
 * and the ` of <url>` a pull adds before it. Branch and tag names hold no spaces, so the tail is the last words.
 */
const MERGE_TARGET = /(?: of \S+)?(?: into (?:'([^']*)'|(\S+)))?\s*$/;
/** How much of a merge subject's end MERGE_TARGET reads: a pull's URL and a branch name, with room to spare. */
const MERGE_TAIL_CHARS = 2048;
/** The names a git merge subject quotes: "Merge branch 'a'", "Merge branches 'a' and 'b'", "Merge remote-tracking branch 'origin/a'". */
const QUOTED = /'([^']*)'/g;

/** What a landing commit says landed: its text, and the names of the branches (or tags) it merged in. */
interface LandingParts {
  text: string;
  /** Names the host or git wrote for the side merged in: a ticket in one of them lands in any case of its letters. */
  branches: string[];
  /** The branch a "Merge ... into <target>" subject names as merged into. */
  into?: string;
}

/**
 * The branch merged in, where a "Merge ..." subject names it unquoted: GitHub's and Azure DevOps'
 * "Merge pull request #12 from o/branch", Bitbucket Cloud's "Merged in branch (pull request #12)",
 * and a hand-written "Merge branch-name" (one word, its into-target already cut off).
 */
const UNQUOTED_SOURCE = /^Merge pull request #?\d{1,7} from (\S+)$|^Merged in (\S+)(?: \(pull request #\d{1,7}\))?\s*$|^Merge ([^\s']+)\s*$/;

/**
 * The part of a landing commit that says what landed. In a merge that is the side merged in,
 * never the branch it went into: "Merge branch 'main' into PLAT-7-flag" (updating a ticket branch)
 * lands nothing of PLAT-7, and "Merge branch 'PLAT-7-flag' of github.com:o/r into PLAT-7-flag" (a
 * pull of the ticket branch itself) is a sync. Null when the commit lands nothing.
 */
export function landingText(subject: string, isMerge: boolean, body = ''): string | null {
  return landingParts(subject, isMerge, body)?.text ?? null;
}

function landingParts(subject: string, isMerge: boolean, body: string): LandingParts | null {
  const parts = subjectParts(subject, isMerge, body);
  // The title a host writes under its merge subject says what landed, as a squash's subject does;
  // the branch merged into, named there ("Update PLAT-7-flag from main"), did not land.
  const title = parts && hostTitle(subject, body);
  if (!title) return parts;
  const { into, ...landed } = parts;
  return { ...landed, text: `${parts.text}\n${into ? title.split(into).join(' ') : title}` };
}

/**
 * GitHub's merge subject and Bitbucket Cloud's (merge and squash), where the pull request's title
 * is the body's first line (Bitbucket Server's "... in P/r from a to b" has none).
 */
const TITLE_BELOW = /^Merge pull request #\d{1,7} from \S+\s*$|^Merged in \S+ \(pull request #\d{1,7}\)\s*$/;
/** GitLab's line closing a merge commit's body (GITLAB_NUMBER, one match). */
const GITLAB_REQUEST = /^See merge request \S*!\d+\s*$/m;

/**
 * The pull or merge request's title a host writes as its merge commit's body's first line:
 * GitHub's under "Merge pull request #12 from o/branch", Bitbucket Cloud's under "Merged in
 * branch (pull request #12)", GitLab's over "See merge request g/p!12" (GitLab 14 on; before,
 * that line is the body's first). '' for any other commit: the rest of a body (a description, the
 * commits squashed, "Approved-by:") is not what landed.
 */
function hostTitle(subject: string, body: string): string {
  if (!body || !(TITLE_BELOW.test(subject) || (body.includes('See merge request ') && GITLAB_REQUEST.test(body)))) return '';
  const newline = body.indexOf('\n');
  const first = (newline < 0 ? body : body.slice(0, newline)).trim();
  return first.startsWith('See merge request ') ? '' : first;
}

function subjectParts(subject: string, isMerge: boolean, body: string): LandingParts | null {
  const server = BITBUCKET_SERVER_MERGE.exec(subject);
  if (server) return sameBranch(server[2]!, server[3]!) ? null : { text: `Merge pull request #${server[1]} from ${server[2]}`, branches: [server[2]!] };
  const titled = BITBUCKET_SERVER_TITLE.exec(subject);
  if (titled) {
    const into = BITBUCKET_SERVER_BODY.exec(body);
    if (!into) return isMerge ? { text: subject, branches: [] } : null;
    const [, source, target] = into as unknown as [string, string, string];
    // The title may name the branch merged into ("Update PLAT-7-flag from main"): that did not land.
    return sameBranch(source, target) ? null : { text: `${titled[2]!.split(target).join(' ')} from ${source}`, branches: [source] };
  }
  if (!/^Merged? /.test(subject)) return isMerge || LANDING_SHAPED.test(subject) ? { text: subject, branches: [] } : null;
  // Its last characters only: unanchored, MERGE_TARGET retries from each blank of a long run.
  const tail = subject.trimEnd();
  const cut = Math.max(0, tail.length - MERGE_TAIL_CHARS);
  const target = MERGE_TARGET.exec(tail.slice(cut))!;
  const into = target[1] ?? target[2];
  const source = subject.slice(0, cut + target.index);
  // Every quoted name is the target itself (or a remote's copy of it, "origin/<target>"): a sync.
  const names = [...source.matchAll(QUOTED)].map((m) => m[1]!);
  if (into !== undefined && names.length > 0 && names.every((n) => n === into || n.endsWith(`/${into}`))) return null;
  const unquoted = UNQUOTED_SOURCE.exec(source);
  if (unquoted) names.push(unquoted[1] ?? unquoted[2] ?? unquoted[3]!);
  return { text: source, branches: names, ...(into ? { into } : {}) };
}

/**
 * How each host writes a landed pull or merge request numbered `n` (real default subjects):
 * GitHub's merge commit "Merge pull request #12 from o/branch" (Bitbucket Server's "Merge pull request
 * #12 in P/r from a to b" alike) and squash "Title (#12)"; Bitbucket Cloud's "Merged in branch (pull
 * request #12)"; Bitbucket Server 7's "Pull request #12: Title" over "Merge in P/r from a to b";
 * Azure DevOps' "Merged PR 12: Title" (older: "Merge pull request 12 from a into b"); GitLab's merge
 * commit body "See merge request group/proj!12" ("!12" before 10.0) and a squash "Title (!12)".
 */
const HOST_FORMS = {
  github: (n: number) => new RegExp(`^Merge pull request #${n}\\b`),
  squash: (n: number) => new RegExp(`\\(#${n}\\)\\s*$`),
  bitbucketCloud: (n: number) => new RegExp(`^Merged in \\S+ \\(pull request #${n}\\)`),
  bitbucketServer: (n: number) => new RegExp(`^Pull request #${n}: `),
  azure: (n: number) => new RegExp(`^Merged? PR ${n}: |^Merge pull request ${n} from \\S+ into \\S+`),
  gitlab: (n: number) => new RegExp(`^See merge request \\S*!${n}\\s*$`, 'm'),
  gitlabSquash: (n: number) => new RegExp(`\\(!${n}\\)\\s*$`),
};

/** One compiled test per reference: a walk checks it against its few candidate commits. */
function landsTest(ref: WorkRef): (commit: Landable) => boolean {
  if (ref.kind === 'ticket') {
    // The id as a whole token: not inside a longer key ("XPLAT-7", "AB-PLAT-7") or number ("PLAT-77").
    const token = `(?:^|[^A-Za-z0-9-])${ref.id}(?![0-9])`;
    const names = new RegExp(token);
    // In a branch name merged in, any case: trackers write "alice/plat-7-flag". (No u flag: only
    // ASCII letters fold, never a Kelvin sign into a K.)
    const inBranch = new RegExp(token, 'i');
    const anyCase = new RegExp(ref.id, 'i');
    return ({ subject, parents, body = '' }) => {
      // Bitbucket Server 7 names the branch merged in on its body's "Merge in" line only.
      // Nor its merges elsewhere than the subject: a GitHub or GitLab merge's title, on the body's first line.
      if (!anyCase.test(subject) && !(subject.startsWith('Pull request #') && anyCase.test(body)) && !anyCase.test(hostTitle(subject, body))) return false;
      const parts = landingParts(subject, parents.length > 1, body);
      return parts !== null && (names.test(parts.text) || parts.branches.some((b) => inBranch.test(b)));
    };
  }
  const n = ref.number;
  const azure = HOST_FORMS.azure(n);
  if (ref.kind === 'mr') {
    const gitlab = HOST_FORMS.gitlab(n);
    const squash = HOST_FORMS.gitlabSquash(n);
    return ({ subject, body = '' }) => squash.test(subject) || azure.test(subject) || (body.includes('See merge request ') && gitlab.test(body));
  }
  const github = HOST_FORMS.github(n);
  const squash = HOST_FORMS.squash(n);
  if (!ref.asPr) return ({ subject }) => subject.includes(ref.token) && (github.test(subject) || squash.test(subject));
  const cloud = HOST_FORMS.bitbucketCloud(n);
  const server = HOST_FORMS.bitbucketServer(n);
  // "Pull request #12: Title" is Bitbucket's when it merged (its "Merge in" line, or a merge commit), not a hand-written subject.
  return ({ subject, parents, body = '' }) => github.test(subject) || squash.test(subject) || cloud.test(subject) || azure.test(subject)
    || (server.test(subject) && (parents.length > 1 || BITBUCKET_SERVER_BODY.test(body)));
}

/**
 * What any commit landing `ref` holds verbatim in its message ("#12"; Azure DevOps' "PR 12" and
 * "pull request 12" for a PR written as one, and for a merge request, which GitLab writes "!12"):
 * what a search of older history by message asks for.
 */
export function landingNeedles(ref: WorkRef): string[] {
  if (ref.kind === 'ticket') return [ref.id];
  const n = ref.number;
  if (ref.kind === 'mr') return [`!${n}`, `PR ${n}`, `pull request ${n}`];
  return ref.asPr ? [`#${n}`, `PR ${n}`, `pull request ${n}`] : [`#${n}`];
}

export interface Landing {
  ref: WorkRef;
  commit: Pick<CommitInfo, 'sha' | 'subject' | 'time'>;
}

// GitHub's Revert button opens a pull request of git's revert; squash-merged, its subject gains
// the request's number: `Revert "Add auth (#20)" (#21)`.
const REVERT_SUBJECT = /^Revert "(.*)"(?: \(#(\d+)\))?$/;
// Since git 2.43 a revert of `Revert "<rest>` is `Reapply "<rest>` (older git: `Revert "Revert
// "…""`): the rest kept as it was, closing quote and a squashed revert's "(#21)" included. Whether
// a trailing "(#22)" is the reapply's own squash or the revert's cannot be told: it is left to the
// rest, so a reapply never lands a request of its own (a missed landing, never a false one).
const REAPPLY_SUBJECT = /^Reapply "(.*"(?: \(#\d+\))*)$/;
// A squash of several reverts holds each one's line.
const REVERTS_SHA = /\bThis reverts commit ([0-9a-f]{40})\b/g;

/**
 * What a revert's subject says it undid (the reverted commit's subject) and, squash-merged, the
 * pull request it is; undefined for a commit that is no revert.
 */
function revertOf(subject: string): { reverted: string; own?: string } | undefined {
  const revert = REVERT_SUBJECT.exec(subject);
  if (revert) return { reverted: revert[1]!, own: revert[2] };
  const reapply = REAPPLY_SUBJECT.exec(subject);
  return reapply ? { reverted: `Revert "${reapply[1]}` } : undefined;
}

/** Whether a commit is a revert (git's own `Revert "<subject>"` or `Reapply "<subject>"` form, squash-merged too). */
export function isRevert(c: Pick<CommitInfo, 'subject'>): boolean {
  return revertOf(c.subject) !== undefined;
}

/**
 * Whether commit `c` lands `ref` though it is a revert: only a squash-merged revert lands, and only
 * its own pull request (`Revert "Add auth (#20)" (#21)` lands #21, never #20).
 */
function revertLands(c: Pick<CommitInfo, 'subject'>, ref: WorkRef): boolean {
  const own = revertOf(c.subject)?.own;
  return own !== undefined && ref.kind === 'pr' && Number(own) === ref.number;
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
  const newest = newestByGraph(commits);
  const undone = new Set<string>();
  newest.forEach((c, i) => {
    if (undone.has(c.sha)) return;
    const quoted = revertOf(c.subject)?.reverted;
    if (quoted === undefined) return;
    const named = [...c.body.matchAll(REVERTS_SHA)].map((m) => m[1]!);
    const targets = named.length ? named : [newest.slice(i + 1).find((o) => o.subject === quoted)?.sha];
    for (const target of targets) if (target) undone.add(target);
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
  /** Commits (in walk order) by each number key they carry (numberKeys: "#12", "!12", "-007"). */
  byNumber: Map<string, CommitInfo[]>;
  byRef: Map<string, CommitInfo[]>;
}

/** Every checkpoint asks about the same few references over the same walk: each is searched once. */
const landingsMemo = new WeakMap<readonly CommitInfo[], WalkLandings>();

/**
 * Where a reference's number stands in a commit that lands it: after `#` for a PR ("#12",
 * digits neither preceded nor followed by more), after `!` for a merge request, after the dash for
 * a ticket ("ABC-007", not followed by a digit). Azure DevOps writes "PR 12" (a PR's "#12" and
 * "!12" both), and GitLab its "!12" in the body. Every commit landsTest accepts carries its
 * reference's key, so the walk is read once for all references and each reference is tested
 * against its few candidates only.
 */
const NUMBER_KEY = /[#!-]\d+/g;
const AZURE_NUMBER = /^Merged? PR (\d+): |^Merge pull request (\d+) from /;
const GITLAB_NUMBER = /^See merge request \S*!(\d+)\s*$/gm;
const keyOf = (ref: WorkRef) => (ref.kind === 'pr' ? `#${ref.number}` : ref.kind === 'mr' ? `!${ref.number}` : ref.id.slice(ref.id.lastIndexOf('-')));

/** Calls `add` with each number key of commit `c` (a key may come twice). */
function numberKeys(c: CommitInfo, add: (key: string) => void): void {
  // exec on the one regex (no iterator and regex copy per subject, as matchAll makes).
  NUMBER_KEY.lastIndex = 0;
  for (let m = NUMBER_KEY.exec(c.subject); m !== null; m = NUMBER_KEY.exec(c.subject)) add(m[0]);
  const azure = c.subject.charCodeAt(0) === 77 /* M */ ? AZURE_NUMBER.exec(c.subject) : null;
  if (azure) {
    const n = azure[1] ?? azure[2]!;
    add(`#${n}`);
    add(`!${n}`);
  }
  // Bitbucket Server 7's branch merged in ("Merge in P/r from PLAT-7-flag to main") may name a ticket.
  const source = c.subject.startsWith('Pull request #') ? BITBUCKET_SERVER_BODY.exec(c.body)?.[1] : undefined;
  if (source !== undefined) {
    NUMBER_KEY.lastIndex = 0;
    for (let m = NUMBER_KEY.exec(source); m !== null; m = NUMBER_KEY.exec(source)) add(m[0]);
  }
  // A ticket in the title a GitHub, Bitbucket Cloud or GitLab merge writes on its body's first line.
  const title = hostTitle(c.subject, c.body);
  if (title) {
    NUMBER_KEY.lastIndex = 0;
    for (let m = NUMBER_KEY.exec(title); m !== null; m = NUMBER_KEY.exec(title)) add(m[0]);
  }
  if (c.body.includes('See merge request ')) {
    GITLAB_NUMBER.lastIndex = 0;
    for (let m = GITLAB_NUMBER.exec(c.body); m !== null; m = GITLAB_NUMBER.exec(c.body)) add(`!${m[1]}`);
  }
}

/** The commits of `commits` that land `ref` and still count (not a revert, not reverted since). */
function landingsOf(commits: readonly CommitInfo[], ref: WorkRef): CommitInfo[] {
  let walk = landingsMemo.get(commits);
  if (!walk) {
    const byNumber = new Map<string, CommitInfo[]>();
    for (const c of commits) {
      numberKeys(c, (key) => {
        const list = byNumber.get(key);
        if (!list) byNumber.set(key, [c]);
        else if (list[list.length - 1] !== c) list.push(c);
      });
    }
    landingsMemo.set(commits, (walk = { byNumber, byRef: new Map() }));
  }
  // A PR written as one ("PR 12") lands by more hosts' forms than a bare "#12": its own entry.
  const refKey = ref.kind === 'pr' && ref.asPr ? `PR ${ref.token}` : ref.token;
  let landings = walk.byRef.get(refKey);
  if (!landings) {
    // The test (a few regexes per host form) is compiled only for a reference some commit may land.
    const keyed = walk.byNumber.get(keyOf(ref));
    const candidates = keyed ? keyed.filter(landsTest(ref)) : [];
    const undone = candidates.length ? undoneCommits(commits) : null;
    landings = candidates.filter((c) => !undone!.has(c.sha) && (!isRevert(c) || revertLands(c, ref)));
    walk.byRef.set(refKey, landings);
  }
  return landings;
}
