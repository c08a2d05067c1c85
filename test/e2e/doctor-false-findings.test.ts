// False findings a red team found in doctor and next (round 12), each as a user meets it: a
// hand-kept checkpoint committed and published months ago, ordinary commits since, and the push
// to a local bare remote: a real `git push` through the hook `checkpoint init` installs in two
// cases (one let through, one refused), and in the rest what that hook runs, doctor on the pushed
// range, in-process (judgedPush); doctor, next and validate themselves run in-process.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { commitAll, git, gitTry, write, headSha } from '../helpers/repo.js';
import { judgedPush, published } from '../helpers/published.js';


/** Written by hand, the way agents leave them: a fractional-second date, notes in paths, a row status off the enum. */
function handKept(skill: string, over: Record<string, unknown>): Record<string, unknown> {
  return {
    protocol_version: '1.1', skill, project: 'demo', project_dir: '/home/claude/demo',
    created_at: '2026-02-27T10:00:00Z', updated_at: '2026-03-14T08:01:59.412Z',
    phase: 'build', step: 'wire it up', status: 'in_progress', progress_summary: 'half way; see notes',
    progress_table: [{ id: 'p1', label: 'Phase 1', status: 'complete' }, { id: 'p2', label: 'Phase 2', status: 'in_progress' }],
    next_actions: ['Ship'],
    context_primer: { key_decisions: ['kept the v1 cache format (PR 12)'], generated_files: [] },
    ...over,
  };
}

const push = (dir: string) => {
  const r = gitTry(dir, ['push', 'origin', 'main']);
  return { status: r.status, out: r.stdout + r.stderr };
};

const nextOf = async (dir: string) => JSON.parse((await runCli(dir, ['next', '--json'])).stdout).next as { text: string; skipped_as_landed: { text: string }[] };

describe('ticket-shaped words are not landed work (r3)', () => {
  const actions = ['Convert all logs to UTF-8', 'Switch cache keys to SHA-256 (ISO-8601 stamps too)', 'Finish PLAT-7 auth flow', 'Ship'];

  it('ordinary commits naming UTF-8, SHA-256 or a ticket in progress neither skip the action nor block the push', async () => {
    const dir = published('api', handKept('api', { next_actions: actions }));
    commitAll(dir, 'Strip UTF-8 BOM from README');
    commitAll(dir, 'Add SHA-256 test vector (#40)');
    commitAll(dir, 'WIP PLAT-7: started, not done');
    expect(await nextOf(dir)).toMatchObject({ text: actions[0], skipped_as_landed: [] });
    const r = push(dir);
    expect(r.out).not.toMatch(/blocks push/);
    expect(r.status, r.out).toBe(0);
  });

  it('a squash or merge naming a phase or sprint lands no action naming the same one (12-03)', async () => {
    const planned = ['Start PHASE-2 rollout', 'Close out SPRINT-3', 'Ship'];
    const dir = published('api', handKept('api', { next_actions: planned }));
    commitAll(dir, 'Plan PHASE-2 rollout (#41)');
    git(dir, ['checkout', '-q', '-b', 'SPRINT-3-prep']);
    commitAll(dir, 'prep');
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--no-ff', '-m', "Merge branch 'SPRINT-3-prep'", 'SPRINT-3-prep']);
    expect(await nextOf(dir)).toMatchObject({ text: planned[0], skipped_as_landed: [] });
    const r = await judgedPush(dir);
    expect(r.out).not.toMatch(/blocks push/);
    expect(r.status, r.out).toBe(0);
  });

  it('a merge or a squash of the ticket still lands it', async () => {
    for (const subject of ['PLAT-7: auth flow (#131)', 'Merge pull request #482 from x/PLAT-7-auth']) {
      const dir = published('api', handKept('api', { next_actions: actions.slice(2) }));
      commitAll(dir, subject);
      expect(await nextOf(dir)).toMatchObject({ text: 'Ship', skipped_as_landed: [{ text: actions[2] }] });
      const r = await judgedPush(dir);
      expect(r.status, r.out).not.toBe(0);
      expect(r.out).toMatch(/"Finish PLAT-7 auth flow" names PLAT-7, which landed[^\n]*\[blocks push\]/);
    }
  });
});

