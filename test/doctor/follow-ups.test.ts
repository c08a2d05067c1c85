// Which landings an action waits for or follows up (follow-ups.ts): its landing is when it can
// start, no redo. Judged through doctor's finding and `next`'s evidence alike.
import { describe, expect, it } from 'vitest';
import type { CommitInfo } from '../../src/git/types.js';
import type { Checkpoint } from '../../src/protocol/types.js';
import { checkLandedWork } from '../../src/doctor/checks.js';
import { landedEvidence, NO_EVIDENCE } from '../../src/doctor/evidence.js';

const rel = '.checkpoints/api.checkpoint.json';
const t0 = Date.parse('2026-11-01T00:00:00Z') / 1000;
const squash = (n: number, dt: number): CommitInfo => ({ sha: String(n).padStart(40, 'c'), parents: ['p'], subject: `Add feature (#${n})`, body: '', time: t0 + dt, authorTime: t0 + dt, changes: [] });
const ticket = (id: string, dt: number): CommitInfo => ({ sha: 'd'.repeat(40), parents: ['p', 'q'], subject: `Merge pull request #40 from org/${id.toLowerCase()}-flag`, body: '', time: t0 + dt, authorTime: t0 + dt, changes: [] });
const evidenceOf = (text: string, commits: CommitInfo[]) => ({ ...NO_EVIDENCE, commits, queued: new Map([[rel, new Map([[text, t0]])]]) });
const cpOf = (text: string) => ({ skill: 'api', updated_at: '2026-11-01T00:00:00Z', next_actions: [text] }) as unknown as Checkpoint;
/** The levels doctor gives `text` once `commits` landed, and whether `next` skips it as landed. */
const judged = (text: string, commits: CommitInfo[]) => {
  const e = evidenceOf(text, commits);
  return { doctor: checkLandedWork(cpOf(text), e, rel).map((f) => f.level), skipped: landedEvidence(cpOf(text), e, rel)(text) !== null };
};

