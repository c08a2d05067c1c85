// The merge driver as git runs it: bundled with esbuild, registered in throw-away repos,
// driven through merge, rebase, cherry-pick and a criss-cross merge; and invoked directly
// with bad input to check it never loses ours and always exits with a safe code.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/protocol/json.js';
import { validateCheckpoint } from '../../src/protocol/validate.js';
import { cleanup, commitAll, git, gitTry, makeRepo, read, ROOT, tempDir, write, headSha } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

const FILE = '.checkpoints/demo.checkpoint.json';
const LAUNCHER_SOURCE = "const { runMergeDriver } = await import('./driver.mjs');\nprocess.exitCode = await runMergeDriver(process.argv.slice(2));\n";

let work: string;
let launcher: string;
const repos: string[] = [];

beforeAll(async () => {
  work = tempDir('cp-driver-');
  await build({ entryPoints: [join(ROOT, 'src/merge/driver-main.ts')], bundle: true, platform: 'node', format: 'esm', outfile: join(work, 'driver.mjs'), logLevel: 'silent' });
  launcher = join(work, 'launcher.mjs');
  writeFileSync(launcher, LAUNCHER_SOURCE);
});

afterAll(() => {
  for (const dir of [work, ...repos]) cleanup(dir);
});

function driverRepo(): string {
  const dir = makeRepo();
  repos.push(dir);
  git(dir, ['config', 'merge.checkpoint.name', 'checkpoint semantic merge']);
  git(dir, ['config', 'merge.checkpoint.driver', `'${process.execPath}' '${launcher}' %O %A %B %P %L`]);
  write(dir, '.gitattributes', '.checkpoints/*.checkpoint.json merge=checkpoint\n');
  return dir;
}

function baseDoc(): any {
  return {
    protocol_version: '1.1',
    skill: 'demo',
    project: 'demo',
    project_dir: '/work/demo',
    created_at: '2026-03-01T10:00:00Z',
    updated_at: '2026-03-01T10:00:00Z',
    phase: 'build',
    step: 'sprint-1',
    status: 'in_progress',
    progress_summary: 'Sprint 1 under way.',
    progress_table: [
      { id: 'planning', label: 'Planner', status: 'complete' },
      { id: 'sprint-1', label: 'Sprint 1', status: 'in_progress' },
    ],
    context_primer: { key_decisions: ['Stack: Hono + D1'] },
    next_actions: ['a1', 'a2', 'a3', 'a4', 'a5'],
    recently_done: [],
    eval_scores: [],
    skill_state: { run_history: [] },
  };
}

const save = (dir: string, doc: unknown) => write(dir, FILE, JSON.stringify(doc, null, 2) + '\n');
const load = (dir: string): any => parseJson(read(dir, FILE)).value;

/**
 * One agent session: restamp, pop `pops` actions into recently_done, append, log a run, a
 * score and a decision, and rewrite the run telemetry (last_run whole, streak bumped), as
 * every real session that runs the skill does.
 */
function session(dir: string, who: string, at: string, opts: { pops?: number; appends?: string[] } = {}): void {
  const doc = load(dir);
  doc.updated_at = at;
  doc.skill_state.last_run = { at, verdict: `${who} pass`, duration_ms: at.length * 1000 + who.length, checks: ['lint', who], changed_files: [`src/${who}.ts (PR 12)`] };
  doc.skill_state.streak = (doc.skill_state.streak ?? 0) + 1;
  for (const action of doc.next_actions.splice(0, opts.pops ?? 0)) doc.recently_done.unshift({ at, action, by: who });
  doc.next_actions.push(...(opts.appends ?? []));
  doc.eval_scores.push({ rubric: who, score: 7, at });
  doc.skill_state.run_history.push({ id: `${who}@${at}`, at, ok: true });
  doc.context_primer.key_decisions.push(`${who} decided at ${at}`);
  save(dir, doc);
  commitAll(dir, `${who} session`, at);
}

function start(dir: string): void {
  save(dir, baseDoc());
  commitAll(dir, 'base checkpoint', '2026-03-01T10:00:00Z');
}

function expectClean(dir: string) {
  const text = read(dir, FILE);
  expect(text).not.toMatch(/^[<=>|]{7}/m);
  const doc = load(dir);
  expect(validateCheckpoint(doc, { fileName: 'demo.checkpoint.json' }).errors).toEqual([]);
  expect(git(dir, ['status', '--porcelain'])).toBe('');
  return doc;
}

/** The telemetry of the session that ran last (by its own time) is the merged telemetry, whole. */
function expectLastRun(doc: any, who: string) {
  expect(doc.skill_state.last_run.verdict).toBe(`${who} pass`);
  expect(doc.skill_state.last_run.checks).toEqual(['lint', who]);
}

function expectEverything(doc: any, sessions: string[], actions: string[]) {
  expect(doc.skill_state.run_history.map((r: any) => r.id.split('@')[0]).sort()).toEqual([...sessions].sort());
  expect(doc.eval_scores.map((e: any) => e.rubric).sort()).toEqual([...sessions].sort());
  for (const who of sessions) expect(doc.context_primer.key_decisions.some((d: string) => d.startsWith(who))).toBe(true);
  expect(doc.next_actions).toEqual(actions);
}

