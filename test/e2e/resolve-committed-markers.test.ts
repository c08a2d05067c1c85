// A merge made without the driver (a hosted merge button, a clone that never ran init) can commit
// git's two-way markers: ours and theirs, no base. resolve then has no stages either, and read
// every field either side changed as a conflict, so a wrong pick undid a change only one side
// made (red team 12-07). The merge commit names both parents: their merge base is the base.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { commitAll, git, makeRepo, read, write } from '../helpers/repo.js';

const FILE = '.checkpoints/v.checkpoint.json';
// Hand-kept: 4-space indentation, a note after a path, a number written 8.0.
const doc = (over: Record<string, unknown>) => `${JSON.stringify({
  protocol_version: '1.1', skill: 'v', project: 'shop', project_dir: '.',
  created_at: '2026-12-01T00:00:00Z', updated_at: '2026-12-06T00:00:00Z',
  phase: 'build', step: 'auth', status: 'in_progress', progress_summary: 'Auth half done (8.0/10).',
  context_primer: { generated_files: ['src/auth.ts (PR 12)'] },
  next_actions: ['Write the auth tests'],
  ...over,
}, null, 4)}\n`;

/** Base, a side branch and main each saving `side` / `main` over it, merged by git's line merge and committed with its markers. */
function committedMarkers(side: Record<string, unknown>, main: Record<string, unknown>): string {
  const dir = makeRepo();
  write(dir, FILE, doc({}));
  commitAll(dir, 'v: base');
  git(dir, ['checkout', '-q', '-b', 'side']);
  write(dir, FILE, doc({ updated_at: '2026-12-06T10:00:00Z', ...side }));
  commitAll(dir, 'v: side');
  git(dir, ['checkout', '-q', 'main']);
  write(dir, FILE, doc({ updated_at: '2026-12-06T11:00:00Z', ...main }));
  commitAll(dir, 'v: main');
  writeFileSync(join(dir, '.git/info/attributes'), '.checkpoints/*.checkpoint.json merge=text\n');
  expect(() => git(dir, ['merge', '-q', 'side', '-m', 'Merge side'])).toThrow();
  commitAll(dir, 'Merge side (as the web editor committed it)');
  rmSync(join(dir, '.git/info/attributes'));
  expect(read(dir, FILE)).toMatch(/^<<<<<<< HEAD\n[\s\S]*^=======\n[\s\S]*^>>>>>>> side\n/m);
  expect(read(dir, FILE)).not.toContain('|||||||');
  return dir;
}

describe('resolve on markers a merge committed', () => {
  it('merges what only one side changed from the merge\'s base: no conflict', async () => {
    const dir = committedMarkers({ step: 'sessions' }, { phase: 'review' });
    const r = await runCli(dir, ['resolve', '--add']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('✓ resolved from markers and staged');
    const merged = JSON.parse(read(dir, FILE));
    expect({ phase: merged.phase, step: merged.step, updated_at: merged.updated_at }).toEqual({ phase: 'review', step: 'sessions', updated_at: '2026-12-06T11:00:00Z' });
    expect(read(dir, FILE)).toContain('    "progress_summary": "Auth half done (8.0/10).",\n');
  });

  it('a field both sides changed apart is the one conflict left, base named', async () => {
    const dir = committedMarkers({ step: 'sessions', phase: 'ship' }, { phase: 'review' });
    const r = await runCli(dir, ['resolve', '--add']);
    expect(r.code).toBe(1);
    const conflicts = r.stderr.split('\n').filter((l) => /conflict at/.test(l));
    expect(conflicts).toEqual([expect.stringMatching(/conflict at phase: ours "review" vs theirs "ship" \(base "build"\)/)]);
  });
});
