// The pre-push hook judges the commits a push sends, as they are in each pushed tip: never the
// checked-out work tree. A real `git push` to a local bare remote through the installed hook for
// each kind of ref git hands it (a new branch let through and refused, a branch refused, an
// annotated tag refused and let through, a new branch from a clone without tracking refs); the
// other pushes are judged in-process as the hook judges them (judgedPush: doctor on the range the
// hook passes). The doctor runs that check each engine's findings go through main() in-process.
import { cpSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtOnce } from '../helpers/built-once.js';
import { join } from 'node:path';
import { runCli } from '../helpers/in-process.js';
import { commitAll, git, gitTry, makeRepo, read, tempDir, write, headSha, initialized } from '../helpers/repo.js';
import { judgedPush } from '../helpers/published.js';

const FILE = '.checkpoints/api.checkpoint.json';

/** init, a checkpoint queuing PLAT-9 docs and listing a generated file, committed and published. */
async function publish(): Promise<{ dir: string }> {
  const dir = makeRepo();
  const remote = tempDir('cp-remote-');
  git(remote, ['init', '-q', '--bare']);
  // No `git gc --auto` after each push the tests make (a process each, not what they test).
  writeFileSync(join(remote, 'config'), `${readFileSync(join(remote, 'config'), 'utf8')}[receive]\n\tautogc = false\n`);
  git(dir, ['remote', 'add', 'origin', remote]);
  initialized(dir);
  write(dir, 'src/gen/client.ts', 'export {};\n');
  const u = await runCli(dir, ['update', 'api', '--phase=build', '--step=docs', '--next_actions+=Write docs for PLAT-9', '--context_primer.generated_files+=`src/gen/client.ts` (PR 12)']);
  expect(u.code, u.stderr).toBe(0);
  commitAll(dir, 'Start the api skill');
  const r = gitTry(dir, ['push', 'origin', 'main']);
  expect(r.status, r.stdout + r.stderr).toBe(0);
  return { dir };
}

/** The published project, built once per file before its tests: a copy of it and of its remote for each test (builtOnce). */
beforeAll(async () => {
  const made = await publish();
  builtOnce('published', () => made);
});
const published = (): string => builtOnce<{ dir: string }>('published', () => { throw new Error('the published project is built in beforeAll'); }).dir;

function edit(dir: string, change: (doc: Record<string, unknown>) => void): void {
  const doc = JSON.parse(read(dir, FILE)) as Record<string, unknown>;
  change(doc);
  write(dir, FILE, `${JSON.stringify(doc, null, 2)}\n`);
}

const push = (dir: string, ...refs: string[]) => {
  const r = gitTry(dir, ['push', 'origin', ...refs]);
  return { status: r.status, out: r.stdout + r.stderr };
};

const remoteHas = (dir: string, branch: string) => gitTry(dir, ['ls-remote', 'origin', `refs/heads/${branch}`]).stdout.includes(branch);

/**
 * The lines the hook's own doctor marked as blocking, from what a push printed (or judgedPush,
 * which runs what the hook runs): the native engine's verdict (git is on PATH), given the range
 * git gave the hook. Where a test asks the same range of the engines in-process, the native one
 * is this, not asked twice (a doctor run is some ten git processes); the embedded engine is
 * asked in-process.
 */
const hookBlocks = (out: string) => out.split('\n').filter((l) => / \[blocks push\]$/.test(l));

async function blocking(dir: string, engine: string, range: string): Promise<string[]> {
  const r = await runCli(dir, ['doctor', '--json', '--fail-on-warnings', '--engine', engine, '--pushed', range]);
  return (JSON.parse(r.stdout) as { findings: { message: string; blocks: boolean }[] }).findings.filter((f) => f.blocks).map((f) => f.message);
}

