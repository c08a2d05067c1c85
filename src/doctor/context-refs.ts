// Which references a queued action makes as context, not as the work it does: a discussion it
// points to ("see #127"), work it checks the effects of ("Check that #126 didn't break login"),
// copies ("like #126 did") or traces a break to ("revert of #126 broke SSO"). That work landing
// says nothing of the action: it is not done, and `next` must not skip it (red team, 12-07).
// Pure: reads the action's words only. follow-ups.ts reads the waiting and follow-up wordings.
import { workRefs } from './landed.js';
import type { ThisRepo } from './repo-names.js';

/** A PR, MR or ticket as written in the words around it (one run of spaces read once: no backtracking over it twice). */
export const REF = String.raw`(?:(?:PR|pull request|MR|merge request)(?:\s*[#!-])?\s*|[#!])\d{1,7}\b|[A-Z][A-Z0-9]{1,9}-\d{1,7}\b`;
/** A PR, MR or ticket written right after the words before it (group 1). */
export const REF_AFTER = String.raw`\s+(?:the\s+)?(${REF})`;
/**
 * One or more written right after the words before it, as a list (group 1): "#41 and #42",
 * "#41, #42 and PLAT-7", "PR 41 & PR 42", "#41/#42", "#41 + #42", "#41 or #42", "#41 and then
 * #42", "both PRs (#41, #42)". Waiting words govern each.
 */
const REF_LIST_SEP = String.raw`(?:\s*[,&/+]\s*(?:(?:and|or)\s+)?(?:(?:then|also)\s+)?|\s+(?:and|or)\s+(?:(?:then|also)\s+)?|,?\s+then\s+)`;
export const REFS_AFTER = String.raw`\s+(?:both\s+)?(?:the\s+)?(?:(?:PRs|pull\s+requests|MRs|merge\s+requests|tickets|issues)\s+)?\(?(?:the\s+)?((?:${REF})(?:${REF_LIST_SEP}(?:the\s+)?(?:${REF}))*)`;

/** Verbs of a discussion that a reference after them is where it happened ("as agreed in #127"). */
const TALKED = String.raw`discussed|agreed|decided|settled|proposed|outlined|described|specified|documented|explained|suggested|requested|noted|mentioned|planned|sketched`;

/**
 * A pointer to where something was said, the reference after it (group 1): "see #127", "(cf.
 * #127)", "per #127", "according to PLAT-7", "following #127's review", "as discussed in #127", "as we
 * agreed on PR 127", "the design proposed in #127", "the discussion in #127", "context: #127".
 * Without "as", only verbs that place a decision ("discussed", "agreed", "proposed"...), not the
 * review's own ("the changes suggested in #126" are review work on #126).
 */
const POINTS_TO = new RegExp(
  String.raw`(?:\b(?:see(?:\s+also)?|cf\.?|per|following|according\s+to|context:|background:|rationale:)`
    + String.raw`|\bas\s+(?:(?:we|I|you|they|was|were)\s+)?(?:${TALKED})\s+(?:in|on|under|at|with)`
    + String.raw`|\b(?:discussed|agreed|decided|settled|proposed|outlined|described|specified|documented)\s+(?:in|on|under|at)`
    + String.raw`|\b(?:discussion|thread|conversation|context|background|rationale|write-?up)\s+(?:in|on|at|under|of|from))`
    // Not "See #127 through to the merge": seeing it through is the work.
    + REF_AFTER + String.raw`(?!\s+through\b)`,
  'dgi',
);
/**
 * The reference named as a discussion where one is pointed to (group 1): "(#127 discussion)", "in
 * the PLAT-7 thread", "from #127's write-up". Not "Close out the #127 discussion and merge".
 */
const NAMED_DISCUSSION = new RegExp(
  String.raw`(?:\(\s*|\b(?:in|from|per|during)\s+(?:the\s+)?)(${REF})(?:['\u2019]s)?\s+(?:discussion|thread|conversation|write-?up|rationale|background)\b`,
  'dgi',
);

/**
 * Work copied or taken as a model (group 1): "like #126 did", "the same way as #126", "similar to
 * PR 126", "based on #126", "modelled on PLAT-7". Not "PRs like #126", which lists the work itself.
 */
const MODELLED_ON = new RegExp(
  String.raw`(?:(?<!\b(?:PRs|requests|MRs|tickets|issues|ones|changes|fixes|others)\s+)\b(?:just\s+)?(?:like|unlike)|\bsimilar(?:ly)?\s+to|\b(?:the\s+)?same\s+(?:way\s+)?as|\bthe\s+way|\bin\s+the\s+style\s+of|\bmodell?ed\s+(?:on|after)|\bbased\s+on|\binspired\s+by)`
    + REF_AFTER
    + String.raw`|\bas(?:\s+the)?\s+(${REF})\s+(?:did|does|do)\b`,
  'dgi',
);

/**
 * Work named as where a break came from (group 1): "since #126", "broken by #126", "regressed in
 * PR 126", "the revert of #126", "reverted in #130", "caused by PLAT-7". Not "broken in #126" (a
 * failure on the request's own branch, review work).
 */
const ORIGIN_OF = new RegExp(
  String.raw`(?:\bsince|\brevert(?:s|ing)?\s+of|\b(?:broken|broke|regressed|caused|reverted|introduced)\s+(?:by|in|with|since))` + REF_AFTER,
  'dgi',
);

