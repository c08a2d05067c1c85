// Which work a queued action waits for or can only follow up: its landing is when the action can
// start, not a sign it was done. Pure: reads the action's words; landed.ts reads the commits.
import type { CommitInfo } from '../git/types.js';
import { findLandings, plainRefs, workRefs, type Landing } from './landed.js';
import { beforeLanding, contextWork, REF, REF_AFTER, REFS_AFTER } from './context-refs.js';
import type { ThisRepo } from './repo-names.js';

/** Words of waiting for work to land. */
const WAITING = String.raw`until|once|wait(?:s|ing)?\s+(?:on|for)|blocked\s+(?:on|by)|depends\s+on`;
/**
 * Words of depending on work that is not one's own: "(needs #41)", "requires PR 41", "pending
 * #41", "stacked on #41", "on top of #41"; a blocker's "Needs #20 merged first" waits on #20.
 */
const DEPENDING = String.raw`needs|requires|requiring|pending|depend(?:s|ing|ent)?\s+(?:on|upon)|gated\s+(?:on|by)|reli(?:es|ant)\s+on|stacked\s+on(?:\s+top\s+of)?|on\s+top\s+of|prereq(?:uisite)?s?:?`;
/**
 * A blocker's words that it waits on work to land, and the work named right after them (group 1):
 * "until PR #20", "waiting on #21", "blocked by PLAT-7", "once !12", "depends on the #9", "needs
 * #20". Not "after #20", which in a blocker tells a cause ("broke after #20 landed").
 */
export const WAITS_ON = new RegExp(String.raw`\b(?:${WAITING}|${DEPENDING})` + REFS_AFTER, 'gi');
/**
 * Work an action waits for: those words, and "after #20 lands", "when ENG-7 ships", "as soon as #20
 * merges"; the landing written out before the work: "after merging #20", "once we've merged PR 20",
 * "after the merge of #20" (not "when merging #20": that is the merge itself). A list after them
 * is all awaited: "once #41 and #42 land", "when #41, #42 are in".
 */
const AWAITED = new RegExp(
  String.raw`\b(?:(?:${WAITING}|${DEPENDING}|after|when|as soon as)|after\s+(?:merging|landing|shipping|the\s+(?:merge|landing)\s+of)`
    + String.raw`|(?:after|once|when|as soon as)\s+(?:we|you|I|they|someone)(?:['\u2019]ve|\s+have)?\s+(?:merged?|landed|land|shipped|ship))` + REFS_AFTER,
  'gi',
);
/**
 * Waiting on a step before the landing ("Wait for #41 CI", "until #41's review is done"): in an
 * action that then lands "it" ("Wait for #41 CI, then merge it"), the landing is its own work.
 */
const BEFORE_LANDING_WAIT = new RegExp(
  String.raw`\b(?:${WAITING}|${DEPENDING}|after|when|as soon as)` + REFS_AFTER + String.raw`(?=(?:['\u2019]s)?\s+(?:CI|checks?|reviews?|approvals?|builds?|tests?|pipelines?|sign[- ]?off)\b)`,
  'gi',
);
/**
 * A landing told without naming what lands ("once merged", "after it lands", "when the PR is
 * merged", "after merge:", "Post-merge: …"): the action comes after the landing of the work it names.
 * The landing ends its clause: "after merging main into #20", "after the merge freeze" land nothing.
 */