describe('git runs the driver', () => {
  it('merges two sessions cleanly: latest updated_at, pops union, both appends, every log entry', () => {
    const dir = driverRepo();
    start(dir);
    git(dir, ['checkout', '-q', '-b', 'feature']);
    session(dir, 'feature', '2026-03-02T09:00:00Z', { pops: 2, appends: ['f: write docs'] });
    git(dir, ['checkout', '-q', 'main']);
    session(dir, 'main', '2026-03-02T08:00:00Z', { pops: 1, appends: ['m: deploy'] });

    const r = gitTry(dir, ['merge', '--no-edit', 'feature']);
    expect(r.status, r.stderr).toBe(0);
    const doc = expectClean(dir);
    expect(doc.updated_at).toBe('2026-03-02T09:00:00Z');
    // Both appended: main's session (08:00) queued its action before feature's (09:00).
    expectEverything(doc, ['main', 'feature'], ['a3', 'a4', 'a5', 'm: deploy', 'f: write docs']);
    // Newest first; feature's two pops share one time and stay in the order feature wrote them (a2, popped last, first).
    expect(doc.recently_done.map((d: any) => `${d.by}:${d.action}`)).toEqual(['feature:a2', 'feature:a1', 'main:a1']);
    expectLastRun(doc, 'feature');
    expect(doc.skill_state.streak).toBe(1);
  });

  it('rebases a branch of two sessions onto main cleanly', () => {
    const dir = driverRepo();
    start(dir);
    git(dir, ['checkout', '-q', '-b', 'feature']);
    session(dir, 'f1', '2026-03-02T09:00:00Z', { pops: 1, appends: ['f1 next'] });
    session(dir, 'f2', '2026-03-02T10:00:00Z', { pops: 1, appends: ['f2 next'] });
    git(dir, ['checkout', '-q', 'main']);
    session(dir, 'main', '2026-03-02T08:00:00Z', { pops: 1, appends: ['m next'] });
    git(dir, ['checkout', '-q', 'feature']);

    const r = gitTry(dir, ['rebase', 'main']);
    expect(r.status, r.stderr).toBe(0);
    const doc = expectClean(dir);
    expect(doc.updated_at).toBe('2026-03-02T10:00:00Z');
    // Appends in the order the sessions saved them: main (08:00), f1 (09:00), f2 (10:00).
    expectEverything(doc, ['main', 'f1', 'f2'], ['a3', 'a4', 'a5', 'm next', 'f1 next', 'f2 next']);
    expectLastRun(doc, 'f2');
    expect(doc.skill_state.streak).toBe(2);
  });

  it('cherry-picks a session onto main cleanly', () => {
    const dir = driverRepo();
    start(dir);
    git(dir, ['checkout', '-q', '-b', 'feature']);
    session(dir, 'skipped', '2026-03-02T07:00:00Z', { appends: ['only on feature'] });
    session(dir, 'picked', '2026-03-02T09:00:00Z', { pops: 1, appends: ['picked next'] });
    const picked = headSha(dir);
    git(dir, ['checkout', '-q', 'main']);
    session(dir, 'main', '2026-03-02T08:00:00Z', { pops: 2 });

    const r = gitTry(dir, ['cherry-pick', picked]);
    expect(r.status, r.stderr).toBe(0);
    const doc = expectClean(dir);
    expectEverything(doc, ['main', 'picked'], ['a3', 'a4', 'a5', 'picked next']);
    expectLastRun(doc, 'picked');
  });

  it('a cherry-picked spend counts once only where both files carry the picked save: a rebase drops the pick onto an older save; a merge after a save since, or a rebase over a pick onto a newer save, counts it twice, as docs/merge-driver.md says (red team 62a 03)', () => {
    // A hand-kept cost, 5.0 before either session.
    const spend = (dir: string, at: string, usd: string, over: Record<string, unknown>) =>
      write(dir, FILE, JSON.stringify({ ...load(dir), ...over, updated_at: at, cost: { currency: 'USD', total_usd: 0 } }, null, 2).replace('"total_usd": 0', `"total_usd": ${usd}`) + '\n');
    const total = (dir: string) => /"total_usd": ([^\n]*)/.exec(read(dir, FILE))![1];
    /** main saves at `mainAt`, feature's session spends 1.0 at 09:00 and is picked onto main; feature then spends 0.5 more. */
    const picked = (mainAt: string) => {
      const dir = driverRepo();
      save(dir, baseDoc());
      spend(dir, '2026-03-01T10:00:00Z', '5.0', {});
      commitAll(dir, 'base checkpoint', '2026-03-01T10:00:00Z');
      git(dir, ['checkout', '-q', '-b', 'feature']);
      spend(dir, '2026-03-02T09:00:00Z', '6.0', { step: 'login' });
      const session = commitAll(dir, 'one session', '2026-03-02T09:00:00Z');
      git(dir, ['checkout', '-q', 'main']);
      spend(dir, mainAt, '5.0', { phase: 'review' });
      commitAll(dir, 'main: phase', mainAt);
      expect(gitTry(dir, ['cherry-pick', session]).status).toBe(0);
      expect(total(dir)).toBe('6.0');
      git(dir, ['checkout', '-q', 'feature']);
      spend(dir, '2026-03-02T12:00:00Z', '6.5', { status: 'blocked' });
      commitAll(dir, 'feature spends 0.5 more', '2026-03-02T12:00:00Z');
      git(dir, ['branch', 'feature-again']);
      git(dir, ['checkout', '-q', 'main']);
      return dir;
    };
    // Picked onto an older save: main carries the picked save. A merge still counts it twice, feature having saved since; a rebase of feature drops the pick.
    const older = picked('2026-03-02T08:00:00Z');
    expect(gitTry(older, ['merge', '-q', '--no-edit', 'feature']).status).toBe(0);
    expect(total(older)).toBe('7.5');
    git(older, ['reset', '-q', '--hard', 'HEAD^']);
    git(older, ['checkout', '-q', 'feature-again']);
    expect(gitTry(older, ['rebase', '-q', 'main']).status).toBe(0);
    expect(git(older, ['log', '--format=%s', 'main..HEAD']).trim()).toBe('feature spends 0.5 more');
    expect(total(older)).toBe('6.5');
    // Picked onto a newer save: main carries its own time, and the rebase replays the pick too.
    const newer = picked('2026-03-02T11:00:00Z');
    git(newer, ['checkout', '-q', 'feature-again']);
    expect(gitTry(newer, ['rebase', '-q', 'main']).status).toBe(0);
    expect(git(newer, ['log', '--format=%s', 'main..HEAD']).trim().split('\n')).toEqual(['feature spends 0.5 more', 'one session']);
    expect(total(newer)).toBe('7.5');
  });

  it('cherry-picks a log append onto a branch whose checkpoint lacks that log yet', () => {
    const dir = driverRepo();
    start(dir);
    git(dir, ['checkout', '-q', '-b', 'feature']);
    session(dir, 'picked', '2026-03-02T09:00:00Z', { appends: ['picked next'] });
    const picked = headSha(dir);
    git(dir, ['checkout', '-q', 'main']);
    const doc = load(dir);
    delete doc.skill_state; // the whole section, as on a branch cut before the skill ever ran
    doc.step = 'sprint-2';
    save(dir, doc);
    commitAll(dir, 'main drops the empty log', '2026-03-02T08:00:00Z');

    const r = gitTry(dir, ['cherry-pick', picked]);
    expect(r.status, r.stderr).toBe(0);
    const merged = expectClean(dir);
    expect(merged.skill_state.run_history.map((e: any) => e.id)).toEqual(['picked@2026-03-02T09:00:00Z']);
    expect(merged.step).toBe('sprint-2');
  });

  it('merges criss-crossed branches (two merge bases) cleanly, losing nothing', () => {
    const dir = driverRepo();
    start(dir);
    git(dir, ['branch', 'b']);
    session(dir, 'a1', '2026-03-02T01:00:00Z', { pops: 1, appends: ['from a1'] });
    const a1 = headSha(dir);
    git(dir, ['checkout', '-q', 'b']);
    session(dir, 'b1', '2026-03-02T02:00:00Z', { pops: 2, appends: ['from b1'] });
    const b1 = headSha(dir);
    expect(gitTry(dir, ['merge', '--no-edit', a1]).status).toBe(0);
    git(dir, ['checkout', '-q', 'main']);
    expect(gitTry(dir, ['merge', '--no-edit', b1]).status).toBe(0);
    session(dir, 'a2', '2026-03-02T03:00:00Z', { pops: 1, appends: ['from a2'] });
    git(dir, ['checkout', '-q', 'b']);
    session(dir, 'b2', '2026-03-02T04:00:00Z', { appends: ['from b2'] });
    git(dir, ['checkout', '-q', 'main']);
    expect(git(dir, ['merge-base', '--all', 'main', 'b']).trim().split('\n')).toHaveLength(2);

    const r = gitTry(dir, ['merge', '--no-edit', 'b']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const doc = expectClean(dir);
    expect(doc.updated_at).toBe('2026-03-02T04:00:00Z');
    // a2 popped a3 (the head once a1 and b1 had popped a1, a2).
    expectEverything(doc, ['a1', 'b1', 'a2', 'b2'], ['a4', 'a5', 'from a1', 'from b1', 'from a2', 'from b2']);
    expectLastRun(doc, 'b2');
  });

  /** Two branches that each merged the other (m1: a1 merged into main, m2: b1 into b): their merge has two merge bases. */
  function crissCross(dir: string, edit: { a1?: (d: any) => void; b1?: (d: any) => void; m1?: (d: any) => void; m2?: (d: any) => void } = {}): void {
    start(dir);
    git(dir, ['branch', 'b']);
    save(dir, { ...load(dir), updated_at: '2026-03-02T01:00:00Z', next_actions: [...load(dir).next_actions, 'Open PR for A'] });
    edit.a1?.(dir);
    const a1 = commitAll(dir, 'a1', '2026-03-02T01:00:00Z');
    git(dir, ['checkout', '-q', 'b']);
    save(dir, { ...load(dir), updated_at: '2026-03-02T02:00:00Z', skill_state: { run_history: [{ id: 'b-run', at: '2026-03-02T02:00:00Z' }] } });
    edit.b1?.(dir);
    const b1 = commitAll(dir, 'b1', '2026-03-02T02:00:00Z');
    for (const [branch, other, fix] of [['b', a1, edit.m2], ['main', b1, edit.m1]] as const) {
      git(dir, ['checkout', '-q', branch]);
      const r = gitTry(dir, ['merge', '--no-edit', other]);
      if (r.status !== 0) {
        fix!(dir);
        commitAll(dir, `resolved on ${branch}`, '2026-03-02T03:00:00Z');
      }
    }
    expect(git(dir, ['merge-base', '--all', 'main', 'b']).trim().split('\n')).toHaveLength(2);
  }

  it('criss-cross: a record both merge bases hold and one side then removed stays removed (git merges the bases through the driver; red team, 12-04)', () => {
    const dir = driverRepo();
    crissCross(dir);
    // main finishes "Open PR for A" and clears the run log; b changes only its step.
    const done = load(dir);
    save(dir, { ...done, updated_at: '2026-03-03T01:00:00Z', next_actions: done.next_actions.filter((a: string) => a !== 'Open PR for A'), skill_state: { run_history: [] } });
    commitAll(dir, 'PR for A opened', '2026-03-03T01:00:00Z');
    git(dir, ['checkout', '-q', 'b']);
    save(dir, { ...load(dir), updated_at: '2026-03-03T02:00:00Z', step: 'sprint-2' });
    commitAll(dir, 'b: sprint 2', '2026-03-03T02:00:00Z');
    git(dir, ['checkout', '-q', 'main']);
    const r = gitTry(dir, ['merge', '--no-edit', 'b']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const doc = expectClean(dir);
    // With the oldest ancestor as the base (merge.checkpoint.recursive=binary), both came back.
    expect(doc.next_actions).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
    expect(doc.skill_state.run_history).toEqual([]);
    expect(doc.step).toBe('sprint-2');
  });

  it('criss-cross: where the merge bases disagree (a conflict each side settled its own way), the merge asks while the sides still differ, and takes their common value when they agree', () => {
    for (const agree of [false, true]) {
      const dir = driverRepo();
      crissCross(dir, {
        a1: (d) => save(d, { ...load(d), phase: 'audit' }),
        b1: (d) => save(d, { ...load(d), phase: 'ship' }),
        // Each side settles the phase conflict for itself.
        m1: (d) => expect(gitTry(d, ['checkout', '--ours', FILE]).status).toBe(0),
        m2: (d) => expect(gitTry(d, ['checkout', '--ours', FILE]).status).toBe(0),
      });
      expect(load(dir).phase).toBe('audit');
      git(dir, ['checkout', '-q', 'b']);
      expect(load(dir).phase).toBe('ship');
      if (agree) save(dir, { ...load(dir), phase: 'audit' });
      save(dir, { ...load(dir), updated_at: '2026-03-03T02:00:00Z', step: 'sprint-2' });
      commitAll(dir, 'b: sprint 2', '2026-03-03T02:00:00Z');
      git(dir, ['checkout', '-q', 'main']);
      const r = gitTry(dir, ['merge', '--no-edit', 'b']);
      if (agree) {
        expect(r.status, r.stdout + r.stderr).toBe(0);
        expect(expectClean(dir)).toMatchObject({ phase: 'audit', step: 'sprint-2' });
      } else {
        // Not "b changed the phase from the base's audit": the bases held both.
        expect(r.status).not.toBe(0);
        expect(r.stderr).toContain(`checkpoint: ${FILE}: conflict at phase: ours "audit" vs theirs "ship"`);
        expect(read(dir, FILE).match(/^<<<<<<< ours$/gm)).toHaveLength(1);
      }
    }
  });

  /**
   * Branches main and b that merged each other `rounds` times, every commit logging one record; the
   * first round's merges, whose phase conflict both settle alike, leave bases that disagree only
   * below: the merge bases of each later merge are criss-cross merges themselves, a level deeper each
   * round, so git merges bases through the driver with marker sizes of the file's size plus 2, 4, ...,
   * and a merge of bases that left markers would stop a merge (red team 47, 05).
   */
  async function mergedEachOther(dir: string, rounds: number): Promise<string[]> {
    const logged: string[] = [];
    const commit = (who: string, at: string, phase?: string) => {
      const doc = load(dir);
      doc.recently_done.push({ at, action: who });
      logged.push(who);
      save(dir, { ...doc, updated_at: at, phase: phase ?? doc.phase });
      commitAll(dir, who, at);
    };
    start(dir);
    git(dir, ['branch', 'b']);
    commit('a0', '2026-03-02T00:00:00Z', 'audit');
    git(dir, ['checkout', '-q', 'b']);
    commit('b0', '2026-03-02T00:00:01Z', 'ship');
    for (let r = 1; r <= rounds; r++) {
      const tips = { main: git(dir, ['rev-parse', 'main']).trim(), b: headSha(dir) };
      for (const [branch, other] of [['main', tips.b], ['b', tips.main]] as const) {
        git(dir, ['checkout', '-q', branch]);
        const m = gitTry(dir, ['merge', '--no-edit', other]);
        if (r === 1) {
          expect(m.stderr).toMatch(/^checkpoint: \S+: conflict at phase: ours "\w+" vs theirs "\w+" \(base "build"\)\n$/);
          expect((await runCli(dir, ['resolve', '--ours', 'phase', '--add'])).code).toBe(0);
        } else {
          expect(m.status, m.stdout + m.stderr).toBe(0);
        }
        commit(`${branch[0]}${r}`, `2026-03-0${2 + r}T00:00:0${branch === 'b' ? 1 : 0}Z`, r === 1 ? 'agreed' : undefined);
      }
    }
    expect(git(dir, ['merge-base', '--all', 'main', 'b']).trim().split('\n')).toHaveLength(2);
    return logged;
  }

  it('criss-cross merges of criss-cross merges (two branches merging each other again and again) merge by themselves, at every depth of merge bases, under a conflict-marker-size of the project too', async () => {
    const dir = driverRepo();
    // git then passes 9 for the merge itself, 11, 13 and 15 for the merges of bases.
    write(dir, '.gitattributes', '.checkpoints/*.checkpoint.json merge=checkpoint conflict-marker-size=9\n');
    const logged = await mergedEachOther(dir, 3);
    // The only change since the bases: one record each.
    save(dir, { ...load(dir), recently_done: [...load(dir).recently_done, { at: '2026-03-09T00:00:01Z', action: 'b last' }] });
    commitAll(dir, 'b last', '2026-03-09T00:00:01Z');
    git(dir, ['checkout', '-q', 'main']);
    save(dir, { ...load(dir), recently_done: [...load(dir).recently_done, { at: '2026-03-09T00:00:00Z', action: 'a last' }] });
    commitAll(dir, 'a last', '2026-03-09T00:00:00Z');
    const r = gitTry(dir, ['merge', '--no-edit', 'b']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const doc = expectClean(dir);
    expect(doc.phase).toBe('agreed');
    expect(doc.recently_done.map((d: any) => d.action).sort()).toEqual([...logged, 'a last', 'b last'].sort());
  });

  it('stops on a semantic collision with markers around that field only, UU, non-zero exit', () => {
    const dir = driverRepo();
    start(dir);
    git(dir, ['checkout', '-q', '-b', 'feature']);
    session(dir, 'feature', '2026-03-02T09:00:00Z', { pops: 1 });
    save(dir, { ...load(dir), phase: 'audit' });
    commitAll(dir, 'feature phase');
    git(dir, ['checkout', '-q', 'main']);
    session(dir, 'main', '2026-03-02T08:00:00Z', { appends: ['m next'] });
    save(dir, { ...load(dir), phase: 'ship' });
    commitAll(dir, 'main phase');

    const r = gitTry(dir, ['merge', '--no-edit', 'feature']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`checkpoint: ${FILE}: conflict at phase: ours "ship" vs theirs "audit" (base "build")`);
    expect(git(dir, ['status', '--porcelain'])).toContain(`UU ${FILE}`);
    const text = read(dir, FILE);
    expect(text.match(/^<<<<<<< ours$/gm)).toHaveLength(1);
    expect(text).toContain('<<<<<<< ours\n  "phase": "ship",\n||||||| base\n  "phase": "build",\n=======\n  "phase": "audit",\n>>>>>>> theirs\n');
    const ours = parseJson(text.replace(/^\|{7} base\n[\s\S]*?^>{7} theirs\n/m, '').replace(/^<{7} ours\n/m, '')).value as any;
    expectEverything(ours, ['main', 'feature'], ['a2', 'a3', 'a4', 'a5', 'm next']);
  });

  it('under a conflict-marker-size below 7, still writes the seven-character markers every reader knows, and resolve settles the conflict it named (red team 62a, 02)', async () => {
    const dir = driverRepo();
    write(dir, '.gitattributes', '.checkpoints/*.checkpoint.json merge=checkpoint conflict-marker-size=3\n');
    start(dir);
    git(dir, ['checkout', '-q', '-b', 'feature']);
    save(dir, { ...load(dir), phase: 'audit' });
    commitAll(dir, 'feature phase');
    git(dir, ['checkout', '-q', 'main']);
    save(dir, { ...load(dir), phase: 'ship' });
    commitAll(dir, 'main phase');
    const r = gitTry(dir, ['merge', '--no-edit', 'feature']);
    expect(r.stderr).toContain(`checkpoint: ${FILE}: conflict at phase: ours "ship" vs theirs "audit" (base "build")`);
    expect(read(dir, FILE)).toContain('<<<<<<< ours\n  "phase": "ship",\n||||||| base\n  "phase": "build",\n=======\n  "phase": "audit",\n>>>>>>> theirs\n');
    const settled = await runCli(dir, ['resolve', '--ours', 'phase']);
    expect(settled.code, settled.stderr).toBe(0);
    expect(load(dir).phase).toBe('ship');
  });

  it('falls back to a line merge with markers when a side is not valid JSON', () => {
    const dir = driverRepo();
    start(dir);
    git(dir, ['checkout', '-q', '-b', 'feature']);
    session(dir, 'feature', '2026-03-02T09:00:00Z', { pops: 1 });
    git(dir, ['checkout', '-q', 'main']);
    write(dir, FILE, read(dir, FILE).replace('"phase": "build",', '"phase": "build",,'));
    commitAll(dir, 'broken on main');

    const r = gitTry(dir, ['merge', '--no-edit', 'feature']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/checkpoint: cannot merge \.checkpoints\/demo\.checkpoint\.json semantically: ours is not valid JSON at 8:\d+/);
    expect(git(dir, ['status', '--porcelain'])).toContain(`UU ${FILE}`);
    expect(read(dir, FILE)).toContain('"phase": "build",,');
    // Labelled as git's line merge, not the driver's own markers (resolve takes those apart differently).
    expect(read(dir, FILE)).toMatch(/^<{7} ours \(line merge\)\n[\s\S]*^\|{7} base \(line merge\)\n[\s\S]*^={7}\n[\s\S]*^>{7} theirs \(line merge\)\n/m);
  });

  it('a file no checkpoint by its name, routed here by a broad attribute (`* merge=checkpoint`), merges as git merges it: clean and silent when its lines merge, markers where they collide (red team s56)', () => {
    const dir = driverRepo();
    write(dir, '.gitattributes', '* merge=checkpoint\n');
    write(dir, 'notes.txt', 'a\nb\nc\nd\ne\n');
    write(dir, 'todo.md', '- one\n- two\n');
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'feature']);
    write(dir, 'notes.txt', 'A\nb\nc\nd\ne\n');
    write(dir, 'todo.md', '- one (theirs)\n- two\n');
    commitAll(dir, 'feature');
    git(dir, ['checkout', '-q', 'main']);
    write(dir, 'notes.txt', 'a\nb\nc\nd\nE\n');
    commitAll(dir, 'main');
    const clean = gitTry(dir, ['merge', '--no-edit', 'feature']);
    expect(clean.status, clean.stdout + clean.stderr).toBe(0);
    expect(clean.stderr).not.toMatch(/checkpoint/);
    expect(read(dir, 'notes.txt')).toBe('A\nb\nc\nd\nE\n');
    // Both sides changing one line: git's conflict, with its markers, and no line of ours.
    git(dir, ['checkout', '-q', '-b', 'other', 'HEAD~1']);
    write(dir, 'todo.md', '- one (ours)\n- two\n');
    commitAll(dir, 'other');
    const r = gitTry(dir, ['merge', '--no-edit', 'feature']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).not.toMatch(/checkpoint/);
    expect(git(dir, ['status', '--porcelain'])).toContain('UU todo.md');
    expect(read(dir, 'todo.md')).toMatch(/^<{7} .*\n- one \(ours\)\n[\s\S]*^={7}\n- one \(theirs\)\n>{7} /m);
  });

  it('a history/ file named as no archive or rotation (notes.json, Api.2026-12-05.json) is left to git\'s line merge, the file named on stderr, resolve saying it is settled by hand (red team 64 r2, repro5)', async () => {
    const dir = driverRepo();
    write(dir, '.gitattributes', '.checkpoints/*.checkpoint.json merge=checkpoint\n.checkpoints/history/*.json merge=checkpoint\n');
    const files = ['.checkpoints/history/notes.json', '.checkpoints/history/Api.2026-12-05.json'];
    for (const f of files) write(dir, f, '{"a": 1, "b": 2}\n');
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'feature']);
    for (const f of files) write(dir, f, '{"a": 1, "b": 3}\n');
    commitAll(dir, 'feature');
    git(dir, ['checkout', '-q', 'main']);
    for (const f of files) write(dir, f, '{"a": 1, "b": 4}\n');
    commitAll(dir, 'main');
    const r = gitTry(dir, ['merge', '--no-edit', 'feature']);
    expect(r.status).not.toBe(0);
    for (const f of files) {
      // git's markers around whole lines, every line of both sides kept: no driver's field conflict.
      expect(read(dir, f)).toBe('<<<<<<< ours (line merge)\n{"a": 1, "b": 4}\n||||||| base (line merge)\n{"a": 1, "b": 2}\n=======\n{"a": 1, "b": 3}\n>>>>>>> theirs (line merge)\n');
      expect(r.stderr).toContain(`checkpoint merge-driver: ${f}: not named as a history archive or rotation file, so git's line merge merges it`);
      expect(r.stderr).not.toContain(`${f}: conflict at`);
    }
    // resolve and --check name each file as one to settle by hand, and fail: never "no conflicted checkpoint files".
    for (const argv of [['resolve'], ['resolve', '--add'], ['resolve', '--check']]) {
      const out = await runCli(dir, argv);
      expect(out.code, argv.join(' ')).toBe(1);
      expect(out.stdout).not.toMatch(/no conflicted checkpoint files|run `checkpoint resolve --add`/);
      for (const f of files) expect(out.stdout).toContain(`settle it by hand, then \`git add ${f}\``);
    }
    const one = await runCli(dir, ['resolve', files[0]!]);
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/git's line merge merges it, not checkpoint; hint: settle it by hand, then `git add \.checkpoints\/history\/notes\.json`/);
    expect(git(dir, ['status', '--porcelain'])).toContain('UU .checkpoints/history/notes.json');
    // Settled by hand and added: nothing left.
    for (const f of files) write(dir, f, '{"a": 1, "b": 5}\n');
    git(dir, ['add', ...files]);
    expect((await runCli(dir, ['resolve', '--check'])).code).toBe(0);
  });

  it('a history/ file named as no archive or rotation merges clean by lines when its lines do not collide', () => {
    const dir = driverRepo();
    write(dir, '.gitattributes', '.checkpoints/history/*.json merge=checkpoint\n');
    const f = '.checkpoints/history/notes.json';
    write(dir, f, '{\n  "a": 1,\n  "b": 2,\n  "c": 3\n}\n');
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'feature']);
    write(dir, f, '{\n  "a": 9,\n  "b": 2,\n  "c": 3\n}\n');
    commitAll(dir, 'feature');
    git(dir, ['checkout', '-q', 'main']);
    write(dir, f, '{\n  "a": 1,\n  "b": 2,\n  "c": 7\n}\n');
    commitAll(dir, 'main');
    const r = gitTry(dir, ['merge', '--no-edit', 'feature']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(read(dir, f)).toBe('{\n  "a": 9,\n  "b": 2,\n  "c": 7\n}\n');
  });

  it("after the line merge, resolve names the side that is really broken (git's markers: read from the index stages)", async () => {
    const dir = driverRepo();
    start(dir);
    git(dir, ['checkout', '-q', '-b', 'feature']);
    // Theirs breaks a line far from the one both sides change: git's line merge takes it into the common text.
    const doc = read(dir, FILE);
    write(dir, FILE, doc.replace('"project": "demo",', '"project": "demo",,').replace('"status": "in_progress"', '"status": "shipping"').replace('"step": "sprint-1"', '"step": "theirs"'));
    commitAll(dir, 'feature broke it');
    git(dir, ['checkout', '-q', 'main']);
    write(dir, FILE, doc.replace('"step": "sprint-1"', '"step": "ours"'));
    commitAll(dir, 'main step');
    expect(gitTry(dir, ['merge', '--no-edit', 'feature']).status).not.toBe(0);
    expect(read(dir, FILE)).toMatch(/^  "project": "demo",,\n[\s\S]*^<{7} /m); // above the markers
    const before = read(dir, FILE);
    const r = await runCli(dir, ['resolve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/semantically: theirs is not valid JSON at 4:\d+: expected a double-quoted property name\n/);
    expect(r.stderr).not.toMatch(/\b(base|ours) is not valid JSON/);
    expect(read(dir, FILE)).toBe(before);
  });

  it('merges an add/add (no common ancestor content) cleanly', () => {
    const dir = driverRepo();
    commitAll(dir, 'attributes only');
    git(dir, ['checkout', '-q', '-b', 'feature']);
    start(dir);
    session(dir, 'feature', '2026-03-02T09:00:00Z', { appends: ['f next'] });
    git(dir, ['checkout', '-q', 'main']);
    start(dir);
    session(dir, 'main', '2026-03-02T08:00:00Z', { appends: ['m next'] });

    const r = gitTry(dir, ['merge', '--no-edit', 'feature']);
    expect(r.status, r.stderr).toBe(0);
    expectEverything(expectClean(dir), ['main', 'feature'], ['a1', 'a2', 'a3', 'a4', 'a5', 'm next', 'f next']);
  });
});