describe('paths doctor missed (r5)', () => {
  const files = { 'docs/my notes.md': '# notes\n', 'src/c.ts': 'export const c = 1;\n', 'src/keep.ts': 'export {};\n' };
  const entries = ['docs/my notes.md', '/home/claude/demo/src/c.ts (PR 12)', '/home/claude/demo/src/keep.ts', '/srv/elsewhere/x.ts', 'see docs/ for the rest'];
  const doctor = async (dir: string) => (JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout).findings as { path: string; level: string; message: string }[])
    .filter((f) => f.path.startsWith('context_primer.generated_files'));

  it('checks a path with spaces after it is renamed, and an absolute path under project_dir from another machine', async () => {
    const dir = published('docs', handKept('docs', { context_primer: { key_decisions: [], generated_files: entries } }), files);
    // Present and unchanged: only the path outside both the repository and project_dir is a note.
    expect((await doctor(dir)).map((f) => [f.path, f.level])).toEqual([['context_primer.generated_files[3]', 'info'], ['context_primer.generated_files[4]', 'info']]);
    git(dir, ['mv', 'docs/my notes.md', 'docs/old notes.md']);
    git(dir, ['rm', '-q', 'src/c.ts']);
    const sha = commitAll(dir, 'Tidy docs, drop the c module').slice(0, 7);
    const after = await doctor(dir);
    expect(after.filter((f) => f.level === 'warning').map((f) => f.message)).toEqual([
      `docs/my notes.md is missing: renamed to docs/old notes.md in ${sha}; update the checkpoint (\`checkpoint update docs --context_primer.generated_files.0='docs/my notes.md (renamed to docs/old notes.md)'\`)`,
      `src/c.ts is missing: deleted in ${sha} "Tidy docs, drop the c module"; update the checkpoint (\`checkpoint update docs --context_primer.generated_files.1='/home/claude/demo/src/c.ts (PR 12; deleted)'\`) or restore the file`,
    ]);
    expect(after.find((f) => f.path === 'context_primer.generated_files[3]')?.message).toMatch(/outside the repository; not checked/);
    const r = push(dir);
    expect(r.status, r.out).not.toBe(0);
    expect(r.out).toMatch(/docs\/my notes\.md is missing: renamed to docs\/old notes\.md[^\n]*\[blocks push\]/);
    expect(r.out).toMatch(/src\/c\.ts is missing[^\n]*\[blocks push\]/);
  });
});