const LANDING_CLAUSE = new RegExp(
  String.raw`\b(?:once|after|when|as soon as)\s+(?:(?:it|this|that|they|the\s+(?:PR|MR|pull request|merge request|change|fix))(?:['\u2019](?:s|re)|\s+(?:is|are|has|have|gets?|got|was))?\s+(?:been\s+)?)?`
    + String.raw`(?:merged|landed|shipped|merges|lands|ships|merge|land|the\s+merge|(?<=after\s+)(?:merging|landing))(?=\s*(?:$|[,.;:!?()\u2013\u2014]|\s-\s|\s(?:and|then|to|into|on|in|upstream)\b))`
    + String.raw`|(?:^|[([,;]\s*)post[- ]?merge\b(?!\s+hooks?\b)`,
  'i',
);
/** Work the action lands itself ("Merge #20", "Land PR 20", "… and merge it"): a landing clause does not excuse it. */
const LANDS_ITSELF = new RegExp(String.raw`\b(?:merge|land|ship|squash(?:[- ]merge)?|complete)` + REF_AFTER, 'gi');
const LANDS_IT = /\b(?:merge|land|ship)\s+(?:it|them|this|that)\b/i;
/**
 * Work an action can only do once it landed: "Backport #20", "Cherry-pick #20 into v2", "Mirror #20
 * into v2", "Revert #20 if…", "Deploy the fix from #20", "Roll out #20"; a copy of it onto another
 * line: "Apply #20 to release-1.x", "Sync #20 into v2" (not "Rebase #20 onto main": its own branch).
 */
const FOLLOWS_UP = new RegExp(
  String.raw`\b(?:(?:backport(?:s|ing)?|cherry[- ]?pick(?:s|ing)?|revert(?:s|ing)?|port(?:s|ing)?|mirror(?:s|ing)?|replicat(?:e|es|ing)|announc(?:e|es|ing)|deploy(?:s|ing)?|roll(?:s|ing)?[- ]?(?:out|back))(?:\s+(?:the\s+)?(?:fix(?:es)?|changes?)\s+(?:from|in|of))?`
    + REF_AFTER + String.raw`|(?:cop(?:y|ies|ying)|appl(?:y|ies|ying)|sync(?:s|ing)?)` + REF_AFTER + String.raw`(?=\s+(?:over\s+)?(?:into|to|onto)\b))`,
  'gi',
);
/**
 * Release work about what landed: release notes, the changelog or an announcement written for it
 * ("Write release notes for #20", "Update the changelog for #20", "Mention #20 in the release
 * notes"), a release that carries it ("Tag release v1.3 with #20", "Cut the release including
 * #20"), cleaning up the flags that gated it ("Clean up the feature flags from #20"). Not a
 * changelog entry, which a PR itself carries ("Add a changelog entry for #20", "Add #20 to the
 * changelog"), nor the changelog "in #20"; and not when the text does it before the landing
 * ("Update the changelog for #20 before merging").
 */
const RELEASE_WORK = new RegExp(
  String.raw`\b(?:(?:release[- ]notes?|change[- ]?log(?![- ]?entr)(?:\.\w+)?|release\s+announcement)(?:\s+[\w-]+){0,2}?\s+(?:for|about|covering)`
    + String.raw`|(?:release|tag)(?:\s+v?\d+(?:\.\d+)*[\w.-]*)?\s+(?:with|including|containing)|v\d+(?:\.\d+)+[\w.-]*\s+(?:with|including|containing)`
    + String.raw`|(?:clean(?:s|ing)?\s+up|retir(?:e|es|ing))(?:\s+(?:the|any|all|its))?(?:\s+[\w-]+)?\s+(?:feature[- ])?(?:flags?|toggles?|kill[- ]?switch(?:es)?)\s+(?:from|of|for|in|behind))`
    + REF_AFTER
    + String.raw`|(?<![\w#!-])(${REF})\s+(?:in|to|into)\s+(?:the\s+)?(?:[\w.-]+\s+)?(?:release[- ]notes?|release\s+announcement)\b`,
  'gi',
);
/**
 * Checking work that runs where only a landing puts it: "Verify #20 in production", "Smoke-test
 * PLAT-7 on staging", "Monitor #20". Not when the text checks it before it lands ("Verify #20
 * before merging"): that landing is the redo.
 */
