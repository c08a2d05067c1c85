// doctor and the pre-push hook on a repository shaped like a real long-lived one: months-old
// checkpoints written by hand and by agents, annotated/braced/globbed/prose generated_files,
// an action kept across a re-save while its PR merged, a revert, a skewed commit date, an
// out-of-enum status and numbers written 8.0. Every warning must be true, every refusal deserved.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/in-process.js';
import { cleanup, cli, commitAll, dateEnv, git, gitTry, makeRepo, read, tempDir, write, headSha } from '../helpers/repo.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

interface Finding { level: string; check: string; skill: string | null; path: string; message: string; blocks: boolean }

/** A checkpoint as people write them: hand-formatted JSON text, so "8.0" stays "8.0". */
function checkpointText(fields: Record<string, string>): string {
  return `{\n${Object.entries(fields).map(([k, v]) => `  "${k}": ${v}`).join(',\n')}\n}\n`;
}

const str = (s: string) => JSON.stringify(s);

function site(updatedAt: string, generated: string[]): string {
  return checkpointText({
    protocol_version: str('1.1'), skill: str('site'), project: str('shop'), project_dir: str('/Users/dana/code/shop'),
    created_at: str('2026-05-20T09:12:00Z'), updated_at: str(updatedAt), phase: str('launch'), step: str('previews'),
    status: str('complete'), progress_summary: str('Preview pages generated and reviewed.'),
    context_primer: JSON.stringify({ key_decisions: ['Static previews'], generated_files: generated }),
    next_actions: '[]',
    cost: '{ "total_usd": 8.0, "budget_usd": 20.0 }',
  });
}

function release(updatedAt: string, actions: string[], verified: string): string {
  return checkpointText({
    protocol_version: str('1.1'), skill: str('release'), project: str('shop'), project_dir: str('/Users/dana/code/shop'),
    created_at: str('2026-06-28T16:00:00Z'), updated_at: str(updatedAt), phase: str('ship'), step: str('v1.8'),
    status: str('complete'), progress_summary: str('v1.8 cut; waiting on review.'),
    next_actions: JSON.stringify(actions),
    skill_state: JSON.stringify({ verified_for_sha: verified, score: 8.0 }),
  });
}

function auth(): string {
  return checkpointText({
    protocol_version: str('1.1'), skill: str('auth'), project: str('shop'), project_dir: str('/Users/dana/code/shop'),
    created_at: str('2026-07-01T08:00:00Z'), updated_at: str('2026-07-01T08:00:00Z'), phase: str('build'), step: str('login'),
    status: str('in_progress'), progress_summary: str('Login next.'),
    progress_table: JSON.stringify([{ id: 'login', label: 'Login', status: 'in_progress' }]),
    context_primer: JSON.stringify({ key_decisions: ['Sessions in cookies'], generated_files: ['src/login.ts'] }),
    next_actions: JSON.stringify(['Implement PLAT-7 (login form)']),
  });
}

/** An out-of-enum status: invalid, and old; only a push that carries it should be refused for it. */
const LEGACY = checkpointText({
  protocol_version: str('1.1'), skill: str('legacy'), project: str('shop'), project_dir: str('/srv/shop'),
  created_at: str('2026-02-01T00:00:00Z'), updated_at: str('2026-02-02T00:00:00Z'), phase: str('old'), step: str('x'),
  status: str('paused'), progress_summary: str('Parked.'), next_actions: '[]',
});

const SITE_FILES = [
  'scripts/gen-stack-packs.mjs (PR 1, 4cb0b09)',
  'site/src/x.md — draft',
  'site/public/previews/mobile-demo/{index,a,b,c,d,e}.html',
  'docs/guides/*.md',
  'Branch ref claude/add-upgrade-x — squash-merged & deletable',
  'docs/removed.md - superseded by the guides',
];

