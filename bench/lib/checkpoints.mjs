// Real-sized, valid checkpoints for benchmarks: summary, table, primer, blockers, actions
// and skill_state telemetry padded with run_history until the file reaches the target size.
export function makeCheckpoint(skill, targetBytes, now = new Date()) {
  const at = (minutesAgo) => new Date(now.getTime() - minutesAgo * 60_000).toISOString();
  const cp = {
    protocol_version: '1.1',
    skill,
    project: 'bench-project',
    project_dir: '/work/bench-project',
    created_at: at(10_000),
    updated_at: at(30),
    phase: 'build-loop',
    step: 'sprint-2-eval-round-1',
    status: 'in_progress',
    progress_summary: 'Sprint 1 passed (8.2/10). Sprint 2 generator built, evaluator running against the new contract.',
    progress_table: Array.from({ length: 8 }, (_, i) => ({ id: `sprint-${i}`, label: `Sprint ${i}: feature ${i}`, status: i < 2 ? 'complete' : i === 2 ? 'in_progress' : 'not_started' })),
    context_primer: {
      key_decisions: Array.from({ length: 12 }, (_, i) => `Decision ${i}: chose option ${i % 3} because of measured constraint ${i}.`),
      generated_files: Array.from({ length: 10 }, (_, i) => `src/module-${i}/index.ts`),
      user_preferences: ['Direct, concise communication', 'Terminal aesthetic'],
    },
    blockers: [{ id: 'b1', description: 'Evaluator flagged missing rate limiting', blocking: 'sprint-2', needs: 'code_fix', proposed_resolution: 'Add rate-limit middleware in PLAT-4471' }],
    next_actions: ['Read evaluator report: sprints/sprint-2/eval-round-1.md', 'Fix rate limiting gap flagged in blocker b1 (PR #482)', { text: 'Re-run evaluator on sprint 2', done_when: 'npm test' }],
    recently_done: Array.from({ length: 5 }, (_, i) => ({ at: at(60 + i), action: `Finished step ${i}` })),
    pm_refs: [{ provider: 'linear', id: 'PLAT-4471', role: 'source', first_seen_at: at(9000) }],
    cost: { total_usd: 12.34, budget_usd: 50, by_phase: { spec: 3.1, build: 8.4 }, updated_at: at(30) },
    eval_scores: [{ rubric: 'oc-code-auditor', score: 8.2, max: 10, at: at(100) }],
    skill_state: { current_sprint: 2, iteration: 1, run_history: [] },
  };
  let i = 0;
  while (Buffer.byteLength(JSON.stringify(cp, null, 2)) < targetBytes) {
    cp.skill_state.run_history.push({ id: `run-${i}`, at: at(200 + i), result: i % 5 ? 'pass' : 'fail', note: `evaluation round ${i} on sprint ${i % 4}` });
    i++;
  }
  return `${JSON.stringify(cp, null, 2)}\n`;
}