describe('a path inside prose (red team D1)', () => {
  const entries = ['see docs/auth.md for details', 'Refactored the auth flow in `src/x.ts`.', 'src/old.ts was folded into src/new.ts', 'docs/guide.md'];
  const files = { 'docs/auth.md': '# auth\n', 'src/x.ts': 'export {};\n', 'src/old.ts': 'old\n', 'src/new.ts': 'new\n', 'docs/guide.md': '# guide\n' };
  const fileFindings = async (dir: string, engine: string) => (JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings as { path: string; level: string; message: string }[])
    .filter((f) => f.path.startsWith('context_primer.generated_files') && f.level !== 'info');

  it('a file it names that changed is advice to re-read it, on both engines; a push of that change goes through; a named file deleted is no finding', async () => {
    const dir = published('api', handKept('api', { context_primer: { key_decisions: [], generated_files: entries } }), files);
    git(dir, ['rm', '-q', 'src/old.ts']);
    commitAll(dir, 'Drop the old module');
    write(dir, 'docs/auth.md', '# auth\n\nTokens now expire after 1 h.\n');
    const sha = commitAll(dir, 'Document token expiry').slice(0, 7);
    for (const engine of ['native', 'isomorphic']) {
      const found = await fileFindings(dir, engine);
      expect(found.map((f) => [f.path, f.level, f.message.replace(/ \(.*/, '')]), engine).toEqual([['context_primer.generated_files[0]', 'advice', "docs/auth.md, which the entry's prose names, changed after the checkpoint was written"]]);
      expect(found[0]!.message, engine).toContain(sha);
    }
    const r = await judgedPush(dir);
    expect(r.out).not.toMatch(/blocks push/);
    expect(r.status, r.out).toBe(0);
  });

  it('a file a later entry lists is judged under that entry, as drift', async () => {
    const dir = published('api', handKept('api', { context_primer: { key_decisions: [], generated_files: ['Rewrote docs/guide.md from the notes', 'docs/guide.md'] } }), files);
    write(dir, 'docs/guide.md', '# guide\n\nv2\n');
    commitAll(dir, 'Guide v2');
    expect((await fileFindings(dir, 'native')).map((f) => [f.path, f.level])).toEqual([['context_primer.generated_files[1]', 'warning']]);
  });
});

describe('a skill completed long ago (r4)', () => {
  const complete = (over: Record<string, unknown> = {}) => handKept('old', {
    status: 'complete', phase: 'done', step: 'shipped', progress_summary: 'finished in March (see #12)', next_actions: [],
    progress_table: [{ id: 'a', label: 'Codegen', status: 'complete' }],
    context_primer: { key_decisions: ['generated once, then hand-tuned'], generated_files: ['src/gen.ts (PR 12)', 'docs/*.md'] },
    ...over,
  });

  it('its generated files changing later is advice, and an ordinary push goes through', async () => {
    const dir = published('old', complete(), { 'src/gen.ts': 'export const v = 1;\n', 'docs/gen.md': '# v1\n' });
    write(dir, 'src/gen.ts', 'export const v = 2;\n');
    write(dir, 'docs/gen.md', '# v2\n');
    commitAll(dir, 'ordinary edit months later');
    const findings = (JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout).findings as { path: string; level: string; message: string }[])
      .filter((f) => f.path.startsWith('context_primer.generated_files'));
    expect(findings.map((f) => [f.level, f.message.replace(/ \(.*/, '')])).toEqual([['advice', 'src/gen.ts changed after the checkpoint was written'], ['advice', 'docs/gen.md']]);
    const r = await judgedPush(dir);
    expect(r.out).not.toMatch(/blocks push/);
    expect(r.status, r.out).toBe(0);
    expect((await runCli(dir, ['doctor', '--fail-on-warnings'])).code).toBe(0);
  });

  it('open work still blocks on the same edit, and a complete skill still on a deleted file', async () => {
    const open = published('old', complete({ status: 'in_progress', next_actions: ['Regenerate the client'] }), { 'src/gen.ts': 'export const v = 1;\n', 'docs/gen.md': '# v1\n' });
    write(open, 'src/gen.ts', 'export const v = 2;\n');
    commitAll(open, 'hand edit');
    expect((await judgedPush(open)).out).toMatch(/src\/gen\.ts changed after the checkpoint was written[^\n]*\[blocks push\]/);
    const done = published('old', complete(), { 'src/gen.ts': 'export const v = 1;\n', 'docs/gen.md': '# v1\n' });
    git(done, ['rm', '-q', 'src/gen.ts']);
    commitAll(done, 'drop the generated module');
    const r = await judgedPush(done);
    expect(r.status, r.out).not.toBe(0);
    expect(r.out).toMatch(/src\/gen\.ts is missing[^\n]*\[blocks push\]/);
  });
});

describe('a rename a glob still covers (r6)', () => {
  it('is no finding; the same rename out of a brace entry still is', async () => {
    const files = { 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 1;\n' };
    const dir = published('gen', handKept('gen', { context_primer: { key_decisions: [], generated_files: ['src/*.ts (codegen, PR 12)', 'src/{a,b}.ts'] } }), files);
    git(dir, ['mv', 'src/a.ts', 'src/c.ts']);
    const sha = commitAll(dir, 'Rename a to c').slice(0, 7);
    const drift = (JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout).findings as { path: string; level: string; message: string }[])
      .filter((f) => f.path.startsWith('context_primer.generated_files'));
    expect(drift.map((f) => [f.path, f.level, f.message.replace(/ after the checkpoint.*/, '')])).toEqual([
      ['context_primer.generated_files[1]', 'warning', `src/a.ts (matched by src/{a,b}.ts) was renamed to src/c.ts`],
    ]);
    expect(drift[0]!.message).toContain(sha);
  });
});

describe('a file changed and deleted within one second (verify round)', () => {
  it('is reported deleted by the commit that deleted it, on both engines, not as "not checked out here"', async () => {
    const dir = published('api', handKept('api', { context_primer: { generated_files: ['src/gen.ts (PR 12)', 'src/keep.ts'] } }), { 'src/gen.ts': 'v1\n', 'src/keep.ts': 'k\n' });
    // Same committer second: the walk orders such commits by sha. Made until the change's sha
    // sorts before the deletion's, the order that hid the deletion.
    const at = '2026-11-30T09:00:00Z';
    const start = headSha(dir);
    let rm = '';
    for (let n = 1; ; n++) {
      write(dir, 'src/gen.ts', `v2 #${n}\n`);
      const change = commitAll(dir, 'regenerate gen', at);
      git(dir, ['rm', '-q', 'src/gen.ts']);
      rm = commitAll(dir, 'drop gen', at);
      if (change < rm) break;
      git(dir, ['reset', '-q', '--hard', start]);
    }
    for (const engine of ['native', 'isomorphic']) {
      const out = (await runCli(dir, ['doctor', '--engine', engine])).stdout;
      expect(out, engine).toContain(`src/gen.ts is missing: deleted in ${rm.slice(0, 7)} "drop gen"; update the checkpoint (\`checkpoint update api --context_primer.generated_files.0='src/gen.ts (PR 12; deleted)'\`) or restore the file`);
      expect(out, engine).not.toContain('not checked out here');
    }
  });
});

describe('a deletion a merge brought in from main (red team 12-07)', () => {
  it('names the commit that deleted the file and the merge, on both engines; resume dates it by the deleting commit', async () => {
    const dir = published('api', handKept('api', { context_primer: { generated_files: ['src/gen.ts (PR 12)', 'src/keep.ts'] } }), { 'src/gen.ts': 'v1\n', 'src/keep.ts': 'k\n' });
    git(dir, ['checkout', '-q', '-b', 'session']);
    write(dir, 'src/keep.ts', 'k2\n');
    commitAll(dir, 'session work', '2026-11-30T09:00:00Z');
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['rm', '-q', 'src/gen.ts']);
    const rm = commitAll(dir, 'Remove the generated client (#31)', '2026-11-30T10:00:00Z');
    git(dir, ['checkout', '-q', 'session']);
    git(dir, ['merge', '-q', '--no-edit', 'main'], { GIT_COMMITTER_DATE: '2026-11-30T11:00:00Z', GIT_AUTHOR_DATE: '2026-11-30T11:00:00Z' });
    const merge = headSha(dir);
    for (const engine of ['native', 'isomorphic']) {
      const out = (await runCli(dir, ['doctor', '--engine', engine])).stdout;
      expect(out, engine).toContain(`src/gen.ts is missing: deleted in ${rm.slice(0, 7)} "Remove the generated client (#31)", merged in ${merge.slice(0, 7)}; update the checkpoint (\`checkpoint update api --context_primer.generated_files.0='src/gen.ts (PR 12; deleted)'\`) or restore the file`);
    }
    expect((await runCli(dir, ['resume', 'api'])).stdout).toContain(`src/gen.ts (PR 12) — src/gen.ts deleted in ${rm.slice(0, 7)}`);
  });
});

