// A rebase gives every commit it re-makes a new committer date and keeps the author date: an edit
// made before the checkpoint was saved, rebased with the commit that recorded the save, is dated
// after it. It is no change since the checkpoint, in doctor and under the pre-push hook (a real
// `git push --force-with-lease` through the installed hook). An edit made after the save, before
// the save was committed (a new commit, or amended into an older one), is still one. Real git,
// fixed dates, both engines.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { runCli } from '../helpers/in-process.js';
import { cleanup, commitAll, dateEnv, git, gitTry, makeRepo, tempDir, write, initialized } from '../helpers/repo.js';

const ENGINES = ['native', 'isomorphic'] as const;
const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

// One clock for the whole file: each date is whole seconds off the same instant.
const NOW = Date.now();
const ago = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');

/** The api checkpoint listing src/a.ts, saved at `savedAt`, written (not committed). */
function save(dir: string, savedAt: string): void {
  const doc = {
    protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: dir,
    created_at: savedAt, updated_at: savedAt.replace('Z', '.250Z'),
    phase: 'build', step: 'client', status: 'in_progress', progress_summary: 'Client reworked.',
    progress_table: [{ id: 'client', label: 'Client', status: 'in_progress' }],
    context_primer: { key_decisions: ['fetch, not axios'], generated_files: ['src/a.ts'] },
    next_actions: ['Review the client'],
  };
  write(dir, FILE, `${JSON.stringify(doc, null, 2)}\n`);
}

/** init done and published; branch feat checked out, main's last commit 60 minutes ago. */
function project(): string {
  const dir = makeRepo();
  dirs.push(dir);
  const remote = join(tempDir('cp-rebase-'), 'origin.git');
  dirs.push(join(remote, '..'));
  git(dir, ['init', '-q', '--bare', remote]);
  git(dir, ['remote', 'add', 'origin', remote]);
  write(dir, 'src/a.ts', 'export const a = 1;\n');
  write(dir, 'README.md', 'demo\n');
  initialized(dir);
  commitAll(dir, 'init', ago(60));
  push(dir, 'main');
  git(dir, ['checkout', '-q', '-b', 'feat']);
  return dir;
}

function push(dir: string, ...args: string[]): string {
  const r = gitTry(dir, ['push', '-q', 'origin', ...args]);
  expect(r.status, r.stdout + r.stderr).toBe(0);
  return r.stdout + r.stderr;
}

/** main gains a commit (another file), published; feat rebased onto it at `at` (its committer date). */
function rebaseOntoNewMain(dir: string, at: string): void {
  git(dir, ['checkout', '-q', 'main']);
  write(dir, 'README.md', 'demo, documented\n');
  commitAll(dir, 'main work', ago(25));
  push(dir, 'main');
  git(dir, ['checkout', '-q', 'feat']);
  git(dir, ['rebase', '-q', 'main'], { GIT_COMMITTER_DATE: at });
}

type F = { level: string; path: string; message: string; blocks?: boolean; evidence?: { sha?: string } };

async function fileFinding(dir: string, engine: string, pushed?: string): Promise<F | undefined> {
  const r = await runCli(dir, ['doctor', '--json', '--fail-on-warnings', '--engine', engine, ...(pushed ? ['--pushed', pushed] : [])]);
  return (JSON.parse(r.stdout).findings as F[]).find((f) => f.path === 'context_primer.generated_files[0]' && f.level === 'warning');
}

const sha = (dir: string, rev: string) => git(dir, ['rev-parse', rev]).trim();

