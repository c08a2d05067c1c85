// A reference an action makes as context (context-refs.ts): a discussion it points to, work it
// checks the effects of, copies or traces a break to. Its landing is no sign the action was done:
// doctor does not warn and `next` does not skip it, while an action on the request itself ("Merge
// PR #126", "#126: add rate limiting") is still found landed (red team, 12-07).
import { describe, expect, it } from 'vitest';
import type { CommitInfo } from '../../src/git/types.js';
import type { Checkpoint } from '../../src/protocol/types.js';
import { checkLandedWork } from '../../src/doctor/checks.js';
import { landedEvidence, NO_EVIDENCE } from '../../src/doctor/evidence.js';
import { contextWork } from '../../src/doctor/context-refs.js';

const rel = '.checkpoints/api.checkpoint.json';
const t0 = Date.parse('2026-09-14T10:00:00Z') / 1000;
const at = (sha: string, subject: string, dt: number, parents = ['p']): CommitInfo => ({ sha: sha.repeat(40), parents, subject, body: '', time: t0 + dt, authorTime: t0 + dt, changes: [] });
// Both land after the action was queued: a GitHub merge commit and a squash.
const LANDED = [at('c', 'Add rate limiting (#127)', 200), at('b', 'Merge pull request #126 from x/auth-refactor', 100, ['p', 'q'])];
const cpOf = (text: string) => ({ skill: 'api', updated_at: '2026-09-14T10:00:00Z', next_actions: [text] }) as unknown as Checkpoint;
/** The tokens doctor warns or notes landed for `text`, and whether `next` skips it as landed. */
const judged = (text: string) => {
  const e = { ...NO_EVIDENCE, commits: LANDED, queued: new Map([[rel, new Map([[text, t0]])]]) };
  return { doctor: checkLandedWork(cpOf(text), e, rel).map((f) => `${f.level} ${/names (\S+),/.exec(f.message)![1]}`), skipped: landedEvidence(cpOf(text), e, rel)(text) !== null };
};

describe('a reference used as context is not the work the action does', () => {
  it.each([
    // Checking what the landed work did: its landing is the check's precondition.
    ["Check that #126 didn't break the login flow", '#126'],
    ['Verify whether PR 126 fixed the flaky session test', '#126'],
    ['See if #126 still holds up under the load test', '#126'],
    ["Check #126 didn't regress cold start", '#126'],
    // A pointer to a discussion.
    ['Rework the parser (see #127 discussion)', '#127'],
    ['Rework the parser, see #127', '#127'],
    ['Split the lexer per #127', '#127'],
    ['Rename the AST nodes as discussed in #127', '#127'],
    ["Tighten error messages following #127's review", '#127'],
    ['Move the retry budget into config (cf. #127)', '#127'],
    ['Drop the v1 token format as we agreed on PR 127', '#127'],
    ['Implement the caching design proposed in #127', '#127'],
    ['Add backoff to the client, background in the #127 thread', '#127'],
    // Where a break came from, or a model to copy.
    ['revert of #126 broke SSO; fix it', '#126'],
    ['#126 broke the SAML callback, fix it in src/auth/saml.ts', '#126'],
    ['Fix the session cookie lost on refresh since #126', '#126'],
    ['Fix the 401s on /refresh, broken by #126', '#126'],
    ['Port the retry logic like #126 did', '#126'],
    ['Wire the billing webhooks the same way as #126', '#126'],
    ['Add the rate-limit headers similar to PR 127', '#127'],
    ['Re-enable the response cache #126 disabled', '#126'],
    ['Rework the parser \u2014 see also #126, #127', '#126 #127'],
  ])('%s: %s landing does not do it', (text, token) => {
    expect(contextWork(text)).toEqual(new Set(token.split(' ')));
    expect(judged(text)).toEqual({ doctor: [], skipped: false });
  });

  // Each beside a pointer to #127: the action on #126 is still found landed, #127 is neither landed nor open.
  it.each([
    'Merge PR #126',
    'Land #126',
    'Fix #126',
    'Ship #126 (auth refactor)',
    'Review and merge #126',
    '#126: add rate limiting',
    'Finish PR 126',
    // Review comments live on the request: its merge ends that review (a comment after it is a follow-up, and says so).
    'Address review comments on #126',
    'Apply the changes suggested in #126',
    'Make sure that #126 is merged',
    'Confirm whether PR 126 landed',
    'Merge the small PRs like #126 first',
    "Fix #126's failing test",
    "#126 doesn't build on node 18; fix it",
    'Check whether #126 needs a rebase',
    'See #126 through to the merge',
    'Fix what #126 broke before it merges',
  ])('%s (see #127): the action on #126 is still landed', (words) => {
    const text = `${words} (see #127)`;
    expect(contextWork(text)).toEqual(new Set(['#127']));
    expect(judged(text)).toEqual({ doctor: ['warning #126'], skipped: true });
  });

  it('tickets and merge requests read the same way', () => {
    expect(contextWork('Cut over to the new token store per PLAT-7')).toEqual(new Set(['PLAT-7']));
    expect(contextWork('Double-check that !45 did not change the CSV export')).toEqual(new Set(['!45']));
    expect(contextWork('Implement retries as described in MR !45, then land PLAT-7')).toEqual(new Set(['!45']));
  });

  it('a reference also named as the work is the work: "Merge #127, see the #127 thread", an action object\'s own key', () => {
    expect(contextWork('Merge #127, see the #127 thread')).toEqual(new Set());
    expect(judged('Merge #127, see the #127 thread')).toEqual({ doctor: ['warning #127'], skipped: true });
    // withActionRefs appends an action object's "pr" key as "(#127)".
    expect(contextWork('Rework the parser, see #127 (#127)')).toEqual(new Set());
    expect(judged('Rework the parser, see #126 and #127')).toEqual({ doctor: [], skipped: false });
  });
});