describe('the pre-push hook judges pushed tips, not the work tree', () => {
  it('refuses a side branch carrying an invalid checkpoint while main is checked out (repro A)', async () => {
    const dir = published();
    git(dir, ['checkout', '-q', '-b', 'bad']);
    edit(dir, (d) => { d.status = 'ready-to-deploy'; });
    commitAll(dir, 'api: ready');
    git(dir, ['checkout', '-q', 'main']);
    const r = push(dir, 'bad');
    expect(r.status, r.out).not.toBe(0);
    expect(r.out).toMatch(/status[\s\S]*ready-to-deploy[\s\S]*as pushed in [0-9a-f]{7}[\s\S]*\[blocks push\]/);
    expect(remoteHas(dir, 'bad')).toBe(false);
    const tip = git(dir, ['rev-parse', 'bad']).trim();
    expect(hookBlocks(r.out).join('\n')).toMatch(/ready-to-deploy/);
    expect((await blocking(dir, 'isomorphic', tip)).join('\n')).toMatch(/ready-to-deploy/);
  });

  it('refuses a push landing PLAT-9 while the pushed checkpoint still queues it, whatever the work tree says (repro B)', async () => {
    const dir = published();
    const base = headSha(dir);
    write(dir, 'docs/plat-9.md', 'docs\n');
    commitAll(dir, 'PLAT-9: write docs (#21)');
    // Reconciled in the work tree only: the pushed commit still queues the action.
    edit(dir, (d) => { d.next_actions = ['Review the docs']; });
    const r = push(dir, 'main');
    expect(r.status, r.out).not.toBe(0);
    expect(r.out).toMatch(/Write docs for PLAT-9" names PLAT-9, which landed[\s\S]*\[blocks push\]/);
    const range = `${base}..${headSha(dir)}`;
    for (const found of [hookBlocks(r.out), await blocking(dir, 'isomorphic', range)]) expect(found).toEqual([expect.stringContaining('PLAT-9')]);
    // The same range by name, as a user or a CI job types it: each engine resolves the names.
    expect(git(dir, ['rev-parse', 'origin/main']).trim()).toBe(base);
    for (const engine of ['native', 'isomorphic']) expect(await blocking(dir, engine, 'origin/main..HEAD'), engine).toEqual([expect.stringContaining('PLAT-9')]);
    // Committing the reconcile makes the pushed tip true: the push goes through (judged in-process as the hook judges it).
    commitAll(dir, 'api: docs done');
    const ok = await judgedPush(dir, 'main');
    expect(ok.status, ok.out).toBe(0);
  });

  it('refuses a side branch landing PLAT-9 although checked-out main holds a committed reconcile', async () => {
    const dir = published();
    git(dir, ['checkout', '-q', '-b', 'side']);
    write(dir, 'docs/plat-9.md', 'docs\n');
    commitAll(dir, 'PLAT-9: write docs (#21)');
    git(dir, ['checkout', '-q', 'main']);
    edit(dir, (d) => { d.next_actions = ['Review the docs']; });
    commitAll(dir, 'api: reconcile');
    const side = push(dir, 'side');
    expect(side.status, side.out).not.toBe(0);
    expect(side.out).toMatch(/PLAT-9[\s\S]*\[blocks push\]/);
    expect(remoteHas(dir, 'side')).toBe(false);
    // main itself lands nothing it queues: it pushes (judged in-process as the hook judges it).
    const main = await judgedPush(dir, 'main');
    expect(main.status, main.out).toBe(0);
  });

  it('a side branch refused while main is checked out: its findings and the closing line name no command to run on main, but the branch to check out first; followed, the command works there (red team 64 r3 r6)', async () => {
    const dir = published();
    expect((await runCli(dir, ['update', 'api', '--next_actions+=Ship the release'])).code).toBe(0);
    commitAll(dir, 'api: queue the release');
    expect((await judgedPush(dir, 'main')).status).toBe(0);
    // One branch changes the listed file, another lands the queued PLAT-9 work.
    git(dir, ['checkout', '-q', '-b', 'regen']);
    write(dir, 'src/gen/client.ts', 'export const x = 1;\n');
    commitAll(dir, 'Regenerate the client');
    git(dir, ['checkout', '-q', '-b', 'docs', 'main']);
    write(dir, 'docs/plat-9.md', 'docs\n');
    commitAll(dir, 'PLAT-9: write docs (#21)');
    git(dir, ['checkout', '-q', 'main']);
    const main = read(dir, FILE);
    const regen = await judgedPush(dir, 'regen');
    expect(regen.status, regen.out).not.toBe(0);
    const regenTip = git(dir, ['rev-parse', '--short=7', 'regen']).trim();
    expect(regen.out).toContain(`a file changed after its checkpoint was written stops counting once the checkpoint is saved after the change: check out the branch you pushed (${regenTip}) first, then re-read it, save the checkpoint there (e.g. checkpoint update api`);
    const docs = await judgedPush(dir, 'docs');
    expect(docs.status, docs.out).not.toBe(0);
    expect(docs.out).toContain('reconcile instead of redoing it (on the branch you pushed: check it out first, then `checkpoint done api --landed`) (as pushed in');
    expect(docs.out).not.toContain('(`checkpoint done api --landed`)');
    const tip = git(dir, ['rev-parse', 'docs']).trim();
    const json = await runCli(dir, ['doctor', '--json', '--fail-on-warnings', `--pushed=${tip}`]);
    expect((JSON.parse(json.stdout) as { findings: { fix?: string; blocks: boolean }[] }).findings.filter((f) => f.blocks && f.fix !== undefined)).toEqual([]);
    expect(read(dir, FILE)).toBe(main);
    // Followed as printed: on the pushed branch, the command reconciles it and the push goes through.
    git(dir, ['checkout', '-q', 'docs']);
    const done = await runCli(dir, ['done', 'api', '--landed']);
    expect(done.code, done.stderr).toBe(0);
    commitAll(dir, 'api: reconcile PLAT-9');
    expect((await judgedPush(dir, 'docs')).status).toBe(0);
  });

  it('refuses a branch that deletes a listed generated file while the work tree still has it', async () => {
    const dir = published();
    git(dir, ['checkout', '-q', '-b', 'cleanup']);
    rmSync(join(dir, 'src/gen/client.ts'));
    commitAll(dir, 'Drop the generated client');
    git(dir, ['checkout', '-q', 'main']);
    const r = await judgedPush(dir, 'cleanup');
    expect(r.status, r.out).not.toBe(0);
    expect(r.out).toMatch(/src\/gen\/client\.ts is missing in [0-9a-f]{7} "Drop the generated client"[\s\S]*\[blocks push\]/);
    const tip = git(dir, ['rev-parse', 'cleanup']).trim();
    for (const found of [hookBlocks(r.out), await blocking(dir, 'isomorphic', tip)]) expect(found).toEqual([expect.stringContaining('src/gen/client.ts is missing')]);
  });

  it('an annotated tag sends its commits: judged as the branch would be (the hook passes the tag object)', async () => {
    const dir = published();
    git(dir, ['checkout', '-q', '-b', 'cleanup']);
    rmSync(join(dir, 'src/gen/client.ts'));
    commitAll(dir, 'Drop the generated client');
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['tag', '-a', '-m', 'release', 'v2', 'cleanup']);
    // A tag of that tag, as some release tooling makes.
    git(dir, ['tag', '-a', '-m', 'signed off', 'v2-approved', 'v2']);
    for (const tag of ['v2', 'v2-approved']) {
      // The tag of a tag is judged in-process as the hook judges it (the hook passes either object alike).
      const r = tag === 'v2' ? push(dir, tag) : await judgedPush(dir, tag);
      expect(r.status, r.out).not.toBe(0);
      expect(r.out).toMatch(/src\/gen\/client\.ts is missing in [0-9a-f]{7} "Drop the generated client"[\s\S]*\[blocks push\]/);
      const object = git(dir, ['rev-parse', tag]).trim();
      expect(git(dir, ['cat-file', '-t', object]).trim()).toBe('tag');
      for (const found of [hookBlocks(r.out), await blocking(dir, 'isomorphic', object)]) expect(found).toEqual([expect.stringContaining('src/gen/client.ts is missing')]);
    }
    expect(gitTry(dir, ['ls-remote', 'origin', 'refs/tags/v2']).stdout).toBe('');
    // A tag of a commit the remote already has sends nothing: it goes through.
    git(dir, ['tag', '-a', '-m', 'old', 'v1', 'main']);
    const ok = push(dir, 'v1');
    expect(ok.status, ok.out).toBe(0);
  });

  it('refuses a pushed checkpoint change that lists a file missing from the tip, though the work tree has it', async () => {
    const dir = published();
    edit(dir, (d) => { (d.context_primer as { generated_files: string[] }).generated_files.push('src/gen/server.ts — generated'); });
    commitAll(dir, 'api: list the server stub');
    write(dir, 'src/gen/server.ts', 'export {};\n'); // written but never committed
    const r = await judgedPush(dir, 'main');
    expect(r.status, r.out).not.toBe(0);
    // Never added (not ignored): the push carries a checkpoint naming a file it leaves out, in those words (r11 #4).
    expect(r.out).toMatch(/src\/gen\/server\.ts is not committed \(the work tree has it untracked\); commit it or drop it from the checkpoint \(as pushed in [0-9a-f]{7}\) \[blocks push\]/);
    const range = `${git(dir, ['rev-parse', 'origin/main']).trim()}..${headSha(dir)}`;
    for (const found of [hookBlocks(r.out), await blocking(dir, 'isomorphic', range)]) expect(found).toEqual([expect.stringContaining('src/gen/server.ts is not committed')]);
  });

  it('a pushed HEAD carrying a verified_for_sha that is no commit here is refused, once', async () => {
    const dir = published();
    edit(dir, (d) => { d.skill_state = { verified_for_sha: 'release-v1 (pre-commit; base deadbee1234)' }; });
    commitAll(dir, 'api: verified');
    const r = await judgedPush(dir, 'main');
    expect(r.status, r.out).not.toBe(0);
    expect(r.out.match(/verified_for_sha deadbee1234 is not a commit in this repository/g)).toHaveLength(1);
    expect(r.out).toMatch(/deadbee1234 is not a commit in this repository \[blocks push\]/);
  });

  it('prose in verified_for_sha whose only number is no commit ("CI build 20261201 green") is a note and never blocks a push', async () => {
    const dir = published();
    edit(dir, (d) => { d.skill_state = { verified_for_sha: 'CI build 20261201 green' }; });
    commitAll(dir, 'api: verified');
    const r = await judgedPush(dir, 'main');
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain('verified_for_sha "CI build 20261201 green" names no commit of this repository (20261201 is none); not checked');
    for (const engine of ['native', 'isomorphic']) expect(await blocking(dir, engine, headSha(dir))).toEqual([]);
  });

  it('a finding the work tree and the pushed HEAD share is one line, in the work tree\'s words: a rename from before the push keeps its hint', async () => {
    const dir = published();
    write(dir, 'src/gen/types.ts', 'export type T = 1;\n');
    edit(dir, (d) => { (d.context_primer as { generated_files: string[] }).generated_files.push('src/gen/types.ts'); });
    commitAll(dir, 'api: list the types');
    git(dir, ['mv', 'src/gen/client.ts', 'src/gen/api-client.ts']);
    const renamed = commitAll(dir, 'Rename the client');
    expect(gitTry(dir, ['push', '--no-verify', '-q', 'origin', 'main']).status).toBe(0);
    // The push: an edit of a listed file, and a checkpoint change that carries the stale entry.
    write(dir, 'src/gen/types.ts', 'export type T = 2;\n');
    const edited = commitAll(dir, 'Regenerate types');
    edit(dir, (d) => { d.step = 'review'; });
    commitAll(dir, 'api: review');
    const range = `${git(dir, ['rev-parse', 'origin/main']).trim()}..${headSha(dir)}`;
    for (const engine of ['native', 'isomorphic']) {
      const out = (await runCli(dir, ['doctor', '--fail-on-warnings', '--engine', engine, '--pushed', range])).stdout;
      const lines = (i: number) => out.split('\n').filter((l) => l.includes(`generated_files[${i}]`));
      expect(lines(0), out).toEqual([expect.stringMatching(new RegExp(`src/gen/client\\.ts is missing: renamed to src/gen/api-client\\.ts in ${renamed.slice(0, 7)}.* \\[blocks push\\]$`))]);
      expect(lines(1), out).toEqual([expect.stringMatching(new RegExp(`src/gen/types\\.ts changed after the checkpoint was written \\(${edited.slice(0, 7)} .* \\[blocks push\\]$`))]);
      expect(out, engine).toContain('2 pushed commits, 2 blocking\n');
      // By hand without --fail-on-warnings a warning blocks nothing: each line and the count say what the hook would do.
      const byHand = (await runCli(dir, ['doctor', '--engine', engine, '--pushed', range])).stdout;
      expect(byHand.split('\n').filter((l) => l.includes('generated_files[')).map((l) => l.endsWith(' [blocks push under --fail-on-warnings]')), byHand).toEqual([true, true]);
      expect(byHand, engine).toContain('2 pushed commits, 0 blocking (2 more under --fail-on-warnings, as the pre-push hook runs doctor)\n');
    }
    const r = await judgedPush(dir, 'main');
    expect(r.status, r.out).not.toBe(0);
    // One line (its fix repeats the new name in the entry it writes).
    expect(r.out.split('\n').filter((l) => /renamed to src\/gen\/api-client\.ts/.test(l)), r.out).toHaveLength(1);
  });

  it('a pull request merged at the tip that changed a listed file is one line, not the merge and the branch commit; the footer says how to clear it, and a save after it does (red team s56)', async () => {
    const dir = published();
    git(dir, ['checkout', '-q', '-b', 'regen']);
    write(dir, 'src/gen/client.ts', 'export const client = 2;\n');
    const regen = commitAll(dir, 'Regenerate the client');
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--no-ff', 'regen', '-m', 'Merge pull request #14 from me/regen']);
    const merge = headSha(dir);
    const range = `${git(dir, ['rev-parse', 'origin/main']).trim()}..${merge}`;
    for (const engine of ['native', 'isomorphic']) {
      const out = (await runCli(dir, ['doctor', '--fail-on-warnings', '--engine', engine, '--pushed', range])).stdout;
      const about = out.split('\n').filter((l) => l.includes('src/gen/client.ts'));
      // The commit that changed it is named, not the merge that brought it in (red team 60, 04).
      expect(about, `${engine}: ${out}`).toEqual([expect.stringMatching(new RegExp(`changed after the checkpoint was written \\(${regen.slice(0, 7)} "Regenerate the client", .*; re-read it \\[blocks push\\]$`))]);
      expect(out, engine).toContain("re-read it, save the checkpoint (e.g. checkpoint update api --progress_summary='<what the change means for the work>'), commit, and push again");
    }
    expect((await judgedPush(dir, 'main')).status).not.toBe(0);
    // What the footer says to do: a save after the change, committed.
    expect((await runCli(dir, ['update', 'api', '--progress_summary=The client is regenerated; docs read it'])).code).toBe(0);
    commitAll(dir, 'api: re-read the regenerated client');
    const r = await judgedPush(dir, 'main');
    expect(r.status, r.out).toBe(0);
  });

  it('refuses a push that adds a misnamed checkpoint file or renames one to such a name; one already published does not block', async () => {
    const dir = published();
    const base = headSha(dir);
    const legacy = '{"schema_version":"1.0","skill":"Foo","status":"in_progress","updated_at":"2026-06-01T09:00:00Z"}\n';
    for (const name of ['Foo', 'a b', 'x..y']) write(dir, `.checkpoints/${name}.checkpoint.json`, legacy);
    commitAll(dir, 'Keep the old skills around');
    git(dir, ['mv', FILE, '.checkpoints/API.checkpoint.json']);
    commitAll(dir, 'Rename api (PR 12)');
    const tip = headSha(dir);
    const r = await judgedPush(dir, 'main');
    expect(r.status, r.out).not.toBe(0);
    for (const name of ['Foo', 'a b', 'x..y', 'API']) {
      expect(r.out.split('\n').filter((l) => l.includes(`.checkpoints/${name}.checkpoint.json:`)), r.out).toEqual([expect.stringMatching(/is not a valid skill name.*\[blocks push\]$/)]);
    }
    expect(git(dir, ['ls-remote', 'origin', 'refs/heads/main']).startsWith(base)).toBe(true);
    for (const found of [hookBlocks(r.out), await blocking(dir, 'isomorphic', `${base}..${tip}`)]) expect(found.length, r.out).toBe(4);
    // Published anyway: an unrelated push is not this one's doing.
    expect(gitTry(dir, ['push', '--no-verify', '-q', 'origin', 'main']).status).toBe(0);
    write(dir, 'README.md', 'unrelated\n');
    commitAll(dir, 'Fix a typo');
    const range = `${tip}..${headSha(dir)}`;
    expect(await blocking(dir, 'isomorphic', range)).toEqual([]);
    const later = await judgedPush(dir, 'main');
    expect(later.status, later.out).toBe(0);
    expect(hookBlocks(later.out)).toEqual([]);
    expect(later.out).toMatch(/Foo\.checkpoint\.json: .*is not a valid skill name/);
  });

  it('refuses a push that adds or changes a checkpoint kept below the top (never checked there); one already published does not block (red team 62b 2)', async () => {
    const dir = published();
    const base = headSha(dir);
    const nested = 'packages/app/.checkpoints/app.checkpoint.json';
    const doc = (summary: string) => `{"protocol_version":"1.1","skill":"app","project":"app","project_dir":"/home/dev/mono/packages/app","created_at":"2026-06-01T09:00:00Z","updated_at":"2026-06-02T09:00:00Z","phase":"build","step":"auth (PR 12)","status":"in-progress","progress_summary":"${summary}","next_actions":["Finish the auth middleware"],"skill_state":{"score":8.0}}\n`;
    write(dir, 'packages/app/package.json', '{"name":"app"}\n');
    write(dir, nested, doc('Auth at 8.0/10'));
    commitAll(dir, 'app: keep its checkpoint beside it');
    const tip = headSha(dir);
    const said = /^ {2}warning packages\/app\/\.checkpoints\/ holds a checkpoint, but checkpoint keeps this repository's at its top \(.*\), so it is never read or checked; from the top, move it there \(git mv packages\/app\/\.checkpoints\/\*\.checkpoint\.json \.checkpoints\/\), then run checkpoint anywhere in the repository/;
    const r = await judgedPush(dir, 'main');
    expect(r.status, r.out).not.toBe(0);
    expect(hookBlocks(r.out), r.out).toEqual([expect.stringMatching(said)]);
    expect(await blocking(dir, 'isomorphic', `${base}..${tip}`)).toEqual([expect.stringContaining('packages/app/.checkpoints/ holds a checkpoint')]);
    // A side branch adding one, pushed while main is checked out: judged in its tip, as pushed.
    git(dir, ['checkout', '-q', '-b', 'web', base]);
    write(dir, 'packages/web/.checkpoints/web.checkpoint.json', doc('Web shell'));
    commitAll(dir, 'web: keep its checkpoint beside it');
    git(dir, ['checkout', '-q', 'main']);
    const side = await judgedPush(dir, 'web');
    expect(side.status, side.out).not.toBe(0);
    expect(hookBlocks(side.out)).toEqual([expect.stringMatching(/^ {2}warning packages\/web\/\.checkpoints\/ holds a checkpoint, .*\(as pushed in [0-9a-f]{7}\) \[blocks push\]$/)]);
    // Published anyway: an unrelated push is not this one's doing, and still says it.
    expect(gitTry(dir, ['push', '--no-verify', '-q', 'origin', 'main']).status).toBe(0);
    write(dir, 'README.md', 'unrelated\n');
    commitAll(dir, 'Fix a typo');
    const later = await judgedPush(dir, 'main');
    expect(later.status, later.out).toBe(0);
    expect(hookBlocks(later.out)).toEqual([]);
    expect(later.out.split('\n')).toContainEqual(expect.stringMatching(said));
    expect(await blocking(dir, 'isomorphic', `${tip}..${headSha(dir)}`)).toEqual([]);
    // A push that changes it carries it again.
    write(dir, nested, doc('Auth at 9.0/10'));
    commitAll(dir, 'app: auth reviewed');
    const changed = await judgedPush(dir, 'main');
    expect(changed.status, changed.out).not.toBe(0);
    expect(hookBlocks(changed.out), changed.out).toEqual([expect.stringMatching(said)]);
  });

  it('work-tree drift is printed but never blocks a push whose tip is sound', async () => {
    const dir = published();
    write(dir, 'README.md', 'unrelated\n');
    commitAll(dir, 'Fix a typo');
    // Uncommitted breakage in the work tree: shown, not judged (the hook's doctor run, in-process).
    edit(dir, (d) => { d.status = 'ready-to-deploy'; });
    const r = await judgedPush(dir, 'main');
    expect(r.status, r.out).toBe(0);
    expect(r.out).toMatch(/ready-to-deploy/);
  });
  it('a .checkpoints the work tree cannot be read through (a link out of the project, a plain file) is a note: a clean branch pushes, a drifted one is still refused, from git\'s objects (red team 62d 3)', async () => {
    const dir = published();
    git(dir, ['checkout', '-q', '-b', 'clean']);
    write(dir, 'NOTES.md', 'unrelated\n');
    commitAll(dir, 'Unrelated notes');
    git(dir, ['checkout', '-q', '-b', 'cleanup', 'main']);
    rmSync(join(dir, 'src/gen/client.ts'));
    commitAll(dir, 'Drop the generated client');
    git(dir, ['checkout', '-q', 'main']);
    // Moved to a folder shared between clones, linked back (uncommitted): git cannot hold what is beyond the link.
    const shared = join(tempDir('cp-shared-'), 'checkpoints');
    cpSync(join(dir, '.checkpoints'), shared, { recursive: true });
    rmSync(join(dir, '.checkpoints'), { recursive: true });
    symlinkSync(shared, join(dir, '.checkpoints'));
    const clean = push(dir, 'clean');
    expect(clean.status, clean.out).toBe(0);
    expect(clean.out).toMatch(/info +\.checkpoints\/: the work tree's checkpoints were not read: \.checkpoints is a symlink to .*, outside the project; refused \(.*\); the push is judged on the checkpoints the pushed commits hold/);
    expect(clean.out).not.toMatch(/reconcile the checkpoints above|config\.json/);
    expect(remoteHas(dir, 'clean')).toBe(true);
    const drifted = push(dir, 'cleanup');
    expect(drifted.status, drifted.out).not.toBe(0);
    expect(hookBlocks(drifted.out)).toEqual([expect.stringContaining('src/gen/client.ts is missing')]);
    expect(remoteHas(dir, 'cleanup')).toBe(false);
    // A plain file where the folder belongs: the same verdicts, on both engines.
    rmSync(join(dir, '.checkpoints'));
    write(dir, '.checkpoints', 'moved to ../shared/checkpoints\n');
    const tip = git(dir, ['rev-parse', 'cleanup']).trim();
    for (const engine of ['native', 'isomorphic']) {
      expect(await blocking(dir, engine, tip), engine).toEqual([expect.stringContaining('src/gen/client.ts is missing')]);
      const r = await runCli(dir, ['doctor', '--fail-on-warnings', '--engine', engine, '--pushed', `origin/main..clean`]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/the work tree's checkpoints were not read: \.checkpoints is a file, not a folder; refused/);
    }
    // Outside a push nothing else is judged: plain doctor still refuses it in one line (exit 2).
    const plain = await runCli(dir, ['doctor']);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/^checkpoint: \.checkpoints is a file, not a folder; refused/);
  });
  it('a folder listed in generated_files ("src/gen/", "src/gen") is in the pushed tip when the tip holds files under it', async () => {
    const dir = published();
    write(dir, 'src/gen/deep/more.ts', 'export {};\n');
    edit(dir, (d) => { (d.context_primer as { generated_files: string[] }).generated_files.push('src/gen/', 'src/gen', 'src/gen/deep/'); });
    commitAll(dir, 'api: list the generated folder');
    const base = git(dir, ['rev-parse', 'origin/main']).trim();
    const tip = headSha(dir);
    expect(await blocking(dir, 'isomorphic', `${base}..${tip}`)).toEqual([]);
    const r = await judgedPush(dir, 'main');
    expect(r.status, r.out).toBe(0);
    expect(hookBlocks(r.out)).toEqual([]);
    expect(r.out).not.toMatch(/src\/gen\/? is not committed/);
    // A push that deletes the listed folder is drift it causes.
    git(dir, ['rm', '-q', '-r', 'src/gen']);
    commitAll(dir, 'Drop the generated client');
    const gone = headSha(dir);
    for (const engine of ['native', 'isomorphic']) expect((await blocking(dir, engine, `${tip}..${gone}`)).join('\n'), engine).toMatch(/src\/gen\/deep\/ is missing/);
  });
  it('a submodule, and a file inside one, listed in generated_files never block a push that changes the checkpoint', async () => {
    const dir = published();
    const sub = makeRepo();
    write(sub, 'lib.ts', 'export {};\n');
    commitAll(sub, 'lib');
    git(dir, ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'vendor/lib']);
    commitAll(dir, 'Add the vendored lib');
    expect(gitTry(dir, ['push', '--no-verify', '-q', 'origin', 'main']).status).toBe(0);
    const base = headSha(dir);
    edit(dir, (d) => { (d.context_primer as { generated_files: string[] }).generated_files.push('vendor/lib', 'vendor/lib/', 'vendor/lib/lib.ts'); });
    commitAll(dir, 'api: list the vendored lib');
    const tip = headSha(dir);
    // In the work tree too the engines agree: a file inside a submodule is the submodule's, never "not tracked" (red team, 12-05).
    // Each engine's findings, asked once per state of the work tree.
    const listed = async (engine: string) => (JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings as { check: string; message: string }[]).filter((f) => f.check === 'generated_files').map((f) => f.message);
    const [native, iso] = [await listed('native'), await listed('isomorphic')];
    expect(iso).toEqual(native);
    expect(iso.join('\n')).not.toMatch(/not tracked/);
    // The submodule's checkout moved on: both name its uncommitted change, as git status does.
    write(join(dir, 'vendor/lib'), 'more.ts', 'export {};\n');
    commitAll(join(dir, 'vendor/lib'), 'more');
    const [moved, movedIso] = [await listed('native'), await listed('isomorphic')];
    expect(moved.join('\n')).toMatch(/vendor\/lib\/ has uncommitted edits/);
    expect(movedIso).toEqual(moved);
    expect(moved.join('\n')).not.toMatch(/not tracked/);
    git(join(dir, 'vendor/lib'), ['checkout', '-q', 'HEAD~1']);
    expect(await blocking(dir, 'isomorphic', `${base}..${tip}`)).toEqual([]);
    const r = await judgedPush(dir, 'main');
    expect(r.status, r.out).toBe(0);
    expect(hookBlocks(r.out)).toEqual([]);
  });
  it('a new branch pushed from a clone with no remote-tracking refs: all its history is judged, and the refusal says how to narrow that', async () => {
    const dir = published();
    // main already on the remote, carrying a drifted checkpoint, but pushed in a way that left no tracking ref.
    edit(dir, (d) => { d.status = 'ready-to-deploy'; });
    commitAll(dir, 'api: a status outside the enum');
    expect(gitTry(dir, ['push', '--no-verify', '-q', 'origin', 'main']).status).toBe(0);
    git(dir, ['update-ref', '-d', 'refs/remotes/origin/main']);
    git(dir, ['checkout', '-q', '-b', 'docs']);
    write(dir, 'NOTES.md', 'unrelated\n');
    commitAll(dir, 'Unrelated notes');
    const refused = push(dir, 'docs');
    expect(refused.status, refused.out).not.toBe(0);
    expect(refused.out).toMatch(/note: this clone has no remote-tracking refs, so a new branch counts every commit it holds as pushed; .*git fetch <name>/);
    // Once fetched, the same push sends one unrelated commit: through, and no note.
    git(dir, ['fetch', '-q', 'origin']);
    const through = await judgedPush(dir, 'docs');
    expect(through.status, through.out).toBe(0);
    expect(through.out).not.toMatch(/no remote-tracking refs/);
    // A clone with tracking refs whose new branch carries the drift itself: refused without the note.
    git(dir, ['checkout', '-q', '-b', 'drift']);
    edit(dir, (d) => { d.status = 'shipped?'; });
    commitAll(dir, 'api: another status');
    const own = await judgedPush(dir, 'drift');
    expect(own.status, own.out).not.toBe(0);
    expect(own.out).not.toMatch(/no remote-tracking refs/);
  });
});

