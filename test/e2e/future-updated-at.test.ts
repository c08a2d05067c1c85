// One save from a clock ahead (a VM, a container, a hand edit typing the wrong year) put
// updated_at more than a day in the future. A write from a correct clock repairs it and says so;
// meanwhile doctor, next and resume date drift from the commit that recorded the save, or from
// the save before it, and the clock's warning says which and names the way out. Real git, both engines.
import { afterEach, describe, expect, it } from 'vitest';
import { builtOnce } from '../helpers/built-once.js';
import { History } from '../helpers/history.js';
import { runCli } from '../helpers/in-process.js';
import { assertBuilt, BIN, cleanup, commitAll, dateEnv, git, headSha, makeRepo, read, write } from '../helpers/repo.js';

const ENGINES = ['native', 'isomorphic'] as const;
const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

const NOW = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
/** A commit date `minutes` ago, whole seconds. */
const ago = (minutes: number) => iso(Math.floor(NOW / 1000 - minutes * 60) * 1000).replace('.000Z', 'Z');
const AHEAD = iso(NOW + 180 * 86_400_000).replace(/\.\d+Z$/, 'Z');

function checkpoint(over: Record<string, unknown> = {}): string {
  return `${JSON.stringify({
    protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: '/home/someone/demo',
    created_at: '2026-06-01T09:00:00Z', updated_at: AHEAD,
    phase: 'build', step: 'spec', status: 'in_progress', progress_summary: 'Spec drafted; scored 8.0.',
    progress_table: [{ id: 'spec', label: 'Spec', status: 'in_progress' }],
    context_primer: { key_decisions: ['OpenAPI 3.1'], generated_files: ['docs/spec.md (from the PR 9 branch)'] },
    next_actions: ['Merge PR #9', 'Write the changelog for v1.8'],
    ...over,
  }, null, 2)}\n`;
}

/**
 * A repository whose spec was drafted 300 minutes ago, and its history to build on: the commits
 * are written as git writes them (test/helpers/history.ts), the repository readable once done().
 */
function repo(): { dir: string; h: History } {
  const dir = makeRepo();
  dirs.push(dir);
  const h = new History(dir);
  h.write('docs/spec.md', 'spec v1\n').commit('Draft the spec', ago(300));
  return { dir, h };
}

/** PR #`n` worked on `minutes` ago and merged into branch `into` five minutes later: the merge commit. */
function mergePr(h: History, n: number, into: string, minutes: number): string {
  h.checkout(`pr${n}`, true).write('src/pr.ts', `export const pr = ${n};\n`).commit('PR work', ago(minutes));
  return h.checkout(into).merge(`pr${n}`, `Merge pull request #${n} from o/pr${n}`, ago(minutes - 5));
}

/** After the checkpoint: the spec changes and PR #9 merges. */
function driftAfter(h: History, minutes: number): { changed: string; merge: string } {
  const changed = h.write('docs/spec.md', 'spec v2\n').commit('Rework the spec', ago(minutes));
  return { changed, merge: mergePr(h, 9, 'main', minutes - 5) };
}

/**
 * On a branch `side`: the checkpoint saved as `text` (committed 200 minutes ago), then the spec
 * reworked and PR #9 merged into the branch; back on main. The rework and the landing commits.
 */
function onSideBranch(h: History, text: string): { changed: string; landed: string } {
  h.checkout('side', true).write(FILE, text).commit('checkpoint: api on side', ago(200));
  const changed = h.write('docs/spec.md', 'spec v2\n').commit('Rework the spec', ago(180));
  const landed = mergePr(h, 9, 'side', 175);
  h.checkout('main');
  return { changed, landed };
}

type F = { level: string; path: string; message: string };

async function doctor(dir: string, engine: string): Promise<F[]> {
  const r = await runCli(dir, ['doctor', '--json', '--engine', engine]);
  return (JSON.parse(r.stdout) as { findings: F[] }).findings;
}

