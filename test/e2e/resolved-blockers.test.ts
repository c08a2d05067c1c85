// Blockers as people leave them (red team 12-07): marked resolved instead of removed
// (`"status": "resolved"`, `"resolved": true`, a `resolved_at`, `"state": "Done"`), written as a
// string, or without an id. A resolved one is closed to every reader (no question for the user
// again) and validate advises removing it; the others read with the ids their fixes give, in
// status, resume and the recovery capsule's briefing alike.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { commitAll, makeRepo, tempDir, write } from '../helpers/repo.js';

const BLOCKERS = [
  { id: 'b1', description: 'Pick the database', needs: 'user_decision', status: 'resolved', resolution: 'Postgres' },
  { id: 'b2', description: 'Pick the auth provider', needs: 'user_decision', resolved: true },
  { id: 'b3', description: 'Choose the queue', needs: 'User Decision', resolved_at: '2026-12-05T10:00:00Z' },
  { id: 'b4', description: 'Legal review of the terms', needs: 'external_dep', state: 'Done' },
  'Waiting on the security audit (PLAT-4471)',
  { description: 'Choose the region', needs: 'user_decision' },
];

function project(): string {
  const dir = makeRepo();
  write(dir, '.checkpoints/ops.checkpoint.json', `${JSON.stringify({
    protocol_version: '1.1', skill: 'ops', project: 'shop', project_dir: '.',
    created_at: '2026-12-01T00:00:00Z', updated_at: '2026-12-06T00:00:00Z',
    phase: 'deploy', step: 'terms', status: 'in_progress', progress_summary: 'Database chosen (8.0/10 on the load test).',
    progress_table: [{ id: 'deploy', label: 'Deploy', status: 'in_progress' }],
    blockers: BLOCKERS,
    next_actions: ['Build the schema'],
  }, null, 4)}\n`);
  commitAll(dir, 'ops: checkpoint', '2026-12-06T00:01:00Z');
  return dir;
}

const json = async (dir: string, args: string[]) => JSON.parse((await runCli(dir, [...args, '--json'])).stdout);

describe('a blocker marked resolved is closed; one written loosely reads with its fix\'s id', () => {
  it('status, next and resume ask about the open decision only', async () => {
    const dir = project();
    const status = await json(dir, ['status']);
    expect(status.decisions_waiting.map((d: { id: string }) => d.id)).toEqual(['b6']);
    const text = (await runCli(dir, ['status'])).stdout;
    expect(text).toContain('⛔ 1 decision waiting on you');
    for (const gone of ['Pick the database', 'Pick the auth provider', 'Choose the queue', 'Legal review']) expect(text).not.toContain(gone);
    expect(text).toContain('■ b5: Waiting on the security audit (PLAT-4471)');
    expect(text).toContain('⛔ b6: Choose the region');
    expect((await json(dir, ['next'])).next.text).toBe('Ask the user to decide: Choose the region (blocker b6)');
    const resume = (await runCli(dir, ['resume'])).stdout;
    expect(resume).toContain('⛔ b6: Choose the region');
    expect(resume).not.toContain('Pick the database');
  });

  it('validate advises removing each resolved one, and names a blocker without an id as status does', async () => {
    const dir = project();
    const r = await runCli(dir, ['validate']);
    expect(r.code, r.stdout + r.stderr).toBe(1); // the string blocker and the missing id are slips validate fails
    for (const [i, id] of [[0, 'b1'], [1, 'b2'], [2, 'b3'], [3, 'b4']] as const) {
      expect(r.stdout).toContain(`advice  blockers[${i}]: blocker "${id}" is marked resolved but still listed; status, next and resume treat it as closed; remove it from blockers`);
    }
    expect(r.stdout).not.toContain('undefined');
    // A blocker without an id by the id status shows it under (b6), and its place.
    const file = join(dir, '.checkpoints/ops.checkpoint.json');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"status": "in_progress"', '"status": "complete"'));
    expect((await runCli(dir, ['validate'])).stdout).toContain('warning blockers[5]: status is complete while user_decision blocker b6 (blockers[5], no id) is still open');
  });

  it('the recovery capsule lists the open blockers as resume does: the string one and the one without an id, never "undefined"', async () => {
    const dir = project();
    const capsule = join(tempDir(), 'capsule.json');
    writeFileSync(capsule, JSON.stringify({ goal: 'Ship the terms', acceptance: 'legal signs', constraints: [], decisions: ['Postgres'], evidence: [], pending: [], next: 'Build the schema' }));
    const paused = await runCli(dir, ['pause', 'ops', '--context-file', capsule]);
    expect(paused.code, paused.stderr).toBe(0);
    const out = (await runCli(dir, ['resume', '--context'])).stdout;
    const listed = out.split('\n').filter((l) => /^\s+[⛔■] /.test(l));
    expect(listed).toEqual(['  ⛔ b6: Choose the region', '  ■ b5: Waiting on the security audit (PLAT-4471)']);
  });
});
