// The deep questions in the deep-walk worker (dist/deep-worker.cjs) against the same questions
// in the main thread and against git itself: the same answers on real and messy repositories,
// the same one-line errors on a damaged one, and the main thread answering whenever the worker
// cannot (an object only the fallback reader has, a corrupt pack).
import { chmodSync, cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHistory } from '../../src/git/index.js';
import { DeepThread, setDeepWorkerScript } from '../../src/git/deep-thread.js';
import { deepAnswer, deepAnswers, deepReaders, type DeepQuestion } from '../../src/git/isomorphic.js';
import { ObjectStore } from '../../src/git/object-store.js';
import { spawnSync } from 'node:child_process';
import { assertBuilt, BIN, commitAll, git, GIT_ENV, makeRepo, ROOT, tempDir, write, headSha } from '../helpers/repo.js';

const WORKER = join(ROOT, 'dist/deep-worker.cjs');
const TOKENS = ['#482', 'PLAT-7', 'café', 'nowhere'];
const PATHS = ['docs/spec.md', 'gen/api.ts', 'notes.txt', 'never/there.md'];

/** History with what doctor's deep questions look for: a landed PR, tickets, a rename, deletions, a merge. */
function buildRepo(): string {
  const dir = makeRepo();
  write(dir, 'docs/spec.md', '# Spec\n');
  write(dir, 'gen/api.ts', 'export {};\n');
  write(dir, 'notes.txt', 'n\n');
  commitAll(dir, 'add the spec', '2026-01-02T00:00:00Z');
  git(dir, ['checkout', '-q', '-b', 'side']);
  write(dir, 'side.txt', 's\n');
  git(dir, ['rm', '-q', 'notes.txt']);
  commitAll(dir, 'side work for PLAT-7\n\nremoves the notes', '2026-01-03T00:00:00Z');
  git(dir, ['checkout', '-q', 'main']);
  write(dir, 'gen/api.ts', 'export const a = 1;\n');
  commitAll(dir, 'Rate limiting (#482)', '2026-01-04T00:00:00Z');
  git(dir, ['merge', '-q', '--no-ff', '-m', 'merge side', 'side'], { GIT_AUTHOR_DATE: '2026-01-05T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-05T00:00:00Z' });
  git(dir, ['mv', 'docs/spec.md', 'docs/spec-v2.md']);
  commitAll(dir, 'Rename the spec for v2 (café)', '2026-01-06T00:00:00Z');
  git(dir, ['rm', '-q', 'gen/api.ts']);
  commitAll(dir, 'drop the generated api', '2026-01-07T00:00:00Z');
  for (let i = 0; i < 5; i++) {
    write(dir, 'log.txt', `${i}\n`);
    commitAll(dir, `chore ${i}`, `2026-01-${10 + i}T00:00:00Z`);
  }
  git(dir, ['gc', '-q', '--aggressive', '--prune=now']);
  return dir;
}

async function historyAnswers(dir: string, engine: 'native' | 'isomorphic', since = 0) {
  const history = await createHistory({ dir, engine });
  // Both settled, the first failure in a fixed order: which of two failing questions fails first is timing.
  const [named, removals] = await Promise.allSettled([history.commitsNaming(TOKENS, since), history.lastRemovals(PATHS, since)]);
  if (named.status === 'rejected') throw named.reason;
  if (removals.status === 'rejected') throw removals.reason;
  return { named: named.value, removals: removals.value };
}

/** The isomorphic engine's answers (or its error message) with the worker script set to `script`. */
async function isoWith(script: string | null, dir: string, since = 0): Promise<unknown> {
  const before = setDeepWorkerScript(script);
  try {
    return await historyAnswers(dir, 'isomorphic', since);
  } catch (error) {
    return { error: (error as Error).message };
  } finally {
    setDeepWorkerScript(before);
  }
}

function pack(dir: string, end: string): string {
  const packDir = join(dir, '.git/objects/pack');
  return join(packDir, readdirSync(packDir).find((n) => n.endsWith(end))!);
}

let repo: string;
let tip: string;
beforeAll(() => {
  assertBuilt();
  setDeepWorkerScript(WORKER);
  repo = buildRepo();
  tip = headSha(repo);
});