describe('cost spend through git (red-team finding 6)', () => {
  it("adds two branches' spend without a conflict; an unchanged 8.0 keeps its text, the sums are written without float noise", () => {
    const dir = driverRepo();
    const doc = baseDoc();
    doc.cost = { currency: 'USD', total_usd: 1, budget_usd: 50, by_phase: { spec: 3.1, build: 8 }, tokens: { input: 10 }, updated_at: '2026-03-01T10:00:00Z' };
    // Hand-written numbers: 1.0 and 8.0, as Python's json.dump writes floats.
    const withTexts = (d: unknown) => JSON.stringify(d, null, 2).replace('"total_usd": 1,', '"total_usd": 1.0,').replace('"build": 8', '"build": 8.0') + '\n';
    write(dir, FILE, withTexts(doc));
    commitAll(dir, 'base checkpoint', '2026-03-01T10:00:00Z');
    git(dir, ['checkout', '-q', '-b', 'theirs']);
    write(dir, FILE, withTexts({ ...doc, cost: { ...doc.cost, total_usd: 4.25, by_phase: { spec: 3.2, build: 8 }, tokens: { input: 300 }, updated_at: '2026-03-02T08:00:00Z' } }));
    commitAll(dir, 'theirs spends', '2026-03-02T08:00:00Z');
    git(dir, ['checkout', '-q', 'main']);
    write(dir, FILE, withTexts({ ...doc, cost: { ...doc.cost, total_usd: 3.5, by_phase: { spec: 3.3, build: 8 }, tokens: { input: 100 }, updated_at: '2026-03-02T09:00:00Z' } }));
    commitAll(dir, 'ours spends', '2026-03-02T09:00:00Z');

    const r = gitTry(dir, ['merge', '--no-edit', 'theirs']);
    expect(r.status, r.stderr).toBe(0);
    expect(expectClean(dir).cost).toEqual({ currency: 'USD', total_usd: 6.75, budget_usd: 50, by_phase: { spec: 3.4, build: 8 }, tokens: { input: 390 }, updated_at: '2026-03-02T09:00:00Z' });
    const text = read(dir, FILE);
    expect(text).toContain('"total_usd": 6.75,');
    expect(text).toContain('"spec": 3.4,');
    expect(text).toContain('"build": 8.0');
  });

  it('adds token counters past 2^53 on their digits, in a hand-kept layout (red team s13 #2)', () => {
    const dir = driverRepo();
    const doc = baseDoc();
    doc.cost = { total_usd: 1 }; // written below as the hand keeps it
    // An inline cost object, as a hand keeps it; the token count written as its digits.
    const withTokens = (n: string, at: string) => JSON.stringify({ ...doc, updated_at: at }, null, 2).replace(/"cost": \{[\s\S]*?\n {2}\}/, `"cost": {"currency": "USD", "total_usd": 1.0, "tokens": {"in": ${n}, "out": 5}}`) + '\n';
    write(dir, FILE, withTokens('12345678901234567000', '2026-03-01T10:00:00Z'));
    commitAll(dir, 'base checkpoint', '2026-03-01T10:00:00Z');
    git(dir, ['checkout', '-q', '-b', 'theirs']);
    write(dir, FILE, withTokens('12345678901234567200', '2026-03-02T08:00:00Z'));
    commitAll(dir, 'theirs spends 200', '2026-03-02T08:00:00Z');
    git(dir, ['checkout', '-q', 'main']);
    write(dir, FILE, withTokens('12345678901234567100', '2026-03-02T09:00:00Z'));
    commitAll(dir, 'ours spends 100', '2026-03-02T09:00:00Z');

    const r = gitTry(dir, ['merge', '--no-edit', 'theirs']);
    expect(r.status, r.stderr).toBe(0);
    expect(read(dir, FILE)).toBe(withTokens('12345678901234567300', '2026-03-02T09:00:00Z'));
  });

  it('a number two tools re-saved in their own spellings (6.00 as 6.0 and 6) is no conflict: one spelling, whichever branch is checked out (red team 62a 07)', () => {
    const dir = driverRepo();
    const doc = { ...baseDoc(), skill_state: { run_history: [], pass_threshold: 6 } };
    // The base as a hand wrote it; Python's json.dump (indent 2, no final newline) writes 6.0, Node's JSON.stringify 6.
    write(dir, FILE, JSON.stringify(doc, null, 1).replace('"pass_threshold": 6', '"pass_threshold": 6.00') + '\n');
    commitAll(dir, 'base checkpoint', '2026-03-01T10:00:00Z');
    git(dir, ['checkout', '-q', '-b', 'py']);
    write(dir, FILE, JSON.stringify({ ...doc, step: 'login', updated_at: '2026-03-02T09:00:00Z' }, null, 2).replace('"pass_threshold": 6', '"pass_threshold": 6.0'));
    commitAll(dir, 'python save', '2026-03-02T09:00:00Z');
    git(dir, ['checkout', '-q', '-b', 'node', 'main']);
    write(dir, FILE, JSON.stringify({ ...doc, phase: 'review', updated_at: '2026-03-02T08:00:00Z' }, null, 2));
    commitAll(dir, 'node save', '2026-03-02T08:00:00Z');
    git(dir, ['branch', 'node-again']);

    for (const [into, from] of [['node', 'py'], ['py', 'node-again']] as const) {
      git(dir, ['checkout', '-q', into]);
      const r = gitTry(dir, ['merge', '--no-edit', from]);
      expect(r.status, r.stdout + r.stderr).toBe(0);
      const merged = expectClean(dir);
      expect([merged.phase, merged.step, merged.skill_state.pass_threshold]).toEqual(['review', 'login', 6]);
      expect(read(dir, FILE)).toContain('"pass_threshold": 6.0\n');
    }
  });

  it('still stops on two different budgets', () => {
    const dir = driverRepo();
    const doc = baseDoc();
    doc.cost = { total_usd: 1, budget_usd: 50 };
    save(dir, doc);
    commitAll(dir, 'base checkpoint', '2026-03-01T10:00:00Z');
    git(dir, ['checkout', '-q', '-b', 'theirs']);
    save(dir, { ...doc, cost: { total_usd: 2, budget_usd: 60 } });
    commitAll(dir, 'theirs', '2026-03-02T08:00:00Z');
    git(dir, ['checkout', '-q', 'main']);
    save(dir, { ...doc, cost: { total_usd: 3, budget_usd: 80 } });
    commitAll(dir, 'ours', '2026-03-02T09:00:00Z');

    const r = gitTry(dir, ['merge', '--no-edit', 'theirs']);
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toContain('cost.budget_usd');
    expect(r.stdout + r.stderr).not.toContain('cost.total_usd');
  });
});

