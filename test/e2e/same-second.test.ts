// A commit in the very second of a checkpoint's save (commit dates are whole seconds) that the
// commit graph places before it: an ancestor of the commit that recorded the save, or that queued
// the action. An agent that commits a generated file and records it in the checkpoint, or merges
// a PR and queues a follow-up naming it, does both within one second. The graph wins over the
// tie: no false "changed after" or "landed after", no refused push, `next` keeps the follow-up.
// Where the graph says nothing (the save not committed), the tie still counts as after. Real git
// (dates pinned with GIT_COMMITTER_DATE, updated_at written in the same second), both engines,
// and a real `git push` through the installed pre-push hook.
import { afterEach, describe, expect, it } from 'vitest';
import { builtOnce } from '../helpers/built-once.js';
import { runCli } from '../helpers/in-process.js';
import { cleanup, commitAll, dateEnv, git, gitTry, makeRepo, tempDir, write, headSha, initialized } from '../helpers/repo.js';

const ENGINES = ['native', 'isomorphic'] as const;
const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

/** An instant two hours ago, whole seconds, `plus` seconds later: commits and saves share it. */
const T = Math.floor(Date.now() / 1000) - 7200;
const at = (plus: number, ms = '') => new Date((T + plus) * 1000).toISOString().replace(/\.\d+Z$/, `${ms}Z`);

function checkpoint(updatedAt: string, files: string[], actions: string[]): string {
  return `${JSON.stringify({
    protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: '/home/someone/demo',
    created_at: '2026-06-01T09:00:00Z', updated_at: updatedAt,
    phase: 'build', step: 'client', status: 'in_progress', progress_summary: 'Client generated; coverage 8.0.',
    progress_table: [{ id: 'client', label: 'Client', status: 'in_progress' }],
    context_primer: { key_decisions: ['OpenAPI 3.1'], generated_files: files },
    next_actions: actions,
  }, null, 2)}\n`;
}

/** A project with the hook installed and its first checkpoint published a minute before T. */
function published(files: string[], actions: string[]): { dir: string; base: string } {
  const dir = makeRepo();
  dirs.push(dir);
  const remote = tempDir('cp-remote-');
  dirs.push(remote);
  git(remote, ['init', '-q', '--bare']);
  git(dir, ['remote', 'add', 'origin', remote]);
  initialized(dir);
  write(dir, 'src/keep.ts', 'export const keep = 8.0;\n');
  write(dir, FILE, checkpoint(at(-60, '.250'), files, actions));
  const base = commitAll(dir, 'Start the api skill', at(-60));
  const r = gitTry(dir, ['push', '-q', 'origin', 'main']);
  expect(r.status, r.stdout + r.stderr).toBe(0);
  return { dir, base };
}

type F = { level: string; path: string; message: string; blocks?: boolean };

async function findings(dir: string, engine: string, range?: string): Promise<F[]> {
  const r = await runCli(dir, ['doctor', '--json', '--engine', engine, ...(range ? ['--pushed', range] : [])]);
  return (JSON.parse(r.stdout) as { findings: F[] }).findings;
}

const drift = (fs: F[]) => fs.filter((f) => /changed after|landed after/.test(f.message)).map((f) => f.message);