const CHECKS = new RegExp(String.raw`\b(?:verif(?:y|ies|ying)|validat(?:e|es|ing)|smoke[- ]?test(?:s|ing)?|monitor(?:s|ing)?|watch(?:es|ing)?)(?:\s+(?:the\s+)?(?:fix(?:es)?|changes?)\s+(?:from|in|of))?` + REF_AFTER, 'gi');
/**
 * A follow-up of what landed, called so: "Follow up on #20", "Write a follow-up for PR 20",
 * "Follow-up to #20: add the missing tests", "Open a follow-up PR for #20". Not when the text does
 * it before the landing ("Push a follow-up to #20 before merging"): that is work on the request.
 */
const FOLLOW_UP_OF = new RegExp(
  String.raw`\bfollow(?:s|ing)?[- ]?ups?(?:\s+(?:PRs?|pull\s+requests?|MRs?|merge\s+requests?|issues?|tickets?|work|tasks?|items?|changes?|fix(?:es)?))?\s+(?:on|to|for|from|of|after)` + REF_AFTER,
  'gi',
);
/**
 * Work that fixes or removes what a landing brought, the landing named as its origin: "Fix the
 * regression introduced by #20", "the crash caused by #20", "Remove the feature flag added in #20",
 * "Clean up the shim left over from #20". Only a regression comes "from" a landing: "Fix the bug
 * in #20", "Fix the test failures from #20", "Remove the logging from PR #20" are review work on
 * the request itself, redone by its landing.
 */
const UNDOES_ORIGIN = new RegExp(
  String.raw`\b(?:(?:regressions?|breakages?|bugs?|crash(?:es)?|failures?)(?:\s+[\w-]+){0,3}?\s+(?:introduced|caused)\s+(?:by|in)|(?:regressions?|breakages?)\s+from`
    + String.raw`|(?:remov(?:e|es|ing)|delet(?:e|es|ing)|drop(?:s|ping)?|clean(?:s|ing)?\s+up|rip(?:s|ping)?\s+out|retir(?:e|es|ing))(?:\s+[\w-]+){0,4}?\s+(?:(?:added|introduced|created|shipped)\s+(?:in|by|with)|left\s*over\s+from))`
    + REF_AFTER,
  'gi',
);

/**
 * Work about what a landing did, named by what was done there: "Add a regression test for the
 * bug fixed in #41", "Document the endpoint added in #42", "Tell support about the limits
 * introduced by PLAT-7". Its landing does not do this work, so is no sign of it done. Not in an
 * action that itself lands something ("Merge the fix made in #12").
 */
const DONE_THERE = new RegExp(String.raw`\b(?:fixed|added|introduced|shipped|landed|merged|changed|built|implemented|created|released|made|renamed|moved)\s+(?:in|by|with|via|through)` + REFS_AFTER, 'gi');
/**
 * Or named as something taken from it, whatever the thing: "a test for the fix from #41",
 * "a test for the limiter from #42", "use the retry helper out of #42". Not its review or CI
 * ("Reply to the comments from #41", "the conflicts from #41"), answered on its branch, nor in an
 * action that reworks it ("Remove the changes from #12", "Split the limiter from #42 into its own PR").
 */
const BROUGHT_FROM = new RegExp(
  String.raw`(?<!\b(?:reviews?|feedback|comments?|suggestions?|nits?|remarks?|questions?|requests?|conflicts?|failures?|errors?|warnings?|jobs?|builds?|runs?|checks?|commits?|CI)\s+)\b(?:from|out\s+of)` + REFS_AFTER,
  'gi',
);
/**
 * Work with the request as its subject, not its object: "Write notes about #42", "Ask Bob
 * regarding #42", "Update docs to reflect #42", "Rebase feature-y to pick up #41", "Document
 * #42", "Notify support of #42", "Write a summary of #42", "the migration guide for #42". Its
 * landing does not do it.
 */