describe('a write from a correct clock', () => {
  it('stamps an updated_at more than a day ahead now, in one note line; one within the tolerance is kept', async () => {
    const { dir, h } = repo();
    h.done();
    write(dir, FILE, checkpoint());
    const before = Date.now();
    const r = await runCli(dir, ['update', 'api', '--step=review']);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(read(dir, FILE));
    expect(Date.parse(doc.updated_at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(doc.updated_at)).toBeLessThanOrEqual(Date.now());
    expect(doc.created_at).toBe('2026-06-01T09:00:00Z');
    const notes = r.stderr.split('\n').filter((l) => l.startsWith('checkpoint: note:'));
    expect(notes).toEqual([`checkpoint: note: updated_at (${AHEAD}) was more than a day in the future (a clock ahead, or a typo in the year); this write stamped it ${doc.updated_at}`]);
    expect((await runCli(dir, ['validate', FILE])).code).toBe(0);

    // A few hours ahead (another writer's clock a little fast): never moved backwards, no note; a
    // millisecond on, so the write is a save of its own.
    const near = iso(Date.now() + 3 * 3_600_000);
    write(dir, FILE, checkpoint({ updated_at: near }));
    const kept = await runCli(dir, ['update', 'api', '--step=review-2']);
    expect(JSON.parse(read(dir, FILE)).updated_at).toBe(iso(Date.parse(near) + 1));
    expect(kept.stderr).not.toMatch(/note:/);

    // created_at as far ahead (the whole file from that clock) comes back with it; `done` repairs too.
    write(dir, FILE, checkpoint({ created_at: AHEAD }));
    const done = await runCli(dir, ['done', 'api']);
    expect(done.code, done.stderr).toBe(0);
    const after = JSON.parse(read(dir, FILE));
    expect(after.created_at).toBe(after.updated_at);
    expect(Date.parse(after.updated_at)).toBeLessThanOrEqual(Date.now());
    expect(done.stderr).toContain(`and created_at (${AHEAD}) too`);
    expect((await runCli(dir, ['validate', FILE])).code).toBe(0);
  });
});

describe.each(ENGINES)('drift checks while updated_at is ahead (%s engine)', (engine) => {
  it('date from the commit that recorded the save: the change and the landing are still reported, the warning says so', async () => {
    // Each engine asks of a copy of one history.
    const { dir, base, recorded, changed, merge } = builtOnce('ahead, recorded', () => {
      const { dir, h } = repo();
      const base = h.head;
      const recorded = h.write(FILE, checkpoint()).commit('checkpoint: api', ago(200));
      const drift = driftAfter(h, 100);
      h.done();
      return { dir, base, recorded, ...drift };
    });
    // The pre-push judge says it once, in the same words.
    const pushed = (JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine, `--pushed=${base}..${merge}`])).stdout).findings as F[]).filter((f) => f.path === 'updated_at');
    expect(pushed).toEqual([expect.objectContaining({ message: expect.stringContaining(`meanwhile drift checks date from the commit that recorded it (${recorded.slice(0, 7)}`) })]);
    const findings = await doctor(dir, engine);
    const clock = findings.find((f) => f.path === 'updated_at')!;
    expect(clock.message).toContain('the next save from a correct clock stamps it now (`checkpoint update api --step=<its step>`');
    expect(clock.message).toMatch(new RegExp(`; meanwhile drift checks date from the commit that recorded it \\(${recorded.slice(0, 7)}, ${ago(200)}\\)$`));
    expect(findings.find((f) => f.path === 'context_primer.generated_files[0]')?.message).toContain(`docs/spec.md changed after the checkpoint was written (${changed.slice(0, 7)}`);
    expect(findings.find((f) => f.path === 'next_actions[0]')?.message).toContain(`names #9, which landed after the checkpoint (${merge.slice(0, 7)}`);
    const next = JSON.parse((await runCli(dir, ['next', '--json', '--engine', engine])).stdout).next;
    expect(next.text).not.toBe('Merge PR #9');
    expect(JSON.stringify(next.skipped_as_landed)).toContain('#9');
    expect((await runCli(dir, ['resume', 'api', '--engine', engine])).stdout).toContain(`#9 landed in ${merge.slice(0, 7)}`);
  });

  it('a change committed in the second of the commit that recorded the save, in its history: before the save, for doctor and the pre-push judge alike (red team 62d, 06)', async () => {
    // api queues PR work (its file's revisions are read for it), web queues none: both readings.
    const { dir, base, head } = builtOnce('ahead, same second', () => {
      const { dir, h } = repo();
      const base = h.head;
      h.write('docs/spec.md', 'spec v2\n').commit('Rework the spec', ago(100));
      h.write(FILE, checkpoint()).write('.checkpoints/web.checkpoint.json', checkpoint({ skill: 'web', next_actions: ['Write the changelog for v1.8'] }));
      const head = h.commit('checkpoint: api, web', ago(100));
      h.done();
      return { dir, base, head };
    });
    for (const pushed of [[], [`--pushed=${base}..${head}`]]) {
      const findings = (JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine, ...pushed])).stdout).findings as F[]);
      expect(findings.filter((f) => f.path === 'updated_at').map((f) => f.message), pushed.join()).toEqual([
        expect.stringContaining(`drift checks date from the commit that recorded it (${head.slice(0, 7)}`),
        expect.stringContaining(`drift checks date from the commit that recorded it (${head.slice(0, 7)}`),
      ]);
      expect(findings.filter((f) => /spec\.md/.test(f.message)), pushed.join()).toEqual([]);
    }
  });

  it('an uncommitted save that far ahead: dated from the save before it', async () => {
    const saved = ago(200).replace('Z', '.250Z');
    const { dir, prev, merge } = builtOnce('ahead, not committed', () => {
      const { dir, h } = repo();
      const prev = h.write(FILE, checkpoint({ updated_at: saved })).commit('checkpoint: api', ago(200));
      const { merge } = driftAfter(h, 100);
      h.done();
      write(dir, FILE, checkpoint({ step: 'review' }));
      return { dir, prev, merge };
    });
    const findings = await doctor(dir, engine);
    expect(findings.find((f) => f.path === 'updated_at')!.message).toMatch(new RegExp(`; meanwhile drift checks date from its previous save \\(${saved.replace(/\./g, '\\.')}, in ${prev.slice(0, 7)}\\)$`));
    expect(findings.find((f) => f.path === 'next_actions[0]')?.message).toContain(`landed after the checkpoint (${merge.slice(0, 7)}`);
  });

  it('after the repairing write, an action queued by the save from the clock ahead is dated by that save\'s commit', async () => {
    const { dir, merge } = builtOnce('ahead, then drift', () => {
      const { dir, h } = repo();
      h.write(FILE, checkpoint()).commit('checkpoint: api', ago(200));
      const drift = driftAfter(h, 100);
      h.done();
      return { dir, ...drift };
    });
    expect((await runCli(dir, ['update', 'api', '--step=review'])).code).toBe(0);
    commitAll(dir, 'checkpoint: review');
    const landed = (await doctor(dir, engine)).find((f) => f.path === 'next_actions[0]');
    expect(landed?.message).toContain(`"Merge PR #9" names #9, which landed after it was queued (${ago(200).replace('Z', '.000Z')}) and still queued (${merge.slice(0, 7)}`);
  });
});