describe('queue order through git (red-team finding 7)', () => {
  it('keeps an action one branch appended behind the actions the other branch reprioritised', () => {
    const dir = driverRepo();
    const doc = baseDoc();
    doc.next_actions = ['Write the auth middleware', 'Add rate limiting'];
    save(dir, doc);
    commitAll(dir, 'base checkpoint', '2026-03-01T10:00:00Z');
    git(dir, ['checkout', '-q', '-b', 'theirs']);
    save(dir, { ...doc, updated_at: '2026-03-02T08:00:00Z', next_actions: [...doc.next_actions, 'Check the logs'] });
    commitAll(dir, 'theirs appends', '2026-03-02T08:00:00Z');
    git(dir, ['checkout', '-q', 'main']);
    save(dir, { ...doc, updated_at: '2026-03-02T09:00:00Z', next_actions: ['Add rate limiting', 'Write the auth middleware', 'Add docs'] });
    commitAll(dir, 'ours reprioritises and appends', '2026-03-02T09:00:00Z');

    const r = gitTry(dir, ['merge', '--no-edit', 'theirs']);
    expect(r.status, r.stderr).toBe(0);
    // Older actions first, in ours' new order; then the appends, theirs' (saved earlier) before ours'.
    expect(expectClean(dir).next_actions).toEqual(['Add rate limiting', 'Write the auth middleware', 'Check the logs', 'Add docs']);
  });
});

