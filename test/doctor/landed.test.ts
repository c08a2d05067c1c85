import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { commitLands, commitLandsTicket, findLandings, subjectLandsPr, workRefs } from '../../src/doctor/landed.js';
import type { CommitInfo } from '../../src/git/types.js';
import type { Checkpoint } from '../../src/protocol/types.js';
import { checkLandedWork } from '../../src/doctor/checks.js';
import { landedEvidence, NO_EVIDENCE } from '../../src/doctor/evidence.js';
import { committedAfter, queuedAt } from '../../src/doctor/instants.js';
import { isThisRepo, pullUrlRepo, remoteName, thisRepoOf } from '../../src/doctor/repo-names.js';

const commit = (sha: string, subject: string, time: number, body = ''): CommitInfo => ({ sha, parents: [], subject, body, time, authorTime: time, changes: [] });

describe('workRefs', () => {
  it('finds PR numbers and ticket ids once each', () => {
    expect(workRefs('Merge PR #12, then #12 again and ABC-123 / PLAT-7').map((r) => r.token)).toEqual(['#12', 'ABC-123', 'PLAT-7']);
  });
  it('ignores anchors and lowercase look-alikes', () => {
    expect(workRefs('see docs#section and abc-123 and &#39;')).toEqual([]);
  });
  it('ignores encodings, hash names, standards and model names shaped like tickets', () => {
    const text = 'Convert logs to UTF-8 (not UTF-16/UCS-2), keys to SHA-256 over SHA-1 and SHA3-512, dates to ISO-8601 per ISO-3166 and RFC-3339, an MD-5 and CRC-32 check, ask GPT-4';
    expect(workRefs(text)).toEqual([]);
    expect(workRefs('Finish PLAT-7 before the UTF-8 switch').map((r) => r.token)).toEqual(['PLAT-7']);
    const more = 'Enable HTTP-2 and TLS-13, lint to PEP-8 and PSR-12, meet WCAG-21 and SOC-2, ship an ERC-20 and EIP-1559 path, fix CWE-79, OAUTH-2 over IPV-6, USB-3 and DDR-5 boxes, try LLAMA-3';
    expect(workRefs(more)).toEqual([]);
    // Languages, runtimes and browsers with their version (red team, 12-06: a squash naming IE-11 blocked a push).
    expect(workRefs('Drop the IE-11 workarounds, convert lib/ to ES-6 modules on the ES-2022 target, VUE-3 and PY-3, K8S-1 probes, NODE-20, JDK-17, PHP-8, PG-16')).toEqual([]);
    // Two-letter project keys stay tickets.
    expect(workRefs('Close DO-12 and EN-4').map((r) => r.token)).toEqual(['DO-12', 'EN-4']);
  });
  it('ignores the words that number a plan, a schedule or a severity (red team, 12-03)', () => {
    const text = 'Start PHASE-2 rollout in SPRINT-3 (STAGE-1 done, STEP-4 next), MILESTONE-1 by WEEK-2 of QUARTER-3 FY-2026, page on SEV-1, PRIORITY-1 items, VERSION-2 schema';
    expect(workRefs(text)).toEqual([]);
    expect(workRefs('Finish PLAT-7 in PHASE-2').map((r) => r.token)).toEqual(['PLAT-7']);
  });
  it('reads a CVE id whole, and a date-like name as no ticket', () => {
    expect(workRefs('Patch CVE-2024-3094 in xz').map((r) => r.token)).toEqual(['CVE-2024-3094']);
    expect(workRefs('Rotate keys from RELEASE-2024-11-02 notes')).toEqual([]);
  });
});

describe('PR references as people write them (r14)', () => {
  const prs = (text: string) => workRefs(text).flatMap((r) => (r.kind === 'pr' ? [r.number] : []));
  it.each([
    ['Merge PR #45', [45]],
    ['Merge PR#45', [45]],
    ['Review PR 46', [46]],
    ['review pr 46 before Friday', [46]],
    ['Rebase PR-47 onto main', [47]],
    ['Land https://github.com/org/repo/pull/45 once CI is green', [45]],
    ['See github.com/org/repo/pull/45/files and PR#46', [45, 46]],
    ['Address review on pull request 48', [48]],
    ['Address review on Pull Request #48', [48]],
    ['Follow up on #12 (and #13)', [12, 13]],
    ['Ship it (#12)', [12]],
    ['Merge PR #45, then PR 45 again', [45]],
    // Not PR references: languages, anchors, another repository's numbers, ordinals, issues.
    ['Port the parser from C# and F#', []],
    ['see docs#12 and org/repo#12 and &#39;', []],
    ['Do step #1, then item #2 and phase #3', []],
    ['Fix the #1 priority bug: login loop on Safari', []],
    ['Then the #2 item on the list', []],
    ['#3 on the list: docs', []],
    ['Fix #12 (the #1 priority) next', [12]],
    ['Fix #12 item parsing bug', [12]],
    ['Land #13 option flags', [13]],
    ['Close issue #12 and bug #7 (ticket #9)', []],
    // What a team counts besides PRs (red team, 12-05).
    ['Finish sprint #3, deploy build #3, re-run CI job #3', []],
    ['Implement story #3 of Epic #2 before Release #4; see chapter #5, test #6 and run #7', []],
    ['Deploy build #3 with the fix from #12', [12]],
    ['Add tests (#12)', [12]],
    ['Sprint 45 retro, April 45th, print 45 pages', []],
    ['Open https://github.com/org/repo/issues/45', []],
    ['Write the PR description', []],
    ['Bump to PR45-compatible schema', []],
  ])('%s -> %j', (text, numbers) => {
    expect(prs(text)).toEqual(numbers);
  });

  it('PR-47 is a pull request, not ticket PR-47', () => {
    expect(workRefs('Rebase PR-47 onto main')).toEqual([{ kind: 'pr', number: 47, token: '#47', asPr: true }]);
  });

  it('property: prose without a PR shape names no PR', () => {
    // Words that never start with a digit or #: joined by spaces, none makes "PR 4", "#4", "pull/4" or "pull request 4".
    const words = ['the', 'PR', 'pr', 'review', 'pull', 'request', 'pulls', 'C#', 'F#', 'C#12', 'step #1', 'issue #12', 'bug #3', 'item #2', 'docs#12', 'org/repo#7', '&#39;', 'sprint-4', 'spr-4', 'APR-3', 'PRO-5', 'v1.2', 'issues/45', 'src/x.ts', '(see above)', 'approach', 'express', 'Pr.', 'PRs', '—', 'PLAT-7', 'UTF-8'];
    fc.assert(fc.property(fc.array(fc.constantFrom(...words), { maxLength: 12 }), (picked) => {
      expect(prs(picked.join(' '))).toEqual([]);
    }), { numRuns: 500 });
  });
});

describe('a request\'s path written without its URL, as each host spells it (red team rtB 06)', () => {
  const refs = (text: string, repo = thisRepoOf([])) => workRefs(text, repo).map((r) => [r.token, r.kind === 'pr' && r.asPr]);
  it.each([
    ['Merge pull/12', [['#12', true]]],
    ['Merge pull/12 (squash it)', [['#12', true]]],
    ['pull/12: address review, then land', [['#12', true]]],
    ['Land (pull/12) once green', [['#12', true]]],
    ['Review `pull/12`', [['#12', true]]],
    ['Review pulls/12 (the API path)', [['#12', true]]],
    ['Merge pull-requests/12', [['#12', true]]],
    ['Complete pullrequest/12', [['#12', true]]],
    ['Land https://bitbucket.org/acme/shop/pull-requests/12/overview', [['#12', true]]],
    ['Complete https://dev.azure.com/acme/shop/_git/shop/pullrequest/12', [['#12', true]]],
    ['Merge merge_requests/12', [['!12', false]]],
    // Not a request's path: inside another word, or a number that is no request.
    ['Run git pull/push twice', []],
    ['Fix the unpull/12 helper', []],
    ['Bump to pulls/12ms', []],
  ])('%s -> %j', (text, tokens) => {
    expect(refs(text)).toEqual(tokens);
  });

  it('"Merge pull/12" is landed by the squash "Feature (#12)", as "Merge PR 12" is', () => {
    const squashed = [commit('c'.repeat(40), 'Feature (#12)', 100)];
    expect(findLandings('Merge pull/12', squashed, 0).map((l) => l.ref.token)).toEqual(['#12']);
    expect(findLandings('Merge pull-requests/12', squashed, 0).map((l) => l.ref.token)).toEqual(['#12']);
  });

  it('another repository\'s request URL in these forms is not this repository\'s; standing alone, it is', () => {
    const repo = thisRepoOf(['git@bitbucket.org:acme/shop.git']);
    expect(refs('Port https://bitbucket.org/other/lib/pull-requests/12', repo)).toEqual([]);
    expect(refs('Land https://bitbucket.org/acme/shop/pull-requests/12', repo)).toEqual([['#12', true]]);
    expect(refs('Land pull-requests/12', repo)).toEqual([['#12', true]]);
    expect(refs('Land merge_requests/12', thisRepoOf(['git@gitlab.com:acme/shop.git']))).toEqual([['!12', false]]);
  });
});

