// Fixtures shaped like a real long-lived repository: twelve hand-kept checkpoints of
// 5-20 KiB written by different people at different times (notes after paths, brace and
// glob patterns, prose in path lists, an out-of-enum status, numbers written `8.0`), on
// top of a git history of hundreds or thousands of commits (bench/lib/history-repo.mjs).
import { join } from 'node:path';
import { makeHistoryRepo } from './history-repo.mjs';

const DAY = 86_400;

/** A generated file created in the first commit; `renameAt` renames it deep in history. */
const SPEC = 'docs/spec.md';
const SPEC_RENAMED = 'docs/spec-v2.md';

function file(path, content) {
  return [`M 100644 inline ${path}`, `data ${Buffer.byteLength(content)}`, content];
}

/**
 * One checkpoint as people and agents really leave them. `updatedAt` is a Date; the text is
 * returned as written (2-space JSON with a few numbers spelled `8.0`). `lastActionLater`: an
 * earlier save, before its last next action was queued.
 */
export function makeRealCheckpoint(skill, targetBytes, updatedAt, index = 0, { lastActionLater = false } = {}) {
  const iso = (daysBefore) => new Date(updatedAt.getTime() - daysBefore * DAY * 1000).toISOString();
  const cp = {
    protocol_version: index % 4 === 0 ? '1.0' : '1.1',
    skill,
    project: 'site',
    project_dir: '/home/dev/site',
    created_at: iso(120),
    updated_at: updatedAt.toISOString(),
    phase: ['build-loop', 'review', 'release', 'spec'][index % 4],
    step: `sprint-${index}-eval-round-2 (re-run after reviewer notes)`,
    status: index === 5 ? 'ready-to-deploy' : index === 7 ? 'complete' : 'in_progress',
    progress_summary: `Sprint ${index} landed behind the flag (8.2/10). Evaluator re-run pending on the mobile previews; see PR #${100 + index}.`,
    progress_table: Array.from({ length: 9 }, (_, i) => ({
      id: `sprint-${i}`,
      label: `Sprint ${i}: ${['auth', 'crud', 'ui', 'previews', 'deploy'][i % 5]}`,
      status: i < 3 ? 'complete' : i === 3 ? 'in_progress' : i === 4 && index === 5 ? 'blocked-on-review' : 'not_started',
    })),
    context_primer: {
      key_decisions: Array.from({ length: 14 }, (_, i) => `Decision ${i}: keep ${['Hono', 'D1', 'passkeys', 'R2'][i % 4]} because of measured constraint ${i} (see PR #${40 + i}).`),
      generated_files: [
        `src/module3/file63.ts (PR 1, 4cb0b09)`,
        `src/module4/file64.ts — draft`,
        `src/module5/file{5,25,45}.ts`,
        `src/module7/*.ts`,
        `${SPEC} (PR 12)`,
        'Branch ref claude/add-upgrade-x — squash-merged & deletable',
        `src/module${index % 20}/file${index % 20}.ts`,
      ],
      user_preferences: ['Direct, concise communication', 'Tables over prose'],
    },
    blockers: index % 3 === 0
      ? [{ id: 'b1', description: 'Reviewer asked for rate limiting on auth endpoints', blocking: 'sprint-3', needs: index === 0 ? 'user_decision' : 'code_fix', proposed_resolution: 'Rate-limit middleware in PLAT-4471' }]
      : [],
    next_actions: [
      `Held for user review: PR #482 (rate limiting) — squash-merge or close`,
      `Read evaluator report: sprints/sprint-${index}/eval-round-2.md`,
      { text: 'Re-run evaluator on the previews', done_when: 'npm test' },
      ...(lastActionLater ? [] : [`Ship PLAT-${4400 + index} to staging`]),
    ],
    recently_done: [
      ...Array.from({ length: 4 }, (_, i) => ({ at: iso(1 + i), action: `Finished step ${i} of sprint ${index}` })),
      `Rebased onto main (${iso(6).slice(0, 10)})`,
    ],
    pm_refs: [{ provider: 'linear', id: 'PLAT-4471', role: 'source', first_seen_at: iso(100) }],
    cost: { total_usd: 12.34, budget_usd: 50, by_phase: { spec: 3.1, build: 8.4 }, updated_at: iso(0) },
    eval_scores: [{ rubric: 'oc-code-auditor', score: 8.2, max: 10, at: iso(3) }],
    skill_state: {
      verified_for_sha: 'claude/release-v1-8 (pre-commit; base e5ea561)',
      pass_threshold: 'PASS_THRESHOLD',
      streak: 3,
      last_run: { at: iso(0), verdict: 'pass', duration_ms: 81234, checks: 41, changed_files: 7 },
      run_history: [],
    },
  };
  let i = 0;
  const render = () => `${JSON.stringify(cp, null, 2).replace('"PASS_THRESHOLD"', '6.0')}\n`;
  while (Buffer.byteLength(render()) < targetBytes) {
    cp.skill_state.run_history.push({ id: i % 7 === 0 ? 'nightly' : `run-${i}`, at: iso(10 + i / 10), result: i % 5 ? 'pass' : 'fail', score: 8 + (i % 10) / 10, note: `evaluation round ${i} on sprint ${i % 4}` });
    i++;
  }
  return render();
}