/** What a change did to something else, in any tense: "broke", "didn't break", "fixes", "regressed". */
const EFFECT = String.raw`(?:break|breaks|broke|broken|regress(?:es|ed)?|chang(?:e|es|ed)|affect(?:s|ed)?|fix(?:es|ed)?|caus(?:e|es|ed)|hurt(?:s)?|slow(?:s|ed)?|introduc(?:e|es|ed)|resolv(?:e|es|ed)|improv(?:e|es|ed)|help(?:s|ed)?|remov(?:e|es|ed)|drop(?:s|ped)?|work(?:s|ed)?|hold(?:s)?|held)\b`;
/** Words between a change and what it did: "has", "still", "didn't" (one alternation, so a long run of them costs its length only). */
const DID_WORDS = String.raw`(?:\s+(?:has|have|had|still|really|actually|also|indeed|already|just|somehow|apparently))*`;
const NOT_OR_DID_WORDS = String.raw`(?:\s+(?:has|have|had|still|really|actually|also|indeed|already|just|somehow|apparently|didn['\u2019]?t|doesn['\u2019]?t|did\s+not|does\s+not|won['\u2019]?t|will\s+not|hasn['\u2019]?t|has\s+not|never))*`;

/**
 * The reference as the subject of a clause telling what it did to something else (group 1): "#126
 * broke SSO", "#126 didn't break login", "PR 126 changed the API; update the docs", "Re-enable the
 * cache #126 disabled". Not what it does or failed to do itself: "#126 doesn't build; fix it",
 * "#126 didn't pass CI" are work on the request.
 */
const DID_SOMETHING = new RegExp(
  String.raw`(?<![\w#!-])(${REF})${DID_WORDS}\s+(?:broke|broken|regressed|changed|affected|caused|introduced|fixed|removed|deleted|dropped|disabled|enabled|replaced|deprecated|renamed|moved|added|switched|made|did(?!\s+not\b))\b`
    + String.raw`|(?<![\w#!-])(${REF})\s+(?:didn['\u2019]?t|did\s+not|hasn['\u2019]?t|has\s+not|never)\s+${EFFECT}`,
  'dgi',
);

/**
 * A check of what the work did (group 1): "Check that #126 didn't break login", "verify whether
 * PLAT-7 fixed the flake", "see if #126 still holds". Not a check of the request itself ("Make sure
 * that #126 is merged", "Check whether #126 needs a rebase"): that is work on it.
 */
const CHECKS_THAT = new RegExp(
  String.raw`\b(?:check|verify|confirm|make\s+sure|ensure|test|see|find\s+out|investigate|figure\s+out|determine|look\s+into|double[- ]check|sanity[- ]check)(?:s|ed|ing)?\s+(?:that|whether|if)`
    + REF_AFTER + NOT_OR_DID_WORDS + String.raw`\s+` + EFFECT,
  'dgi',
);

/**
 * The text does it before the landing ("Fix what #126 broke before it merges"): work on the request.
 * As /\bbefore\b.*?\b(?:merg|land|ship)/i, read from each line's first "before" only: the regex
 * retried from each "before" of a hostile action, each to the line's end.
 */
export function beforeLanding(text: string): boolean {
  return text.split(/[\n\r\u2028\u2029]/).some((line) => {
    const before = /\bbefore\b/i.exec(line);
    return before !== null && /\b(?:merg|land|ship)/i.test(line.slice(before.index + before[0].length));
  });
}

/** Pointers and models, whenever the action is done; what the work did, only after it landed (beforeLanding). */
const POINTERS = [POINTS_TO, NAMED_DISCUSSION, MODELLED_ON];
const AFTERMATH = [ORIGIN_OF, DID_SOMETHING, CHECKS_THAT];
/** One more reference in a list after a context one (group 1): "see #126, #127 and PLAT-7". */
const LISTED_NEXT = new RegExp(String.raw`\s*(?:,\s*(?:(?:and|or)\s+)?|(?:and|or|&)\s+|/\s*)(?:the\s+)?(${REF})`, 'dyi');

/**
 * The work `text` names only as context (tokens as workRefs gives them). A reference the text also
 * names anywhere else ("Merge #127, see #127's thread"; an action object's own "pr" key) is its
 * work: only a reference every mention of which is context counts, so when unsure the landing
 * still counts where the words name it as what the action does.
 */
export function contextWork(text: string, repo: ThisRepo = []): Set<string> {
  const spans: [number, number][] = [];
  for (const re of beforeLanding(text) ? POINTERS : [...POINTERS, ...AFTERMATH]) {
    for (const m of text.matchAll(re)) {
      // The 'd' flag's indices: where the reference itself stands (group 1, or 2 in MODELLED_ON's "as #126 did").
      let span = (m.indices![1] ?? m.indices![2])!;
      spans.push(span);
      // "see #126 and #127": the list it begins is context too.
      for (;;) {
        LISTED_NEXT.lastIndex = span[1];
        const next = LISTED_NEXT.exec(text);
        if (!next) break;
        spans.push((span = next.indices![1]!));
      }
    }
  }
  if (!spans.length) return new Set();
  const named = new Set(spans.flatMap(([from, to]) => workRefs(text.slice(from, to), repo).map((r) => r.token)));
  // The text with every context mention blanked: what it still names is named as its work.
  const blank = new Uint8Array(text.length);
  for (const [from, to] of spans) blank.fill(1, from, to);
  const rest = text.replace(/[^]/g, (ch, i: number) => (blank[i] ? ' ' : ch));
  for (const r of workRefs(rest, repo)) named.delete(r.token);
  return named;
}