describe('--whole-range: a push judged after it reached the remote, as CI judges it (red team 62d 2)', () => {
  it('every commit of the range is judged, those a remote-tracking ref holds too, on both engines; without it the remote has them all and nothing blocks', async () => {
    const dir = published();
    const before = headSha(dir);
    rmSync(join(dir, 'src/gen/client.ts'));
    commitAll(dir, 'Drop the generated client');
    // Pushed past the hook: origin/main now holds the drift, as a CI clone's refs hold every pushed commit.
    expect(gitTry(dir, ['push', '--no-verify', '-q', 'origin', 'main']).status).toBe(0);
    const range = `${before}..${headSha(dir)}`;
    for (const engine of ['native', 'isomorphic']) {
      expect(await blocking(dir, engine, range), engine).toEqual([]);
      const r = await runCli(dir, ['doctor', '--json', '--fail-on-warnings', '--whole-range', '--engine', engine, '--pushed', range]);
      expect(r.code, engine).toBe(1);
      const report = JSON.parse(r.stdout) as { pushed_commits: number; findings: { message: string; blocks: boolean }[] };
      expect(report.pushed_commits, engine).toBe(1);
      expect(report.findings.filter((f) => f.blocks).map((f) => f.message), engine).toEqual([expect.stringContaining('src/gen/client.ts is missing')]);
    }
    const text = await runCli(dir, ['doctor', '--fail-on-warnings', '--whole-range', '--pushed', `${before}..main`]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/the commits of the range cause or carry the findings marked \[blocks push\]; reconcile the checkpoints with them, commit and push\n/);
    expect(text.stdout).not.toMatch(/--no-verify/);
    // It says how to read --pushed: alone it is a usage error, in one line.
    const alone = await runCli(dir, ['doctor', '--whole-range']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/^checkpoint: --whole-range says how to read the --pushed ranges, and no --pushed was given; hint: e\.g\. checkpoint doctor --fail-on-warnings --whole-range --pushed "\$BEFORE\.\.\$GITHUB_SHA"\n$/);
  });
});