describe('a PR URL of another repository is not this repository\'s PR', () => {
  // This repository as its remotes name it: an ssh origin in mixed case, an https fork with .git.
  const repo = thisRepoOf(['git@GitHub.com:Acme/Shop.git', 'https://me@github.com/me/shop-fork.git/', '/srv/mirror/shop.git']);
  const prs = (text: string, r = repo) => workRefs(text, r).flatMap((ref) => (ref.kind === 'pr' ? [ref.number] : []));

  it.each([
    ['Port the fix from https://github.com/other-org/other-repo/pull/45 into src/auth.ts', []],
    ['See github.com/other-org/other-repo/pull/45/files first', []],
    ['Port [#45](https://github.com/other-org/other-repo/pull/45) (upstream)', []],
    ['Port [PR #45](<https://github.com/other-org/other-repo/pull/45>)', []],
    ['Land https://github.com/acme/shop/pull/45 once CI is green', [45]],
    ['Land https://GITHUB.COM/ACME/Shop/pull/45', [45]],
    ['Land http://www.github.com/acme/shop/pull/45/commits', [45]],
    ['Land https://github.com/me/shop-fork/pull/45', [45]],
    ['(https://github.com/acme/shop/pull/45)', [45]],
    ['pull/47, then PR #45 and PR#46', [47, 45, 46]],
    ['See ../pull/45 and docs/reviews/pull/46', [45, 46]],
    // Another repository's #45 beside this one's #45 (written otherwise): this one's still counts.
    ['Port https://github.com/other-org/other-repo/pull/45, then merge PR #45', [45]],
    ['[#45](https://github.com/acme/shop/pull/45)', [45]],
    // A link whose URL names another number is not about this #45.
    ['[#45](https://github.com/other-org/other-repo/pull/99)', [45]],
    // GitHub's owner/repo#N reference, naming this repository: its PR, as its full URL is.
    ['Land acme/shop#45 once CI is green', [45]],
    ['Land Acme/Shop#45, not other-org/shop#46', [45]],
    ['(me/shop-fork#47)', [47]],
    ['Port other-org/other-repo#48', []],
    ['see docs/acme/shop#49', []],
    // Another repository of this one's owner named around the request (red team s56): its numbering.
    ['Merge PR #50 in acme/web once the API is deployed', []],
    ['Merge the frontend PR (acme/web PR 51)', []],
    ["Review acme/web's PR #52", []],
    ["Review the web repo's PR #53", []],
    ['Wait for PR #54 in the web repository', []],
    ['Merge MR !55 in acme/web', []],
    // ...and this repository's, or a branch (no owner of ours), or an ordinary word: still this one's.
    ['Merge PR #56 in acme/shop', [56]],
    ["Land the shop repo's PR #57", [57]],
    ["Land our repo's PR #58", [58]],
    ['Rebase PR #59 on release/1.x', [59]],
    ['Merge the feature/login PR #60', [60]],
    ['Port acme/web PR 61, then merge PR #61 here', [61]],
  ])('%s -> %j', (text, numbers) => {
    expect(prs(text)).toEqual(numbers);
  });

  it('with no hosted remote (none, or local paths only) a full URL counts as before', () => {
    for (const r of [thisRepoOf([]), thisRepoOf(['/srv/git/shop.git', '../shop', 'file:///srv/shop.git', 'C:\\repos\\shop'])]) {
      expect(r).toEqual([]);
      expect(prs('Port https://github.com/other-org/other-repo/pull/45', r)).toEqual([45]);
      // owner/repo#N is never read as this repository's without a remote naming it.
      expect(prs('Land acme/shop#45', r)).toEqual([]);
      // Nor can a qualifier be weighed: "acme/web PR 12" counts, as its URL does.
      expect(prs('Merge PR #12 in acme/web', r)).toEqual([12]);
      expect(prs("Review the web repo's PR #13", r)).toEqual([13]);
    }
  });

  it('reads every remote URL form git takes', () => {
    const want = { host: 'github.com', path: 'acme/shop' };
    for (const url of [
      'https://github.com/acme/shop', 'https://github.com/acme/shop.git', 'https://github.com/Acme/Shop.git/', 'https://user:tok@github.com/acme/shop.git',
      'http://github.com:80/acme/shop', 'ssh://git@github.com/acme/shop.git', 'ssh://git@ssh.github.com:443/acme/shop.git', 'git@github.com:acme/shop.git',
      'github.com:acme/shop', 'git://github.com/acme/shop.git', 'git+ssh://git@github.com/acme/shop',
    ]) expect(remoteName(url), url).toEqual(want);
    expect(remoteName('git@gitlab.com:group/sub/shop.git')).toEqual({ host: 'gitlab.com', path: 'group/sub/shop' });
    for (const url of ['/srv/git/shop.git', './shop', 'file:///srv/shop.git', 'C:\\repos\\shop', 'https://github.com', '']) expect(remoteName(url), url).toBeNull();
  });

  it('an ssh alias host (~/.ssh/config) matches by path; a path of another owner never does', () => {
    const alias = thisRepoOf(['git@github-work:acme/shop.git']);
    expect(isThisRepo(pullUrlRepo('https://github.com/acme/shop')!, alias)).toBe(true);
    expect(isThisRepo(pullUrlRepo('https://github.com/other/shop')!, alias)).toBe(false);
    expect(isThisRepo(pullUrlRepo('https://gitlab.com/acme/shop')!, repo)).toBe(false);
  });

  it('property: text around a URL of another repository never yields its number; this repository\'s URL always does', () => {
    const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/);
    const prose = fc.stringMatching(/^[a-zA-Z ,.;:]{0,30}$/);
    fc.assert(fc.property(word, word, fc.integer({ min: 1, max: 9_999_999 }), prose, prose, (owner, name, n, before, after) => {
      fc.pre(!(owner === 'acme' && name === 'shop') && !(owner === 'me' && name === 'shop-fork'));
      expect(prs(`${before} https://github.com/${owner}/${name}/pull/${n} ${after}`)).toEqual([]);
      expect(prs(`${before} https://github.com/acme/shop/pull/${n} ${after}`)).toEqual([n]);
    }));
  });
});

describe('landing subjects', () => {
  it('recognises merge and squash subjects only', () => {
    expect(subjectLandsPr('Merge pull request #12 from org/branch', 12)).toBe(true);
    expect(subjectLandsPr('Add auth (#12)', 12)).toBe(true);
    expect(subjectLandsPr('Merge pull request #123 from org/branch', 12)).toBe(false);
    expect(subjectLandsPr('Prepare for #12', 12)).toBe(false);
    expect(subjectLandsPr('Add auth (#12) and more', 12)).toBe(false);
  });
  const lands = (subject: string, id: string, parents: string[] = ['p']) => commitLandsTicket({ subject, parents }, id);
  it('lands a ticket only from a merge or a squash subject, naming it as a whole token', () => {
    expect(lands('PLAT-7: fix login (#131)', 'PLAT-7')).toBe(true);
    expect(lands('Merge pull request #482 from x/PLAT-7-auth', 'PLAT-7')).toBe(true);
    expect(lands("Merge branch 'PLAT-7-auth' into 'main'", 'PLAT-7')).toBe(true);
    expect(lands('Merged in PLAT-7-auth (pull request #9)', 'PLAT-7')).toBe(true);
    expect(lands('PLAT-7 auth flow', 'PLAT-7', ['p1', 'p2'])).toBe(true); // a merge commit with its own subject
    expect(lands('PLAT-77: fix login (#131)', 'PLAT-7')).toBe(false);
    expect(lands('XPLAT-7 fix (#131)', 'PLAT-7')).toBe(false);
  });
  it('a plain commit naming a ticket is work on it, not its landing', () => {
    expect(lands('PLAT-7: fix login', 'PLAT-7')).toBe(false);
    expect(lands('WIP PLAT-7: started, not done', 'PLAT-7')).toBe(false);
    expect(lands('PLAT-7: see (#131) for context', 'PLAT-7')).toBe(false);
  });
});