describe('blocker and budget bookkeeping is advice, never drift (red team 12-04)', () => {
  it('a blocker naming no row, blocked with no blocker and a tripped budget gate: advice in doctor, the push carrying them goes through; validate still warns', async () => {
    const dir = published('api', handKept('api', {}));
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(handKept('api', {
      blockers: [{ id: 'b1', description: 'Need a decision on rate limits', blocking: 'the v2 release', needs: 'user_decision' }],
      cost: { total_usd: 61.5, budget_usd: 50 },
    }), null, 2)}\n`);
    write(dir, '.checkpoints/ops.checkpoint.json', `${JSON.stringify(handKept('ops', { status: 'blocked' }), null, 2)}\n`);
    commitAll(dir, 'cp: blockers and spend');
    const doctor = JSON.parse((await runCli(dir, ['doctor', '--json', '--fail-on-warnings'])).stdout) as { findings: { level: string; path: string; message: string }[] };
    const kept = doctor.findings.filter((f) => /blocking|blockers|cost/.test(f.path)).map((f) => `${f.level} ${f.path}`);
    expect(kept.sort()).toEqual(['advice blockers', 'advice blockers[0].blocking', 'advice cost.total_usd']);
    // (Months-old checkpoints are stale: that warning is the clock's, not the push's.)
    expect(doctor.findings.filter((f) => f.level === 'warning').map((f) => f.path)).toEqual(['updated_at', 'updated_at']);
    const r = await judgedPush(dir);
    expect(r.out).not.toMatch(/blocks push/);
    expect(r.status, r.out).toBe(0);
    const validated = await runCli(dir, ['validate', '.checkpoints/api.checkpoint.json']);
    expect(validated.stdout + validated.stderr).toMatch(/warning cost\.total_usd: budget gate tripped/);
  });
});

describe('an action queued before its PR landed stays landed work, however it reached HEAD (red team 12-04)', () => {
  // An action added by hand under an older save's updated_at is dated by the author date of the
  // commit that added it: the commit date cannot tell when its text was written (a cherry-pick is
  // dated when it was made; it keeps the author date), and a landing missed sends a session to
  // redo shipped work. Any `checkpoint update` dates it anew.
  const followUp = 'Add a changelog entry for #12';
  const landed = (dir: string) => {
    git(dir, ['checkout', '-q', '-b', 'feat']);
    commitAll(dir, 'rate limit', '2026-03-15T10:00:00Z');
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--no-ff', '-m', 'Merge pull request #12 from me/feat', 'feat'], { GIT_COMMITTER_DATE: '2026-03-15T11:00:00Z', GIT_AUTHOR_DATE: '2026-03-15T11:00:00Z' });
  };
  const queue = (dir: string, at: string) => {
    const doc = handKept('api', {});
    (doc.next_actions as string[]).unshift(followUp);
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(doc, null, 2)}\n`);
    commitAll(dir, 'queue the changelog follow-up', at);
  };

  it('queued on main before the PR landed', async () => {
    const dir = published('api', handKept('api', {}));
    queue(dir, '2026-03-15T09:00:00Z');
    landed(dir);
    expect(await nextOf(dir)).toMatchObject({ text: 'Ship', skipped_as_landed: [{ text: followUp }] });
  });

  it('queued on a session branch before the PR landed, cherry-picked onto main after it, on both engines', async () => {
    const dir = published('api', handKept('api', {}));
    git(dir, ['checkout', '-q', '-b', 'session']);
    queue(dir, '2026-03-15T09:00:00Z');
    git(dir, ['checkout', '-q', 'main']);
    landed(dir);
    git(dir, ['cherry-pick', 'session'], { GIT_COMMITTER_DATE: '2026-03-16T09:00:00Z' });
    expect(await nextOf(dir)).toMatchObject({ text: 'Ship', skipped_as_landed: [{ text: followUp }] });
    for (const engine of ['native', 'isomorphic']) {
      const found = (JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings as { check: string; path: string }[]).filter((f) => f.check === 'landed');
      expect(found.map((f) => f.path), engine).toEqual(['next_actions[0]']);
    }
  });

  it('queued by hand after the PR landed, under the older save\'s updated_at, is no landed work: not skipped, no finding, the push goes through (12-05)', async () => {
    const dir = published('api', handKept('api', {}));
    landed(dir);
    queue(dir, '2026-03-15T12:00:00Z');
    expect(await nextOf(dir)).toMatchObject({ text: followUp, skipped_as_landed: [] });
    for (const engine of ['native', 'isomorphic']) {
      const found = (JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings as { check: string }[]).filter((f) => f.check === 'landed');
      expect(found, engine).toEqual([]);
    }
    const r = await judgedPush(dir);
    expect(r.out).not.toMatch(/blocks push/);
    expect(r.status, r.out).toBe(0);
  });
});