const ABOUT_IT = new RegExp(
  String.raw`\b(?:about|regarding|concerning|re:|(?:in\s+)?light\s+of|reflect(?:s|ing)?|to\s+(?:cover|match|describe|include|incorporate|account\s+for|pick\s+up|use|build\s+on|adapt\s+to)|document(?:s|ing)?|explain(?:s|ing)?|demo(?:s|ing)?`
    + String.raw`|(?:notif(?:y|ies|ying)|inform(?:s|ing)?|warn(?:s|ing)?|remind(?:s|ing)?|apprise|tell(?:s|ing)?)(?:\s+[\w@-]+){0,3}?\s+of`
    + String.raw`|(?:summary|recap|demo|walk-?through|write-?up|overview|blog\s+post|tutorial|screencast|post-?mortem|retro(?:spective)?|(?:migration|upgrade)\s+guide)\s+(?:of|for|on|covering))`
    + REFS_AFTER,
  'gi',
);
/**
 * The request named as landed, a past event the action starts from: "now that #41 has merged",
 * "since #41 landed", "Tell Bob #41 is merged", "With #41 merged, …", "#41 is in main, so …".
 */
const LANDED_PREMISE = new RegExp(
  String.raw`(?<![\w#!-])(?:${REF})(?:(?:['\u2019]s|\s+(?:is|are|was|were|has|have|had))(?:\s+been)?)?(?:\s+(?:now|already|finally|just|officially|fully|successfully))*\s+(?:merged|landed|shipped|released|deployed)\b`
    + String.raw`|(?<![\w#!-])(?:${REF})(?:['\u2019]s|\s+(?:is|are|was|were|has\s+been|have\s+been))(?:\s+(?:now|already|finally))*\s+(?:in|out|live)(?:\s+(?:(?:on|in|to)\s+)?(?:main|master|trunk|develop|prod(?:uction)?|staging))?`
    + String.raw`(?=\s*(?:$|[,.;:!?)\u2013\u2014]|\s-\s|\s(?:and|so|now|then)\b))`,
  'gi',
);
/**
 * Words right before such a clause that make it the landing to bring about or check, not a past
 * one: "Get #41 merged", "Make sure that #41 is merged", "Ask Bob whether #41 landed", "so #41 is in".
 */
const LANDING_SOUGHT = /(?:\b(?:get|gets|got|getting|see|want|wants|keep|so|until|till)|(?:^|[,;:(]\s*)have|\b(?:make\s+sure|ensure|check|confirm|verify|double[- ]check|assert|find\s+out|ask)(?:(?:\s+[\w@-]+){0,2}?\s+(?:that|whether|if))?)\s+(?:the\s+)?(?:(?:PR|pull\s+request|MR|merge\s+request)\s*)?$/i;

/** The requests `text` names as already landed (LANDED_PREMISE), less those it seeks to land or check. */
function landedPremises(text: string, repo: ThisRepo): string[] {
  return [...text.matchAll(LANDED_PREMISE)]
    .filter((m) => !LANDING_SOUGHT.test(text.slice(Math.max(0, m.index - 80), m.index)))
    .flatMap((m) => workRefs(m[0], repo).map((r) => r.token));
}
const LANDS_FIRST = /^\s*(?:merge|land|ship|squash|finish|complete)\b/i;
/** An action that takes what a request brought out again, or reworks it ("Remove the changes from #12"): review work, redone by the landing. */
const REWORKS_FIRST = /^\s*(?:remove|drop|delete|strip|undo|rip\s+out|fix|apply|address|rework|rewrite|revise|split|extract|separate|pull\s+out|reply|respond|resolve|answer)\b/i;
/** A landing after a wait, of what was waited on: "…, then merge it", "… checks and merge". */
const LANDS_AFTER_WAIT = /\b(?:then|and)\s+(?:merge|land|ship|squash)(?:\s+(?:it|them|this|that))?\s*(?:$|[.,;!)])/i;
/**
 * Tracker bookkeeping for landed work: "Close PLAT-123 in Jira", "Move PLAT-123 to Done", "Mark
 * #41 as released". The landing leaves the ticket open; that is the work.
 */