describe('Form A: a generated file committed, then recorded in the checkpoint, in one second', () => {
  const CLIENT = 'src/gen/client.ts (generated from openapi.yaml)';
  /** Built once per file for each `commitSave` (its first publish through the hook included); each test gets a copy, remote too. */
  const scene = (commitSave: boolean) => builtOnce(`form A, save committed: ${commitSave}`, () => buildScene(commitSave));
  function buildScene(commitSave: boolean) {
    const { dir, base } = published(['src/keep.ts'], ['Wire the client into the app']);
    write(dir, 'src/gen/client.ts', 'export const client = 1;\n');
    const generated = commitAll(dir, 'Generate the client', at(0));
    write(dir, FILE, checkpoint(at(0, '.664'), ['src/keep.ts', CLIENT], ['Wire the client into the app']));
    const recorded = commitSave ? commitAll(dir, 'checkpoint: record the client', at(0)) : null;
    return { dir, base, generated, recorded };
  }

  it.each(ENGINES)('is not "changed after" the save its child recorded (doctor, --pushed), unless the save is not committed (%s engine)', async (engine) => {
    const { dir, base, recorded } = scene(true);
    expect(git(dir, ['log', '-2', '--format=%ct']).trim().split('\n')).toEqual([`${T}`, `${T}`]);
    expect(drift(await findings(dir, engine))).toEqual([]);
    expect(drift(await findings(dir, engine, `${base}..${recorded}`))).toEqual([]);
    // The save not committed: the graph says nothing of it, and the tie counts as after.
    const open = scene(false);
    expect(drift(await findings(open.dir, engine))).toEqual([expect.stringContaining(`src/gen/client.ts changed after the checkpoint was written (${open.generated.slice(0, 7)} "Generate the client"`)]);
    // It says why, and what lets the graph decide.
    expect(drift(await findings(open.dir, engine))[0]).toContain("in the save's own second: commit times are whole seconds, and git's graph does not place it before the save (nor can it while the save is not committed)");
  });

  it.each(ENGINES)('a hand edit that keeps updated_at, not committed, keeps the committed save\'s commit: still not "changed after" (%s engine)', async (engine) => {
    const { dir } = scene(true);
    write(dir, FILE, checkpoint(at(0, '.664'), ['src/keep.ts', CLIENT], ['Wire the client into the app']).replace('coverage 8.0.', 'coverage 8.0, checked by hand.'));
    expect(git(dir, ['status', '--porcelain', '--', FILE]).trim()).toBe(`M ${FILE}`);
    expect(drift(await findings(dir, engine))).toEqual([]);
    // A hand edit that moved updated_at is a save no commit recorded: the tie counts as after again.
    write(dir, FILE, checkpoint(at(0, '.900'), ['src/keep.ts', CLIENT], ['Wire the client into the app']));
    expect(drift(await findings(dir, engine))).toEqual([expect.stringContaining('src/gen/client.ts changed after the checkpoint was written')]);
  });

  it('the pre-push hook lets the push through', () => {
    const { dir } = scene(true);
    const r = gitTry(dir, ['push', 'origin', 'main']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it.each(ENGINES)('a commit after the recording one, in the same second, is the one named (%s engine)', async (engine) => {
    const { dir, base } = scene(true);
    write(dir, 'src/gen/client.ts', 'export const client = 2;\n');
    const regenerated = commitAll(dir, 'Regenerate the client', at(0));
    const shown = (fs: F[]) => drift(fs).map((m) => m.includes(regenerated.slice(0, 7)));
    expect(shown(await findings(dir, engine))).toEqual([true]);
    expect(shown(await findings(dir, engine, `${base}..${regenerated}`))).toEqual([true]);
    // The checkpoint is committed: the graph was asked, so no word of a commit that would let it decide.
    const decided = "in the save's own second: commit times are whole seconds, and git's graph does not place it before the save); re-read it";
    expect(drift(await findings(dir, engine))[0]).toContain(decided);
    // Nor after a hand edit that kept updated_at: the committed save still decides.
    write(dir, FILE, checkpoint(at(0, '.664'), ['src/keep.ts', CLIENT], ['Wire the client into the app']).replace('coverage 8.0.', 'coverage 8.0, checked by hand.'));
    expect(drift(await findings(dir, engine))[0]).toContain(decided);
    // A save of its own, not committed: then the clause says what would let the graph decide.
    write(dir, FILE, checkpoint(at(0, '.900'), ['src/keep.ts', CLIENT], ['Wire the client into the app']));
    expect(drift(await findings(dir, engine))[0]).toContain('(nor can it while the save is not committed)); re-read it');
  });
});

describe('Form B: a PR merged, then a follow-up naming it queued, in one second', () => {
  const FOLLOW_UP = 'Address review comments left on PR #12';
  const scene = (commitSave: boolean) => builtOnce(`form B, save committed: ${commitSave}`, () => buildScene(commitSave));
  function buildScene(commitSave: boolean) {
    const { dir, base } = published(['src/keep.ts'], ['Merge PR #12']);
    git(dir, ['checkout', '-q', '-b', 'feat']);
    write(dir, 'src/feature.ts', 'export const feature = 8.0;\n');
    commitAll(dir, 'Add the feature', at(-30));
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--no-ff', 'feat', '-m', 'Merge pull request #12 from o/feat'], dateEnv(at(0)));
    const merge = headSha(dir);
    write(dir, FILE, checkpoint(at(0, '.664'), ['src/keep.ts'], [FOLLOW_UP, 'Deploy 8.0 to staging']));
    const queued = commitSave ? commitAll(dir, 'checkpoint: follow-up', at(0)) : null;
    return { dir, base, merge, queued };
  }

  it.each(ENGINES)('is not "landed after" the follow-up its child queued (doctor, --pushed, next, resume), unless not committed (%s engine)', async (engine) => {
    const { dir, base, queued } = scene(true);
    expect(git(dir, ['log', '-2', '--format=%ct']).trim().split('\n')).toEqual([`${T}`, `${T}`]);
    expect(drift(await findings(dir, engine))).toEqual([]);
    expect(drift(await findings(dir, engine, `${base}..${queued}`))).toEqual([]);
    const next = JSON.parse((await runCli(dir, ['next', '--json', '--engine', engine])).stdout);
    expect(next.next).toMatchObject({ skill: 'api', kind: 'action', text: FOLLOW_UP, skipped_as_landed: [] });
    const resume = await runCli(dir, ['resume', 'api', '--engine', engine]);
    expect(resume.stdout).toContain(FOLLOW_UP);
    expect(resume.stdout).not.toMatch(/landed in/);
    // Queued but not committed: the graph says nothing of when, and the tie counts as landed.
    const open = scene(false);
    expect(drift(await findings(open.dir, engine))).toEqual([expect.stringContaining(`names #12, which landed after the checkpoint (${open.merge.slice(0, 7)}`)]);
    expect(JSON.parse((await runCli(open.dir, ['next', '--json', '--engine', engine])).stdout).next).toMatchObject({ text: 'Deploy 8.0 to staging' });
  });

  it('the pre-push hook lets the push through', () => {
    const { dir } = scene(true);
    const r = gitTry(dir, ['push', 'origin', 'main']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });
});

describe('Form C: two edits of a listed file in one second (a rebase gives every commit it rewrites one committer time)', () => {
  /**
   * The second edit committed in the first one's second, named so that by name alone (the order
   * ties had) it would sort after the first: an amend with another word until its id is the
   * greater. `between`: a commit dated a day earlier made between the two (a clock behind).
   */
  function twoEdits(between: boolean) {
    return builtOnce(`form C, between: ${between}`, () => {
      const { dir, base } = published(['src/keep.ts (hand-tuned)'], ['Wire the client into the app']);
      write(dir, 'src/keep.ts', 'export const keep = 8.5;\n');
      const first = commitAll(dir, 'Tune keep', at(0));
      if (between) {
        write(dir, 'NOTES.md', 'keep is tuned by hand\n');
        commitAll(dir, 'Notes', at(-86_400));
      }
      write(dir, 'src/keep.ts', 'export const keep = 9.0;\n');
      let second = commitAll(dir, 'Tune keep again', at(0));
      for (let n = 1; second < first; n++) {
        git(dir, ['commit', '-q', '--amend', '-m', `Tune keep again (${n})`], dateEnv(at(0)));
        second = headSha(dir);
      }
      return { dir, base, first, second };
    });
  }

  it.each(ENGINES)('the later one is named, in the work tree and as pushed, one finding blocking the push (%s engine)', async (engine) => {
    for (const between of [false, true]) {
      const { dir, base, first, second } = twoEdits(between);
      expect(git(dir, ['log', '--format=%ct', first, second, '--no-walk']).trim().split('\n')).toEqual([`${T}`, `${T}`]);
      const named = (fs: F[]) => drift(fs).map((m) => (m.includes(second.slice(0, 7)) ? 'second' : m.includes(first.slice(0, 7)) ? 'first' : m));
      expect(named(await findings(dir, engine)), `between: ${between}`).toEqual(['second']);
      const pushed = await findings(dir, engine, `${base}..${second}`);
      expect(named(pushed), `between: ${between}`).toEqual(['second']);
      expect(pushed.filter((f) => f.blocks).length, `between: ${between}`).toBe(1);
    }
  });
});