describe('merge subjects: only the side merged in lands a ticket (red team s11 #2)', () => {
  const lands = (subject: string, parents = ['p1', 'p2']) => commitLandsTicket({ subject, parents }, 'PLAT-7');
  // Real subjects as git, GitHub, GitLab and Bitbucket write them; PLAT-7 on one side or the other.
  it.each([
    // git's own
    ["Merge branch 'PLAT-7-flag'", true],
    ["Merge branch 'PLAT-7-flag' into main", true],
    ["Merge branch 'main' into PLAT-7-flag", false],
    ["Merge branches 'PLAT-7-a' and 'fix' into release", true],
    ["Merge branches 'main' and 'fix' into PLAT-7-flag", false],
    ["Merge branches 'a', 'b' and 'PLAT-7-c'", true],
    ["Merge remote-tracking branch 'origin/PLAT-7-flag' into main", true],
    ["Merge remote-tracking branch 'origin/main' into PLAT-7-flag", false],
    ["Merge remote-tracking branch 'origin/PLAT-7-flag' into PLAT-7-flag", false],
    ["Merge tag 'v1' into PLAT-7-flag", false],
    ["Merge tag 'PLAT-7-rc1' into main", true],
    ["Merge commit 'c81ef11b8f2a' into PLAT-7-flag", false],
    ["Merge branch 'main' of github.com:o/r into PLAT-7-flag", false],
    ["Merge branch 'PLAT-7-flag' of github.com:o/r into PLAT-7-flag", false],
    ["Merge branch 'PLAT-7-flag' of https://github.com/o/r", true],
    ["Merge branch 'PLAT-7-flag' of github.com:o/r into main", true],
    // GitHub
    ['Merge pull request #12 from o/PLAT-7-flag', true],
    ['Merge pull request #12 from o/main', false],
    ['PLAT-7: add flag (#12)', true],
    // GitLab quotes the target
    ["Merge branch 'PLAT-7-flag' into 'main'", true],
    ["Merge branch 'main' into 'PLAT-7-flag'", false],
    // Bitbucket
    ['Merged in PLAT-7-flag (pull request #12)', true],
    ['Merged in main (pull request #13)', false],
    // by hand
    ['Merge PLAT-7-flag into main', true],
    ['Merge main into PLAT-7-flag', false],
  ])('%s -> %s', (subject, expected) => {
    expect(lands(subject as string)).toBe(expected);
  });

  it('property: no merge subject lands the ticket through its into-target alone', () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9/_.-]{0,15}$/);
    const target = fc.constantFrom('PLAT-7-flag', 'feature/PLAT-7', "'PLAT-7-flag'", 'PLAT-7');
    const head = fc.constantFrom((n: string) => `Merge branch '${n}'`, (n: string) => `Merge remote-tracking branch 'origin/${n}'`, (n: string) => `Merge tag '${n}'`,
      (n: string) => `Merge commit '${n}'`, (n: string) => `Merge branch '${n}' of github.com:o/r`, (n: string) => `Merge branches '${n}' and 'x'`);
    fc.assert(fc.property(head, name, target, (h, n, t) => {
      expect(lands(`${h(n)} into ${t}`)).toBe(false);
      expect(lands(`${h(`PLAT-7-${n}`)} into main`)).toBe(true);
    }));
  });
});

describe('findLandings', () => {
  const commits = [
    commit('c3', 'Merge pull request #12 from a/b', 300),
    commit('c2', 'unrelated work', 200, 'mentions #12 and PLAT-7 in the body'),
    commit('c1', 'Merge pull request #9 from a/b', 100),
  ];
  it('counts only commits after the checkpoint, by subject', () => {
    expect(findLandings('Finish #12 and PLAT-7', commits, 150).map((l) => [l.ref.token, l.commit.sha])).toEqual([['#12', 'c3']]);
  });
  it('counts a landing in the same second as the write (commit times are whole seconds)', () => {
    expect(findLandings('Finish #12', commits, 300).map((l) => l.commit.sha)).toEqual(['c3']);
    expect(findLandings('Finish #12', commits, 301)).toEqual([]);
  });
  it('ignores landings before the checkpoint was written', () => {
    expect(findLandings('Follow up on #9', commits, 150)).toEqual([]);
  });
  it('a token only in a commit body is not a merge', () => {
    expect(findLandings('PLAT-7', commits, 0)).toEqual([]);
  });
  it('encodings and hash names in ordinary commits land nothing (red team r3)', () => {
    const later = [commit('c5', 'Add SHA-256 test vector', 500), commit('c4', 'Strip UTF-8 BOM from README (#40)', 400), commit('c6', 'WIP PLAT-7: started, not done', 600)];
    expect(findLandings('Convert all logs to UTF-8', later, 150)).toEqual([]);
    expect(findLandings('Switch cache keys to SHA-256', later, 150)).toEqual([]);
    expect(findLandings('Finish PLAT-7 auth flow', later, 150)).toEqual([]);
    const landed = [...later, commit('c7', 'PLAT-7: auth flow (#131)', 700)];
    expect(findLandings('Finish PLAT-7 auth flow', landed, 150).map((l) => l.commit.sha)).toEqual(['c7']);
  });
  it('a standard a squash subject names lands no action naming the same standard (red team, 12-03)', () => {
    const later = [commit('c8', 'Enable HTTP-2 in the local dev server (#31)', 500), commit('c9', 'Apply PEP-8 to scripts/ (#32)', 600)];
    expect(findLandings('Enable HTTP-2 on the production load balancer', later, 150)).toEqual([]);
    expect(findLandings('Lint the billing module to PEP-8', later, 150)).toEqual([]);
    expect(findLandings('Review #31 once more', later, 150).map((l) => l.commit.sha)).toEqual(['c8']);
  });
  it('a squash or merge naming a phase or sprint lands no action naming the same one (red team, 12-03)', () => {
    const later = [commit('c10', 'Plan PHASE-2 rollout (#41)', 500), { ...commit('c11', "Merge branch 'SPRINT-3-prep'", 600), parents: ['c10', 'c9'] }];
    expect(findLandings('Start PHASE-2 rollout', later, 150)).toEqual([]);
    expect(findLandings('Close out SPRINT-3', later, 150)).toEqual([]);
  });
});