function makeLongLived(): string {
  const dir = makeRepo();
  write(dir, 'scripts/gen-stack-packs.mjs', 'export {};\n');
  write(dir, 'site/src/x.md', '# x\n');
  for (const p of ['index', 'a', 'b', 'c', 'd', 'e']) write(dir, `site/public/previews/mobile-demo/${p}.html`, `<p>${p}</p>\n`);
  write(dir, 'docs/guides/start.md', 'start\n');
  write(dir, 'docs/removed.md', 'old\n');
  write(dir, 'src/login.ts', 'export const login = 1;\n');
  write(dir, '.checkpoints/site.checkpoint.json', site('2026-06-01T10:00:00Z', SITE_FILES));
  write(dir, '.checkpoints/legacy.checkpoint.json', LEGACY);
  commitAll(dir, 'site previews and checkpoints', '2026-06-01T10:05:00Z');

  // release queues a PR for review; the PR merges; weeks later the checkpoint is re-saved
  // with the action still queued.
  write(dir, '.checkpoints/release.checkpoint.json', release('2026-07-01T12:00:00Z', ['Held for user review: PR #232 (previews) — squash-merge or close', 'Open PR #240 for the docs'], 'claude/release-v1-8 (pre-commit)'));
  commitAll(dir, 'checkpoint: release', '2026-07-01T12:01:00Z');
  write(dir, 'site/public/previews/mobile-demo/index.html', '<p>index v2</p>\n');
  commitAll(dir, 'Preview pages (#232)', '2026-07-10T15:00:00Z');

  // PLAT-7 lands and is reverted: it is still to do.
  write(dir, '.checkpoints/auth.checkpoint.json', auth());
  commitAll(dir, 'checkpoint: auth', '2026-07-01T08:01:00Z');
  write(dir, 'src/other.ts', 'other\n');
  commitAll(dir, 'PLAT-7: login (#118)', '2026-07-05T09:00:00Z');
  git(dir, ['revert', '--no-edit', 'HEAD'], dateEnv('2026-07-06T09:00:00Z'));

  // A commit whose successor has a skewed (older) committer date: still an ancestor.
  write(dir, 'notes/a.txt', 'a\n');
  const skewed = commitAll(dir, 'release notes', '2026-07-20T00:00:00Z');
  write(dir, 'notes/b.txt', 'b\n');
  commitAll(dir, 'commit from a machine with a slow clock', '2026-07-15T00:00:00Z');
  // docs/removed.md goes away: a true drift for the site checkpoint.
  rmSync(join(dir, 'docs/removed.md'));
  commitAll(dir, 'Remove the old docs page', '2026-08-01T00:00:00Z');
  write(dir, '.checkpoints/release.checkpoint.json', release('2026-08-02T12:00:00Z', ['Held for user review: PR #232 (previews) — squash-merge or close', 'Open PR #240 for the docs'], `claude/release-v1-8 (pre-commit; base ${skewed.slice(0, 7)})`));
  commitAll(dir, 'checkpoint: release re-saved', '2026-08-02T12:01:00Z');
  return dir;
}

/** A copy of `dir` (and of its bare remote, re-pointed at the copy) in a new temp folder. */
function copyRepo(dir: string, remote?: string): string {
  const parent = tempDir('cp-real-repo-');
  cpSync(dir, join(parent, 'work'), { recursive: true });
  if (remote) {
    cpSync(remote, join(parent, 'remote.git'), { recursive: true });
    git(join(parent, 'work'), ['remote', 'set-url', 'origin', join(parent, 'remote.git')]);
  }
  return join(parent, 'work');
}

// Built once (a dozen dated commits), copied for each test: no test sees another's changes or caches.
let longLived: string;
let published: { dir: string; remote: string };
beforeAll(() => {
  longLived = makeLongLived();
  // The project once `checkpoint init` is committed and main is on its remote.
  const dir = copyRepo(longLived);
  expect(cli(dir, ['init']).code).toBe(0);
  commitAll(dir, 'checkpoint tooling', '2026-08-03T00:00:00Z');
  const remote = tempDir('cp-remote-');
  git(remote, ['init', '-q', '--bare']);
  git(dir, ['remote', 'add', 'origin', remote]);
  expect(gitTry(dir, ['push', '-q', '--no-verify', 'origin', 'main']).status).toBe(0);
  published = { dir, remote };
});

const buildRepo = (): { dir: string } => ({ dir: copyRepo(longLived) });

async function doctorJson(dir: string, engine: string, extra: string[] = []): Promise<{ code: number; report: { findings: Finding[]; blocking: number } }> {
  const r = await runCli(dir, ['doctor', '--json', '--engine', engine, ...extra]);
  return { code: r.code, report: JSON.parse(r.stdout) };
}