describe('--pushed names what is pushed (red team, 12-04)', () => {
  it('a `to` that names no object here is refused in one line, exit 2, on both engines; a remote `from` this clone lacks and a pushed tag of a tree are taken', async () => {
    const dir = published();
    const head = headSha(dir);
    const unknown = 'deadbeef'.repeat(5);
    for (const engine of ['native', 'isomorphic']) {
      for (const range of [unknown, `${head}..${unknown}`]) {
        const r = await runCli(dir, ['doctor', '--engine', engine, `--pushed=${range}`]);
        expect(r.code, `${engine} ${range}`).toBe(2);
        expect(r.stderr.trim().split('\n'), engine).toEqual([`checkpoint: --pushed: ${unknown}, the commit it says is pushed, names no object in this repository; hint: give the commit being pushed (git rev-parse <branch>); the pre-push hook passes the ranges git gives it`]);
      }
      // A name that names no commit: the same one line, never "nothing pushed".
      const named = await runCli(dir, ['doctor', '--engine', engine, '--pushed=origin/nope..HEAD']);
      expect(named.code, engine).toBe(2);
      expect(named.stderr.trim().split('\n'), engine).toEqual([expect.stringMatching(/^checkpoint: --pushed: origin\/nope names no commit in this repository; hint: give a branch, tag or remote-tracking ref/)]);
      // A force push: the remote's old tip is no object here; a tag of a tree sends no commit.
      expect((await runCli(dir, ['doctor', '--engine', engine, `--pushed=${unknown}..${head}`])).code, engine).toBe(0);
      git(dir, ['tag', '-f', '-a', 'tree-tag', '-m', 'a tree', `${head}^{tree}`]);
      expect((await runCli(dir, ['doctor', '--engine', engine, `--pushed=${git(dir, ['rev-parse', 'tree-tag']).trim()}`])).code, engine).toBe(0);
    }
  });
});