/**
 * A repository with `commits` commits, the last `recentCommits` of them spread over four
 * months, and twelve checkpoints tracked as a real project tracks them: each committed when it
 * was saved, most of them also earlier with one action fewer (so an action's date comes from the
 * file's history). `stale: true` dates every checkpoint before the first commit, which adds
 * them all (every walk then covers all of history), and puts drift deep in that history: PR
 * #482, which the checkpoints still queue, merges, and the generated docs/spec.md is renamed.
 * Returns { dir, checkpoints: [paths] }.
 */
export function makeRealRepo(dir, { commits, recentCommits, stale = false, now = Math.floor(Date.now() / 1000) }) {
  const spacingMinutes = Math.max(1, Math.floor((120 * DAY) / 60 / recentCommits));
  const recentSince = now - recentCommits * spacingMinutes * 60;
  const total = commits + recentCommits;
  // The first main-line commit dated at or after `at` (a save is committed when it is made, or
  // with the first commit after it); never a pull-request branch's or a merge.
  const commitAt = (at) => {
    let i = at <= recentSince ? commits : Math.min(total - 1, commits + Math.ceil((at - recentSince) / (spacingMinutes * 60)));
    while (i % 10 >= 8) i = i + 1 < total ? i + 1 : i - 1;
    return i;
  };
  const saves = new Map();
  const save = (at, path, text, message) => {
    const i = stale ? 0 : commitAt(at);
    const found = saves.get(i) ?? { at: i, ops: [], messages: [] };
    found.ops.push(...file(path, text));
    found.messages.push(message);
    saves.set(i, found);
  };
  // Fresh: written over the last four months, the newest a day ago. Stale: before history.
  const firstCommit = recentSince - 366 * DAY - commits * 60;
  const paths = [];
  for (let i = 0; i < 12; i++) {
    const at = stale ? firstCommit - (12 - i) * DAY : now - (120 - i * 10) * DAY;
    const skill = `skill-${i}`;
    const rel = `.checkpoints/${skill}.checkpoint.json`;
    const bytes = (5 + (i * 15) / 11) * 1024;
    const earlier = at - 9 * DAY;
    if (!stale && i % 4 !== 3 && commitAt(earlier) < commitAt(at)) save(earlier, rel, makeRealCheckpoint(skill, bytes, new Date(earlier * 1000), i, { lastActionLater: true }), `checkpoint: ${skill}, sprint ${i} planned`);
    save(at, rel, makeRealCheckpoint(skill, bytes, new Date(at * 1000), i), `checkpoint: ${skill}, sprint ${i} evaluated`);
    paths.push(join(dir, rel));
  }
  const extra = [{ at: 0, ops: file(SPEC, '# Spec\n') }];
  const first = saves.get(0);
  if (first) extra[0] = { at: 0, message: stale ? 'Add the checkpoints' : first.messages.join('; '), ops: [...extra[0].ops, ...first.ops] };
  for (const [i, { ops, messages }] of saves) if (i !== 0) extra.push({ at: i, message: messages.join('; '), ops });
  if (stale) extra.push({ at: Math.floor(total / 10) + 1, message: 'Rename the spec for v2', ops: [`R ${SPEC} ${SPEC_RENAMED}`] });
  // The work tree is checked out from HEAD: the checkpoints are there, as committed.
  makeHistoryRepo(dir, { commits, recentCommits, recentSince, spacingMinutes, extra });
  return { dir, checkpoints: paths };
}