describe('the driver with bad input, invoked directly', () => {
  const good = () => JSON.stringify(baseDoc(), null, 2) + '\n';
  const changed = (fn: (d: any) => void) => {
    const d = baseDoc();
    fn(d);
    return JSON.stringify(d, null, 2) + '\n';
  };

  type Paths = { base: string; ours: string; theirs: string };
  interface RunOptions {
    /** %L; null leaves it off. */
    marker?: string | null;
    args?: (paths: Paths) => string[];
    config?: string;
    prepare?: (paths: Paths) => void;
    env?: NodeJS.ProcessEnv;
    /**
     * Run as git runs it, a node process of the launcher (the exit code, a side that could block,
     * the environment git gives it). Otherwise the same bundle's entry runs in this process: its
     * cwd the merge's folder, `env` its environment, what it writes to fd 2 (all it prints)
     * captured, and the code it resolves to the exit code (~0.1 s of CPU fewer than a node start).
     */
    asProcess?: boolean;
  }

  let driverEntry: ((args: string[]) => Promise<number>) | undefined;
  /** The driver bundle's runMergeDriver in this process, stderr (fd 2) captured; one run at a time (cwd and env are the process's). */
  async function inProcess(args: string[], cwd: string, env: NodeJS.ProcessEnv | undefined): Promise<{ code: number; stderr: string }> {
    driverEntry ??= ((await import(pathToFileURL(join(work, 'driver.mjs')).href)) as { runMergeDriver: (args: string[]) => Promise<number> }).runMergeDriver;
    const fs = process.getBuiltinModule('node:fs');
    const saved = { cwd: process.cwd(), env: { ...process.env }, writeSync: fs.writeSync };
    let stderr = '';
    fs.writeSync = ((fd: number, buffer: Buffer | string, ...rest: unknown[]) => {
      if (fd !== 2) return (saved.writeSync as (...a: unknown[]) => number)(fd, buffer, ...rest);
      const bytes = typeof buffer === 'string' ? Buffer.from(buffer) : buffer.subarray(typeof rest[0] === 'number' ? rest[0] : 0);
      stderr += bytes.toString('utf8');
      return bytes.length;
    }) as typeof fs.writeSync;
    // The environment set key by key on process.env itself: node reads a TZ set there (not on a replacement object).
    setEnv(env ?? saved.env);
    process.chdir(cwd);
    try {
      return { code: await driverEntry(args), stderr };
    } finally {
      fs.writeSync = saved.writeSync;
      process.chdir(saved.cwd);
      setEnv(saved.env);
    }
  }

  function setEnv(env: NodeJS.ProcessEnv): void {
    for (const k of Object.keys(process.env)) if (!(k in env)) delete process.env[k];
    for (const [k, v] of Object.entries(env)) if (process.env[k] !== v) process.env[k] = v;
  }

  async function runDriver(files: { base: string | Buffer; ours: string | Buffer; theirs: string | Buffer }, opts: RunOptions = {}) {
    const dir = tempDir('cp-driver-run-');
    repos.push(dir);
    const paths: Paths = { base: join(dir, 'O'), ours: join(dir, 'A'), theirs: join(dir, 'B') };
    for (const side of ['base', 'ours', 'theirs'] as const) writeFileSync(paths[side], files[side]);
    if (opts.config !== undefined) write(dir, '.checkpoints/config.json', opts.config);
    opts.prepare?.(paths);
    const marker = opts.marker === undefined ? ['7'] : opts.marker === null ? [] : [opts.marker];
    const args = opts.args?.(paths) ?? [paths.base, paths.ours, paths.theirs, FILE, ...marker];
    const r = opts.asProcess ? spawnSync(process.execPath, [launcher, ...args], { cwd: dir, encoding: 'utf8', env: opts.env }) : null;
    const { code, stderr } = r ? { code: r.status, stderr: r.stderr } : await inProcess(args, dir, opts.env);
    return { code, stderr, ours: readFileSync(paths.ours), paths };
  }

  const oneLine = (stderr: string) => expect(stderr).not.toMatch(/\n\s+at /);
  const collision = () => ({ base: good(), ours: changed((d) => (d.phase = 'x')), theirs: changed((d) => (d.phase = 'y')) });

  it('exits 2 with one line and leaves %A untouched on a wrong argument count', async () => {
    const files = collision();
    const r = await runDriver(files, { args: (p) => [p.base, p.ours], asProcess: true });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('checkpoint merge-driver: expected arguments %O %A %B %P [%L], got 2\n');
    expect(r.ours.toString()).toBe(files.ours);
  });

  it('exits 2 when %A cannot be read', async () => {
    const r = await runDriver(collision(), { args: (p) => [p.base, '/nonexistent/A', p.theirs, FILE] });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('checkpoint merge-driver: cannot read %A (ours) (/nonexistent/A): ENOENT\n');
  });

  it('exits 2 at once when a side is no plain file (/dev/zero, a FIFO), %A untouched: never reads without end or hangs', async () => {
    const files = collision();
    const fifo = join(tempDir('cp-driver-fifo-'), 'theirs');
    execFileSync('mkfifo', [fifo]);
    for (const [args, line] of [
      [(p: { base: string; ours: string; theirs: string }) => ['/dev/zero', p.ours, p.theirs, FILE], 'checkpoint merge-driver: cannot read %O (base) (/dev/zero): not a plain file\n'],
      [(p: { base: string; ours: string; theirs: string }) => [p.base, p.ours, fifo, FILE], `checkpoint merge-driver: cannot read %B (theirs) (${fifo}): not a plain file\n`],
    ] as const) {
      const r = await runDriver(files, { args, asProcess: true });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(line);
      expect(r.ours.toString()).toBe(files.ours);
    }
  });

  it('exits 2 on a bad marker size, %A untouched', async () => {
    const files = collision();
    const r = await runDriver(files, { marker: 'seven' });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('checkpoint merge-driver: marker size must be a positive integer, got "seven"\n');
    expect(r.ours.toString()).toBe(files.ours);
  });

  it('merges cleanly, writes %A and exits 0', async () => {
    const r = await runDriver({ base: good(), ours: changed((d) => (d.phase = 'x')), theirs: changed((d) => (d.step = 'y')) }, { asProcess: true });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(parseJson(r.ours.toString()).value).toMatchObject({ phase: 'x', step: 'y' });
  });

  it('does not rewrite %A when the merge equals ours', async () => {
    const past = new Date('2020-01-01T00:00:00Z');
    const ours = changed((d) => (d.phase = 'x')).replace(/\n/g, '\r\n');
    const r = await runDriver({ base: good(), ours, theirs: good() }, { prepare: (p) => utimesSync(p.ours, past, past) });
    expect(r.code).toBe(0);
    expect(statSync(r.paths.ours).mtime.getTime()).toBe(past.getTime());
    expect(r.ours.toString()).toBe(ours);
  });

  it('exits 1 on a conflict, with markers of the %L size (7 when %L is absent)', async () => {
    const r = await runDriver(collision(), { marker: '11', asProcess: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`checkpoint: ${FILE}: conflict at phase: ours "x" vs theirs "y" (base "build")\n`);
    expect(r.ours.toString()).toContain(`${'<'.repeat(11)} ours\n  "phase": "x",\n${'|'.repeat(11)} base\n`);
    expect((await runDriver(collision(), { marker: null })).ours.toString()).toContain('\n<<<<<<< ours\n');
  });

  it('reads project logs from .checkpoints/config.json, and warns once about a broken one', async () => {
    const withAudits = (n: number) => changed((d) => (d.skill_state.audits = n === 0 ? [] : [{ at: `2026-03-0${n}T00:00:00Z`, n }]));
    const files = { base: withAudits(0), ours: withAudits(2), theirs: withAudits(3) };
    expect((await runDriver(files, { config: '{"logs": ["skill_state.audits"]}' })).code).toBe(0);
    const broken = await runDriver(files, { config: '{"logs": ' });
    expect(broken.code).toBe(1);
    expect(broken.stderr.split('\n')[0]).toMatch(/^checkpoint merge-driver: warning: ignoring \.checkpoints\/config\.json: .*line 1, column 10/);
    expect((await runDriver(files, { config: '{"logs": "skill_state.audits"}' })).stderr).toContain('"logs" must be an array of dotted paths');
  });

  it('a config.json git merged first in the same merge and left with its markers is named with how it is settled, never `checkpoint resolve` (red team 62a 4)', async () => {
    const withAudits = (n: number) => changed((d) => (d.skill_state.audits = n === 0 ? [] : [{ at: `2026-03-0${n}T00:00:00Z`, n }]));
    const config = '<<<<<<< HEAD\n{ "logs": ["skill_state.audits", "skill_state.b"] }\n=======\n{ "logs": ["skill_state.audits", "skill_state.a"] }\n>>>>>>> feat\n';
    const r = await runDriver({ base: withAudits(0), ours: withAudits(2), theirs: withAudits(3) }, { config });
    expect(r.stderr.split('\n')[0]).toBe("checkpoint merge-driver: warning: ignoring .checkpoints/config.json: it holds merge conflict markers: fix it by hand (keep both sides' entries as wanted), then `git add .checkpoints/config.json`");
  });

  it('a bad config entry is ignored alone: the valid logs still apply, one warning names what was ignored', async () => {
    const withAudits = (n: number) => changed((d) => (d.skill_state.audits = n === 0 ? [] : [{ at: `2026-03-0${n}T00:00:00Z`, n }]));
    const files = { base: withAudits(0), ours: withAudits(2), theirs: withAudits(3) };
    const r = await runDriver(files, { config: '{"logz": ["x"], "logs": ["skill_state.audits", "a..b", 7], "telemetry": ["skill_state.cov"]}' });
    expect(r.code, r.stderr).toBe(0);
    expect((parseJson(r.ours.toString()).value as any).skill_state.audits.map((a: any) => a.n).sort()).toEqual([2, 3]);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      'checkpoint merge-driver: warning: .checkpoints/config.json: ignoring unknown key "logz"; "logs"[1] "a..b" has an empty segment (two dots, or a dot at an end); "logs"[2] must be a dotted path string (the rest applies)',
    ]);
  });

  it('reads project telemetry from .checkpoints/config.json: the later side wins whole; a bad pattern is named and ignored', async () => {
    const withCoverage = (at: string, pct: number) => changed((d) => ((d.updated_at = at), (d.skill_state.coverage = { pct, files: pct })));
    const files = { base: withCoverage('2026-03-01T10:00:00Z', 80), ours: withCoverage('2026-03-02T00:00:00Z', 81), theirs: withCoverage('2026-03-03T00:00:00Z', 79) };
    const r = await runDriver(files, { config: '{"telemetry": ["skill_state.**.coverage"]}' });
    expect(r.code, r.stderr).toBe(0);
    expect((parseJson(r.ours.toString()).value as any).skill_state.coverage).toEqual({ pct: 79, files: 79 });
    const bad = await runDriver(files, { config: '{"telemetry": ["skill_state..coverage"]}' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('"telemetry"[0] "skill_state..coverage" has an empty segment');
  });

  const badInputs: Array<[string, string | Buffer, RegExp]> = [
    ['an empty file', '', /is not valid JSON at 1:1: empty file/],
    ['invalid JSON', '{\n  "phase": "x",\n  oops\n}\n', /is not valid JSON at 3:3/],
    ['duplicate keys', '{\n  "phase": "x",\n  "phase": "y"\n}\n', /at 3:3: duplicate key "phase"/],
    ['10,000 levels of nesting', '['.repeat(10_000) + ']'.repeat(10_000) + '\n', /nesting deeper than 256 levels/],
    ['non-UTF-8 bytes', Buffer.concat([Buffer.from('{\n  "phase": "caf'), Buffer.from([0xe9]), Buffer.from('"\n}\n')]), /is not valid UTF-8/],
    // Never parsed as JSON (a blob this size in a hostile history): git's line merge takes it.
    ['over 16 MiB', `{\n  "phase": "${'x'.repeat(16 * 1024 * 1024)}"\n}\n`, /is larger than 16777216 bytes/],
  ];

  for (const side of ['ours', 'theirs'] as const) {
    it.each(badInputs)(`exits 1 with a clear line and keeps ours when ${side} has %s`, async (_, bad, reason) => {
      const oursText = changed((d) => (d.phase = 'ours phase'));
      const files = { base: good(), ours: side === 'ours' ? bad : oursText, theirs: side === 'theirs' ? bad : changed((d) => (d.step = 'theirs step')) };
      const r = await runDriver(files);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^checkpoint: cannot merge \\.checkpoints/demo\\.checkpoint\\.json semantically: ${side} `));
      expect(r.stderr).toMatch(reason);
      oneLine(r.stderr);
      // Nothing of ours is lost: the line merge keeps every line of it, or leaves it as it was.
      const result = r.ours.toString('latin1');
      const oursLines = (Buffer.isBuffer(files.ours) ? files.ours.toString('latin1') : Buffer.from(files.ours).toString('latin1')).split('\n');
      for (const line of oursLines) expect(result).toContain(line);
    });
  }

  it('names every unreadable side in one line, so a merge of N files prints at most N lines from us', async () => {
    const broken = good().replace('"phase": "build",', '"phase": "build",,');
    const nonUtf8 = Buffer.concat([Buffer.from('{\n  "phase": "caf'), Buffer.from([0xe9]), Buffer.from('"\n}\n')]);
    const parsed = await runDriver({ base: '{"phase": ', ours: broken, theirs: '' });
    expect(parsed.code).toBe(1);
    expect(parsed.stderr).toMatch(
      /^checkpoint: cannot merge \.checkpoints\/demo\.checkpoint\.json semantically: base is not valid JSON at 1:11: [^;\n]+; ours is not valid JSON at 8:\d+: [^;\n]+; theirs is not valid JSON at 1:1: empty file[^\n]*\n$/,
    );
    const read = await runDriver({ base: good(), ours: nonUtf8, theirs: nonUtf8 });
    expect(read.code).toBe(1);
    expect(read.stderr).toBe('checkpoint: cannot merge .checkpoints/demo.checkpoint.json semantically: ours is not valid UTF-8; theirs is not valid UTF-8\n');
  });

  it('reports a file with many conflicts in one line: the first few, then how many more', async () => {
    const set = (v: string) => changed((d) => Object.assign(d, { phase: `${v} phase`, step: `${v} step`, progress_summary: `${v} summary (PR 12)`, project: `${v}-project`, owner: `${v}-owner` }));
    const r = await runDriver({ base: good(), ours: set('ours'), theirs: set('theirs') });
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^checkpoint: \\.checkpoints/demo\\.checkpoint\\.json: conflict at \\w+: ours [^;]+; conflict at \\w+: [^;]+; conflict at \\w+: [^;]+; and 2 more \\(\`checkpoint resolve\` shows each\\)$`));
    expect(r.ours.toString()).toContain('<<<<<<<');
  });

  it('prints a path holding a newline or an escape sequence escaped, on one line', async () => {
    const r = await runDriver({ base: good(), ours: '{', theirs: good() }, { args: (p) => [p.base, p.ours, p.theirs, '.checkpoints/a\n\x1b[2Jb.checkpoint.json', '7'] });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^checkpoint: cannot merge \.checkpoints\/a\\n\\x1b\[2Jb\.checkpoint\.json semantically: ours is not valid JSON at 1:2: [^\n]+\n$/);
  });

  it("keeps ours' BOM and CRLF line ends", async () => {
    const withBom = (text: string) => '\uFEFF' + text.replace(/\n/g, '\r\n');
    const r = await runDriver({ base: good(), ours: withBom(changed((d) => (d.phase = 'x'))), theirs: changed((d) => (d.step = 'y')) });
    expect(r.code).toBe(0);
    const text = r.ours.toString('utf8');
    expect(text.startsWith('\uFEFF{\r\n  "protocol_version"')).toBe(true);
    expect(text).not.toMatch(/[^\r]\n/);
    expect(parseJson(text).value).toMatchObject({ phase: 'x', step: 'y' });
  });

  it('exits 1 after a line merge even when git merge-file finds nothing to conflict', async () => {
    const broken = good().replace('"phase": "build",', '"phase": "build",,');
    const r = await runDriver({ base: good(), ours: broken, theirs: good() });
    expect(r.code).toBe(1);
    expect(r.ours.toString()).toBe(broken);
  });

  it('line-merges through git merge-file: theirs\' lines come in around an unparseable ours', async () => {
    const broken = good().replace('"phase": "build",', '"phase": "build",,');
    const theirsText = good().replace('"progress_summary": "Sprint 1 under way."', '"progress_summary": "Sprint 1 done (PR 12)"');
    const r = await runDriver({ base: good(), ours: broken, theirs: theirsText });
    expect(r.code).toBe(1);
    expect(r.ours.toString()).toContain('"phase": "build",,');
    expect(r.ours.toString()).toContain('"progress_summary": "Sprint 1 done (PR 12)"');
    expect(r.ours.toString()).not.toContain('<<<<<<<');
  });

  it('without a git on PATH the line merge is named as failed in one line, ours left as it was', async () => {
    const broken = good().replace('"phase": "build",', '"phase": "build",,');
    const r = await runDriver({ base: good(), ours: broken, theirs: changed((d) => (d.step = 'theirs step')) }, { env: { ...process.env, PATH: tempDir('cp-no-git-') }, asProcess: true });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^checkpoint merge-driver: git merge-file could not merge \.checkpoints\/demo\.checkpoint\.json; ours is left as it was$/m);
    oneLine(r.stderr);
    expect(r.ours.toString()).toBe(broken);
  });

  it('merges the sides against what both hold alike when the base is unparseable: where they differ, a conflict, as an add/add, ours kept in its block (red team 64 r2)', async () => {
    const oursText = changed((d) => (d.phase = 'ours phase'));
    const r = await runDriver({ base: '{"phase": ', ours: oursText, theirs: changed((d) => (d.step = 'theirs step')) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/conflict at phase: .*\(base absent\)/);
    expect(r.ours.toString()).toContain('"phase": "ours phase"');
    expect(r.ours.toString()).toContain('"step": "theirs step"');
  });

  it('merges an empty base as add/add', async () => {
    const r = await runDriver({ base: '', ours: changed((d) => d.next_actions.push('o')), theirs: changed((d) => d.next_actions.push('t')) });
    expect(r.code).toBe(0);
    expect((parseJson(r.ours.toString()).value as any).next_actions).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'o', 't']);
  });

  it('reads a time written without its zone as UTC, as every command does: the merge is the same in any time zone (red team)', async () => {
    // Ours saved at 10:00 (no zone: 10:00 UTC), theirs at 11:00Z: theirs is later wherever the merge runs.
    const ours = changed((d) => ((d.updated_at = '2026-03-02 10:00'), (d.skill_state.last_run = { verdict: 'ours' })));
    const theirs = changed((d) => ((d.updated_at = '2026-03-02T11:00:00Z'), (d.skill_state.last_run = { verdict: 'theirs' })));
    for (const TZ of ['UTC', 'America/Los_Angeles', 'Asia/Tokyo']) {
      const r = await runDriver({ base: good(), ours, theirs }, { env: { ...process.env, TZ } });
      expect(r.code, r.stderr).toBe(0);
      const doc = parseJson(r.ours.toString()).value as any;
      expect({ TZ, updated_at: doc.updated_at, last_run: doc.skill_state.last_run }).toEqual({ TZ, updated_at: '2026-03-02T11:00:00Z', last_run: { verdict: 'theirs' } });
    }
  });

  // Python's json.dump writes every float as 8.0: each one a recorded text. The layout writer looked
  // through all of them at every value it wrote (minutes at 20,000; a 60,000 one ran over ten).
  // Asserted is the outcome (its speed is not a unit test's to time): the exact text, in its layout.
  it('merges a checkpoint of 20,000 numbers written 8.0, in its layout, every 8.0 kept (red team)', async () => {
    const doc = (fn: (d: any) => void) => {
      const d = baseDoc();
      d.skill_state.scores = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`s${i}`, { v: i, w: 'x' }]));
      fn(d);
      return JSON.stringify(d, null, 4).replace(/"v": (\d+)/g, '"v": $1.0') + '\n';
    };
    const r = await runDriver({ base: doc(() => {}), ours: doc((d) => (d.skill_state.scores.s5.v = 7)), theirs: doc((d) => (d.step = 'sprint-2')) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.ours.toString()).toBe(doc((d) => ((d.skill_state.scores.s5.v = 7), (d.step = 'sprint-2'))));
  });

  // How fast is bench/'s question; here: a result, and the right one, at this size.
  it('merges 50,000-entry arrays', async () => {
    const huge = (fn: (d: any) => void) =>
      changed((d) => {
        d.recently_done = Array.from({ length: 50_000 }, (_, i) => ({ at: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString(), action: `done ${i}` }));
        d.next_actions = Array.from({ length: 50_000 }, (_, i) => `action ${i}`);
        fn(d);
      });
    const r = await runDriver({
      base: huge(() => {}),
      ours: huge((d) => {
        d.next_actions.shift();
        d.recently_done.unshift({ at: '2026-03-02T00:00:00Z', action: 'ours' });
      }),
      theirs: huge((d) => {
        d.next_actions.push('theirs');
        d.recently_done.unshift({ at: '2026-03-03T00:00:00Z', action: 'theirs' });
      }),
    });
    expect(r.code, r.stderr).toBe(0);
    const doc = parseJson(r.ours.toString()).value as any;
    expect(doc.next_actions).toHaveLength(50_000);
    expect(doc.recently_done.slice(0, 2).map((d: any) => d.action)).toEqual(['theirs', 'ours']);
  });
});

