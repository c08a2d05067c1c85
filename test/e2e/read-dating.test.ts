// next, status and resume date a queued action by when it entered next_actions (as doctor
// does): a PR that merged after the action was queued is landed even though the checkpoint
// was re-saved later still queuing it.
import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, readdirSync, renameSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/in-process.js';
import { cleanup, cli, commitAll, git, makeRepo, write } from '../helpers/repo.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

const HELD = 'Held for user review: PR #232 (previews) — squash-merge or close';

/** Hand-written, as people do: numbers as 8.0, a months-old date, a note in a path. */
function release(updatedAt: string, step: string): string {
  return `{
  "protocol_version": "1.1",
  "skill": "release",
  "project": "shop",
  "project_dir": "/Users/dana/code/shop",
  "created_at": "2026-06-28T16:00:00Z",
  "updated_at": "${updatedAt}",
  "phase": "ship",
  "step": "${step}",
  "status": "in_progress",
  "progress_summary": "v1.8 cut; previews waiting on review.",
  "context_primer": { "key_decisions": ["Squash merges"], "generated_files": ["site/previews/index.html (PR 232)"] },
  "next_actions": [${JSON.stringify(HELD)}, "Write the changelog for v1.8"],
  "skill_state": { "score": 8.0 }
}
`;
}

/** `bom`: every save starts with a UTF-8 BOM, as a Windows editor or PowerShell's Out-File writes it. */
function repo(bom = ''): string {
  const dir = makeRepo();
  dirs.push(dir);
  write(dir, 'site/previews/index.html', '<p>v1</p>\n');
  write(dir, '.checkpoints/release.checkpoint.json', bom + release('2026-07-01T12:00:00Z', 'v1.8'));
  commitAll(dir, 'checkpoint: release', '2026-07-01T12:01:00Z');
  write(dir, 'site/previews/index.html', '<p>v2</p>\n');
  commitAll(dir, 'Merge pull request #232 from dana/previews', '2026-07-10T15:00:00Z');
  // Weeks later the checkpoint is re-saved, still queuing the review.
  write(dir, '.checkpoints/release.checkpoint.json', bom + release('2026-08-02T12:00:00Z', 'v1.8 notes'));
  commitAll(dir, 'checkpoint: release re-saved', '2026-08-02T12:01:00Z');
  return dir;
}

describe.each(['native', 'isomorphic'] as const)('a re-saved checkpoint still queuing a merged PR (%s)', (engine) => {
  it('next skips it as landed, resume does not offer it, status notes it landed', async () => {
    const dir = repo();
    const next = await runCli(dir, ['next', '--json', '--engine', engine]);
    expect(next.code, next.stderr).toBe(0);
    const rec = JSON.parse(next.stdout).next;
    expect(rec).toMatchObject({ skill: 'release', kind: 'action', text: 'Write the changelog for v1.8' });
    expect(rec.skipped_as_landed).toEqual([{ index: 0, text: HELD, evidence: expect.stringContaining('Merge pull request #232') }]);

    const resume = await runCli(dir, ['resume', 'release', '--engine', engine]);
    expect(resume.code, resume.stdout + resume.stderr).toBe(3); // months old: stale, the user is asked whether to continue
    expect(resume.stdout).toContain('Next: Write the changelog for v1.8');
    expect(resume.stdout).not.toContain(`Next: ${HELD}`);

    const status = await runCli(dir, ['status', '--engine', engine]);
    expect(status.stdout).toMatch(/Held for user review: PR #232[^\n]*already landed: #232 landed in [0-9a-f]{7}/);
    const statusJson = JSON.parse((await runCli(dir, ['status', '--json', '--engine', engine])).stdout);
    expect(statusJson.skills[0].landed_actions).toEqual([expect.objectContaining({ index: 0, text: HELD })]);
  });
});

describe.each(['native', 'isomorphic'] as const)('a checkpoint saved with a BOM, re-saved still queuing a merged PR (%s)', (engine) => {
  it('its revisions are read for the date the PR was queued: next skips it, doctor warns it landed', async () => {
    const dir = repo('\uFEFF');
    const next = await runCli(dir, ['next', '--json', '--engine', engine]);
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout).next).toMatchObject({ text: 'Write the changelog for v1.8', skipped_as_landed: [expect.objectContaining({ index: 0, text: HELD })] });
    const doctor = await runCli(dir, ['doctor', '--engine', engine]);
    expect(doctor.stdout).toMatch(/#232[^\n]*landed after/);
  });
});