// Within validate's day of tolerance nothing is repaired, but a save is still made before the
// commit that records it: what descends from that commit came after the save, whatever the dates.
describe.each(ENGINES)('drift checks while updated_at is a few hours ahead (%s engine)', (engine) => {
  const soon = () => iso(Date.now() + 3 * 3_600_000);

  it('a change and a landing made on top of the recording commit are reported by doctor, next, status and resume', async () => {
    const { dir, changed, merge } = builtOnce('hours ahead, recorded', () => {
      const { dir, h } = repo();
      h.write(FILE, checkpoint({ updated_at: soon() })).commit('checkpoint: api', ago(200));
      const drift = driftAfter(h, 100);
      h.done();
      return { dir, ...drift };
    });
    const findings = await doctor(dir, engine);
    expect(findings.find((f) => f.path === 'updated_at')).toBeUndefined();
    expect(findings.find((f) => f.path === 'context_primer.generated_files[0]')?.message).toContain(`docs/spec.md changed after the checkpoint was written (${changed.slice(0, 7)}`);
    expect(findings.find((f) => f.path === 'next_actions[0]')?.message).toContain(`names #9, which landed after the checkpoint (${merge.slice(0, 7)}`);
    const next = JSON.parse((await runCli(dir, ['next', '--json', '--engine', engine])).stdout).next;
    expect(next.text).toBe('Write the changelog for v1.8');
    expect((await runCli(dir, ['status', '--engine', engine])).stdout).toContain(`already landed: #9 landed in ${merge.slice(0, 7)}`);
    expect((await runCli(dir, ['resume', 'api', '--engine', engine])).stdout).toContain(`#9 landed in ${merge.slice(0, 7)}`);
  });

  it('also when an older checkpoint takes the walk below the recording commit, and a later commit is dated past the save', async () => {
    const { dir, changed } = builtOnce('hours ahead, an older checkpoint', () => {
      const { dir, h } = repo();
      h.write('.checkpoints/web.checkpoint.json', checkpoint({ skill: 'web', created_at: ago(400), updated_at: ago(400), next_actions: ['Deploy web'], context_primer: { generated_files: [] } }));
      h.commit('checkpoint: web', ago(400));
      h.write(FILE, checkpoint({ updated_at: soon(), next_actions: ['Write the changelog for v1.8'] })).commit('checkpoint: api', ago(200));
      const { changed } = driftAfter(h, 100);
      h.write('src/later.ts', 'export {};\n').commit('Later work', iso(Date.now() + 4 * 3_600_000).replace(/\.\d+Z$/, 'Z'));
      h.done();
      return { dir, changed };
    });
    const findings = await doctor(dir, engine);
    expect(findings.find((f) => f.path === 'context_primer.generated_files[0]')?.message).toContain(`docs/spec.md changed after the checkpoint was written (${changed.slice(0, 7)}`);
  });

  it('an uncommitted save a few hours ahead keeps its date: nothing git holds says what came after it', async () => {
    const { dir } = builtOnce('hours ahead, not committed', () => {
      const { dir, h } = repo();
      h.write(FILE, checkpoint({ updated_at: ago(200) })).commit('checkpoint: api', ago(200));
      driftAfter(h, 100);
      h.done();
      write(dir, FILE, checkpoint({ updated_at: soon(), step: 'review', next_actions: ['Write the changelog for v1.8'] }));
      return { dir };
    });
    const findings = await doctor(dir, engine);
    expect(findings.filter((f) => f.level === 'warning' || f.level === 'error')).toEqual([]);
  });
});

