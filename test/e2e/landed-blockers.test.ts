// A blocker waiting on work that since landed ("Blocked until PR #20 merges", then "New schema
// (#20)"): what a fresh session reads (resume, next, status, text and --json) says so, as doctor
// does, and resume does not send the session to ask the user about it (red team 51, B10).
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanup, cli, commitAll, git, makeRepo, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));
beforeAll(assertBuilt);

const ago = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
const CP = '.checkpoints/api.checkpoint.json';
const WAITING = 'Blocked until PR #20 merges';
// Fixed once: a file rewritten with other blockers keeps its save's instants, as a hand edit does.
const CREATED = ago(30);
const SAVED = ago(20);

/** Hand-kept, as real ones are: a note in a path, a score written 8.0, a row status outside the enum. */
function checkpointText(blockers: object[], actions = ['Wire the new schema into the API (see PR #12)']): string {
  return `{
  "protocol_version": "1.1",
  "skill": "api",
  "project": "shop",
  "project_dir": "/Users/dana/code/shop",
  "created_at": "${CREATED}",
  "updated_at": "${SAVED}",
  "phase": "build",
  "step": "schema",
  "status": "blocked",
  "progress_summary": "Waiting for the schema PR before wiring it in.",
  "progress_table": [{ "id": "schema", "label": "Schema", "status": "waiting" }],
  "context_primer": { "key_decisions": ["Schema first"], "generated_files": ["src/schema.ts (PR 20)"] },
  "next_actions": ${JSON.stringify(actions)},
  "blockers": ${JSON.stringify(blockers)},
  "skill_state": { "score": 8.0 }
}
`;
}

/** A repository whose checkpoint waits on `blockers`, committed; then `landing` lands (if given). */
function repo(blockers: object[], landing: string | null = 'New schema (#20)', actions?: string[]): string {
  const dir = makeRepo();
  dirs.push(dir);
  write(dir, 'src/schema.ts', 'v1\n');
  write(dir, CP, checkpointText(blockers, actions));
  commitAll(dir, 'checkpoint: api', ago(19));
  if (landing !== null) {
    write(dir, 'src/schema.ts', 'v2\n');
    commitAll(dir, landing, ago(10));
  }
  return dir;
}

const NOTE = /^#20 landed in [0-9a-f]{7} "New schema \(#20\)"$/;
const LINE = /b1: Blocked until PR #20 merges \[external_dep\] — #20 landed in ([0-9a-f]{7}) "New schema \(#20\)"; check and remove the blocker/;