describe('follow-up work queued before its PR landed (red team rtB 01)', () => {
  it.each([
    // The red team's six.
    'Tag release v1.3 after merging #12',
    'Address the review feedback from #12 once merged',
    'Update the changelog for #12',
    'Write release notes for #12',
    'Post-merge: clean up feature flags from #12',
    'Mirror #12 into the v2 branch',
    // The landing written out before the work.
    'After merging PR #12, bump the version to 1.3.0',
    "once we've merged #12 re-run the nightly benchmarks",
    'Once we\u2019ve merged #12: re-run the nightly benchmarks',
    'Rebase the v2 branch on main after the merge of #12',
    'after landing PR-12 regenerate docs/api.md',
    // A landing told without naming what lands.
    'Delete the feature branch once it\u2019s merged (#12)',
    'Ping the docs team about #12 after merge',
    'Notify #support when merged \u2014 PR #12',
    'Once the PR is merged, close the tracking issue for #12',
    'Post merge (#12): drop the compat shim',
    'Re-run the load test on #12 once it has landed on main',
    // Release work about it.
    'Release notes for PR 12 (draft in docs/release/1.3.md)',
    'Draft the release announcement for #12',
    'Mention #12 in the 1.3 release notes',
    'Cut the 1.3 release including #12',
    'Tag v1.3.0 with #12 and publish to npm',
    'Update CHANGELOG.md for #12 (1.3 section)',
    'Clean up the old feature flags from PR #12',
    'Retire the kill switch for #12 after a week',
    // A copy of it onto another line.
    'Forward-port #12 to main',
    'Apply #12 to release-1.x',
    'Sync #12 over to the v2 branch',
    'Mirror PR-12 to the gitlab remote',
    // A follow-up, called so (12-07: next skipped these as landed, and done --landed recorded them done).
    'Write follow-up for PR 12',
    'Follow up on #12',
    'Follow-up to #12: add the missing tests',
    'Open a follow-up PR for #12',
    'File follow-up issues from PR-12 review',
  ])('%s: its landing is when it can start, no redo', (text) => {
    expect(judged(text, [squash(12, 100)])).toEqual({ doctor: [], skipped: false });
  });

  it.each([
    'Merge #12',
    'Land PR #12',
    'Finish #12',
    'Fix the failing test in #12 and merge it',
    'Rebase #12 onto main',
    'Address review feedback on #12 and push',
    'Address the review feedback from #12',
    'Address the review feedback from #12 before it is merged',
    'Get #12 reviewed and merged',
    'Merge #12 once CI is green',
    'Merge #12 when it\u2019s approved, then tag v1.3',
    'Merge #12 and tag the release once merged',
    'Fix the lint errors in #12, merge it once merged upstream',
    'Squash the commits when merging #12',
    'Re-run CI on #12 after merging main into it',
    'Resolve the conflicts in #12 after the merge freeze',
    'Merge PR #12 after rebasing on main',
    'Add a changelog entry for #12',
    'Add #12 to the changelog',
    'Update the changelog in #12',
    'Update the changelog for #12 before merging',
    'Write the release notes in PR #12\u2019s description',
    'Push the release-notes fix to #12',
    'Remove the feature flag from #12 (review: not needed)',
    'Fix the post-merge hook in #12',
    'Rebase #12 onto v2',
    'Apply the review suggestions from #12',
    'Push a follow-up to #12 before merging',
    'Push the follow-up commit to #12',
  ])('%s: work on the request itself, redone by its landing', (text) => {
    expect(judged(text, [squash(12, 100)])).toEqual({ doctor: ['warning'], skipped: true });
  });

  it('a ticket named by a follow-up: "Close PLAT-7 once landed" waits; "Finish PLAT-7" is redone', () => {
    expect(judged('Close PLAT-7 once landed', [ticket('PLAT-7', 100)])).toEqual({ doctor: [], skipped: false });
    expect(judged('Finish PLAT-7', [ticket('PLAT-7', 100)])).toEqual({ doctor: ['warning'], skipped: true });
  });

  it('only the work it follows up is excused: "Rebase #16 onto main after merging #14" once #16 landed is a redo of #16', () => {
    const text = 'Rebase #16 onto main after merging #14';
    expect(judged(text, [squash(14, 100)])).toEqual({ doctor: [], skipped: false });
    const found = checkLandedWork(cpOf(text), evidenceOf(text, [squash(16, 200), squash(14, 100)]), rel);
    expect(found.map((f) => [f.level, f.message.slice(0, f.message.indexOf(','))])).toEqual([['warning', `"${text}" names #16`]]);
  });
});

describe('waiting on a list of work (red team 12-07: the second id was read as the work itself)', () => {
  it.each([
    'Bump version to 1.4 once #41 and #42 land',
    'Once #41 and #42 are merged, bump the helm chart',
    'Deploy after #41 and #42 merge',
    'Tag v1.4 when #41, #42 are in',
    'Cut the release once PR 41 & PR 42 land',
    'Announce it once #41, #42 and PLAT-42 have shipped',
    'Publish the SDK after #41/#42 land',
    // As written in round 3 of the red team (12-07).
    'once PRs #41 and #42 land, bump the version',
    'after both #41 and #42 are merged, tag v2',
    'once #41 + #42 land, publish',
    'Once both PRs (#41, #42) land, announce',
    'Once #41 and then #42 land, cut 2.0',
    'when #41 and also #42 are merged, tag it',
    'Wait for #41 CI to pass and #41 to land, then bump the version',
  ])('%s: both landed is when it can start, no redo', (text) => {
    expect(judged(text, [squash(41, 100), squash(42, 200)])).toEqual({ doctor: [], skipped: false });
  });

  it('work it lands itself beside the list is still a redo: "Merge #43 once #41 and #42 land" once #43 landed', () => {
    const text = 'Merge #43 once #41 and #42 land';
    expect(judged(text, [squash(41, 100), squash(42, 200)])).toEqual({ doctor: [], skipped: false });
    const found = checkLandedWork(cpOf(text), evidenceOf(text, [squash(43, 300), squash(42, 200), squash(41, 100)]), rel);
    expect(found.map((f) => [f.level, f.message.slice(0, f.message.indexOf(','))])).toEqual([['warning', `"${text}" names #43`]]);
    expect(judged('Merge #41 and #42', [squash(41, 100), squash(42, 200)])).toEqual({ doctor: ['warning', 'warning'], skipped: true });
  });
});