describe('an action queued on top of its landing, under a year typed wrong (red team B06)', () => {
  // The squash of #15 lands; the session then commits a checkpoint queuing its follow-up, its
  // updated_at a year behind ("2025-…" for 2026). The commit that queued the text has the landing
  // in its history: the text came after it, whatever its date says, and a re-save keeps that.
  const followUp = 'Add a changelog entry for #15';
  it('no landed finding on either engine, next recommends it, before and after a re-save with a correct clock, and the push goes through', async () => {
    const dir = published('api', handKept('api', {}));
    write(dir, 'src/limiter.ts', 'export const limit = 10;\n');
    commitAll(dir, 'Add rate limiter (#15)', '2026-03-20T10:00:00Z');
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(handKept('api', { created_at: '2025-03-21T08:40:00Z', updated_at: '2025-03-21T09:00:00.5Z', progress_summary: 'Rate limiter shipped in #15.', next_actions: [followUp, 'Write docs'] }), null, 2)}\n`);
    commitAll(dir, 'checkpoint: queue the changelog for #15', '2026-03-21T09:05:00Z');
    const landedPaths = async (engine: string) => (JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings as { check: string; path: string }[]).filter((f) => f.check === 'landed').map((f) => f.path);
    for (const engine of ['native', 'isomorphic']) expect(await landedPaths(engine), engine).toEqual([]);
    expect(await nextOf(dir)).toMatchObject({ text: followUp, skipped_as_landed: [] });
    expect((await runCli(dir, ['update', 'api', '--step=wire the changelog'])).code).toBe(0);
    commitAll(dir, 'checkpoint: re-save');
    for (const engine of ['native', 'isomorphic']) expect(await landedPaths(engine), engine).toEqual([]);
    expect(await nextOf(dir)).toMatchObject({ text: followUp, skipped_as_landed: [] });
    const r = await judgedPush(dir);
    expect(r.out).not.toMatch(/landed after/);
    expect(r.status, r.out).toBe(0);
  });

  it('a text saved on a session branch before its PR landed, squashed onto main after the landing, was still queued before it: warned on both engines, skipped by next', async () => {
    const dir = published('api', handKept('api', {}));
    git(dir, ['checkout', '-q', '-b', 'session']);
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(handKept('api', { updated_at: '2026-03-15T09:00:00Z', next_actions: ['Merge PR #15', 'Write docs'] }), null, 2)}\n`);
    commitAll(dir, 'checkpoint: queue the merge of #15', '2026-03-15T09:00:00Z');
    git(dir, ['checkout', '-q', 'main']);
    write(dir, 'src/limiter.ts', 'export const limit = 10;\n');
    commitAll(dir, 'Add rate limiter (#15)', '2026-03-15T11:00:00Z');
    git(dir, ['merge', '-q', '--squash', 'session']);
    commitAll(dir, 'Session notes (#16)', '2026-03-15T12:00:00Z');
    for (const engine of ['native', 'isomorphic']) {
      const found = (JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings as { check: string; path: string }[]).filter((f) => f.check === 'landed');
      expect(found.map((f) => f.path), engine).toEqual(['next_actions[0]']);
    }
    expect(await nextOf(dir)).toMatchObject({ text: 'Write docs', skipped_as_landed: [{ text: 'Merge PR #15' }] });
  });
});