describe('the deep-walk worker', () => {
  it('answers the deep questions itself, as the main thread and git do', async () => {
    const thread = await DeepThread.start(join(repo, '.git/objects'), new Set());
    expect(thread).not.toBeNull();
    const inWorker = await thread!.ask({ kind: 'naming', tip, wanted: ['#482'], since: 0 });
    expect(inWorker?.map((c) => c.subject)).toEqual(['Rate limiting (#482)']);
    const removed = await thread!.ask({ kind: 'removals', tip, wanted: ['docs/spec.md'], since: 0 });
    expect(removed?.map((c) => c.subject)).toEqual(['Rename the spec for v2 (café)']);

    const native = await historyAnswers(repo, 'native');
    expect(native.named.length).toBeGreaterThan(1);
    expect(native.removals.length).toBe(3);
    expect(await isoWith(WORKER, repo)).toEqual(native);
    expect(await isoWith(null, repo)).toEqual(native);
    // A bound inside the history: only the newer commits.
    const since = Math.floor(Date.parse('2026-01-05T00:00:00Z') / 1000);
    expect(await isoWith(WORKER, repo, since)).toEqual(await historyAnswers(repo, 'native', since));
  });

  it('finds removals as git does when a path comes back, goes in a merge\'s second parent, and a subtree repeats', async () => {
    const dir = makeRepo();
    write(dir, 'docs/spec.md', '# Spec\n');
    write(dir, 'docs/guide.md', 'g\n');
    commitAll(dir, 'add the docs', '2026-02-01T00:00:00Z');
    git(dir, ['rm', '-q', 'docs/spec.md']);
    commitAll(dir, 'drop the spec (PLAT-7)', '2026-02-02T00:00:00Z');
    write(dir, 'docs/spec.md', '# Spec\n');
    commitAll(dir, 'bring the spec back', '2026-02-03T00:00:00Z');
    // docs/ as it was two commits ago: the same subtree id comes back under another root tree.
    write(dir, 'src/a.ts', '1\n');
    commitAll(dir, 'code', '2026-02-04T00:00:00Z');
    git(dir, ['checkout', '-q', '-b', 'side']);
    git(dir, ['mv', 'docs/guide.md', 'docs/guide-v2.md']);
    commitAll(dir, 'rename the guide on a side branch', '2026-02-05T00:00:00Z');
    git(dir, ['checkout', '-q', 'main']);
    write(dir, 'src/a.ts', '2\n');
    commitAll(dir, 'more code (#482)', '2026-02-06T00:00:00Z');
    // The rename reaches main through the merge's second parent: main's first-parent diff removes the guide there.
    git(dir, ['merge', '-q', '--no-ff', '-m', 'merge side', 'side'], { GIT_AUTHOR_DATE: '2026-02-07T00:00:00Z', GIT_COMMITTER_DATE: '2026-02-07T00:00:00Z' });
    git(dir, ['rm', '-q', 'docs/spec.md']);
    commitAll(dir, 'drop the spec again', '2026-02-08T00:00:00Z');
    git(dir, ['gc', '-q', '--prune=now']);
    const paths = ['docs/spec.md', 'docs/guide.md'];
    const answers = async (engine: 'native' | 'isomorphic', script?: string | null) => {
      const before = setDeepWorkerScript(script ?? WORKER);
      try {
        const history = await createHistory({ dir, engine });
        const [named, removals] = await Promise.all([history.commitsNaming(['#482', 'PLAT-7'], 0), history.lastRemovals(paths, 0)]);
        return { named: named.map((c) => c.subject), removals: removals.map((c) => [c.subject, c.changes]) };
      } finally {
        setDeepWorkerScript(before);
      }
    };
    const native = await answers('native');
    // The newest removal of each path: the spec's second drop, and the guide's rename in the merge's first-parent diff.
    expect(native.removals.map(([subject]) => subject).sort()).toEqual(['drop the spec again', 'merge side']);
    expect([...native.named].sort()).toEqual(['drop the spec (PLAT-7)', 'more code (#482)']);
    expect(await answers('isomorphic', WORKER)).toEqual(native);
    expect(await answers('isomorphic', null)).toEqual(native);
  });

  it('gives a shallow clone\'s answers: boundary commits are roots', async () => {
    const dir = join(tempDir(), 'clone');
    git(tempDir(), ['clone', '-q', '--depth', '4', `file://${repo}`, dir]);
    const native = await historyAnswers(dir, 'native');
    expect(await isoWith(WORKER, dir)).toEqual(native);
    expect(await isoWith(null, dir)).toEqual(native);
  });

  it('is not started on an unborn branch: no commits, no answers', async () => {
    const dir = makeRepo({ commit: false });
    write(dir, 'docs/spec.md', 'x\n');
    expect(await isoWith(WORKER, dir)).toEqual({ named: [], removals: [] });
    expect(await historyAnswers(dir, 'native')).toEqual({ named: [], removals: [] });
  });

  it('leaves a corrupt pack to the main thread, which fails with its own one-line error', async () => {
    const dir = tempDir();
    git(dir, ['clone', '-q', '--no-local', repo, 'c']);
    const clone = join(dir, 'c');
    git(clone, ['repack', '-q', '-a', '-d']);
    const file = pack(clone, '.pack');
    const bytes = readFileSync(file);
    // Garble the compressed data past the header: objects no longer inflate.
    for (let i = 200; i < bytes.length - 20; i += 7) bytes[i] = bytes[i]! ^ 0x5a;
    chmodSync(file, 0o644);
    writeFileSync(file, bytes);
    const cloneTip = headSha(clone);
    const thread = await DeepThread.start(join(clone, '.git/objects'), new Set());
    expect(await thread!.ask({ kind: 'removals', tip: cloneTip, wanted: ['docs/spec.md'], since: 0 })).toBeNull();
    // Once failed, the worker is not asked again.
    expect(await thread!.ask({ kind: 'naming', tip: cloneTip, wanted: ['#482'], since: 0 })).toBeNull();

    const withWorker = (await isoWith(WORKER, clone)) as { error?: string };
    const inProcess = (await isoWith(null, clone)) as { error?: string };
    expect(withWorker.error).toMatch(/^\/.*\.pack: an object at offset \d+ /);
    expect(withWorker.error).not.toContain('\n');
    expect(withWorker).toEqual(inProcess);
  });

  it('leaves objects behind an index it does not know to the main thread\'s fallback reader', async () => {
    const dir = tempDir();
    git(dir, ['clone', '-q', '--no-local', repo, 'c']);
    const clone = join(dir, 'c');
    const idx = pack(clone, '.idx');
    const bytes = readFileSync(idx);
    bytes.writeUInt32BE(3, 4); // an index version only the fallback reader is asked about
    chmodSync(idx, 0o644);
    writeFileSync(idx, bytes);
    const cloneTip = headSha(clone);
    const thread = await DeepThread.start(join(clone, '.git/objects'), new Set());
    expect(await thread!.ask({ kind: 'naming', tip: cloneTip, wanted: ['#482'], since: 0 })).toBeNull();
    // isomorphic-git cannot read that index either: both ways give its error, or both its answers.
    expect(await isoWith(WORKER, clone)).toEqual(await isoWith(null, clone));
  });

  it('leaves the question to the main thread when the worker fails to load or dies', async () => {
    const dir = tempDir();
    const broken = join(dir, 'broken-worker.cjs');
    writeFileSync(broken, "throw new Error('a damaged install');\n");
    const dying = join(dir, 'dying-worker.cjs');
    writeFileSync(dying, "require('node:worker_threads').parentPort.on('message', () => process.exit(3));\n");
    const native = await historyAnswers(repo, 'native');
    for (const script of [broken, dying]) {
      const before = setDeepWorkerScript(script);
      try {
        const thread = await DeepThread.start(join(repo, '.git/objects'), new Set());
        expect(await thread!.ask({ kind: 'naming', tip, wanted: ['#482'], since: 0 })).toBeNull();
      } finally {
        setDeepWorkerScript(before);
      }
      expect(await isoWith(script, repo)).toEqual(native);
    }
  });

  it('is not started when there is no worker file (running from the sources)', async () => {
    const before = setDeepWorkerScript(undefined);
    try {
      expect(await DeepThread.start(join(repo, '.git/objects'), new Set())).toBeNull();
    } finally {
      setDeepWorkerScript(before);
    }
  });

  it('answers questions asked together as each alone, also when objects come one by one from the fallback reader', async () => {
    // The same objects behind an index version only the fallback reader is asked about: each
    // object needed mid-walk stops a visit, which runs again once the fallback has answered.
    const objects = tempDir();
    cpSync(join(repo, '.git/objects'), objects, { recursive: true });
    const idx = readdirSync(join(objects, 'pack')).find((n) => n.endsWith('.idx'))!;
    const bytes = readFileSync(join(objects, 'pack', idx));
    bytes.writeUInt32BE(3, 4);
    chmodSync(join(objects, 'pack', idx), 0o644);
    writeFileSync(join(objects, 'pack', idx), bytes);
    const direct = new ObjectStore(join(repo, '.git/objects'));
    let asked = 0;
    const behind = new ObjectStore(objects, async (oid) => {
      asked++;
      const found = await direct.read(oid);
      return found?.data ? { type: found.type, data: found.data } : null;
    });
    const later = Math.floor(Date.parse('2026-01-05T00:00:00Z') / 1000);
    const questions: DeepQuestion[] = [
      { kind: 'naming', tip, wanted: TOKENS, since: 0 },
      { kind: 'removals', tip, wanted: PATHS, since: 0 },
      { kind: 'removals', tip, wanted: ['docs/spec.md'], since: 0 },
      { kind: 'naming', tip, wanted: ['#482', 'chore'], since: later },
      { kind: 'removals', tip, wanted: PATHS, since: later },
    ];
    const alone = await Promise.all(questions.map((q) => deepAnswer(deepReaders(direct, new Set()), q)));
    expect(alone.map((a) => a.length)).toEqual([3, 3, 1, 5, 3]);
    expect(await deepAnswers(deepReaders(behind, new Set()), questions)).toEqual(alone);
    expect(await deepAnswers(deepReaders(direct, new Set()), questions)).toEqual(alone);
    expect(asked).toBeGreaterThan(0);
    direct.close();
    behind.close();
  });

});