describe('work about what a landing did, and waiting on a step before it (red team 12-07)', () => {
  it.each([
    'Add a regression test for the bug fixed in #12',
    'Document the endpoint added in #12',
    'Tell support about the limits introduced by PR 12',
    'Update the runbook for the flags renamed in #12',
    'Close PLAT-12 in Jira',
    'Move PLAT-12 to Done',
    'Mark #12 as released in the tracker',
    'Close PLAT-12',
    'Close out the Jira ticket PLAT-12',
    'Add a test for the fix from #12',
    'Write a test covering the fix from PR #12',
    'Document the new endpoint from #12',
    'Wait for #12 CI, then bump the version',
    'Fix the flaky test added in #12',
  ])('%s: its landing does not do it, no redo', (text) => {
    const commits = text.includes('PLAT') ? [ticket('PLAT-12', 100)] : [squash(12, 100)];
    expect(judged(text, commits)).toEqual({ doctor: [], skipped: false });
  });

  it.each([
    'Wait for #12 CI, then merge it',
    "Wait for #12's review, then land it",
    'Wait on PR 12 checks and merge',
    'Merge the fix made in #12',
    'Close #12',
    'Fix the bug in #12',
    'Add a test for the bug fixed in #12, then merge #12',
    'Remove the changes from #12 that review rejected',
  ])('%s: work on the request itself, redone by its landing', (text) => {
    expect(judged(text, [squash(12, 100)])).toEqual({ doctor: ['warning'], skipped: true });
  });
});

describe('follow-up work worded as everyday prose once #41 and #42 landed (red team rt60c 06)', () => {
  const both = () => [squash(41, 100), squash(42, 200)];
  it.each([
    // The request named as landed, a past event the action starts from.
    'Re-run the benchmarks now that #41 has merged',
    'Re-run the benchmarks since #41 merged',
    'With #41 merged, re-run the benchmarks',
    'Rebase feature-y now that #41 is in main',
    '#41 landed, so bump the version',
    // A dependency note.
    'Rebase feature-y onto main (needs #41)',
    'Rebase feature-y onto main (requires #41)',
    'Rebase feature-y onto main, pending PR 41',
    'Rebase feature-y (stacked on #41)',
    // What the action works on is something from, about or reflecting the request.
    'Write a test for the limiter from #42',
    'Use the retry helper from #42 in the CLI',
    'Update docs to reflect #42',
    'Write notes about #42',
    'Write a summary of #42 for the newsletter',
    // Telling someone of it.
    'Tell Bob #41 is merged',
    'Let Bob know #41 landed',
    'Ping Alice that #41 is merged',
    'Notify support of #41',
  ])('%s: its landing does not do it, no redo', (text) => {
    expect(judged(text, both())).toEqual({ doctor: [], skipped: false });
  });

  it.each([
    'Get #41 merged',
    'Make sure that #41 is merged',
    'Confirm #41 is merged',
    'Ask Bob whether #41 landed',
    'Implement rate limiting (#41)',
    'Fix review comments on #41 and merge',
    'Reply to the comments from #41',
    'Resolve the conflicts from #41',
    'Split the limiter from #42 into its own PR',
    '#41 is in review; address the comments',
    'Tell Bob to merge #41',
  ])('%s: work on the request itself, redone by its landing', (text) => {
    expect(judged(text, both())).toEqual({ doctor: ['warning'], skipped: true });
  });
});