const TRACKER_WORK = new RegExp(
  // A ticket closed ("Close PLAT-123", "Close out the Jira ticket PLAT-123"): a PR's number closed is work on the request.
  String.raw`\bclose(?:\s+out)?\s+(?:the\s+)?(?:(?:jira|linear|youtrack)\s+)?(?:(?:ticket|issue|story|task)\s+)?([A-Z][A-Z0-9]{1,9}-\d{1,7}\b)|`
    + String.raw`\b(?:close|resolve|move|transition|mark|update)` + REF_AFTER
    + String.raw`(?=\s+(?:(?:in|on)\s+(?:jira|linear|youtrack|asana|trello|shortcut|the\s+(?:tracker|board))|to\s+(?:["'\u201c]?)(?:done|closed|resolved|released|shipped|complete)|as\s+(?:done|closed|resolved|released|shipped|fixed|complete)))`,
  'gi',
);

/**
 * The work `text` names as what it waits for or follows up (tokens as workRefs gives them): its
 * landing is when the action can start, not a sign it was done (red team, 12-05: "Once PR #20 is
 * merged, bump the version" was skipped as landed, and the merge's push refused).
 */
function awaitedWork(text: string, repo: ThisRepo = []): Set<string> {
  const found = new Set<string>();
  const before = beforeLanding(text);
  const lands = LANDS_FIRST.test(text);
  const follows = before ? [AWAITED, FOLLOWS_UP, UNDOES_ORIGIN] : [AWAITED, FOLLOWS_UP, CHECKS, FOLLOW_UP_OF, UNDOES_ORIGIN, RELEASE_WORK, TRACKER_WORK, ...(lands ? [] : [DONE_THERE, ABOUT_IT]), ...(lands || REWORKS_FIRST.test(text) ? [] : [BROUGHT_FROM])];
  for (const re of follows) for (const m of text.matchAll(re)) for (const r of workRefs(m[1] ?? m[2]!, repo)) found.add(r.token);
  for (const token of landedPremises(text, repo)) found.add(token);
  // Work it lands itself, by name ("…, then merge #41") or as "it" after a wait on a step before
  // the landing ("Wait for #41 CI, then merge it"), is its own work whatever else it says.
  for (const m of text.matchAll(LANDS_ITSELF)) for (const r of workRefs(m[1]!, repo)) found.delete(r.token);
  if (LANDS_IT.test(text) || LANDS_AFTER_WAIT.test(text)) for (const m of text.matchAll(BEFORE_LANDING_WAIT)) for (const r of workRefs(m[1]!, repo)) found.delete(r.token);
  // "Address the review feedback from #20 once merged": after the landing of all it names, but what it lands itself.
  if (!before && LANDING_CLAUSE.test(text) && !LANDS_IT.test(text)) {
    const own = new Set([...text.matchAll(LANDS_ITSELF)].flatMap((m) => workRefs(m[1]!, repo).map((r) => r.token)));
    for (const r of workRefs(text, repo)) if (!own.has(r.token)) found.add(r.token);
  }
  return found;
}

/**
 * What a queued action's landing is read from, for doctor and `next` alike: the work `text` names
 * that landed after `after` (findLandings), less the work it waits for or follows up (awaitedWork:
 * that landing is when it can start) and the work it names only as context (contextWork: "see
 * #127", "Check that #126 didn't break login"), and the tokens of the rest it names that did not
 * land (asked only when something landed).
 */
export function actionLandings(text: string, commits: readonly CommitInfo[], after: number | ((c: CommitInfo) => boolean), repo: ThisRepo = []): { landings: Landing[]; open: string[] } {
  const named = findLandings(text, commits, after, repo);
  if (named.length === 0) return { landings: [], open: [] };
  // The words are read only for an action something it names landed for: most never are.
  const words = plainRefs(text, repo);
  const notItsWork = awaitedWork(words, repo);
  for (const token of contextWork(words, repo)) notItsWork.add(token);
  const landings = named.filter((l) => !notItsWork.has(l.ref.token));
  const open = landings.length ? workRefs(words, repo).filter((r) => !notItsWork.has(r.token) && !landings.some((l) => l.ref.token === r.token)).map((r) => r.token) : [];
  return { landings, open };
}