describe('a skill renamed by writing its file anew keeps its actions\' queue dates (red team B11)', () => {
  // api -> gw in one commit: the file moved and re-serialised (as json.dump writes it: other indent,
  // keys in another order), so git pairs no rename; "Merge PR #15" was queued in api before #15 landed.
  const renameTo = (dir: string, skill: string, over: Record<string, unknown>) => {
    const doc = { ...handKept(skill, {}), ...over };
    git(dir, ['rm', '-q', '.checkpoints/api.checkpoint.json']);
    write(dir, `.checkpoints/${skill}.checkpoint.json`, `${JSON.stringify(Object.fromEntries(Object.entries(doc).reverse()), null, 4)}\n`);
  };

  it('still warned as landed after it was queued on both engines, skipped by next, and the push carrying the rename refused', async () => {
    const dir = published('api', handKept('api', { next_actions: ['Merge PR #15', 'Write docs'] }));
    write(dir, 'src/limiter.ts', 'export const limit = 10;\n');
    commitAll(dir, 'Add rate limiter (#15)', '2026-03-15T10:00:00Z');
    renameTo(dir, 'gw', { updated_at: '2026-03-16T08:59:00Z', next_actions: ['Merge PR #15', 'Write docs'] });
    commitAll(dir, 'rename skill api -> gw', '2026-03-16T09:00:00Z');
    for (const engine of ['native', 'isomorphic']) {
      const found = (JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings as { check: string; path: string; message: string }[]).filter((f) => f.check === 'landed');
      expect(found.map((f) => [f.path, f.message.replace(/ \([0-9a-f]{7} .*/, '')]), engine).toEqual([['next_actions[0]', '"Merge PR #15" names #15, which landed after it was queued (2026-03-14T08:01:59.000Z) and still queued']]);
    }
    expect(await nextOf(dir)).toMatchObject({ text: 'Write docs', skipped_as_landed: [{ text: 'Merge PR #15' }] });
    const r = await judgedPush(dir);
    expect(r.status, r.out).not.toBe(0);
    expect(r.out).toMatch(/"Merge PR #15" names #15, which landed after it was queued[^\n]*\[blocks push\]/);
  });

  it('only from a checkpoint file the new one replaced in its first commit, holding the same text', async () => {
    // Queued anew in gw (api held other actions): dated by gw's save, after the landing.
    const fresh = published('api', handKept('api', { next_actions: ['Write docs'] }));
    write(fresh, 'src/limiter.ts', 'export const limit = 10;\n');
    commitAll(fresh, 'Add rate limiter (#15)', '2026-03-15T10:00:00Z');
    renameTo(fresh, 'gw', { updated_at: '2026-03-16T08:59:00Z', next_actions: ['Merge PR #15', 'Write docs'] });
    commitAll(fresh, 'rename skill api -> gw', '2026-03-16T09:00:00Z');
    expect(await nextOf(fresh)).toMatchObject({ text: 'Merge PR #15', skipped_as_landed: [] });
    // gw already there before api was deleted (api folded into it later): gw's own queueing dates it.
    const folded = published('api', handKept('api', { next_actions: ['Merge PR #15', 'Write docs'] }));
    write(folded, '.checkpoints/gw.checkpoint.json', `${JSON.stringify(handKept('gw', { next_actions: ['Write docs'] }), null, 2)}\n`);
    commitAll(folded, 'checkpoint: gw', '2026-03-14T09:00:00Z');
    write(folded, 'src/limiter.ts', 'export const limit = 10;\n');
    commitAll(folded, 'Add rate limiter (#15)', '2026-03-15T10:00:00Z');
    renameTo(folded, 'gw', { updated_at: '2026-03-16T08:59:00Z', next_actions: ['Merge PR #15', 'Write docs'] });
    commitAll(folded, 'fold api into gw', '2026-03-16T09:00:00Z');
    expect(await nextOf(folded)).toMatchObject({ text: 'Merge PR #15', skipped_as_landed: [] });
  });
});

describe('actions that can only follow a landing (red team 03)', () => {
  const followUps = ['Verify #12 in production', 'Fix the regression introduced by #12', 'Remove the feature flag added in #12', 'Smoke-test PLAT-7 on staging'];
  const merged = (dir: string) => {
    git(dir, ['checkout', '-q', '-b', 'plat-7-flag']);
    commitAll(dir, 'PLAT-7: add flag', '2026-03-15T10:00:00Z');
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--no-ff', '-m', 'Merge pull request #12 from org/plat-7-flag', 'plat-7-flag'], { GIT_COMMITTER_DATE: '2026-03-15T11:00:00Z', GIT_AUTHOR_DATE: '2026-03-15T11:00:00Z' });
  };
  const landedFindings = async (dir: string, engine: string) => (JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings as { check: string; path: string }[]).filter((f) => f.check === 'landed').map((f) => f.path);

  it('queued before #12 merged: no finding on either engine, next recommends the first, the push that merges #12 goes through', async () => {
    const dir = published('api', handKept('api', { next_actions: [...followUps, 'Ship'] }));
    merged(dir);
    for (const engine of ['native', 'isomorphic']) expect(await landedFindings(dir, engine), engine).toEqual([]);
    expect(await nextOf(dir)).toMatchObject({ text: followUps[0], skipped_as_landed: [] });
    const r = await judgedPush(dir);
    expect(r.out).not.toMatch(/blocks push/);
    expect(r.status, r.out).toBe(0);
  });

  it('beside them, "Merge PR #12" is still a redo: warned on both engines, skipped by next, the push refused', async () => {
    const dir = published('api', handKept('api', { next_actions: ['Merge PR #12', ...followUps] }));
    merged(dir);
    for (const engine of ['native', 'isomorphic']) expect(await landedFindings(dir, engine), engine).toEqual(['next_actions[0]']);
    expect(await nextOf(dir)).toMatchObject({ text: followUps[0], skipped_as_landed: [{ text: 'Merge PR #12' }] });
    const r = await judgedPush(dir);
    expect(r.out).toMatch(/names #12, which landed[\s\S]*blocks push/);
    expect(r.status, r.out).not.toBe(0);
  });
});

describe('a blocker waiting on work that since landed (red team 12-04)', () => {
  it('is a warning naming the landing on both engines; one naming it as a cause, or waiting on more than landed, is not', async () => {
    const blockers = [
      { id: 'b1', description: 'Blocked until PR #20 (DB migration) merges', needs: 'external_dep' },
      { id: 'b2', description: 'PR #20 broke staging; needs a look', needs: 'code_fix' },
      { id: 'b3', description: 'Waiting on #21, then on #20 landing', needs: 'external_dep' },
      // Words of waiting beside a PR the blocker does not wait on (red team, 12-04).
      { id: 'b4', description: 'Blocked by flaky e2e test introduced in #20', needs: 'code_fix' },
      { id: 'b5', description: 'Revert of PR #20 pending (it broke prod)', needs: 'code_fix' },
      { id: 'b6', description: 'Login broke after #20 landed; waiting on the vendor SDK fix', needs: 'external_dep' },
    ];
    const dir = published('api', handKept('api', { status: 'blocked', blockers }));
    git(dir, ['checkout', '-q', '-b', 'mig']);
    commitAll(dir, 'DB migration', '2026-03-15T10:00:00Z');
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--no-ff', '-m', 'Merge pull request #20 from me/mig', 'mig'], { GIT_COMMITTER_DATE: '2026-03-15T11:00:00Z', GIT_AUTHOR_DATE: '2026-03-15T11:00:00Z' });
    for (const engine of ['native', 'isomorphic']) {
      const found = (JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings as { path: string; level: string; message: string }[]).filter((f) => f.path.startsWith('blockers'));
      expect(found, engine).toEqual([expect.objectContaining({
        level: 'warning', path: 'blockers[0].description',
        message: expect.stringMatching(/^"Blocked until PR #20 \(DB migration\) merges" waits on #20, which landed after the checkpoint \([0-9a-f]{7} "Merge pull request #20 from me\/mig"\); if it blocks no more, remove the blocker/),
      })]);
    }
  });
});