describe('--pushed takes what git passes (red team, 12-05)', () => {
  it('a deleted ref (an all-zero `to`) sends nothing and is taken on both engines, as before the unknown-object check', async () => {
    const dir = published();
    const head = headSha(dir);
    const zeros = '0'.repeat(40);
    for (const engine of ['native', 'isomorphic']) {
      for (const range of [`${head}..${zeros}`, zeros]) {
        const r = await runCli(dir, ['doctor', '--engine', engine, `--pushed=${range}`]);
        expect(r.code, `${engine} ${range}: ${r.stderr}`).toBe(0);
        expect(r.stdout, engine).toMatch(/0 pushed commits, 0 blocking/);
      }
    }
  });

  it('outside any git repository a pushed `to` is refused in one line, exit 2, files unchanged; a deletion alone sends nothing', async () => {
    const dir = published();
    const head = headSha(dir);
    const plain = tempDir('cp-no-repo-');
    cpSync(join(dir, '.checkpoints'), join(plain, '.checkpoints'), { recursive: true });
    const before = read(plain, FILE);
    const r = await runCli(plain, ['doctor', `--pushed=${head}`]);
    expect(r.code, r.stdout).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^checkpoint: --pushed: ${head}, the commit it says is pushed, names no object: .* is not in a git repository; hint: `))]);
    expect(read(plain, FILE)).toBe(before);
    expect((await runCli(plain, ['doctor', `--pushed=${head}..${'0'.repeat(40)}`])).code).toBe(0);
  });
});

describe('many refs at once (red team, 12-06: a push of 100 tags and 100 branches took a minute)', () => {
  it('a tag and a branch at one commit are judged once: no more git runs than for the branches alone, the same verdict', async () => {
    const dir = published();
    for (const i of [1, 2, 3]) {
      write(dir, `notes/f${i}.md`, `release ${i}\n`);
      commitAll(dir, `Release ${i}`);
      git(dir, ['tag', '-a', `v${i}`, '-m', `v${i}`]);
      git(dir, ['branch', `rel-${i}`]);
    }
    const sha = (ref: string) => git(dir, ['rev-parse', `${ref}^{commit}`]).trim();
    // Each run in its own copy: no cache one run leaves serves the other.
    const runs = async (refs: string[]) => {
      const copy = join(tempDir('cp-many-refs-'), 'work');
      cpSync(dir, copy, { recursive: true });
      const trace = join(copy, '..', 'trace.txt');
      const r = await runCli(copy, ['doctor', '--engine', 'native', '--fail-on-warnings', ...refs.map((ref) => `--pushed=${sha(ref)}`)], { env: { GIT_TRACE: trace } });
      return { code: r.code, summary: r.stdout.trim().split('\n').pop(), gits: read(join(copy, '..'), 'trace.txt').split('\n').filter((l) => / trace: built-in: git /.test(l)).length };
    };
    const branches = await runs(['rel-1', 'rel-2', 'rel-3']);
    const both = await runs(['v1', 'rel-1', 'v2', 'rel-2', 'v3', 'rel-3']);
    expect(branches.code).toBe(0);
    expect({ ...both, gits: 0 }).toEqual({ ...branches, gits: 0 });
    // One look per ref named (is it an object?), no tip judged twice (a judgement is several runs).
    expect(both.gits - branches.gits).toBeLessThanOrEqual(3);
  });

  it('a pushed checkpoint listing build outputs git ignores here (.gitignore, info/exclude) does not block for them; a plain missing file still does', async () => {
    const dir = published();
    write(dir, '.gitignore', 'dist/\n');
    writeFileSync(join(dir, '.git/info/exclude'), '*.gen.ts\n');
    write(dir, 'dist/bundle.js', 'built\n');
    edit(dir, (doc) => {
      (doc.context_primer as { generated_files: string[] }).generated_files.push('dist/bundle.js (npm run build)', 'src/api.gen.ts', 'src/handwritten.ts');
    });
    commitAll(dir, 'List the build outputs');
    const r = await runCli(dir, ['doctor', '--engine', 'native', '--fail-on-warnings', `--pushed=${git(dir, ['rev-parse', 'origin/main']).trim()}..${headSha(dir)}`]);
    const blocking = r.stdout.split('\n').filter((l) => l.endsWith('[blocks push]'));
    expect(r.code, r.stdout).toBe(1);
    expect(blocking).toEqual([expect.stringContaining('src/handwritten.ts is missing')]);
  });

  it('missing files a pushed checkpoint lists are looked up for every tip at once: five tips start no more git than one, the same findings', async () => {
    const dir = published();
    edit(dir, (doc) => {
      (doc.context_primer as { generated_files: string[] }).generated_files.push('src/gen/types.ts', 'docs/api.md (PR 12)', 'vendor/sdk/index.ts');
    });
    commitAll(dir, 'List the generated types, the docs and the sdk');
    for (const i of [1, 2, 3, 4]) {
      write(dir, `notes/f${i}.md`, `release ${i}\n`);
      commitAll(dir, `Release ${i}`);
      git(dir, ['branch', `rel-${i}`]);
    }
    const sha = (ref: string) => git(dir, ['rev-parse', `${ref}^{commit}`]).trim();
    const base = sha('origin/main');
    const runs = async (refs: string[]) => {
      const copy = join(tempDir('cp-many-tips-'), 'work');
      cpSync(dir, copy, { recursive: true });
      const trace = join(copy, '..', 'trace.txt');
      const r = await runCli(copy, ['doctor', '--engine', 'native', '--fail-on-warnings', ...refs.map((ref) => `--pushed=${base}..${sha(ref)}`)], { env: { GIT_TRACE: trace } });
      const missing = r.stdout.split('\n').filter((l) => / is missing/.test(l));
      return { code: r.code, missing, gits: read(join(copy, '..'), 'trace.txt').split('\n').filter((l) => / trace: built-in: git /.test(l)).length };
    };
    const one = await runs(['main']);
    const five = await runs(['rel-1', 'rel-2', 'rel-3', 'rel-4', 'main']);
    expect(one.code).toBe(1);
    expect(five.code).toBe(1);
    // The three missing files, each one line whichever tips lack it, blocking the push.
    expect(one.missing).toHaveLength(3);
    expect(one.missing.every((l) => l.endsWith('[blocks push]'))).toBe(true);
    expect(five.missing).toEqual(one.missing);
    // Not three lookups per tip and file (a missing file's folder and submodules): the same questions, asked for all tips together.
    expect(five.gits - one.gits, JSON.stringify({ one: one.gits, five: five.gits })).toBeLessThanOrEqual(3);
  });
});

