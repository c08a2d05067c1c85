// A pull request merged by Bitbucket, Azure DevOps or GitLab lands it as GitHub's merge does (red
// team s12 #4). A real project: `checkpoint init` (its pre-push hook), a checkpoint queuing the
// request's merge, a branch merged with the host's own merge commit message (subject and body),
// then `next` (both engines), doctor (both engines) and a real `git push` through the hook.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { cli, commitAll, git, gitTry, makeRepo, tempDir, write, initialized, read } from '../helpers/repo.js';

const HOSTS: { host: string; queued: string; subject: string; body: string }[] = [
  { host: 'Bitbucket Cloud', queued: 'Merge PR #12 (login)', subject: 'Merged in feature/login (pull request #12)', body: 'Add login\n\nApproved-by: Ann' },
  { host: 'Bitbucket Server 7', queued: 'Review pull request 12', subject: 'Pull request #12: Add login', body: "Merge in SHOP/shop from feature/login to main\n\n* commit '1111111111111111111111111111111111111111':\n  login" },
  { host: 'Bitbucket Server 6', queued: 'Merge PR-12', subject: 'Merge pull request #12 in SHOP/shop from feature/login to main', body: "* commit '1111111111111111111111111111111111111111':\n  login" },
  { host: 'Azure DevOps', queued: 'Merge PR 12 once approved', subject: 'Merged PR 12: Add login', body: 'Related work items: #345' },
  { host: 'GitLab', queued: 'Merge MR !12 (login)', subject: "Merge branch 'feature/login' into 'main'", body: 'Add login\n\nSee merge request acme/shop!12' },
];

describe('a request merged by each host counts as landed (red team s12 #4)', () => {
  it.each(HOSTS)('$host: next skips it, doctor warns on both engines, the hook blocks the push until it is reconciled', async ({ queued, subject, body }) => {
    const dir = makeRepo();
    const remote = tempDir('cp-remote-');
    git(remote, ['init', '-q', '--bare']);
    git(dir, ['remote', 'add', 'origin', remote]);
    initialized(dir);
    const u = cli(dir, ['update', 'api', '--phase=build', '--step=login', '--status=in_progress', '--progress_summary=login half done (PR 12)', `--next_actions+=${queued}`, '--next_actions+=Write the login docs']);
    expect(u.code, u.stderr).toBe(0);
    commitAll(dir, 'Start the api skill');
    expect(gitTry(dir, ['push', '-q', 'origin', 'main']).status).toBe(0);
    git(dir, ['checkout', '-q', '-b', 'feature/login']);
    write(dir, 'src/login.ts', 'export const login = true;\n');
    commitAll(dir, 'login');
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--no-ff', 'feature/login', '-m', subject, '-m', body]);

    for (const engine of ['native', 'isomorphic']) {
      const next = JSON.parse((await runCli(dir, ['next', '--json', '--engine', engine])).stdout);
      expect(next.next.text, engine).toBe('Write the login docs');
      expect(next.next.skipped_as_landed, engine).toEqual([{ index: 0, text: queued, evidence: expect.stringContaining(subject) }]);
      const doctor = await runCli(dir, ['doctor', '--json', '--fail-on-warnings', '--engine', engine]);
      expect(doctor.code, engine).toBe(1);
      const landed = (JSON.parse(doctor.stdout).findings as { level: string; path: string; message: string }[]).filter((f) => f.path === 'next_actions[0]');
      expect(landed, engine).toEqual([expect.objectContaining({ level: 'warning', message: expect.stringContaining(`which landed`) })]);
      expect(landed[0]!.message).toContain(subject);
    }
    const blocked = gitTry(dir, ['push', 'origin', 'main']);
    expect(blocked.status, blocked.stdout + blocked.stderr).not.toBe(0);
    expect(blocked.stdout + blocked.stderr).toMatch(/names [#!]12, which landed[\s\S]*\[blocks push\]/);
    // Reconciled as doctor says (the landed action recorded, the open one kept) and committed: the push goes through.
    const done = cli(dir, ['done', 'api', '--landed']);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(read(dir, '.checkpoints/api.checkpoint.json')).next_actions).toEqual(['Write the login docs']);
    commitAll(dir, 'api: login merged');
    const ok = gitTry(dir, ['push', 'origin', 'main']);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
  });

  it('updating the ticket branch through a request (main into PLAT-7-flag) lands nothing of PLAT-7 on any host', async () => {
    const dir = makeRepo();
    initialized(dir);
    git(dir, ['checkout', '-q', '-b', 'PLAT-7-flag']);
    const u = cli(dir, ['update', 'api', '--phase=build', '--step=flag', '--status=in_progress', '--progress_summary=flag', '--next_actions+=Finish PLAT-7 flag']);
    expect(u.code, u.stderr).toBe(0);
    commitAll(dir, 'PLAT-7: start');
    const syncs: [string, string][] = [
      ['Merge pull request #13 in SHOP/shop from main to PLAT-7-flag', ''],
      ['Pull request #14: Update PLAT-7-flag from main', 'Merge in SHOP/shop from main to PLAT-7-flag'],
      ['Merged PR 15: Merge main into PLAT-7-flag', ''],
      ["Merge branch 'main' into 'PLAT-7-flag'", 'See merge request acme/shop!16'],
    ];
    for (const [i, [subject, body]] of syncs.entries()) {
      git(dir, ['checkout', '-q', 'main']);
      write(dir, `fix${i}.txt`, 'fix\n');
      commitAll(dir, `unrelated fix ${i}`);
      git(dir, ['checkout', '-q', 'PLAT-7-flag']);
      git(dir, ['merge', '-q', '--no-ff', 'main', '-m', subject, ...(body ? ['-m', body] : [])]);
    }
    for (const engine of ['native', 'isomorphic']) {
      const next = JSON.parse((await runCli(dir, ['next', '--json', '--engine', engine])).stdout);
      expect(next.next.text, engine).toBe('Finish PLAT-7 flag');
      const doctor = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout);
      expect((doctor.findings as { path: string }[]).filter((f) => f.path.startsWith('next_actions')), engine).toEqual([]);
    }
    // Merged into main by Bitbucket Server 7: now PLAT-7 landed.
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--no-ff', 'PLAT-7-flag', '-m', 'Pull request #17: Feature flag', '-m', 'Merge in SHOP/shop from PLAT-7-flag to main']);
    const next = JSON.parse((await runCli(dir, ['next', '--json'])).stdout);
    expect(next.reconcile).toBe(true);
    expect(next.next.skipped_as_landed[0].evidence).toContain('PLAT-7 landed in');
  });
});
