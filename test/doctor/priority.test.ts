import { describe, expect, it } from 'vitest';
import { chooseAction, isStale, MARKED_DONE, rankCheckpoints, rankOf, RANKS } from '../../src/protocol/priority.js';
import type { Checkpoint } from '../../src/protocol/types.js';

const base = (over: Partial<Checkpoint>): Checkpoint => ({
  protocol_version: '1.1',
  skill: 's',
  project: 'p',
  project_dir: '/p',
  created_at: '2026-11-01T00:00:00Z',
  updated_at: '2026-11-20T00:00:00Z',
  phase: 'build',
  step: 'one',
  status: 'in_progress',
  progress_summary: 'x',
  next_actions: ['a'],
  ...over,
});

describe('rankOf', () => {
  it('orders decision > failed/blocked > gate > in_progress > complete with queue > rest', () => {
    expect(rankOf(base({ blockers: [{ id: 'b', description: 'd', needs: 'user_decision' }] }))).toBe(RANKS.userDecision);
    expect(rankOf(base({ status: 'failed' }))).toBe(RANKS.failed);
    // Blocked on anything but a decision ranks after failed (red team 64 r4, 3): the protocol's order.
    expect(rankOf(base({ status: 'blocked', blockers: [{ id: 'b', description: 'vendor key', needs: 'external_dep' }] }))).toBe(RANKS.blocked);
    expect(RANKS.failed).toBeLessThan(RANKS.blocked);
    expect(RANKS.blocked).toBeLessThan(RANKS.atGate);
    expect(rankOf(base({ step: 'awaiting-approval' }))).toBe(RANKS.atGate);
    for (const step of ['gate_review', 'Sprint 2 Gate: design', 'waiting for sign off', 'sign-off', 'gated on QA', 'Approved?']) expect(rankOf(base({ step })), step).toBe(RANKS.atGate);
    // Words that only hold the letters: ordinary work in progress.
    for (const step of ['investigate flaky test', 'aggregate metrics', 'navigate to settings', 'propagate the config', 'API gateway', 'delegate review']) expect(rankOf(base({ step })), step).toBe(RANKS.inProgress);
    expect(rankOf(base({ progress_table: [{ id: 'spec-gate', label: 'Spec', status: 'in_progress' }] }))).toBe(RANKS.atGate);
    expect(rankOf(base({ progress_table: [{ id: 'spec-gate', label: 'Spec', status: 'complete' }] }))).toBe(RANKS.inProgress);
    expect(rankOf(base({}))).toBe(RANKS.inProgress);
    expect(rankOf(base({ status: 'complete' }))).toBe(RANKS.completeWithQueue);
    expect(rankOf(base({ status: 'complete', next_actions: [] }))).toBe(RANKS.rest);
  });

  it("reads a blocker's needs by the words people write; one no reader can tell ranks above plain work (red team 62b 05)", () => {
    const needs = (n: string) => base({ blockers: [{ id: 'b', description: 'Postgres or SQLite?', needs: n as never }] });
    for (const n of ['decision', 'Approval', 'user input', 'needs-user', 'User Decision', 'decision - which DB']) expect(rankOf(needs(n)), n).toBe(RANKS.userDecision);
    for (const n of ['bug', 'Fix', 'vendor', 'third-party', 'external dependency']) expect(rankOf(needs(n)), n).toBe(RANKS.inProgress);
    for (const n of ['Dana', 'review', 'tbd']) expect(rankOf(needs(n)), n).toBe(RANKS.failed);
    // A closed one waits on nothing.
    expect(rankOf(base({ blockers: [{ id: 'b', description: 'd', needs: 'Dana' as never, resolved: true } as never] }))).toBe(RANKS.inProgress);
  });
});

describe('rankCheckpoints', () => {
  it('puts a failed checkpoint before a newer one blocked on an outside dependency (red team 64 r4, 3)', () => {
    const items = [
      { checkpoint: base({ skill: 'deploy', status: 'failed', updated_at: '2026-11-20T00:00:00Z' }) },
      { checkpoint: base({ skill: 'api', status: 'blocked', updated_at: '2026-11-21T00:00:00Z', blockers: [{ id: 'b1', description: 'Waiting for the vendor', needs: 'external_dep' }] }) },
    ];
    expect(rankCheckpoints(items).map((i) => i.checkpoint.skill)).toEqual(['deploy', 'api']);
  });

  it('puts over-budget first within a rank, then newest', () => {
    const items = [
      { checkpoint: base({ skill: 'old', updated_at: '2026-11-01T00:00:00Z' }) },
      { checkpoint: base({ skill: 'new', updated_at: '2026-11-25T00:00:00Z' }) },
      { checkpoint: base({ skill: 'spender', updated_at: '2026-10-01T00:00:00Z', cost: { total_usd: 60, budget_usd: 50 } }) },
      { checkpoint: base({ skill: 'failed', status: 'failed', updated_at: '2026-09-01T00:00:00Z' }) },
    ];
    expect(rankCheckpoints(items).map((i) => i.checkpoint.skill)).toEqual(['failed', 'spender', 'new', 'old']);
  });
});