describe('reverts', () => {
  const sha = (n: number) => String(n).repeat(40).slice(0, 40);
  it('a revert is not a landing, and a reverted landing no longer counts', () => {
    const land = commit(sha(1), 'PLAT-7: login (#31)', 100);
    const revert = commit(sha(2), 'Revert "PLAT-7: login (#31)"', 200, `This reverts commit ${sha(1)}.`);
    expect(findLandings('Implement PLAT-7', [revert, land], 0)).toEqual([]);
    // Only the revert in range: still not a landing.
    expect(findLandings('Implement PLAT-7', [revert], 150)).toEqual([]);
  });
  it('finds the reverted commit by subject when the body lost the sha (squashed revert)', () => {
    const land = commit(sha(1), 'Add auth (#12)', 100);
    const revert = commit(sha(2), 'Revert "Add auth (#12)"', 200);
    expect(findLandings('Merge PR #12', [revert, land], 0)).toEqual([]);
  });
  it("GitHub's Revert button, squash-merged (`Revert \"…\" (#21)`), undoes the landing, by the sha in its body or by subject; reverted again, it lands again (red team, 12-05)", () => {
    const land = commit(sha(1), 'Add auth (#20)', 100);
    const revert = commit(sha(2), 'Revert "Add auth (#20)" (#21)', 200, `* Revert "Add auth (#20)"\n\nThis reverts commit ${sha(1)}.`);
    expect(findLandings('Open PR #20 for the auth branch', [revert, land], 0)).toEqual([]);
    expect(findLandings('Open PR #20 for the auth branch', [{ ...revert, body: '' }, land], 0)).toEqual([]);
    // It lands its own request, #21, never #20's work.
    expect(findLandings('Merge the revert, PR #21', [revert, land], 0).map((l) => l.commit.sha)).toEqual([sha(2)]);
    const reapply = commit(sha(3), 'Revert "Revert "Add auth (#20)" (#21)" (#22)', 300, `This reverts commit ${sha(2)}.`);
    expect(findLandings('Open PR #20 for the auth branch', [reapply, revert, land], 0).map((l) => l.commit.sha)).toEqual([sha(1)]);
    // One squash of two reverts undoes both.
    const other = commit(sha(4), 'Add billing (#23)', 150);
    const both = commit(sha(5), 'Revert "Add auth (#20)" (#24)', 400, `This reverts commit ${sha(1)}.\n\n* Revert "Add billing (#23)"\n\nThis reverts commit ${sha(4)}.`);
    expect(findLandings('Land #20 and #23', [both, other, land], 0)).toEqual([]);
  });
  // git before 2.43 writes a revert of a revert `Revert "Revert "…""`, git 2.43 on `Reapply "…"`.
  const againOf = (form: string, subject: string) => (form === 'Reapply' ? `Reapply "${subject}"` : `Revert "Revert "${subject}""`);
  it.each(['Revert', 'Reapply'].map((form) => againOf(form, 'PLAT-7: login (#31)')))('reverting the revert lands the work again: %s', (again) => {
    const land = commit(sha(1), 'PLAT-7: login (#31)', 100);
    const revert = commit(sha(2), 'Revert "PLAT-7: login (#31)"', 200, `This reverts commit ${sha(1)}.`);
    const reapply = commit(sha(3), again, 300, `This reverts commit ${sha(2)}.`);
    expect(findLandings('Implement PLAT-7', [reapply, revert, land], 0).map((l) => l.commit.sha)).toEqual([sha(1)]);
    // The reapply is no landing of its own: only the reapply in range lands nothing.
    expect(findLandings('Implement PLAT-7', [reapply, revert, land], 250)).toEqual([]);
    // Reverted once more (`Revert "Reapply "…""`), by sha or by subject: undone again.
    const third = commit(sha(4), `Revert "${again}"`, 400, `This reverts commit ${sha(3)}.`);
    expect(findLandings('Implement PLAT-7', [third, reapply, revert, land], 0)).toEqual([]);
    expect(findLandings('Implement PLAT-7', [{ ...third, body: '' }, { ...reapply, body: '' }, { ...revert, body: '' }, land], 0)).toEqual([]);
  });
  it("git 2.43's reapply of GitHub's squash-merged revert (`Reapply \"Add auth (#20)\" (#21)`) lands #20 again and never #21", () => {
    const land = commit(sha(1), 'Add auth (#20)', 100);
    const revert = commit(sha(2), 'Revert "Add auth (#20)" (#21)', 200, `This reverts commit ${sha(1)}.`);
    const reapply = commit(sha(3), 'Reapply "Add auth (#20)" (#21)', 300);
    expect(findLandings('Open PR #20 for the auth branch', [reapply, revert, land], 0).map((l) => l.commit.sha)).toEqual([sha(1)]);
    // The revert it undid was the only landing of #21.
    expect(findLandings('Merge the revert, PR #21', [reapply, revert, land], 0)).toEqual([]);
  });
  it('a subject that only starts like a reapply is no revert', () => {
    const land = commit(sha(1), 'Reapply "strict" mode to the parser (#31)', 100);
    expect(findLandings('Merge PR #31', [land], 0).map((l) => l.commit.sha)).toEqual([sha(1)]);
  });
  // Commit times are whole seconds: a script, a rebase or `git revert` twice in a row makes all
  // three in one. Which revert came last is then read from the graph, whatever order the walk gave.
  const orders = <T,>(xs: T[]): T[][] => (xs.length <= 1 ? [xs] : xs.flatMap((x, i) => orders([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest])));
  const chain = (...cs: CommitInfo[]) => cs.map((c, i) => ({ ...c, parents: i === 0 ? [sha(9)] : [cs[i - 1]!.sha] }));
  const withForms = (os: number[][]) => os.flatMap((o) => ['Revert', 'Reapply'].map((form) => [...o, form]));
  it.each(withForms(orders([0, 1, 2])))('reverts in one second are ordered by ancestry (walk order %i %i %i, %s form)', (...args) => {
    const order = args.slice(0, 3) as number[];
    const [land, revert, reapply] = chain(
      commit(sha(7), 'PLAT-7: login (#31)', 100),
      commit(sha(2), 'Revert "PLAT-7: login (#31)"', 100, `This reverts commit ${sha(7)}.`),
      commit(sha(1), againOf(args[3] as string, 'PLAT-7: login (#31)'), 100, `This reverts commit ${sha(2)}.`),
    );
    const walk = order.map((i) => [land, revert, reapply][i]!);
    expect(findLandings('Implement PLAT-7', walk, 0).map((l) => l.commit.sha)).toEqual([sha(7)]);
    // Without the reapply, the revert undoes it in any order too.
    expect(findLandings('Implement PLAT-7', walk.filter((c) => c !== reapply), 0)).toEqual([]);
  });
  it.each(withForms(orders([0, 1, 2])))('a squashed revert in the same second finds the landing it names (walk order %i %i %i, %s form)', (...args) => {
    const order = args.slice(0, 3) as number[];
    // Both reverts lost the sha: the subject names what each undid, the graph says which is newer.
    const [land, revert, reapply] = chain(
      commit(sha(7), 'Add auth (#12)', 100),
      commit(sha(2), 'Revert "Add auth (#12)"', 100),
      commit(sha(1), againOf(args[3] as string, 'Add auth (#12)'), 100),
    );
    const walk = order.map((i) => [land, revert, reapply][i]!);
    expect(findLandings('Merge PR #12', walk, 0).map((l) => l.commit.sha)).toEqual([sha(7)]);
  });
});