describe.each(ENGINES)('a save a few hours ahead, then a write that reconciles it (%s engine)', (engine) => {
  it('the write is a save of its own: doctor and the pre-push judge agree that the change before it is reconciled', async () => {
    const { dir, base, changed } = builtOnce('hours ahead, a change after', () => {
      const { dir, h } = repo();
      const base = h.head;
      h.write(FILE, checkpoint({ updated_at: iso(Date.now() + 3 * 3_600_000), next_actions: ['Write the changelog for v1.8'] })).commit('checkpoint: api', ago(30));
      const changed = h.write('docs/spec.md', 'spec v2\n').commit('Rework the spec', ago(20));
      h.done();
      return { dir, base, changed };
    });
    const before = (await doctor(dir, engine)).find((f) => f.path === 'context_primer.generated_files[0]');
    expect(before?.message).toContain(`docs/spec.md changed after the checkpoint was written (${changed.slice(0, 7)}`);
    // The agent re-reads the spec and saves: the stamp stays ahead, yet this save follows the change.
    expect((await runCli(dir, ['update', 'api', '--step=review', '--progress_summary=Re-read the reworked spec.'])).code).toBe(0);
    const resave = commitAll(dir, 'checkpoint: api re-read the spec', ago(10));
    expect((await doctor(dir, engine)).filter((f) => f.level === 'warning' || f.level === 'error')).toEqual([]);
    const pushed = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine, `--pushed=${base}..${resave}`])).stdout).findings as F[];
    expect(pushed.filter((f) => f.level === 'warning' || f.level === 'error')).toEqual([]);
  });
});

