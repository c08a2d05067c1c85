// Stale is a question about open work (the protocol's resume asks before continuing it): a
// complete skill with nothing queued is finished, so status marks it no stale and resume (which
// the session-start hook runs) does not stop to ask; one still queueing work goes stale as before.
import { afterEach, describe, expect, it } from 'vitest';
import { assertBuilt, cleanup, cli, commitAll, makeRepo, write } from '../helpers/repo.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');

function repoWith(status: string, nextActions: string[], days: number): string {
  assertBuilt();
  const dir = makeRepo();
  dirs.push(dir);
  write(dir, '.checkpoints/release.checkpoint.json', `${JSON.stringify({
    protocol_version: '1.1', skill: 'release', project: 'p', project_dir: '/x', created_at: daysAgo(days + 20), updated_at: daysAgo(days),
    phase: 'shipped', step: 'done', status, progress_summary: 'v1.0 shipped.',
    progress_table: [{ id: 'r', label: 'Release', status: 'complete' }], context_primer: { key_decisions: ['k'] }, next_actions: nextActions,
  })}\n`);
  commitAll(dir, 'init', daysAgo(days));
  return dir;
}

describe('a finished skill is not stale', () => {
  it('complete with nothing queued, 48 days old: status shows no stale, resume exits 0, doctor says nothing of it (red team 64 r1 4)', () => {
    const dir = repoWith('complete', [], 48);
    const status = cli(dir, ['status']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).not.toContain('stale');
    const resume = cli(dir, ['resume', 'release']);
    expect(resume.stdout).not.toContain('ASK THE USER');
    expect(resume.code, resume.stdout).toBe(0);
    expect(JSON.parse(cli(dir, ['resume', 'release', '--json']).stdout).ask_user).toBe(false);
    expect(JSON.parse(cli(dir, ['doctor', '--json']).stdout).findings.filter((f: { check: string }) => f.check === 'stale')).toEqual([]);
  });

  it('complete still queueing work goes stale after 14 days: resume asks', () => {
    const dir = repoWith('complete', ['Announce the release'], 20);
    expect(cli(dir, ['status']).stdout).toContain('stale (20d)');
    const resume = cli(dir, ['resume', 'release']);
    expect(resume.stdout).toContain('ASK THE USER: this checkpoint is stale');
    expect(resume.code).toBe(3);
  });
});