describe('findLandings over an indexed walk', () => {
  // The walk is indexed once by the numbers its commits write after #, ! or - (and Azure DevOps'
  // "PR 12", GitLab's body line); the answer must be what testing every commit against every
  // reference gives (revert rules aside: none here).
  const pieces = ['#', '!', '-', '(', ')', ' ', ': ', 'Merge pull request ', 'Merge ', 'Merged PR ', 'Merged in x (pull request ', 'Pull request #', ' from a/b', ' into main', 'PR ', 'MR ', 'AB-', 'AB1-', 'PLAT-', 'UTF-', 'CVE-2024-', 'X', '0', '1', '2', '7', '12', '007', '2024', '#12', '!12', '(#12)', '(!12)', '(#7)'];
  const text = fc.array(fc.constantFrom(...pieces), { maxLength: 8 }).map((p) => p.join(''));
  const body = fc.constantFrom('', 'See merge request g/p!12', 'See merge request !7', 'See merge request g/p!120', 'Merge in P/r from a to main', 'Merge in P/r from PLAT-7-x to main', 'Merge in P/r from main to AB-12', 'mentions #12 and !12', 'AB-12 title', 'PLAT-7 title\n\nSee merge request g/p!12', 'Title\n\nPLAT-7 mentioned');
  it('finds exactly the commits that land each reference', () => {
    fc.assert(fc.property(fc.array(fc.tuple(text, fc.boolean(), body), { maxLength: 25 }), text, (subjects, queued) => {
      const commits = subjects.map(([s, merge, b], i) => ({ ...commit(`c${i}`, s, 1000 - i, b), parents: merge ? ['a', 'b'] : ['a'] }));
      const naive = workRefs(queued).flatMap((ref) => {
        const hits = commits.filter((c) => commitLands(c, ref) && !/^Revert "/.test(c.subject));
        const oldest = hits.reduce<CommitInfo | undefined>((a, c) => (!a || c.time < a.time ? c : a), undefined);
        return oldest ? [[ref.token, oldest.sha]] : [];
      });
      expect(findLandings(queued, commits, 0).map((l) => [l.ref.token, l.commit.sha])).toEqual(naive);
    }), { numRuns: 300 });
  });
});

describe('one rule for when a landing counts, for doctor and for next/status', () => {
  // A write at any millisecond, a text queued then or at an older revision's save, landings in
  // the seconds around both: doctor's finding and next's "already landed" say the same, and a
  // landing in the queueing's own second counts (instants.ts: whole-second commit times).
  const instant = fc.integer({ min: 1_700_000_000_000, max: 1_700_000_100_000 });
  it('doctor flags a queued text exactly when next shows it landed, a same-second landing included', () => {
    fc.assert(fc.property(instant, fc.option(fc.integer({ min: 0, max: 60 })), fc.array(fc.integer({ min: -3, max: 3 }), { maxLength: 4 }), (writtenMs, queuedEarlier, offsets) => {
      const saved = Math.floor(writtenMs / 1000);
      const queuedSec = queuedEarlier === null ? saved : saved - queuedEarlier;
      const text = 'Merge PR #12 (orders API)';
      const cp = { skill: 'api', updated_at: new Date(writtenMs).toISOString(), next_actions: [text] } as unknown as Checkpoint;
      const commits = offsets.map((o, i) => commit(`${i}`.repeat(40), 'Orders API (#12)', queuedSec + o)).sort((a, b) => b.time - a.time);
      const evidence = { ...NO_EVIDENCE, commits, queued: new Map([['.checkpoints/api.checkpoint.json', new Map([[text, queuedSec]])]]) };
      const doctor = checkLandedWork(cp, evidence, '.checkpoints/api.checkpoint.json');
      const next = landedEvidence(cp, evidence, '.checkpoints/api.checkpoint.json')(text);
      const expected = offsets.some((o) => o >= 0);
      expect(doctor.length > 0).toBe(expected);
      expect(next !== null).toBe(expected);
      expect(committedAfter(queuedSec, queuedAt(cp, evidence.queued.get('.checkpoints/api.checkpoint.json'))(text))).toBe(true);
    }));
  });
});

describe('an action naming work not all landed', () => {
  it('is a note in doctor, never a warning, as next still recommends it (red team, 12-03)', () => {
    const text = 'Rebase #16 and #14 onto main';
    const cp = { skill: 'api', updated_at: '2026-11-01T00:00:00Z', next_actions: [text] } as unknown as Checkpoint;
    const rel = '.checkpoints/api.checkpoint.json';
    const t0 = Date.parse(cp.updated_at) / 1000;
    const only14 = [commit('a'.repeat(40), 'Merge pull request #14 from x/y', t0 + 100)].map((c) => ({ ...c, parents: ['p', 'q'] }));
    const some = { ...NO_EVIDENCE, commits: only14, queued: new Map([[rel, new Map([[text, t0]])]]) };
    const partly = checkLandedWork(cp, some, rel);
    expect(partly.map((f) => [f.level, f.message.replace(/\(.*\)/, '(...)')])).toEqual([['info', `"${text}" names #14, which landed after the checkpoint (...); #16 has not: check the action still holds`]]);
    expect(landedEvidence(cp, some, rel)(text)).toBeNull();
    const both = { ...some, commits: [{ ...commit('b'.repeat(40), 'Merge pull request #16 from x/z', t0 + 200), parents: ['p', 'q'] }, ...only14] };
    expect(checkLandedWork(cp, both, rel).map((f) => f.level)).toEqual(['warning', 'warning']);
    expect(landedEvidence(cp, both, rel)(text)).not.toBeNull();
  });
});

describe('an action waiting for work, or following it up', () => {
  const rel = '.checkpoints/api.checkpoint.json';
  const t0 = Date.parse('2026-11-01T00:00:00Z') / 1000;
  const merged = (n: number, dt: number) => ({ ...commit(String(n).padStart(40, 'c'), `Merge pull request #${n} from x/y`, t0 + dt), parents: ['p', 'q'] });
  const evidenceOf = (text: string, commits: ReturnType<typeof merged>[]) => ({ ...NO_EVIDENCE, commits, queued: new Map([[rel, new Map([[text, t0]])]]) });
  const cpOf = (text: string) => ({ skill: 'api', updated_at: '2026-11-01T00:00:00Z', next_actions: [text] }) as unknown as Checkpoint;

  it.each([
    'Once PR #20 is merged, bump the version to 1.2 and tag it',
    'Rebase onto main after PR #20 lands',
    'Bump the SDK when #20 ships',
    'Backport #20 to release-1.x',
    'Cherry-pick #20 into v2',
    'Revert #20 if perf regresses',
    'Deploy the fix from #20 to staging',
  ])('%s: its landing is no redo (red team, 12-05: skipped by next, and its merge\'s push refused)', (text) => {
    const e = evidenceOf(text, [merged(20, 100)]);
    expect(checkLandedWork(cpOf(text), e, rel)).toEqual([]);
    expect(landedEvidence(cpOf(text), e, rel)(text)).toBeNull();
  });

  it.each([
    'Verify #20 in production',
    'Validate the fix from PR #20 on staging',
    'Smoke-test #20 on staging',
    'Smoke test PR #20 after the deploy',
    'Monitor #20 error rates for a day',
    'Watch #20 in the dashboards',
    'Announce #20 in #eng',
    'Roll out #20 to all tenants',
    'Roll back #20 if p99 doubles',
    'Fix the regression introduced by #20',
    'Investigate the crash caused by PR #20',
    'Fix regressions from #20',
    'Fix the bug caused by #20',
    'Remove the feature flag added in #20',
    'Clean up the compatibility shim introduced by #20',
    'Drop the old code path left over from #20',
  ])('%s: can only follow its landing, so no redo (red team 03)', (text) => {
    const e = evidenceOf(text, [merged(20, 100)]);
    expect(checkLandedWork(cpOf(text), e, rel)).toEqual([]);
    expect(landedEvidence(cpOf(text), e, rel)(text)).toBeNull();
  });

  it('a ticket checked where only its landing puts it: "Smoke-test PLAT-7 on staging" (red team 03)', () => {
    const text = 'Smoke-test PLAT-7 on staging';
    const landed = { ...commit('d'.repeat(40), 'Merge pull request #12 from org/plat-7-flag', t0 + 100), parents: ['p', 'q'] };
    expect(checkLandedWork(cpOf(text), evidenceOf(text, [landed]), rel)).toEqual([]);
    // Named plainly, the ticket's landing is a redo.
    const plain = 'Finish PLAT-7';
    expect(checkLandedWork(cpOf(plain), evidenceOf(plain, [landed]), rel).map((f) => f.level)).toEqual(['warning']);
  });

  it.each([
    'Merge PR #20',
    'Land #20',
    'Ship #20',
    'Open PR #20',
    'Fix review comments on #20',
    'Rebase #20',
    'Verify #20 before merging it',
    'Validate #20 before it lands',
    'Fix the bug in #20',
    'Fix the test failures from #20',
    "Fix the bugs from #20's review",
    'Remove the debug logging from PR #20',
    'Remove #20 from the merge queue',
    'Verify CI on #20, then merge it',
  ])('%s: work on the request before it lands is redone by its landing', (text) => {
    const e = evidenceOf(text, [merged(20, 100)]);
    expect(checkLandedWork(cpOf(text), e, rel).map((f) => f.level)).toEqual(['warning']);
    expect(landedEvidence(cpOf(text), e, rel)(text)).not.toBeNull();
  });

  it('a follow-up of one request does not excuse another: "Verify #20 in production and merge #21" once both landed is a redo of #21', () => {
    const text = 'Verify #20 in production and merge #21';
    const found = checkLandedWork(cpOf(text), evidenceOf(text, [merged(21, 200), merged(20, 100)]), rel);
    expect(found.map((f) => [f.level, f.message.slice(0, f.message.indexOf(','))])).toEqual([['warning', `"${text}" names #21`]]);
  });

  it('other work it names still counts: "Rebase #16 onto main after #14 lands" once #16 landed is a redo', () => {
    const text = 'Rebase #16 onto main after #14 lands';
    expect(checkLandedWork(cpOf(text), evidenceOf(text, [merged(14, 100)]), rel)).toEqual([]);
    const both = evidenceOf(text, [merged(16, 200), merged(14, 100)]);
    const found = checkLandedWork(cpOf(text), both, rel);
    expect(found.map((f) => f.level)).toEqual(['warning']);
    expect(found[0]!.message.startsWith(`"${text}" names #16, which landed`)).toBe(true);
    expect(landedEvidence(cpOf(text), both, rel)(text)).not.toBeNull();
    // Naming it is not waiting for it.
    const plain = 'Add a changelog entry for #20';
    expect(checkLandedWork(cpOf(plain), evidenceOf(plain, [merged(20, 100)]), rel).map((f) => f.level)).toEqual(['warning']);
  });
});

describe('an action naming its PR in its own keys', () => {
  it('is landed work for doctor and next alike (red team, 12-03)', () => {
    const action = { text: 'Get the rate limiter reviewed and merged', pr: '#14', ticket: 'PLAT-123' };
    const cp = { skill: 'api', updated_at: '2026-11-01T00:00:00Z', next_actions: [action, 'Write limiter docs'] } as unknown as Checkpoint;
    const rel = '.checkpoints/api.checkpoint.json';
    const t0 = Date.parse(cp.updated_at) / 1000;
    const merge = { ...commit('a'.repeat(40), 'Merge pull request #14 from alice/PLAT-123-limiter', t0 + 100), parents: ['p', 'q'] };
    const evidence = { ...NO_EVIDENCE, commits: [merge], queued: new Map([[rel, new Map([[action.text, t0]])]]) };
    expect(checkLandedWork(cp, evidence, rel).map((f) => [f.level, f.path])).toEqual([['warning', 'next_actions[0]'], ['warning', 'next_actions[0]']]);
    expect(landedEvidence(cp, evidence, rel)(action.text)).toMatch(/^#14 landed in aaaaaaa/);
    expect(landedEvidence(cp, evidence, rel)('Write limiter docs')).toBeNull();
  });
});

describe('two actions with the same words and their own PR keys', () => {
  it('doctor names, for each, only the PRs its own keys name: "Address review" for #12 is not blamed for #13', () => {
    const a = { text: 'Address review comments', pr: 12 };
    const b = { text: 'Address review comments', pr: 13 };
    const cp = { skill: 'api', updated_at: '2026-11-01T00:00:00Z', next_actions: [a, b] } as unknown as Checkpoint;
    const rel = '.checkpoints/api.checkpoint.json';
    const t0 = Date.parse(cp.updated_at) / 1000;
    const merge = { ...commit('a'.repeat(40), 'Merge pull request #13 from x/y', t0 + 100), parents: ['p', 'q'] };
    const evidence = { ...NO_EVIDENCE, commits: [merge], queued: new Map([[rel, new Map([[a.text, t0]])]]) };
    expect(checkLandedWork(cp, evidence, rel).map((f) => [f.level, f.path, f.message.replace(/ \(.*$/, '')])).toEqual([['warning', 'next_actions[1]', '"Address review comments" names #13, which landed after the checkpoint']]);
  });
});

describe('pull and merge requests landed by each host (red team s12 #4)', () => {
  // Real default subjects (and the body lines hosts write themselves), per host: the queued text
  // names the request as people write it; `lands` is whether the commit lands it.
  const landed = (queued: string, subject: string, body: string, parents: number) =>
    findLandings(queued, [{ ...commit('c'.repeat(40), subject, 100, body), parents: parents > 1 ? ['a', 'b'] : ['a'] }], 0).length > 0;
  it.each([
    // GitHub
    ['GitHub merge', 'Merge pull request #12 from acme/feature-login', 'Add login', 2, 'Merge PR #12', true],
    ['GitHub squash', 'Add login (#12)', '* login\n* tests', 1, 'Merge PR #12', true],
    ['GitHub merge, a bare #12', 'Merge pull request #12 from acme/x', '', 2, 'Follow up on #12', true],
    ['GitHub, another PR', 'Merge pull request #123 from acme/x', '', 2, 'Merge PR #12', false],
    // Bitbucket Cloud
    ['Bitbucket Cloud merge', 'Merged in feature/login (pull request #12)', 'Add login\n\nApproved-by: Ann', 2, 'Merge PR #12', true],
    ['Bitbucket Cloud squash', 'Merged in feature/login (pull request #12)', 'Add login\n\n* login', 1, 'Review pull request 12', true],
    ['Bitbucket Cloud, a bare #12 (an issue there)', 'Merged in feature/login (pull request #12)', '', 2, 'Fix #12', false],
    ['Bitbucket Cloud, another PR', 'Merged in feature/login (pull request #123)', '', 2, 'Merge PR #12', false],
    // Bitbucket Server / Data Center
    ['Bitbucket Server before 7', 'Merge pull request #12 in PROJ/shop from feature/login to master', "* commit '38560a7eed06e8d3f3f1aaf091befcdf8bf50fea':\n  login", 2, 'Merge PR #12', true],
    ['Bitbucket Server, a fork', 'Merge pull request #12 in PROJ/shop from ~ANN/shop:feature/login to master', '', 2, 'Merge PR 12', true],
    ['Bitbucket Server 7 on', 'Pull request #12: Add login', 'Merge in PROJ/shop from feature/login to master\n\n* commit ...', 2, 'Merge PR 12', true],
    ['Bitbucket Server 7 on, squashed', 'Pull request #12: Add login', 'Merge in PROJ/shop from feature/login to master', 1, 'Rebase PR-12', true],
    ['a hand-written "Pull request #12:" commit', 'Pull request #12: address review', 'fix typo', 1, 'Merge PR #12', false],
    // Azure DevOps
    ['Azure DevOps', 'Merged PR 12: Add login', 'Related work items: #345', 2, 'Merge PR #12', true],
    ['Azure DevOps squash', 'Merged PR 12: Add login', '', 1, 'Complete pull request 12', true],
    ['Azure DevOps, mentioned as !12', 'Merged PR 12: Add login', '', 2, 'Merge !12', true],
    ['Azure DevOps, older', 'Merge pull request 12 from feature/login into master', '', 2, 'Merge PR 12', true],
    ['Azure DevOps, a bare #12 (a work item there)', 'Merged PR 12: Add login', '', 2, 'Close #12', false],
    ['Azure DevOps, another PR', 'Merged PR 123: Add login', '', 2, 'Merge PR 12', false],
    // GitLab
    ['GitLab merge commit', "Merge branch 'feature-login' into 'main'", 'Add login\n\nSee merge request acme/shop!12', 2, 'Merge MR !12', true],
    ['GitLab before 10.0', "Merge branch 'feature-login' into 'main'", 'Add login\n\nSee merge request !12', 2, 'Review merge request 12', true],
    ['GitLab, trailers after the line', "Merge branch 'feature-login' into 'main'", 'See merge request group/sub/shop!12\n\nCo-authored-by: Ann <a@x>', 2, 'Land https://gitlab.com/group/sub/shop/-/merge_requests/12', true],
    ['GitLab squash with its reference', 'Add login (!12)', '', 1, 'MR 12', true],
    ['GitLab, another MR', "Merge branch 'x' into 'main'", 'See merge request acme/shop!123', 2, 'Merge !12', false],
    ['GitLab, #12 is an issue there', "Merge branch 'x' into 'main'", 'Closes #12\n\nSee merge request acme/shop!13', 2, 'Fix #12', false],
    ['GitLab MR, a GitHub PR subject', 'Merge pull request #12 from acme/x', '', 2, 'Merge !12', false],
    ['a body quoting the line inside prose', 'Update docs', 'as in See merge request acme/shop!12 above', 1, 'Merge !12', false],
  ])('%s: %s -> %s', (_host, subject, body, parents, queued, lands) => {
    expect(landed(queued as string, subject as string, body as string, parents as number)).toBe(lands);
  });

  it('reads merge requests as people write them, and never as a PR or ticket', () => {
    const refs = (text: string) => workRefs(text).map((r) => r.token);
    expect(refs('Merge MR !12, then !12 again')).toEqual(['!12']);
    expect(refs('Review MR 12 / MR-13 / MR #14 / merge request !15 / Merge Request 16')).toEqual(['!12', '!13', '!14', '!15', '!16']);
    expect(refs('Land https://gitlab.com/acme/shop/-/merge_requests/17')).toEqual(['!17']);
    expect(refs('see acme/shop!12, Done!12, wow!!12, &!12')).toEqual([]);
    // Another project's MR URL is not this repository's.
    const repo = thisRepoOf(['git@gitlab.com:acme/shop.git']);
    expect(workRefs('Port https://gitlab.com/other/lib/-/merge_requests/17', repo)).toEqual([]);
    expect(workRefs('Land https://gitlab.com/acme/shop/-/merge_requests/17', repo).map((r) => r.token)).toEqual(['!17']);
  });

  it('property: each host form lands its number and no other; near misses never land', () => {
    const branch = fc.stringMatching(/^[a-z][a-z0-9/_.-]{0,15}$/);
    const title = fc.stringMatching(/^[A-Za-z][A-Za-z ,.]{0,30}$/);
    fc.assert(fc.property(fc.integer({ min: 1, max: 999_999 }), branch, title, (n, b, t) => {
      const asPr = `Merge PR ${n}`;
      const asMr = `Merge !${n}`;
      // [subject, body, parents, queued texts it lands]
      const forms: [string, string, number, string[]][] = [
        [`Merge pull request #${n} from acme/${b}`, t, 2, [asPr, `Follow up on #${n}`]],
        [`${t} (#${n})`, '', 1, [asPr, `Follow up on #${n}`]],
        [`Merged in ${b} (pull request #${n})`, t, 2, [asPr]],
        [`Merge pull request #${n} in PROJ/shop from ${b} to master`, '', 2, [asPr, `Follow up on #${n}`]],
        [`Pull request #${n}: ${t}`, `Merge in PROJ/shop from ${b} to master`, 1, [asPr]],
        [`Merged PR ${n}: ${t}`, '', 2, [asPr, asMr]],
        [`Merge pull request ${n} from ${b} into master`, '', 2, [asPr, asMr]],
        [`Merge branch '${b}' into 'main'`, `${t}\n\nSee merge request acme/shop!${n}`, 2, [asMr]],
        [`${t} (!${n})`, '', 1, [asMr]],
      ];
      const all = [asPr, `Follow up on #${n}`, asMr];
      for (const [subject, body, parents, lands] of forms) {
        for (const queued of all) expect(landed(queued, subject, body, parents), `${queued} by ${subject} / ${body}`).toBe(lands.includes(queued));
        // The same shape with another number lands none of these.
        for (const other of [n + 1, n * 10, n * 10 + (n % 10)]) {
          const s = subject.replaceAll(String(n), String(other));
          const bd = body.replaceAll(String(n), String(other));
          for (const queued of all) expect(landed(queued, s, bd, parents), `${queued} by ${s}`).toBe(false);
        }
      }
      // Near misses: the number in prose, a lower-case or colon-less form, a hand-written title, a body mention.
      const near: [string, string, number][] = [
        [`${t} PR ${n}`, '', 2],
        [`Prepare pull request #${n}`, '', 1],
        [`Pull request #${n} ${t}`, '', 1],
        [`Pull request #${n}: ${t}`, '', 1],
        [`merged pr ${n}: ${t}`, '', 1],
        [`Merged PR ${n} ${t}`, '', 1],
        [`Merge PR #${n} later`, '', 1],
        [`${t} (pull request #${n}) ${t}`, '', 1],
        [`${t}`, `Relates to PR ${n}, !${n} and #${n}; see merge request acme/shop!${n}`, 1],
        [`${t} (#${n}) and more`, '', 1],
      ];
      for (const [subject, body, parents] of near) for (const queued of all) expect(landed(queued, subject, body, parents), `${queued} by ${subject} / ${body}`).toBe(false);
    }), { numRuns: 200 });
  });
});

describe('merge subjects of every host: only the side merged in lands a ticket (red team s12 #4)', () => {
  const lands = (subject: string, body = '', parents = ['p1', 'p2']) => commitLandsTicket({ subject, parents, body }, 'PLAT-7');
  it.each([
    // Bitbucket Server before 7: "from <source> to <target>"
    ['Merge pull request #12 in PROJ/shop from PLAT-7-flag to master', '', true],
    ['Merge pull request #13 in PROJ/shop from master to PLAT-7-flag', '', false],
    ['Merge pull request #14 in PROJ/shop from ~ANN/shop:PLAT-7-flag to PLAT-7-flag', '', false],
    // Bitbucket Server 7 on: the title, over "Merge in ... from <source> to <target>"
    ['Pull request #12: PLAT-7 add flag', 'Merge in PROJ/shop from feature/flag to master', true],
    ['Pull request #12: Add flag', 'Merge in PROJ/shop from feature/PLAT-7-flag to master', true],
    ['Pull request #13: Update PLAT-7-flag from master', 'Merge in PROJ/shop from master to PLAT-7-flag', false],
    ['Pull request #14: PLAT-7 sync', 'Merge in PROJ/shop from PLAT-7-flag to PLAT-7-flag', false],
    // Azure DevOps
    ['Merged PR 12: PLAT-7 add flag', '', true],
    ['Merged PR 13: Merge master into PLAT-7-flag', '', false],
    ['Merge pull request 12 from PLAT-7-flag into master', '', true],
    ['Merge pull request 13 from master into PLAT-7-flag', '', false],
    // GitLab
    ["Merge branch 'PLAT-7-flag' into 'main'", 'Add flag\n\nSee merge request acme/shop!12', true],
    ["Merge branch 'main' into 'PLAT-7-flag'", 'See merge request acme/shop!13', false],
    // The title the host writes on the body's first line, as a squash's subject (red team 60, 07)
    ['Merge pull request #45 from acme/tiers', 'PLAT-7: rate limit tiers', true],
    ["Merge branch 'tiers' into 'main'", 'PLAT-7: rate limit tiers\n\nSee merge request acme/shop!45', true],
    ['Merge pull request #45 from acme/tiers', 'Rate limit tiers\n\nFollow-up to PLAT-7', false],
    ["Merge branch 'tiers' into 'main'", 'Rate limit tiers\n\nRelated: PLAT-7\n\nSee merge request acme/shop!45', false],
    ["Merge branch 'main' into 'PLAT-7-flag'", 'Update PLAT-7-flag\n\nSee merge request acme/shop!46', false],
    ["Merge branch 'tiers'", 'PLAT-7: rate limit tiers', false],
    ['Merge pull request #12 in PROJ/shop from feature/x to master', 'PLAT-7: add flag', false],
    // Bitbucket Cloud writes the title there too, merge and squash alike; not its commit list or approvals.
    ['Merged in tiers (pull request #45)', 'PLAT-7: rate limit tiers\n\n* Add tiers\n\nApproved-by: Ana Ruiz', true],
    ['Merged in tiers (pull request #45)', 'Rate limit tiers\n\n* PLAT-7 groundwork\n\nApproved-by: Ana Ruiz', false],
    ['Merged in tiers (pull request #45)', 'Rate limit tiers\n\nFollow-up to PLAT-7', false],
  ])('%s / %s -> %s', (subject, body, expected) => {
    expect(lands(subject as string, body as string)).toBe(expected);
  });
  it('a squash lands its title (GitLab writes (!12), Bitbucket Server its "Merge in" line); a hand-written "Pull request #12:" does not', () => {
    expect(lands('PLAT-7: add flag (!12)', '', ['p'])).toBe(true);
    expect(lands('Pull request #12: PLAT-7 add flag', 'Merge in PROJ/shop from feature/flag to master', ['p'])).toBe(true);
    expect(lands('Pull request #12: PLAT-7 add flag', 'address review', ['p'])).toBe(false);
  });
});

describe('a ticket in a lower-case branch name merged in (red team s13 #6)', () => {
  const lands = (subject: string, body = '', parents = ['p1', 'p2'], id = 'ENG-123') => commitLandsTicket({ subject, parents, body }, id);
  // Real subjects as git and each host write them, the branch named the way Linear
  // (alice/eng-123-fix-login) and many teams (feature/eng-123-...) name it.
  it.each([
    // GitHub
    ['Merge pull request #3 from acme/alice/eng-123-fix-login', '', true],
    ['Merge pull request #4 from acme/main', '', false],
    // git's own
    ["Merge branch 'alice/eng-123-fix-login' into main", '', true],
    ["Merge branch 'eng-123'", '', true],
    ["Merge branch 'Eng-123-fix' of github.com:acme/shop into main", '', true],
    ["Merge remote-tracking branch 'origin/feature/eng-123-flag' into main", '', true],
    ["Merge branches 'fix-typo' and 'feature/eng-123-flag' into release", '', true],
    ["Merge branch 'main' into eng-123-fix", '', false],
    ["Merge branch 'main' into alice/eng-123-fix-login", '', false],
    ["Merge remote-tracking branch 'origin/main' into feature/eng-123-flag", '', false],
    ["Merge branch 'eng-123-fix' of github.com:acme/shop into eng-123-fix", '', false],
    // GitLab
    ["Merge branch 'alice/eng-123-fix-login' into 'main'", 'Fix login\n\nSee merge request acme/shop!12', true],
    ["Merge branch 'main' into 'alice/eng-123-fix-login'", 'See merge request acme/shop!13', false],
    // Bitbucket Cloud
    ['Merged in alice/eng-123-fix-login (pull request #12)', 'Fix login\n\nApproved-by: Ann', true],
    ['Merged in main (pull request #13)', '', false],
    // Bitbucket Server before 7, and from 7 on (the branch on the body's "Merge in" line)
    ['Merge pull request #12 in SHOP/shop from feature/eng-123-flag to master', '', true],
    ['Merge pull request #13 in SHOP/shop from master to feature/eng-123-flag', '', false],
    ['Merge pull request #14 in SHOP/shop from ~ANN/shop:eng-123-flag to eng-123-flag', '', false],
    ['Pull request #12: Fix login', 'Merge in SHOP/shop from alice/eng-123-fix-login to master', true],
    ['Pull request #13: Update eng-123-flag from master', 'Merge in SHOP/shop from master to eng-123-flag', false],
    // Azure DevOps (older subject; the newer "Merged PR 12: Title" names no branch)
    ['Merge pull request 12 from eng-123-flag into master', '', true],
    ['Merge pull request 13 from master into eng-123-flag', '', false],
    // by hand
    ['Merge eng-123-flag into main', '', true],
    ['Merge main into eng-123-flag', '', false],
    // never inside a longer key or number
    ["Merge branch 'alice/eng-1234-fix' into main", '', false],
    ["Merge branch 'beng-123' into main", '', false],
    ["Merge branch 'feature/xeng-123-x' into main", '', false],
    ['Merge pull request #5 from acme/eng-12345', '', false],
  ])('%s / %s -> %s', (subject, body, expected) => {
    expect(lands(subject as string, body as string)).toBe(expected);
  });

  it('any case counts in a branch name only: a title or a plain commit still names the ticket as written', () => {
    expect(lands('Merged PR 12: ENG-123 fix login')).toBe(true);
    expect(lands('Merged PR 12: fix eng-123 login')).toBe(false);
    expect(lands('Fix login for eng-123 (#12)', '', ['p'])).toBe(false);
    expect(lands('wip eng-123: started', '', ['p'])).toBe(false);
    // A rebased or squashed "Merge branch" subject is a landing, as for the upper-case id.
    expect(lands("Merge branch 'alice/eng-123-fix-login'", '', ['p'])).toBe(true);
  });

  it('findLandings reads the walk the same way: the lower-case merge is the landing', () => {
    const commits = [
      commit('c3', "Merge branch 'main' into alice/eng-123-fix-login", 300),
      commit('c2', "Merge branch 'alice/eng-123-fix-login'", 200),
      commit('c1', 'eng-123: started', 100),
    ].map((c) => ({ ...c, parents: ['p1', 'p2'] }));
    commits[2]!.parents = ['p1'];
    expect(findLandings('Fix login (ENG-123)', commits, 0).map((l) => [l.ref.token, l.commit.sha])).toEqual([['ENG-123', 'c2']]);
    expect(findLandings('Fix login (ENG-12) and ENG-1234', commits, 0)).toEqual([]);
  });

  it('property: a branch name lands its own ticket in any case, never one whose number is a prefix or suffix of its number, never from the into-side', () => {
    const key = fc.constantFrom('ENG', 'PLAT', 'AB2');
    const caseOf = fc.array(fc.boolean(), { minLength: 4, maxLength: 4 });
    const number = fc.stringMatching(/^[1-9]\d{0,5}$/);
    const more = fc.stringMatching(/^\d{1,3}$/);
    const before = fc.constantFrom('', 'alice/', 'feature/', 'origin/', 'bugfix/team/');
    const after = fc.constantFrom('', '-fix-login', '-x', '_y', '.z', '/sub', '-2');
    const merged = fc.constantFrom(
      (b: string) => ({ subject: `Merge pull request #3 from acme/${b}`, body: '' }),
      (b: string) => ({ subject: `Merge branch '${b}' into main`, body: '' }),
      (b: string) => ({ subject: `Merge branch '${b}' into 'main'`, body: 'See merge request acme/shop!3' }),
      (b: string) => ({ subject: `Merge remote-tracking branch 'origin/${b}'`, body: '' }),
      (b: string) => ({ subject: `Merged in ${b} (pull request #3)`, body: '' }),
      (b: string) => ({ subject: `Merge pull request #3 in SHOP/shop from ${b} to master`, body: '' }),
      (b: string) => ({ subject: 'Pull request #3: Flag', body: `Merge in SHOP/shop from ${b} to master` }),
      (b: string) => ({ subject: `Merge pull request 3 from ${b} into master`, body: '' }),
    );
    const into = fc.constantFrom((b: string) => `Merge branch 'main' into ${b}`, (b: string) => `Merge branch 'main' into '${b}'`, (b: string) => `Merge remote-tracking branch 'origin/main' into ${b}`,
      (b: string) => `Merge pull request 3 from main into ${b}`);
    fc.assert(fc.property(key, caseOf, number, more, fc.boolean(), before, after, merged, into, (k, cases, n, extra, atEnd, pre, post, form, intoForm) => {
      const written = [...k].map((c, i) => (cases[i] ? c.toLowerCase() : c)).join('');
      const branch = `${pre}${written}-${n}${post}`;
      const { subject, body } = form(branch);
      const landing = { subject, body, parents: ['p1', 'p2'] };
      const id = `${k}-${n}`;
      // Its own ticket: landed, by the rule and through the walk's number index.
      expect(commitLandsTicket(landing, id)).toBe(true);
      expect(findLandings(`Finish ${id}`, [{ ...landing, sha: 'c1', time: 100, authorTime: 100, changes: [] }], 0).map((l) => l.ref.token)).toEqual([id]);
      // A longer number holding this one at its start or end, either way round: never.
      const longer = atEnd ? `${n}${extra}` : `${extra}${n}`;
      expect(commitLandsTicket(landing, `${k}-${longer}`)).toBe(false);
      if (n.length > 1) {
        expect(commitLandsTicket(landing, `${k}-${n.slice(1)}`)).toBe(false);
        expect(commitLandsTicket(landing, `${k}-${n.slice(0, -1)}`)).toBe(false);
      }
      const wider = form(`${pre}${written}-${longer}${post}`);
      expect(commitLandsTicket({ ...wider, parents: ['p1', 'p2'] }, id)).toBe(false);
      // The branch merged into: never.
      expect(commitLandsTicket({ subject: intoForm(branch), body: '', parents: ['p1', 'p2'] }, id)).toBe(false);
    }), { numRuns: 500 });
  });
});