describe('rankCheckpoints with now: the highest-priority non-stale first (red team 64 r4, 2)', () => {
  it('puts every stale checkpoint after fresh work, whatever its rank; among stale ones the rank still orders', () => {
    const now = new Date('2026-12-01T00:00:00Z');
    const items = [
      { checkpoint: base({ skill: 'old-gate', step: 'approval-gate', updated_at: '2026-10-01T00:00:00Z' }) },
      { checkpoint: base({ skill: 'old-blocked', status: 'blocked', updated_at: '2026-11-20T00:00:00Z' }) },
      { checkpoint: base({ skill: 'fresh', updated_at: '2026-11-30T00:00:00Z' }) },
      { checkpoint: base({ skill: 'failed', status: 'failed', updated_at: '2020-01-01T00:00:00Z' }) },
      // A decision waiting on the user needs a human however old, as failed work does.
      { checkpoint: base({ skill: 'old-decision', updated_at: '2026-10-01T00:00:00Z', blockers: [{ id: 'b', description: 'd', needs: 'user_decision' }] }) },
    ];
    expect(rankCheckpoints(items, now).map((i) => i.checkpoint.skill)).toEqual(['old-decision', 'failed', 'fresh', 'old-blocked', 'old-gate']);
  });
});

describe('rankCheckpoints: an updated_at past the clock\'s skew ranks as undated (red team 64 r4, 5)', () => {
  it('a save dated 2062 does not win over today\'s work; one within the skew still counts as newest', () => {
    const now = new Date('2026-12-01T00:00:00Z');
    const items = [
      { checkpoint: base({ skill: 'ahead', updated_at: '2062-10-08T00:00:00Z' }) },
      { checkpoint: base({ skill: 'today', updated_at: '2026-11-30T23:00:00Z' }) },
      { checkpoint: base({ skill: 'skew', updated_at: '2026-12-01T12:00:00Z' }) },
    ];
    expect(rankCheckpoints(items, now).map((i) => i.checkpoint.skill)).toEqual(['skew', 'today', 'ahead']);
  });
});

describe('chooseAction', () => {
  it('skips landed actions and asks for reconciliation when all landed', () => {
    const cp = base({ next_actions: ['Merge #1', { text: 'Ship #2', done_when: 'true' }, 'Write docs'] });
    const landed = (t: string) => (t.includes('#') ? 'landed' : null);
    expect(chooseAction(cp, landed)).toMatchObject({ action: 'Write docs', index: 2, reconcile: false });
    const all = chooseAction(base({ next_actions: ['Merge #1'] }), landed);
    expect(all).toMatchObject({ action: null, reconcile: true });
    expect(chooseAction(base({ next_actions: [] }), landed)).toMatchObject({ action: null, reconcile: false });
  });

  it('skips an action the checkpoint marks done, by a key or by its words (red team, 12-05)', () => {
    const marked = [{ text: 'Write the migration', done: true }, { text: 'Wire the route', status: 'done' }, { text: 'Seed', completed: true }, { text: 'Index', state: 'Completed' }, '[x] Update docs', '- [X] Lint', '✅ Add tests', '✔ Bump deps', '~~Old plan~~', 'DONE: tag v1', 'Done — ship', 'Write tests ✅', 'Write tests (done)', 'Bump deps - DONE', 'Tag v1 — completed', 'Lint [Done]', 'Seed ✔️', '[DONE] Write tests', '(done) Write docs'];
    const cp = base({ next_actions: [...marked, 'Deploy to staging'] });
    const choice = chooseAction(cp, () => null);
    expect(choice).toMatchObject({ action: 'Deploy to staging', index: marked.length, reconcile: false });
    expect(choice.landed.map((l) => l.evidence)).toEqual(marked.map(() => MARKED_DONE));
    const open = ['Write the done-check', 'Done criteria: tests pass', { text: 'Ship', done: false }, { text: 'Ship', status: 'in_progress' }, 'Strike ~~old~~ names', '[ ] Update docs', 'x] odd', 'Make sure the migration is done', 'Write tests (done when CI is green)', 'Mark it - done later', '(done when CI is green) Write tests', '[DONE?] Write tests'];
    for (const action of open) expect(chooseAction(base({ next_actions: [action] }), () => null).index, JSON.stringify(action)).toBe(0);
    expect(chooseAction(base({ next_actions: ['[x] Update docs'] }), () => null)).toMatchObject({ action: null, reconcile: true });
  });
});

describe('isStale', () => {
  const now = new Date('2026-11-30T00:00:00Z');
  it('uses per-status thresholds; failed never goes stale', () => {
    expect(isStale(base({ updated_at: '2026-11-22T00:00:00Z' }), now)).toBe(true);
    expect(isStale(base({ updated_at: '2026-11-24T00:00:00Z' }), now)).toBe(false);
    expect(isStale(base({ status: 'blocked', updated_at: '2026-11-26T00:00:00Z' }), now)).toBe(true);
    expect(isStale(base({ status: 'complete', updated_at: '2026-11-20T00:00:00Z' }), now)).toBe(false);
    expect(isStale(base({ status: 'failed', updated_at: '2020-01-01T00:00:00Z' }), now)).toBe(false);
  });
});
