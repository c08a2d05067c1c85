// Which work a queued action waits for or can only follow up: its landing is when the action can
// start, not a sign it was done. Pure: reads the action's words; landed.ts reads the commits.
import type { CommitInfo } from '../git/types.js';
import { findLandings, workRefs, type Landing } from './landed.js';
import type { ThisRepo } from './repo-names.js';

/** A PR, MR or ticket written right after the words before it (group 1). */
const REF_AFTER = String.raw`\s+(?:the\s+)?((?:(?:PR|pull request|MR|merge request)\s*[#!-]?\s*|[#!])\d{1,7}\b|[A-Z][A-Z0-9]{1,9}-\d{1,7}\b)`;
/** Words of waiting for work to land. */
const WAITING = String.raw`until|once|wait(?:s|ing)?\s+(?:on|for)|blocked\s+(?:on|by)|depends\s+on`;
/**
 * A blocker's words that it waits on work to land, and the work named right after them (group 1):
 * "until PR #20", "waiting on #21", "blocked by PLAT-7", "once !12", "depends on the #9". Not
 * "after #20", which in a blocker tells a cause ("broke after #20 landed").
 */
export const WAITS_ON = new RegExp(String.raw`\b(?:${WAITING})` + REF_AFTER, 'gi');
/** Work an action waits for: those words, and "after #20 lands", "when ENG-7 ships", "as soon as #20 merges". */
const AWAITED = new RegExp(String.raw`\b(?:${WAITING}|after|when|as soon as)` + REF_AFTER, 'gi');
/**
 * Work an action can only do once it landed: "Backport #20", "Cherry-pick #20 into v2", "Revert
 * #20 if…", "Deploy the fix from #20", "Roll out #20". (Not "Add a changelog entry for #20": the PR may hold it.)
 */
const FOLLOWS_UP = new RegExp(String.raw`\b(?:backport(?:s|ing)?|cherry[- ]?pick(?:s|ing)?|revert(?:s|ing)?|port(?:s|ing)?|announc(?:e|es|ing)|deploy(?:s|ing)?|roll(?:s|ing)?[- ]?(?:out|back))(?:\s+(?:the\s+)?(?:fix(?:es)?|changes?)\s+(?:from|in|of))?` + REF_AFTER, 'gi');
/**
 * Checking work that runs where only a landing puts it: "Verify #20 in production", "Smoke-test
 * PLAT-7 on staging", "Monitor #20". Not when the text checks it before it lands ("Verify #20
 * before merging"): that landing is the redo.
 */
const CHECKS = new RegExp(String.raw`\b(?:verif(?:y|ies|ying)|validat(?:e|es|ing)|smoke[- ]?test(?:s|ing)?|monitor(?:s|ing)?|watch(?:es|ing)?)(?:\s+(?:the\s+)?(?:fix(?:es)?|changes?)\s+(?:from|in|of))?` + REF_AFTER, 'gi');
const BEFORE_LANDING = /\bbefore\b.*?\b(?:merg|land|ship)/i;
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
 * The work `text` names as what it waits for or follows up (tokens as workRefs gives them): its
 * landing is when the action can start, not a sign it was done (red team, 12-05: "Once PR #20 is
 * merged, bump the version" was skipped as landed, and the merge's push refused).
 */
function awaitedWork(text: string, repo: ThisRepo = []): Set<string> {
  const found = new Set<string>();
  const follows = BEFORE_LANDING.test(text) ? [AWAITED, FOLLOWS_UP, UNDOES_ORIGIN] : [AWAITED, FOLLOWS_UP, CHECKS, UNDOES_ORIGIN];
  for (const re of follows) for (const m of text.matchAll(re)) for (const r of workRefs(m[1]!, repo)) found.add(r.token);
  return found;
}

/**
 * What a queued action's landing is read from, for doctor and `next` alike: the work `text` names
 * that landed after `after` (findLandings), less the work it waits for or follows up (awaitedWork:
 * that landing is when it can start), and the tokens of the rest it names that did not land
 * (asked only when something landed).
 */
export function actionLandings(text: string, commits: readonly CommitInfo[], after: number | ((c: CommitInfo) => boolean), repo: ThisRepo = []): { landings: Landing[]; open: string[] } {
  const awaited = awaitedWork(text, repo);
  const landings = findLandings(text, commits, after, repo).filter((l) => !awaited.has(l.ref.token));
  const open = landings.length ? workRefs(text, repo).filter((r) => !awaited.has(r.token) && !landings.some((l) => l.ref.token === r.token)).map((r) => r.token) : [];
  return { landings, open };
}
