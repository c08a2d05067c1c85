// A ticket merged from a branch its tracker named in lower case lands it (red team s13 #6):
// Linear writes `alice/eng-123-fix-login`, many teams `feature/plat-7-...`. A real project:
// `checkpoint update` queuing "Fix login (ENG-123)", a side branch merged with each host's own
// subject, then `next` and doctor on both engines. The branch merged into (`main` into the ticket
// branch) and a longer number (`eng-1234`) land nothing. And past the walk_days cut, where only the
// message search looks (git log --grep; the built binary's deep-walk worker).
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { cleanup, cli, commitAll, dateEnv, git, makeRepo, write, headSha, initialized } from '../helpers/repo.js';

const ENGINES = ['native', 'isomorphic'] as const;
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

/** A project whose api checkpoint queues "Fix login (ENG-123)" then "Write the login docs", and a side branch with one commit. */
async function project(): Promise<string> {
  const dir = makeRepo();
  dirs.push(dir);
  initialized(dir);
  const u = await runCli(dir, ['update', 'api', '--phase=build', '--step=login', '--status=in_progress', '--progress_summary=login half done', '--next_actions+=Fix login (ENG-123)', '--next_actions+=Write the login docs']);
  expect(u.code, u.stderr).toBe(0);
  commitAll(dir, 'Start the api skill');
  git(dir, ['checkout', '-q', '-b', 'side']);
  write(dir, 'src/login.ts', 'export const login = true;\n');
  commitAll(dir, 'login');
  git(dir, ['checkout', '-q', 'main']);
  return dir;
}

const MERGES: { host: string; subject: string; body: string; landed: boolean }[] = [
  { host: 'GitHub', subject: 'Merge pull request #3 from acme/alice/eng-123-fix-login', body: 'Fix login', landed: true },
  { host: 'git', subject: "Merge branch 'alice/eng-123-fix-login' into main", body: '', landed: true },
  { host: 'GitLab', subject: "Merge branch 'alice/eng-123-fix-login' into 'main'", body: 'Fix login\n\nSee merge request acme/shop!3', landed: true },
  { host: 'Bitbucket Cloud', subject: 'Merged in alice/eng-123-fix-login (pull request #3)', body: 'Fix login\n\nApproved-by: Ann', landed: true },
  { host: 'Bitbucket Server 6', subject: 'Merge pull request #3 in SHOP/shop from feature/eng-123-fix-login to main', body: '', landed: true },
  { host: 'Bitbucket Server 7', subject: 'Pull request #3: Fix login', body: 'Merge in SHOP/shop from feature/eng-123-fix-login to main', landed: true },
  { host: 'Azure DevOps', subject: 'Merge pull request 3 from eng-123-fix-login into main', body: '', landed: true },
  { host: 'git, the ticket branch updated', subject: "Merge branch 'main' into alice/eng-123-fix-login", body: '', landed: false },
  { host: 'git, a longer number', subject: "Merge branch 'alice/eng-1234-fix-login' into main", body: '', landed: false },
];

describe('a ticket merged from a lower-case branch name lands it (red team s13 #6)', () => {
  it.each(MERGES)('$host: $subject -> landed $landed, on both engines', async ({ subject, body, landed }) => {
    const dir = await project();
    git(dir, ['merge', '-q', '--no-ff', 'side', '-m', subject, ...(body ? ['-m', body] : [])]);
    const merge = headSha(dir);
    for (const engine of ENGINES) {
      const next = await runCli(dir, ['next', '--engine', engine]);
      expect(next.code, next.stderr).toBe(0);
      expect(next.stdout.split('\n')[1], engine).toBe(landed ? '→ Write the login docs' : '→ Fix login (ENG-123)');
      const doctor = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout);
      const found = (doctor.findings as { check: string; path?: string; evidence?: { sha?: string } }[]).filter((f) => f.check === 'landed');
      expect(found.map((f) => [f.path, f.evidence?.sha]), engine).toEqual(landed ? [['next_actions[0]', merge]] : []);
    }
  });

  it('past the walk_days cut, both engines\' message searches find the lower-case branch merge', () => {
    const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const dir = makeRepo();
    dirs.push(dir);
    const checkpoint = {
      protocol_version: '1.1', skill: 'api', project: 'shop', project_dir: '/elsewhere/shop', created_at: daysAgo(731), updated_at: daysAgo(730),
      phase: 'build', step: 'login', status: 'in_progress', progress_summary: 'Login half done.',
      progress_table: [{ id: 'login', label: 'Login', status: 'in_progress' }], context_primer: { key_decisions: ['JWT'] },
      next_actions: ['Fix login (ENG-123)', 'Land PLAT-7 flag', 'Write the login docs'],
    };
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint, null, 2)}\n`);
    commitAll(dir, 'checkpoint: api', daysAgo(729));
    for (const [branch, at] of [['alice/eng-123-fix-login', 500], ['feature/plat-77-flag', 490]] as const) {
      git(dir, ['checkout', '-q', '-b', branch]);
      write(dir, `src/${branch.replace(/\//g, '-')}.ts`, 'x\n');
      commitAll(dir, 'work', daysAgo(at + 1));
      git(dir, ['checkout', '-q', 'main']);
      git(dir, ['merge', '-q', '--no-ff', branch, '-m', `Merge branch '${branch}' into main`], dateEnv(daysAgo(at)));
    }
    const landing = git(dir, ['rev-parse', 'HEAD^1']).trim();
    write(dir, 'README.md', 'readme\n');
    commitAll(dir, 'readme', daysAgo(1));
    for (const engine of ENGINES) {
      const report = JSON.parse(cli(dir, ['doctor', '--json', '--engine', engine]).stdout);
      expect(report.findings.find((f: { check: string }) => f.check === 'history').message, engine).toMatch(/searched only for ENG-123, PLAT-7 \(still queued\)/);
      const found = report.findings.filter((f: { check: string }) => f.check === 'landed').map((f: { path: string; evidence: { sha: string } }) => [f.path, f.evidence.sha]);
      // PLAT-77 is not PLAT-7: only ENG-123 landed.
      expect(found, engine).toEqual([['next_actions[0]', landing]]);
      expect(cli(dir, ['next', '--engine', engine]).stdout.split('\n')[1], engine).toBe('→ Land PLAT-7 flag');
    }
  });
});