describe('checkpoint doctor (built) and the deep-walk worker', () => {
  const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const checkpoint = (saved: number) => ({
    protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: '/elsewhere/demo', created_at: daysAgo(saved + 1), updated_at: daysAgo(saved),
    phase: 'build', step: 'auth', status: 'in_progress', progress_summary: 'Auth in review (PR 12).',
    context_primer: { generated_files: ['src/auth.ts', 'docs/notes.md (see PR 12)'] }, next_actions: ['Merge PR #12 (auth middleware)', 'Write the session docs'],
  });
  /** A repository whose checkpoint was saved `saved` days ago; PR #12 lands and docs/notes.md goes a day later. */
  function repoSaved(saved: number): string {
    const dir = makeRepo();
    write(dir, 'src/auth.ts', 'auth\n');
    write(dir, 'docs/notes.md', 'notes\n');
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint(saved), null, 2)}\n`);
    commitAll(dir, 'checkpoint: api', daysAgo(saved));
    write(dir, 'src/auth.ts', 'auth with middleware\n');
    git(dir, ['rm', '-q', 'docs/notes.md']);
    commitAll(dir, 'Auth middleware (#12), notes folded into the README', daysAgo(saved - 1));
    write(dir, 'README.md', 'readme\n');
    commitAll(dir, 'readme', daysAgo(1));
    return dir;
  }
  /**
   * Doctor's output, whether a worker thread ran, and whether node:worker_threads was loaded at
   * all (a preloaded module marks each worker, and reads the main thread's module list at exit).
   */
  function doctor(dir: string, engine: string): { stdout: string; code: number | null; worker: boolean; loaded: boolean } {
    const hook = join(tempDir(), 'mark.cjs');
    const marks = join(tempDir(), 'marks');
    writeFileSync(hook, [
      `const mark = (m) => require('node:fs').appendFileSync(${JSON.stringify(marks)}, m + '\\n');`,
      "const loaded = () => process.moduleLoadList.includes('NativeModule worker_threads');",
      "if (loaded() && !require('node:worker_threads').isMainThread) mark('worker');",
      "else process.on('exit', () => { if (loaded()) mark('loaded'); });",
    ].join('\n'));
    const r = spawnSync(process.execPath, ['-r', hook, BIN, 'doctor', '--engine', engine], { cwd: dir, encoding: 'utf8', env: { ...GIT_ENV, XDG_CACHE_HOME: tempDir() } });
    let text = '';
    try {
      text = readFileSync(marks, 'utf8');
    } catch {
      // nothing marked
    }
    return { stdout: r.stdout, code: r.status, worker: text.includes('worker'), loaded: text.includes('loaded') };
  }

  it('a doctor whose walk is cut asks the worker, and says what native git says; a fresh one starts none', () => {
    const stale = repoSaved(500);
    const cut = doctor(stale, 'isomorphic');
    expect(cut).toMatchObject({ worker: true, loaded: true });
    expect(cut.stdout).toMatch(/history walk cut at .*searched only for #12 \(still queued\) and for the removal of docs\/notes\.md/);
    expect(cut.stdout).toMatch(/docs\/notes\.md is missing: deleted in [0-9a-f]{7} "Auth middleware \(#12\)/);
    const native = doctor(stale, 'native');
    expect(native).toMatchObject({ worker: false, loaded: false });
    expect({ stdout: cut.stdout, code: cut.code }).toEqual({ stdout: native.stdout, code: native.code });

    const fresh = doctor(repoSaved(30), 'isomorphic');
    // Not even node:worker_threads is loaded.
    expect(fresh).toMatchObject({ worker: false, loaded: false });
    expect(fresh.stdout).toMatch(/docs\/notes\.md is missing: deleted in [0-9a-f]{7} "Auth middleware \(#12\)/);
    expect(fresh.stdout).not.toContain('history walk cut');
  });
});