describe('rows sharing an id, through git merge (red team s11 #12)', () => {
  const table = [
    { id: 'planning', label: 'Planner', status: 'complete' },
    { id: 's1', label: 'Sprint 1', status: 'complete', note: 'scored 8.0' },
    { id: 's1', label: 'Sprint 1 (redo)', status: 'in_progress' },
  ];
  const blockers = [{ id: 'b1', description: 'API keys' }, { id: 'b1', description: 'API keys (staging)' }];
  function branches(ours: (d: any) => void, theirs: (d: any) => void): string {
    const dir = driverRepo();
    save(dir, { ...baseDoc(), progress_table: table, blockers });
    commitAll(dir, 'base checkpoint', '2026-03-01T10:00:00Z');
    git(dir, ['checkout', '-q', '-b', 'theirs']);
    const t = load(dir);
    theirs(t);
    save(dir, t);
    commitAll(dir, 'theirs', '2026-03-02T10:00:00Z');
    git(dir, ['checkout', '-q', 'main']);
    const o = load(dir);
    ours(o);
    save(dir, o);
    commitAll(dir, 'ours', '2026-03-02T11:00:00Z');
    return dir;
  }

  it('disjoint edits merge cleanly: one side finishes the redo row and resolves a blocker, the other appends a row and a blocker', () => {
    const dir = branches(
      (d) => ((d.progress_table[2].status = 'complete'), (d.blockers[1].needs = 'user_decision')),
      (d) => (d.progress_table.push({ id: 's2', label: 'Sprint 2', status: 'not_started' }), d.blockers.push({ id: 'b2', description: 'DNS' })),
    );
    const r = gitTry(dir, ['merge', '--no-edit', 'theirs']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const doc = expectClean(dir);
    expect(doc.progress_table).toEqual([...table.slice(0, 2), { ...table[2], status: 'complete' }, { id: 's2', label: 'Sprint 2', status: 'not_started' }]);
    expect(doc.blockers).toEqual([blockers[0], { ...blockers[1], needs: 'user_decision' }, { id: 'b2', description: 'DNS' }]);
  });

  it('both sides changing the same repeated-id row conflict at that row only', async () => {
    const dir = branches((d) => (d.progress_table[2].status = 'complete'), (d) => (d.progress_table[2].status = 'failed'));
    const r = gitTry(dir, ['merge', '--no-edit', 'theirs']);
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/conflict at progress_table\[2\]\.status: ours "complete" vs theirs "failed"/);
    const text = read(dir, FILE);
    expect(text.match(/^<<<<<<< /gm)).toHaveLength(1);
    const ours = text.replace(/^\|{7}[\s\S]*?^>{7}.*\n/m, '').replace(/^<{7}.*\n/m, '');
    expect(parseJson(ours).value).toMatchObject({ progress_table: [table[0], table[1], { ...table[2], status: 'complete' }] });
    // validate names the repeated ids so they can be fixed before the next merge.
    git(dir, ['merge', '--abort']);
    const v = await runCli(dir, ['validate', '--strict', FILE]);
    expect(v.code).toBe(0);
    expect(v.stdout).toContain('progress_table[2].id: id "s1" repeats progress_table[1]');
    expect(v.stdout).toContain('blockers[1].id: id "b1" repeats blockers[0]');
  });
});

