// A branch whose checkpoint was wiped or rewritten without its required fields (an agent that
// wrote `{}`, a bad script), merged with one that kept working: git's own line merge would stop
// on the whole file; the driver stops on each field every checkpoint needs that one side dropped,
// so the merge never leaves a file that is no checkpoint. Real git, the built binary.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanup, cli, commitAll, commitSides, git, gitTry, initialized, makeRepo, read, write } from '../helpers/repo.js';

const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
beforeAll(assertBuilt);
afterEach(() => dirs.splice(0).forEach(cleanup));

// As Python's json.dump(indent=4) writes it: 8.0 kept, no final newline.
const base = `{
    "protocol_version": "1.1",
    "skill": "api",
    "project": "shop",
    "project_dir": "/home/dev/shop",
    "created_at": "2026-07-01T10:00:00Z",
    "updated_at": "2026-08-02T09:30:00Z",
    "phase": "build",
    "step": "2 of 5",
    "status": "in_progress",
    "progress_summary": "Auth done; rate limits next",
    "next_actions": ["Add rate limits (PR 12)"],
    "skill_state": {"run_history": [{"id": "r1", "at": "2026-08-02T09:00:00Z", "result": "pass", "score": 8.0}]}
}`;
const worked = base
  .replace('"updated_at": "2026-08-02T09:30:00Z"', '"updated_at": "2026-08-03T09:30:00Z"')
  .replace('"score": 8.0}]', '"score": 8.0}, {"id": "r2", "at": "2026-08-03T09:00:00Z", "result": "fail", "score": 6.5}]');
const REQUIRED = ['protocol_version', 'skill', 'project', 'project_dir', 'created_at', 'phase', 'step', 'status', 'progress_summary'];

function merged(wiped: string): { dir: string; r: ReturnType<typeof gitTry> } {
  const dir = makeRepo();
  dirs.push(dir);
  initialized(dir);
  write(dir, FILE, base);
  commitAll(dir, 'checkpoint: api');
  commitSides(dir, FILE, worked, wiped);
  return { dir, r: gitTry(dir, ['merge', '--no-edit', 'feat']) };
}

describe('a side that dropped the fields every checkpoint needs', () => {
  it('wiped to {}: git merge stops on each of them, the other side\'s values and its new run in the file', () => {
    const { dir, r } = merged('{}\n');
    expect(r.status).toBe(1);
    for (const field of REQUIRED) expect(r.stderr + r.stdout + cli(dir, ['resolve']).stderr, field).toContain(`conflict at ${field}: ours`);
    const marked = read(dir, FILE);
    expect(marked).toContain('"skill": "api"');
    expect(marked).toContain('"id": "r2"');
    // Taking ours settles it whole: nothing of the working side is lost.
    git(dir, ['checkout', '--ours', '--', FILE]);
    expect(cli(dir, ['resolve', '--add']).code).toBe(0);
    expect(JSON.parse(git(dir, ['show', `:0:${FILE}`]))).toEqual(JSON.parse(worked));
  });

  it('rewritten without them (a script that kept only its own state): the same, each field shown and settled by resolve', () => {
    const partial = `{"updated_at": "2026-08-03T08:00:00Z", "skill_state": {"run_history": [{"id": "r1", "at": "2026-08-02T09:00:00Z", "result": "pass", "score": 8.0}]}}\n`;
    const { dir, r } = merged(partial);
    expect(r.status).toBe(1);
    const shown = r.stderr + r.stdout + cli(dir, ['resolve']).stderr;
    for (const field of REQUIRED) expect(shown, field).toContain(`conflict at ${field}: ours`);
    // Settled one field at a time, each as ours: the file is a checkpoint again.
    const args = REQUIRED.flatMap((f) => ['--ours', f]);
    const settled = cli(dir, ['resolve', ...args, '--add']);
    expect(settled.code, settled.stderr + settled.stdout).toBe(0);
    const doc = JSON.parse(git(dir, ['show', `:0:${FILE}`]));
    for (const field of REQUIRED) expect(doc[field], field).toBe(JSON.parse(worked)[field]);
    expect(doc.skill_state.run_history.map((x: { id: string }) => x.id)).toEqual(['r1', 'r2']);
  });
});