describe.each(['native', 'isomorphic'] as const)('a blocker whose awaited PR landed (%s)', (engine) => {
  it('resume, next and status say it landed, and resume has the session check and clear it rather than ask', async () => {
    const dir = repo([{ id: 'b1', description: WAITING, needs: 'external_dep' }]);
    const doctor = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout);
    const found = doctor.findings.find((f: { path: string }) => f.path === 'blockers[0].description');
    expect(found.message).toMatch(/waits on #20, which landed after the checkpoint/);
    const sha = (found.evidence.sha as string).slice(0, 7);

    const resume = await runCli(dir, ['resume', 'api', '--engine', engine]);
    expect(resume.code, resume.stdout + resume.stderr).toBe(0);
    expect(resume.stdout).toMatch(LINE);
    expect(LINE.exec(resume.stdout)![1]).toBe(sha);
    expect(resume.stdout).toContain("VERIFY BEFORE WORKING: every blocker waits on work that has since landed: check that none still blocks, then clear them (checkpoint update api --blockers:json='[]' --status=in_progress).");
    expect(resume.stdout).not.toContain('ASK THE USER');
    const json = await runCli(dir, ['resume', 'api', '--json', '--engine', engine]);
    expect(json.code).toBe(0);
    const data = JSON.parse(json.stdout);
    expect(data.ask_user).toBe(false);
    expect(data.verify_blockers).toMatch(/^every blocker waits on work that has since landed/);
    expect(data.next.landed_blockers).toEqual([{ index: 0, id: 'b1', description: WAITING, evidence: expect.stringMatching(NOTE) }]);

    const next = await runCli(dir, ['next', '--engine', engine]);
    expect(next.stdout).toContain(`  blocker b1: ${WAITING} — #20 landed in ${sha} "New schema (#20)"; check and remove the blocker`);
    const nextJson = JSON.parse((await runCli(dir, ['next', '--json', '--engine', engine])).stdout);
    expect(nextJson.next.landed_blockers).toEqual(data.next.landed_blockers);

    const status = await runCli(dir, ['status', '--engine', engine]);
    expect(status.stdout).toMatch(LINE);
    const brief = await runCli(dir, ['status', '--brief', '--engine', engine]);
    expect(brief.stdout).toContain(`■ api b1: ${WAITING} — #20 landed in ${sha}`);
    const statusJson = JSON.parse((await runCli(dir, ['status', '--json', '--engine', engine])).stdout);
    expect(statusJson.skills[0].landed_blockers).toEqual(data.next.landed_blockers);
    expect(statusJson.next.landed_blockers).toEqual(data.next.landed_blockers);

    // The recovery capsule's view lists the live blockers with the same word.
    write(dir, CP, checkpointText([{ id: 'b1', description: WAITING, needs: 'external_dep' }]).replace('"skill_state"', `"capsule": { "context": { "goal": "g", "acceptance": "a", "constraints": [], "decisions": [], "evidence": [], "pending": [], "next": "n" }, "origin": { "saved_at": "${SAVED}", "head": null, "root": "${dir}" } },\n  "skill_state"`));
    const context = await runCli(dir, ['resume', 'api', '--context', '--engine', engine]);
    expect(context.stdout).toMatch(/■ b1: Blocked until PR #20 merges — #20 landed in [0-9a-f]{7} "New schema \(#20\)"; check and remove the blocker/);
  });

  it('beside a blocker still open, resume still asks the user; the landed one is marked, the other not', async () => {
    const dir = repo([
      { id: 'b1', description: WAITING, needs: 'external_dep' },
      { id: 'b2', description: "Waiting on the vendor's SDK fix (ticket filed)", needs: 'external_dep' },
    ]);
    const resume = await runCli(dir, ['resume', 'api', '--engine', engine]);
    expect(resume.code).toBe(3);
    expect(resume.stdout).toContain('ASK THE USER: this checkpoint is blocked.');
    expect(resume.stdout).toMatch(LINE);
    expect(resume.stdout).toMatch(/■ b2: Waiting on the vendor's SDK fix \(ticket filed\) \[external_dep\]\n/);
    expect(resume.stdout).not.toContain('VERIFY BEFORE WORKING');
    const data = JSON.parse((await runCli(dir, ['resume', 'api', '--json', '--engine', engine])).stdout);
    expect(data).toMatchObject({ ask_user: true, next: { landed_blockers: [{ index: 0, id: 'b1' }] } });
    expect(data.verify_blockers).toBeUndefined();
  });

  it('stays flagged across a re-save that keeps it, a string blocker rewritten as its object included (red team 60, 05)', async () => {
    // Written as a string, as hands write it; the repair note's fix rewrites it as an object and re-stamps updated_at.
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, CP, checkpointText([]).replace('"blockers": []', `"blockers": [${JSON.stringify(WAITING)}]`));
    commitAll(dir, 'checkpoint: api', ago(19));
    commitAll(dir, 'New schema (#20)', ago(10));
    const fix = await runCli(dir, ['update', 'api', `--blockers.0:json=${JSON.stringify({ id: 'b1', description: WAITING, needs: 'external_dep' })}`]);
    expect(fix.code, fix.stderr).toBe(0);
    commitAll(dir, 'api: reconcile');
    const found = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings.find((f: { path: string }) => f.path === 'blockers[0].description');
    expect(found?.message).toMatch(/waits on #20, which landed after the blocker was written on /);
    expect(JSON.parse((await runCli(dir, ['next', '--json', '--engine', engine])).stdout).next.landed_blockers).toEqual([{ index: 0, id: 'b1', description: WAITING, evidence: expect.stringMatching(NOTE) }]);
    expect((await runCli(dir, ['resume', 'api', '--engine', engine])).stdout).toMatch(LINE);
  });

  it('a blocker written "Needs #20", "Requires PR #20", "Pending #20 (schema)" waits on it too', async () => {
    const dir = repo([
      { id: 'b1', description: 'Needs #20 merged first', needs: 'external_dep' },
      { id: 'b2', description: 'Requires PR #20 (the schema)', needs: 'external_dep' },
      { id: 'b3', description: 'Pending #20', needs: 'external_dep' },
      { id: 'b4', description: 'Needs a fix for the flaky test #21 added', needs: 'code_fix' },
    ]);
    commitAll(dir, 'Fix typo (#21)', ago(9));
    const data = JSON.parse((await runCli(dir, ['status', '--json', '--engine', engine])).stdout);
    expect(data.skills[0].landed_blockers.map((b: { id: string }) => b.id)).toEqual(['b1', 'b2', 'b3']);
  });

  it('a blocker naming its PR by URL or owner/repo#N waits on it as on "#N"; another repository\'s does not (red team 64)', async () => {
    // Actions naming no work: only the blockers get the checkpoint's history read.
    const ours = [
      { id: 'b1', description: 'Blocked by https://github.com/acme/proj/pull/20', needs: 'external_dep' },
      { id: 'b2', description: 'Blocked by acme/proj#20', needs: 'external_dep' },
    ];
    const theirs = [
      { id: 'b3', description: 'Blocked by https://github.com/other/lib/pull/20', needs: 'external_dep' },
      { id: 'b4', description: 'Blocked by other/lib#20', needs: 'external_dep' },
    ];
    const dir = repo([...ours, ...theirs], 'Merge pull request #20 from acme/schema', ['Wire the new schema into the API']);
    git(dir, ['remote', 'add', 'origin', 'https://github.com/acme/proj.git']);
    const doctor = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout);
    const waits = doctor.findings.filter((f: { message: string }) => /waits on #20, which landed/.test(f.message)).map((f: { path: string }) => f.path);
    expect(waits).toEqual(['blockers[0].description', 'blockers[1].description']);
    const next = JSON.parse((await runCli(dir, ['next', '--json', '--engine', engine])).stdout);
    expect(next.next.landed_blockers.map((b: { id: string }) => b.id)).toEqual(['b1', 'b2']);

    // Kept alone across a re-save: still dated from when it was written, the only one waiting.
    write(dir, CP, checkpointText([ours[1]!], ['Wire the new schema into the API']));
    commitAll(dir, 'checkpoint: api (re-save)', ago(9));
    const resume = await runCli(dir, ['resume', 'api', '--engine', engine]);
    expect(resume.stdout).toContain('VERIFY BEFORE WORKING: every blocker waits on work that has since landed');
    expect(resume.stdout).not.toContain('ASK THE USER');
  });

  it('a PR that has not landed, or one a blocker names only as a cause, is no landing', async () => {
    const dir = repo([
      { id: 'b1', description: WAITING, needs: 'external_dep' },
      { id: 'b2', description: 'Staging broke after #21 landed', needs: 'code_fix' },
    ], 'Start the schema work for #20');
    commitAll(dir, 'Fix typo (#21)', ago(9));
    const resume = await runCli(dir, ['resume', 'api', '--engine', engine]);
    expect(resume.code).toBe(3);
    expect(resume.stdout).not.toContain('landed in');
    const data = JSON.parse((await runCli(dir, ['status', '--json', '--engine', engine])).stdout);
    expect(data.skills[0].landed_blockers).toEqual([]);
  });
});

// The built binary, as a session runs it: the answer next and status remember for an unchanged
// HEAD (read/landed-memo.ts) is the one a fresh walk gives.
describe('remembered answers about blockers', () => {
  const landed = (dir: string) => JSON.parse(cli(dir, ['next', '--json']).stdout).next.landed_blockers.map((b: { id: string }) => b.id);

  it('a blocker reworded to wait on work that landed is asked again, HEAD unchanged', () => {
    const dir = repo([{ id: 'b1', description: 'Blocked until PR #21 merges', needs: 'external_dep' }]);
    expect(landed(dir)).toEqual([]);
    write(dir, CP, checkpointText([{ id: 'b1', description: WAITING, needs: 'external_dep' }]));
    expect(landed(dir)).toEqual(['b1']);
    expect(landed(dir)).toEqual(['b1']);
  });

  it('is not carried over a new commit that lands the work a blocker waits on', () => {
    const dir = repo([{ id: 'b1', description: WAITING, needs: 'external_dep' }], null);
    expect(landed(dir)).toEqual([]);
    write(dir, 'src/schema.ts', 'v2\n');
    commitAll(dir, 'New schema (#20)', ago(1));
    expect(landed(dir)).toEqual(['b1']);
  });

  it('is not carried over a new commit that lands the PR a blocker names as owner/repo#N (red team 64)', () => {
    const dir = repo([{ id: 'b1', description: 'Blocked by acme/proj#20', needs: 'external_dep' }], null, ['Wire the new schema into the API']);
    git(dir, ['remote', 'add', 'origin', 'https://github.com/acme/proj.git']);
    expect(landed(dir)).toEqual([]);
    commitAll(dir, 'Merge pull request #20 from acme/schema', ago(1));
    expect(landed(dir)).toEqual(['b1']);
  });
});