// The save a few hours ahead is made on a side branch and reaches main by a merge. With a merge
// commit, that merge is the checkpoint's revision on main's first-parent line, but it only took
// the file from the side branch: the side commit recorded the save, and what descends from that
// commit (a change, a PR merged into the side branch) came after it. Reported on main exactly as on
// the side branch, as a fast-forward, and as with an honest clock.
describe.each(ENGINES)('a save a few hours ahead on a side branch, merged into main (%s engine)', (engine) => {
  const soon = () => iso(Date.now() + 3 * 3_600_000);
  const head = (dir: string) => headSha(dir);

  /**
   * main: the spec, a checkpoint (honest), published. side: a save (`stamp`) committed 200 minutes
   * ago, the spec reworked after it, PR #9 merged into side; main: src/main.ts changed before the
   * side save and docs/notes.md after it, then side merged (`how`). `queue`: the side save queues
   * "Merge PR #9" (else only the changelog).
   */
  const sideHistory = (stamp: 'ahead' | 'honest', how: 'merge' | 'ff', queue: boolean, older = false) =>
    builtOnce(`side save: ${stamp} ${how} ${queue} ${older}`, () => buildSideHistory(stamp, how, queue, older));
  function buildSideHistory(stamp: 'ahead' | 'honest', how: 'merge' | 'ff', queue: boolean, older: boolean) {
    const { dir, h } = repo();
    if (older) {
      h.write('.checkpoints/web.checkpoint.json', checkpoint({ skill: 'web', created_at: ago(400), updated_at: ago(400), next_actions: ['Deploy web'], context_primer: { generated_files: [] } }));
      h.commit('checkpoint: web', ago(400));
    }
    const primer = { key_decisions: ['OpenAPI 3.1'], generated_files: ['docs/spec.md (from the PR 9 branch)', 'src/main.ts', 'docs/notes.md'] };
    h.write('src/main.ts', 'export {};\n').write('docs/notes.md', 'notes\n');
    h.write(FILE, checkpoint({ updated_at: ago(280), next_actions: ['Write the changelog for v1.8'], context_primer: primer }));
    const base = h.commit('checkpoint: api', ago(280));
    const actions = queue ? ['Merge PR #9', 'Write the changelog for v1.8'] : ['Write the changelog for v1.8'];
    const { changed, landed } = onSideBranch(h, checkpoint({ updated_at: stamp === 'ahead' ? soon() : ago(200), step: 'review', next_actions: actions, context_primer: primer }));
    let beside = '';
    if (how === 'merge') {
      h.write('src/main.ts', 'export const main = 1;\n').commit('Main work before the side save', ago(210));
      beside = h.write('docs/notes.md', 'notes v2\n').commit('Main notes after the side save', ago(150));
      h.merge('side', "Merge branch 'side'", ago(100));
    } else {
      h.fastForward('side');
    }
    h.done();
    return { dir, base, changed, landed, beside };
  }

  /** The generated-file findings, by listed path: what changed after the save. */
  const drifted = (findings: F[]) => findings.filter((f) => f.path.startsWith('context_primer.generated_files')).map((f) => f.message.replace(/ \(as pushed in [0-9a-f]+\)$/, ''));

  for (const how of ['merge', 'ff'] as const) {
    for (const stamp of ['ahead', 'honest'] as const) {
      it(`${how === 'merge' ? 'with a merge commit' : 'fast-forward'}, ${stamp} clock: the change after the side save is reported and blocks the push; main's own work by its date`, async () => {
        const { dir, base, changed, beside } = sideHistory(stamp, how, false);
        const expected = [
          expect.stringContaining(`docs/spec.md changed after the checkpoint was written (${changed.slice(0, 7)}`),
          ...(beside ? [expect.stringContaining(`docs/notes.md changed after the checkpoint was written (${beside.slice(0, 7)}`)] : []),
        ];
        expect(drifted(await doctor(dir, engine))).toEqual(expected);
        const pushed = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine, `--pushed=${base}..${head(dir)}`])).stdout).findings as (F & { blocks: boolean })[];
        expect(drifted(pushed.filter((f) => f.blocks))).toEqual(expected);
      });

      it(`${how === 'merge' ? 'with a merge commit' : 'fast-forward'}, ${stamp} clock: PR #9, queued by the side save and merged into side, has landed`, async () => {
        const { dir, base, landed } = sideHistory(stamp, how, true);
        expect((await doctor(dir, engine)).find((f) => f.path === 'next_actions[0]')?.message).toContain(`names #9, which landed after the checkpoint (${landed.slice(0, 7)}`);
        const next = JSON.parse((await runCli(dir, ['next', '--json', '--engine', engine])).stdout).next;
        expect(next.text).toBe('Write the changelog for v1.8');
        expect((await runCli(dir, ['status', '--engine', engine])).stdout).toContain(`already landed: #9 landed in ${landed.slice(0, 7)}`);
        expect((await runCli(dir, ['resume', 'api', '--engine', engine])).stdout).toContain(`#9 landed in ${landed.slice(0, 7)}`);
        const pushed = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine, `--pushed=${base}..${head(dir)}`])).stdout).findings as (F & { blocks: boolean })[];
        expect(pushed.find((f) => f.path === 'next_actions[0]')).toEqual(expect.objectContaining({ blocks: true, message: expect.stringContaining(`landed after the checkpoint (${landed.slice(0, 7)}`) }));
      });
    }
  }

  it('also when an older checkpoint takes the walk below the merge', async () => {
    const { dir, changed } = sideHistory('ahead', 'merge', false, true);
    expect((await doctor(dir, engine)).find((f) => f.path === 'context_primer.generated_files[0]')?.message).toContain(`docs/spec.md changed after the checkpoint was written (${changed.slice(0, 7)}`);
  });
});

