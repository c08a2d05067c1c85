// `checkpoint resolve --ours/--theirs` on a `next_actions` conflict after a real `git pull` (the
// merge driver is the built binary): taking a side settles the contested actions only; what the
// merge settled around them (an action one machine did with `done`, one the other appended) stays.
// Red team rt51a 11: the conflict's run also held the `done` beside it, so --theirs brought the
// action done back; or, the queue holding an action twice, the whole queue was the conflict and
// --ours dropped the action the other machine queued.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanup, cli, commitAll, git, gitTry, initialized, makeRepo, read, tempDir, withRemote, write } from '../helpers/repo.js';

const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
beforeAll(assertBuilt);
afterEach(() => dirs.splice(0).forEach(cleanup));

// Messy, as real ones are: a note and a glob in a path list, a score written 8.0, a row status outside the enum.
const checkpoint = (queue: string[]) => `{
  "protocol_version": "1.1",
  "skill": "api",
  "project": "p",
  "project_dir": "/p",
  "created_at": "2026-11-01T09:00:00Z",
  "updated_at": "2026-11-30T10:00:00Z",
  "phase": "build",
  "step": "auth",
  "status": "in_progress",
  "progress_summary": "auth middleware under way",
  "progress_table": [{"id": "auth", "label": "Auth (PR 12)", "status": "waiting on review"}],
  "context_primer": {"key_decisions": [], "generated_files": ["src/auth.ts (PR 12)", "docs/**/*.md"]},
  "skill_state": {"score": 8.0},
  "next_actions": [
${queue.map((a) => `    ${JSON.stringify(a)}`).join(',\n')}
  ]
}
`;

/** Two clones of one remote, each with the driver installed, the checkpoint holding `queue` pushed from the first. */
function machines(queue: string[]): { a: string; b: string } {
  const a = makeRepo();
  const remote = withRemote(a);
  initialized(a);
  write(a, FILE, checkpoint(queue));
  commitAll(a, 'base');
  // --no-verify: the pre-push doctor would ask about the files the fixture names; not what this is about.
  git(a, ['push', '-q', '--no-verify', '-u', 'origin', 'main']);
  const b = tempDir('cp-b-');
  git(b, ['clone', '-q', '-b', 'main', remote, '.']);
  expect(cli(b, ['install-driver']).code).toBe(0);
  dirs.push(a, b);
  return { a, b };
}

const reword = (dir: string, to: string) => write(dir, FILE, read(dir, FILE).replace(/"Deploy"(?=,?\n)/, () => JSON.stringify(to)));
const doc = (dir: string) => JSON.parse(read(dir, FILE)) as { next_actions: string[]; recently_done?: { action: string }[] };

/** a rewords "Deploy" and queues "Tag release", pushed; b rewords it its own way and does the first action, then pulls. */
function pulled(queue: string[]): string {
  const { a, b } = machines(queue);
  reword(a, 'Deploy to staging');
  expect(cli(a, ['update', 'api', '--next_actions+=Tag release']).code).toBe(0);
  commitAll(a, 'a: staging; queue the tag');
  git(a, ['push', '-q', '--no-verify', 'origin', 'main']);
  reword(b, 'Deploy to prod');
  expect(cli(b, ['done', 'api']).code).toBe(0);
  commitAll(b, 'b: prod; ran tests');
  const pull = gitTry(b, ['pull', '-q', '--no-rebase', '--no-edit']);
  expect(pull.status).not.toBe(0);
  expect(git(b, ['status', '--porcelain'])).toContain(`UU ${FILE}`);
  return b;
}

/** The lines of the file's one conflict block. */
function block(dir: string): string[] {
  const text = read(dir, FILE);
  expect(text.match(/^<{7} /gm)).toHaveLength(1);
  return text.slice(text.indexOf('<<<<<<<'), text.indexOf('>>>>>>>')).split('\n').slice(1, -1).map((l) => l.trim());
}

describe('resolve a side of a queue conflict after git pull (red team rt51a 11)', () => {
  it('the reword is the conflict alone: --theirs takes their reword, the action done stays done, both appends stay', () => {
    const b = pulled(['Run tests', 'Deploy', 'Lint', 'Write docs']);
    expect(block(b)).toEqual(['"Deploy to prod",', '||||||| base', '"Deploy",', '=======', '"Deploy to staging",']);
    const r = cli(b, ['resolve', '--theirs', 'next_actions[0]', '--add']);
    expect(r.code, r.stderr).toBe(0);
    expect(doc(b).next_actions).toEqual(['Deploy to staging', 'Lint', 'Write docs', 'Tag release']);
    expect(doc(b).recently_done?.map((e) => e.action)).toEqual(['Run tests']);
    expect(git(b, ['status', '--porcelain'])).not.toContain('UU');
  });

  it('with the first action queued twice: --ours takes our reword and keeps the action the other machine queued, and the later copy nobody did', () => {
    const b = pulled(['Run tests', 'Deploy', 'Run tests', 'Write docs']);
    expect(block(b)).toEqual(['"Deploy to prod",', '||||||| base', '"Deploy",', '=======', '"Deploy to staging",']);
    const r = cli(b, ['resolve', '--ours', 'next_actions[0]', '--add']);
    expect(r.code, r.stderr).toBe(0);
    expect(doc(b).next_actions).toEqual(['Deploy to prod', 'Run tests', 'Write docs', 'Tag release']);
    expect(doc(b).recently_done?.map((e) => e.action)).toEqual(['Run tests']);
  });

  it('a two-action queue, marked whole: either side taken keeps the action done done, from what git staged', () => {
    const b = pulled(['Run tests', 'Deploy']);
    expect(block(b)).toEqual(['"Deploy to prod"', '||||||| base', '"Run tests",', '"Deploy"', '=======', '"Run tests",', '"Deploy to staging",', '"Tag release"']);
    const theirs = cli(b, ['resolve', '--theirs', 'next_actions[0]']);
    expect(theirs.code, theirs.stderr).toBe(0);
    expect(doc(b).next_actions).toEqual(['Deploy to staging', 'Tag release']);
    expect(doc(b).recently_done?.map((e) => e.action)).toEqual(['Run tests']);
    // The merge again (the driver runs), and the other side taken.
    git(b, ['checkout', '--merge', '--', FILE]);
    const ours = cli(b, ['resolve', '--ours', 'next_actions[0]', '--add']);
    expect(ours.code, ours.stderr).toBe(0);
    expect(doc(b).next_actions).toEqual(['Deploy to prod']);
    expect(doc(b).recently_done?.map((e) => e.action)).toEqual(['Run tests']);
  });
});