describe.each(['native', 'isomorphic'] as const)('doctor on a long-lived repository (%s)', (engine) => {
  it('warns only about true drift; notes and advice never count', async () => {
    const { dir } = buildRepo();
    const before = read(dir, '.checkpoints/site.checkpoint.json');
    const { code, report } = await doctorJson(dir, engine);
    const warnings = report.findings.filter((f) => f.level === 'warning').map((f) => `${f.skill} ${f.check} ${f.path}`).sort();
    expect(warnings).toEqual([
      'auth stale updated_at',
      'release landed next_actions[0]',
      'site generated_files context_primer.generated_files[5]',
    ]);
    // A preview page the braced entry names changed in PR #232 after site was written: site is
    // complete, so its files changing is the code's life, advice (a deleted one, [5], is drift).
    expect(report.findings.find((f) => f.path === 'context_primer.generated_files[2]')).toMatchObject({ level: 'advice', blocks: false, message: expect.stringContaining('changed after the checkpoint was written') });
    const landed = report.findings.find((f) => f.check === 'landed')!;
    expect(landed.message).toContain('#232');
    expect(landed.message).toContain('Preview pages (#232)');
    expect(report.findings.find((f) => f.path === 'context_primer.generated_files[5]')!.message).toMatch(/docs\/removed\.md is missing: deleted in [0-9a-f]{7} "Remove the old docs page"/);
    // The prose entry is a note; the out-of-enum status is an error (the file is invalid).
    expect(report.findings.find((f) => f.path === 'context_primer.generated_files[4]')?.level).toBe('info');
    expect(report.findings.filter((f) => f.level === 'error').map((f) => `${f.skill} ${f.path}`)).toEqual(['legacy status']);
    // A stale complete checkpoint still queueing work is advice, not drift; advice never blocks.
    // One with nothing queued (site) is finished, not stale (red team 64 r1 4).
    expect(report.findings.filter((f) => f.level === 'advice').every((f) => !f.blocks)).toBe(true);
    expect(report.findings.some((f) => f.level === 'advice' && f.skill === 'release' && f.check === 'stale')).toBe(true);
    expect(report.findings.some((f) => f.skill === 'site' && f.check === 'stale')).toBe(false);
    // verified_for_sha prose with a skewed-date ancestor: no finding.
    expect(report.findings.filter((f) => f.check === 'verified_for_sha')).toEqual([]);
    expect(code).toBe(1); // the invalid legacy checkpoint
    expect(read(dir, '.checkpoints/site.checkpoint.json')).toBe(before);
  });

  it('next keeps a reverted ticket as the action to do', async () => {
    const { dir } = buildRepo();
    const r = await runCli(dir, ['next', '--json', '--engine', engine]);
    // The repository holds an out-of-enum status: read as written with its fix, ranked, and a finding (exit 1, as status).
    expect(r.code, r.stderr).toBe(1);
    const { next, ok, needs_repair, repairs } = JSON.parse(r.stdout);
    expect(ok).toBe(false);
    expect(needs_repair).toEqual([]);
    expect(repairs.length).toBeGreaterThan(0);
    expect(repairs[0].fix).toMatch(/^checkpoint update \S+ --status=/);
    expect(next).toMatchObject({ skill: 'auth', kind: 'action', text: 'Implement PLAT-7 (login form)', skipped_as_landed: [] });
  });
});

describe('the pre-push hook judges what is pushed', () => {
  function withRemote(dir: string): void {
    const remote = tempDir('cp-remote-');
    dirs.push(remote);
    git(remote, ['init', '-q', '--bare']);
    git(dir, ['remote', 'add', 'origin', remote]);
  }

  const initAndPublish = (): string => copyRepo(published.dir, published.remote);

  it('allows an unrelated push in a repo with stale and invalid checkpoints', () => {
    const dir = initAndPublish();
    write(dir, 'README.md', 'unrelated\n');
    commitAll(dir, 'Fix a typo');
    const r = gitTry(dir, ['push', 'origin', 'main']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    // A new branch with unrelated work, and its deletion, push too.
    git(dir, ['checkout', '-q', '-b', 'topic']);
    write(dir, 'src/extra.ts', 'x\n');
    commitAll(dir, 'Extra helper');
    expect(gitTry(dir, ['push', 'origin', 'topic']).status).toBe(0);
    expect(gitTry(dir, ['push', 'origin', ':topic']).status).toBe(0);
  });

  it('refuses a push that lands a PR a checkpoint still queues, with the reason', async () => {
    const dir = initAndPublish();
    write(dir, 'docs/api.md', 'api\n');
    commitAll(dir, 'API docs (#240)');
    const r = gitTry(dir, ['push', 'origin', 'main']);
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/Open PR #240 for the docs" names #240, which landed .*\[blocks push\]/);
    expect(r.stderr).toContain('push refused');
    // The already-landed #232 and the invalid legacy file were printed but did not decide it.
    const { report } = await doctorJson(dir, 'native', ['--pushed', `${git(dir, ['rev-parse', 'origin/main']).trim()}..HEAD`.replace('HEAD', headSha(dir))]);
    expect(report.findings.filter((f) => f.blocks).map((f) => f.message)).toEqual([expect.stringContaining('#240')]);
  });

  it('refuses a push that carries an invalid checkpoint', () => {
    const dir = initAndPublish();
    write(dir, '.checkpoints/legacy.checkpoint.json', LEGACY.replace('Parked.', 'Parked again.'));
    commitAll(dir, 'checkpoint: legacy');
    const r = gitTry(dir, ['push', 'origin', 'main']);
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/legacy[\s\S]*status "paused" must be one of/);
  });

  it('the README quick start followed by a push succeeds', () => {
    const dir = makeRepo();
    dirs.push(dir);
    withRemote(dir);
    expect(cli(dir, ['init']).code).toBe(0);
    const u = cli(dir, ['update', 'api', '--phase=build', '--step=auth', "--next_actions+=Write the auth middleware"]);
    expect(u.code, u.stderr).toBe(0);
    commitAll(dir, 'Start the api skill');
    const r = gitTry(dir, ['push', 'origin', 'main']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(gitTry(dir, ['ls-remote', 'origin']).stdout).toContain('refs/heads/main');
  });
});