// The merge that brought a side branch's save to main recorded nothing, whatever its date: a merge
// made hours later than a stamp a few hours ahead (the usual case), and a merge the merge driver
// combined (main wrote the checkpoint too, the side's later save kept) are followed to the side
// commit that recorded the save, as one dated before the stamp is.
describe.each(ENGINES)('a save a few hours ahead on a side branch, merged later (%s engine)', (engine) => {
  const primer = { key_decisions: ['OpenAPI 3.1'], generated_files: ['docs/spec.md (from the PR 9 branch)'] };

  const history = (opts: { stamp: string; mainSaves: boolean }) => builtOnce(`merged later: ${opts.mainSaves}`, () => buildHistory(opts));
  function buildHistory(opts: { stamp: string; mainSaves: boolean }) {
    const { dir, h } = repo();
    if (opts.mainSaves) {
      assertBuilt();
      git(dir, ['config', 'merge.checkpoint.driver', `node ${JSON.stringify(BIN)} merge-driver %O %A %B %P %L`]);
      h.write('.gitattributes', '.checkpoints/*.checkpoint.json merge=checkpoint\n');
    }
    h.write(FILE, checkpoint({ updated_at: ago(280), next_actions: ['Write the changelog for v1.8'], context_primer: primer }));
    const base = h.commit('checkpoint: api', ago(280));
    const { changed, landed } = onSideBranch(h, checkpoint({ updated_at: opts.stamp, step: 'review', next_actions: ['Merge PR #9', 'Write the changelog for v1.8'], context_primer: primer }));
    let merge: string;
    if (opts.mainSaves) {
      // Main's own save of another field, honest and older than the side's stamp: the driver keeps the side's.
      h.write(FILE, checkpoint({ updated_at: ago(150), progress_summary: 'Spec drafted on main; scored 8.0.', next_actions: ['Write the changelog for v1.8'], context_primer: primer }));
      h.commit('checkpoint: api on main', ago(150));
      h.done();
      // Both sides saved the checkpoint: git merges it, running the merge driver.
      git(dir, ['merge', '-q', '--no-ff', 'side', '-m', "Merge branch 'side'"], dateEnv(ago(60)));
      merge = git(dir, ['rev-parse', 'HEAD']).trim();
    } else {
      merge = h.merge('side', "Merge branch 'side'", ago(60));
      h.done();
    }
    expect(git(dir, ['ls-files', '-u'])).toBe('');
    expect(JSON.parse(read(dir, FILE)).updated_at).toBe(opts.stamp);
    return { dir, base, changed, landed, merge };
  }

  for (const [name, opts] of [
    ['a merge made after the stamp', { stamp: ago(120), mainSaves: false }],
    ['a merge the merge driver combined', { stamp: iso(Date.now() + 3 * 3_600_000).replace(/\.\d+Z$/, 'Z'), mainSaves: true }],
  ] as const) {
    it(`${name}: the change and the landing on the branch are reported on main, and the push is blocked`, async () => {
      const { dir, base, changed, landed, merge } = history(opts);
      const findings = await doctor(dir, engine);
      expect(findings.find((f) => f.path === 'context_primer.generated_files[0]')?.message).toContain(`docs/spec.md changed after the checkpoint was written (${changed.slice(0, 7)}`);
      expect(findings.find((f) => f.path === 'next_actions[0]')?.message).toContain(`names #9, which landed after the checkpoint (${landed.slice(0, 7)}`);
      expect(JSON.parse((await runCli(dir, ['next', '--json', '--engine', engine])).stdout).next.text).toBe('Write the changelog for v1.8');
      const pushed = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine, `--pushed=${base}..${merge}`])).stdout).findings as (F & { blocks?: boolean })[];
      expect(pushed.filter((f) => f.blocks).map((f) => f.path).sort()).toEqual(['context_primer.generated_files[0]', 'next_actions[0]']);
    });
  }
});