describe('a merge base that is not valid JSON (red team 64 r2, repro3)', () => {
  // A broken file committed (a stray comma), then repaired alike on two branches that each logged a done action.
  const text = (comma: string, done: string[]) => {
    const doc = baseDoc();
    doc.recently_done = done.map((t, k) => ({ text: t, at: `2026-03-0${k + 1}T12:00:00Z` }));
    return JSON.stringify(doc, null, 2).replace('"status": "in_progress"', `"status": "in_progress"${comma}`);
  };
  const branches = (dir: string) => {
    write(dir, FILE, text(',', ['Scaffold']).replace(/,\n  "progress_summary"/, ',,\n  "progress_summary"'));
    commitAll(dir, 'broken base');
    git(dir, ['checkout', '-q', '-b', 'b']);
    write(dir, FILE, text('', ['Scaffold', 'B']));
    commitAll(dir, 'b');
    git(dir, ['checkout', '-q', 'main']);
    write(dir, FILE, text('', ['Scaffold', 'A']));
    commitAll(dir, 'a');
  };
  const doneTexts = (dir: string) => JSON.parse(read(dir, FILE)).recently_done.map((d: { text: string }) => d.text).sort();

  it('the driver merges the two valid sides: both new records kept, no markers', () => {
    const dir = driverRepo();
    branches(dir);
    expect(gitTry(dir, ['merge', '-q', 'b', '-m', 'm']).status).toBe(0);
    expect(doneTexts(dir)).toEqual(['A', 'B', 'Scaffold']);
  });

  it('resolve --add merges git\'s line markers from the stages where the driver did not run', async () => {
    const dir = makeRepo();
    repos.push(dir);
    branches(dir);
    expect(gitTry(dir, ['merge', '-q', 'b', '-m', 'm']).status).not.toBe(0);
    const r = await runCli(dir, ['resolve', '--add']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(doneTexts(dir)).toEqual(['A', 'B', 'Scaffold']);
    expect(git(dir, ['status', '--porcelain'])).toBe(`M  ${FILE}\n`);
  });
});

/**
 * A merge stopped on a checkpoint whose theirs (branch b) is not valid JSON (a doubled comma):
 * `field` is base, theirs and ours' `values` in turn; git's line merge took it from there.
 */
function mergedWithBrokenTheirs(field: 'phase' | 'step', [base, theirs, ours]: [string, string, string]): string {
  const dir = driverRepo();
  const text = (value: string, comma: string) => JSON.stringify({ ...baseDoc(), [field]: value }, null, 2).replace('"status": "in_progress",', `"status": "in_progress"${comma}`);
  write(dir, FILE, text(base, ','));
  commitAll(dir, 'base');
  git(dir, ['checkout', '-q', '-b', 'b']);
  write(dir, FILE, text(theirs, ',,'));
  commitAll(dir, 'b: broken');
  git(dir, ['checkout', '-q', 'main']);
  write(dir, FILE, text(ours, ','));
  commitAll(dir, 'a');
  expect(gitTry(dir, ['merge', '-q', 'b', '-m', 'm']).status).not.toBe(0);
  return dir;
}

describe('a side that is not valid JSON, its text carried in by a clean line merge (red team 64 r2, repro7)', () => {
  it('resolve names the broken side, and --check advises no `git checkout --merge` that makes the same file again', async () => {
    const dir = mergedWithBrokenTheirs('phase', ['build', 'build', 'test']);
    expect(read(dir, FILE)).not.toContain('<<<<<<<');
    const before = read(dir, FILE);
    for (const args of [['resolve'], ['resolve', '--check']]) {
      const r = await runCli(dir, args);
      expect(r.code).toBe(1);
      expect(r.stdout + r.stderr).toContain('theirs is not valid JSON');
      expect(r.stdout + r.stderr).toContain(`git show :3:${FILE}`);
      expect(r.stdout + r.stderr).not.toContain('git checkout --merge');
    }
    expect(read(dir, FILE)).toBe(before);
  });
});

describe("git's line markers around a side that is not valid JSON (red team 64 r2, repro3's second half)", () => {
  it('resolve --check says to settle them by hand, never to run resolve --add on them, which cannot merge them', async () => {
    const dir = mergedWithBrokenTheirs('step', ['s1', 's2', 's3']);
    expect(read(dir, FILE)).toContain('<<<<<<<');
    const r = await runCli(dir, ['resolve', '--check']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('theirs is not valid JSON, so resolve cannot merge it: settle the markers by hand');
    expect(r.stdout).not.toContain('run `checkpoint resolve --add` locally');
  });
});