describe('status marks every action shown that landed, not only those before the one next recommends (red team 12-07)', () => {
  it('an action after an open one is marked already landed in text and --json; next still recommends the open one', async () => {
    const dir = repo();
    write(dir, '.checkpoints/release.checkpoint.json', release('2026-08-02T12:00:00Z', 'v1.8 notes').replace(`[${JSON.stringify(HELD)}, "Write the changelog for v1.8"]`, `["Write the changelog for v1.8", ${JSON.stringify(HELD)}, "Tag v1.8"]`));
    commitAll(dir, 'checkpoint: release reordered', '2026-08-02T12:02:00Z');
    const status = (await runCli(dir, ['status'])).stdout;
    expect(status).toContain('  1. Write the changelog for v1.8\n');
    expect(status).toMatch(/ {2}2\. Held for user review: PR #232[^\n]* {2}\(already landed: #232 landed in [0-9a-f]{7}/);
    expect(status).toContain('  3. Tag v1.8\n');
    const json = JSON.parse((await runCli(dir, ['status', '--json'])).stdout);
    expect(json.skills[0].landed_actions).toEqual([expect.objectContaining({ index: 1, text: HELD })]);
    expect(JSON.parse((await runCli(dir, ['next', '--json'])).stdout).next).toMatchObject({ text: 'Write the changelog for v1.8', skipped_as_landed: [] });
  });
});

// Real processes here: the second run must find the dates on disk, not in this process's memory.
describe('dates remembered for an unchanged HEAD and checkpoint', () => {
  it('a second next answers from the caches alone, without reading git objects', () => {
    const dir = repo();
    const first = JSON.parse(cli(dir, ['next', '--json']).stdout).next;
    expect(first.skipped_as_landed).toHaveLength(1);
    // With the object store out of reach, only the caches can still know #232 landed after queueing.
    const objects = join(dir, '.git/objects');
    renameSync(objects, `${objects}.away`);
    try {
      const again = cli(dir, ['next', '--json']);
      expect(JSON.parse(again.stdout).next).toEqual(first);
    } finally {
      renameSync(`${objects}.away`, objects);
    }
    expect(existsSync(objects)).toBe(true);
  });
});

describe.each(['native', 'isomorphic'] as const)('a repository whose history git cannot read (%s)', (engine) => {
  /** The repo above with its one pack cut short: every object past the cut is gone. */
  function damaged(): string {
    const dir = repo();
    git(dir, ['gc', '-q']);
    const packs = join(dir, '.git/objects/pack');
    const pack = join(packs, readdirSync(packs).find((f) => f.endsWith('.pack'))!);
    chmodSync(pack, 0o644);
    truncateSync(pack, statSync(pack).size - 200);
    return dir;
  }
  const WARNING = /^checkpoint: warning: git history could not be read, so queued PRs and tickets were not checked against landed work: .+ \(`checkpoint doctor` for details\)$/m;

  it('next, status and resume still answer, and say that landed work was not checked', async () => {
    const dir = damaged();
    const json = await runCli(dir, ['next', '--json', '--engine', engine]);
    expect(json.code, json.stderr).toBe(0);
    const out = JSON.parse(json.stdout);
    // The landing of PR #232 cannot be seen, so the held review is shown, with the reason.
    expect(out.next).toMatchObject({ skill: 'release', kind: 'action', text: HELD, skipped_as_landed: [] });
    expect(out.history_error).toEqual(expect.any(String));
    expect(json.stderr).toMatch(WARNING);

    const text = await runCli(dir, ['next', '--engine', engine]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('note: git history could not be read: whether this already landed is not known');
    expect(text.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(text.stderr).toMatch(WARNING);

    const status = await runCli(dir, ['status', '--json', '--engine', engine]);
    expect(JSON.parse(status.stdout).history_error).toEqual(expect.any(String));
    expect(status.stderr).toMatch(WARNING);
    const resume = await runCli(dir, ['resume', 'release', '--engine', engine]);
    expect(resume.stderr).toMatch(WARNING);
  });

  it('a readable repository gets no such warning', async () => {
    const dir = repo();
    const next = await runCli(dir, ['next', '--json', '--engine', engine]);
    expect(JSON.parse(next.stdout).history_error).toBeNull();
    expect(next.stderr).toBe('');
  });
});