describe('an edit made before the save, rebased with it', () => {
  it('is no change since the checkpoint: doctor, --pushed and the hook on a force-push, both engines', async () => {
    const dir = project();
    write(dir, 'src/a.ts', 'export const a = 2;\n');
    commitAll(dir, 'rework a', ago(50));
    save(dir, ago(40));
    commitAll(dir, 'checkpoint: api', ago(39));
    push(dir, '-u', 'feat');
    const before = sha(dir, 'feat');
    rebaseOntoNewMain(dir, ago(10));
    // The rebased edit: authored before the save, committed after it; the recording commit above it.
    const rework = sha(dir, 'HEAD~1');
    expect(git(dir, ['log', '-1', '--format=%s %ct %at', rework]).trim().split(' ').slice(-2).map(Number)).toEqual([Date.parse(ago(10)) / 1000, Date.parse(ago(50)) / 1000]);
    for (const engine of ENGINES) {
      expect(await fileFinding(dir, engine), engine).toBeUndefined();
      expect(await fileFinding(dir, engine, `${before}..${sha(dir, 'HEAD')}`), engine).toBeUndefined();
    }
    const out = push(dir, '--force-with-lease', 'feat');
    expect(out).not.toMatch(/blocks push|refused/);
    expect(sha(dir, 'origin/feat')).toBe(sha(dir, 'feat'));
  });

  it('saved twice, an edit between the saves: judged from the commit that recorded the last save, not the first (both engines)', async () => {
    const dir = project();
    write(dir, 'src/a.ts', 'export const a = 2;\n');
    commitAll(dir, 'rework a', ago(50));
    save(dir, ago(46));
    commitAll(dir, 'checkpoint: api', ago(45));
    write(dir, 'src/a.ts', 'export const a = 3;\n');
    commitAll(dir, 'rework a again', ago(42));
    save(dir, ago(40));
    commitAll(dir, 'checkpoint: api again', ago(39));
    push(dir, '-u', 'feat');
    const before = sha(dir, 'feat');
    rebaseOntoNewMain(dir, ago(10));
    for (const engine of ENGINES) {
      expect(await fileFinding(dir, engine), engine).toBeUndefined();
      expect(await fileFinding(dir, engine, `${before}..${sha(dir, 'HEAD')}`), engine).toBeUndefined();
    }
    expect(push(dir, '--force-with-lease', 'feat')).not.toMatch(/blocks push|refused/);
  });

  it('still names an edit made after the save, before the save was committed: a new commit, rebased or not', async () => {
    const dir = project();
    write(dir, 'src/a.ts', 'export const a = 2;\n');
    commitAll(dir, 'rework a', ago(50));
    save(dir, ago(40));
    write(dir, 'src/a.ts', 'export const a = 3;\n');
    git(dir, ['add', 'src/a.ts']);
    git(dir, ['commit', '-q', '-m', 'edit after the save'], dateEnv(ago(35)));
    commitAll(dir, 'checkpoint: api', ago(34));
    for (const engine of ENGINES) {
      expect(await fileFinding(dir, engine), engine).toMatchObject({ message: expect.stringContaining('"edit after the save"') });
      expect(await fileFinding(dir, engine, sha(dir, 'HEAD')), engine).toMatchObject({ blocks: true, message: expect.stringContaining('"edit after the save"') });
    }
    const refused = gitTry(dir, ['push', 'origin', 'feat']);
    expect(refused.status, refused.stdout + refused.stderr).not.toBe(0);
    expect(refused.stdout + refused.stderr).toMatch(/src\/a\.ts changed after the checkpoint was written[\s\S]*\[blocks push\]/);
    // Rebased: its author date is after the save too.
    rebaseOntoNewMain(dir, ago(10));
    for (const engine of ENGINES) {
      expect(await fileFinding(dir, engine), engine).toMatchObject({ message: expect.stringContaining('"edit after the save"') });
      expect(await fileFinding(dir, engine, sha(dir, 'HEAD')), engine).toMatchObject({ blocks: true });
    }
  });

  it('still names an edit made after the save and amended into an older commit (its author date kept), before the save was committed', async () => {
    const dir = project();
    write(dir, 'src/a.ts', 'export const a = 2;\n');
    commitAll(dir, 'rework a', ago(50));
    save(dir, ago(40));
    write(dir, 'src/a.ts', 'export const a = 3;\n');
    git(dir, ['commit', '-q', '--amend', '--no-edit', 'src/a.ts'], { GIT_COMMITTER_DATE: ago(35) });
    const amended = sha(dir, 'HEAD');
    commitAll(dir, 'checkpoint: api', ago(34));
    for (const engine of ENGINES) {
      expect(await fileFinding(dir, engine), engine).toMatchObject({ evidence: { sha: amended } });
      expect(await fileFinding(dir, engine, sha(dir, 'HEAD')), engine).toMatchObject({ blocks: true, evidence: { sha: amended } });
    }
  });
});