// An honest PR workflow: the branch reworks a listed file and then saves; main saves later; the
// merge driver combines both (main's later save kept). The rework came before both saves: no
// warning on main, no blocked push (a walk completed from main's save counted the branch's
// commits it missed as after it; verify s14b).
describe.each(ENGINES)('an honest branch merged after main saved later (%s engine)', (engine) => {
  it('the branch\'s work before its own save is not "changed after" on main, and the push goes through', async () => {
    // Built once (git runs the merge driver), judged by each engine in a copy.
    const { dir, base, merge } = builtOnce('an honest branch', () => {
      const { dir, h } = repo();
      assertBuilt();
      git(dir, ['config', 'merge.checkpoint.driver', `node ${JSON.stringify(BIN)} merge-driver %O %A %B %P %L`]);
      h.write('.gitattributes', '.checkpoints/*.checkpoint.json merge=checkpoint\n');
      const primer = { key_decisions: ['OpenAPI 3.1'], generated_files: ['docs/spec.md (from the PR 9 branch)'] };
      const base = h.write(FILE, checkpoint({ updated_at: ago(280), next_actions: ['Write the changelog for v1.8'], context_primer: primer })).commit('checkpoint: api', ago(280));
      h.checkout('feature', true).write('docs/spec.md', 'spec v2\n').commit('Rework the spec', ago(200));
      h.write(FILE, checkpoint({ updated_at: ago(190), step: 'review', next_actions: ['Write the changelog for v1.8'], context_primer: primer })).commit('checkpoint: api re-read the spec', ago(190));
      h.checkout('main');
      h.write(FILE, checkpoint({ updated_at: ago(150), progress_summary: 'Spec drafted on main; scored 8.0.', next_actions: ['Write the changelog for v1.8'], context_primer: primer })).commit('checkpoint: api on main', ago(150));
      h.done();
      // Both sides saved the checkpoint: git merges it, running the merge driver.
      git(dir, ['merge', '-q', '--no-ff', 'feature', '-m', 'Merge pull request #7 from o/feature'], dateEnv(ago(100)));
      return { dir, base, merge: git(dir, ['rev-parse', 'HEAD']).trim() };
    });
    expect(git(dir, ['ls-files', '-u'])).toBe('');
    expect(JSON.parse(read(dir, FILE)).updated_at).toBe(ago(150));
    expect((await doctor(dir, engine)).filter((f) => f.level === 'warning' || f.level === 'error')).toEqual([]);
    const pushed = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine, `--pushed=${base}..${merge}`])).stdout).findings as (F & { blocks?: boolean })[];
    expect(pushed.filter((f) => f.blocks)).toEqual([]);
  });

  it('an action the branch queued is dated by the branch, though main\'s later save is the one kept: a PR that landed since is skipped', async () => {
    const { dir, landed } = builtOnce('a branch queues a PR that lands on main', () => {
      const { dir, h } = repo();
      assertBuilt();
      git(dir, ['config', 'merge.checkpoint.driver', `node ${JSON.stringify(BIN)} merge-driver %O %A %B %P %L`]);
      h.write('.gitattributes', '.checkpoints/*.checkpoint.json merge=checkpoint\n');
      h.write(FILE, checkpoint({ updated_at: ago(280), next_actions: ['Write the changelog for v1.8'] })).commit('checkpoint: api', ago(280));
      h.checkout('feature', true).write(FILE, checkpoint({ updated_at: ago(200), next_actions: ['Merge PR #12', 'Write the changelog for v1.8'] })).commit('checkpoint: api queues PR 12', ago(200));
      h.checkout('main');
      const landed = mergePr(h, 12, 'main', 175);
      h.write(FILE, checkpoint({ updated_at: ago(150), progress_summary: 'Spec drafted on main; scored 8.0.', next_actions: ['Write the changelog for v1.8'] })).commit('checkpoint: api on main', ago(150));
      h.done();
      // Both sides saved the checkpoint: git merges it, running the merge driver.
      git(dir, ['merge', '-q', '--no-ff', 'feature', '-m', 'Merge pull request #13 from o/feature'], dateEnv(ago(100)));
      return { dir, landed };
    });
    expect(git(dir, ['ls-files', '-u'])).toBe('');
    expect(JSON.parse(read(dir, FILE)).next_actions).toEqual(['Merge PR #12', 'Write the changelog for v1.8']);
    const next = JSON.parse((await runCli(dir, ['next', '--json', '--engine', engine])).stdout).next;
    expect(next.text).toBe('Write the changelog for v1.8');
    expect((await doctor(dir, engine)).find((f) => f.path === 'next_actions[0]')?.message).toContain(`names #12, which landed after it was queued (${ago(200).replace('Z', '.000Z')}) and still queued (${landed.slice(0, 7)}`);
  });
});
