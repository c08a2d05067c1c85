// Installing the merge driver (spaces in paths, linked worktrees, exact uninstall) and
// `checkpoint resolve` on files a merge without the driver left conflicted.
import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { ATTRIBUTES_MARKER } from '../../src/install/attributes.js';
import { join, resolve } from 'node:path';
import { BIN, cleanup, cli, cliGuarded, commitAll, git, gitTry, makeRepo, read, ROOT, tempDir, withRemote, write } from '../helpers/repo.js';
import { execFileSync, spawnSync } from 'node:child_process';
import { runCli } from '../helpers/in-process.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));
const repo = () => {
  const d = makeRepo();
  dirs.push(d);
  return d;
};

const cp = (over: Record<string, unknown>) => ({
  protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: '/demo',
  created_at: '2026-11-01T00:00:00Z', updated_at: '2026-11-01T00:00:00Z',
  phase: 'build', step: 'one', status: 'in_progress', progress_summary: 'Working.',
  progress_table: [{ id: 'one', label: 'One', status: 'in_progress' }], context_primer: { key_decisions: [] },
  next_actions: ['first', 'second'], recently_done: [], ...over,
});
const save = (dir: string, doc: unknown) => write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(doc, null, 2)}\n`);

/** Two branches that both changed telemetry and logs: a plain text merge conflicts. */
function divergedRepo(): string {
  const dir = repo();
  save(dir, cp({}));
  commitAll(dir, 'base');
  git(dir, ['checkout', '-q', '-b', 'other']);
  save(dir, cp({ updated_at: '2026-11-02T00:00:00Z', next_actions: ['second'], recently_done: [{ at: '2026-11-02T00:00:00Z', action: 'first' }] }));
  commitAll(dir, 'other session');
  git(dir, ['checkout', '-q', 'main']);
  save(dir, cp({ updated_at: '2026-11-03T00:00:00Z', next_actions: ['first', 'second', 'third'], recently_done: [{ at: '2026-11-03T00:00:00Z', action: 'setup' }] }));
  commitAll(dir, 'main session');
  return dir;
}

describe('install-driver', () => {
  it('registers the driver with a quoted path that works with spaces, and uninstall removes exactly that', async () => {
    const pkg = join(tempDir('cp pkg with spaces '), "it's here");
    dirs.push(pkg);
    mkdirSync(pkg, { recursive: true });
    for (const part of ['bin', 'dist', 'hooks', 'package.json']) cpSync(join(ROOT, part), join(pkg, part), { recursive: true });
    const dir = divergedRepo();
    write(dir, '.gitattributes', '*.png binary\n');
    commitAll(dir, 'attributes');
    const configBefore = read(dir, '.git/config');
    const run = spawnSync(process.execPath, [join(pkg, 'bin/checkpoint.js'), 'install-driver'], { cwd: dir, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(git(dir, ['config', 'merge.checkpoint.driver'])).toContain("it'\\''s here");
    // No merge.checkpoint.recursive: git merges a criss-cross merge's bases through the driver too.
    expect(gitTry(dir, ['config', 'merge.checkpoint.recursive']).status).toBe(1);
    expect(read(dir, '.gitattributes')).toContain('.checkpoints/*.checkpoint.json merge=checkpoint');
    // Idempotent.
    expect(spawnSync(process.execPath, [join(pkg, 'bin/checkpoint.js'), 'install-driver'], { cwd: dir, encoding: 'utf8' }).stdout).toContain('already installed');
    git(dir, ['checkout', '-q', '.gitattributes']);
    write(dir, '.gitattributes', `${read(dir, '.gitattributes')}.checkpoints/*.checkpoint.json merge=checkpoint\n`);
    commitAll(dir, 'route checkpoints to the driver');
    const merged = gitTry(dir, ['merge', '-q', '--no-edit', 'other']);
    expect(merged.status, merged.stderr).toBe(0);
    const result = JSON.parse(read(dir, '.checkpoints/api.checkpoint.json'));
    expect(result.next_actions).toEqual(['second', 'third']);
    expect(result.recently_done).toHaveLength(2);
    expect(result.updated_at).toBe('2026-11-03T00:00:00Z');

    const fresh = repo();
    const attrs = '*.png binary\n';
    write(fresh, '.gitattributes', attrs);
    const before = read(fresh, '.git/config');
    expect(cli(fresh, ['install-driver']).code).toBe(0);
    expect(cli(fresh, ['uninstall-driver']).code).toBe(0);
    expect(read(fresh, '.git/config')).toBe(before);
    expect(read(fresh, '.gitattributes')).toBe(attrs);
    expect(configBefore).not.toContain('checkpoint');
  });

  it('is correct in a linked worktree and skippable by environment', async () => {
    const dir = repo();
    const wt = join(tempDir('cp-wt-'), 'wt');
    dirs.push(wt);
    git(dir, ['worktree', 'add', '-q', wt]);
    expect(cli(wt, ['install-driver']).code).toBe(0);
    expect(read(dir, '.git/config')).toContain('[merge "checkpoint"]');
    expect(existsSync(join(wt, '.gitattributes'))).toBe(true);
    const doctor = JSON.parse((await runCli(wt, ['doctor', '--json'])).stdout);
    expect(doctor.findings.filter((f: { check: string }) => f.check === 'merge_driver')).toEqual([]);
    const other = repo();
    // The variable quiets the npm prepare script (--optional) only: a command typed on purpose installs (red team 61h, 05).
    const skipped = cli(other, ['install-driver', '--optional'], { env: { CHECKPOINT_SKIP_INSTALL: '1' } });
    expect(skipped.code).toBe(0);
    expect(skipped.stderr).toContain('skipped');
    expect(read(other, '.git/config')).not.toContain('checkpoint');
    const typed = cli(other, ['install-driver'], { env: { CHECKPOINT_SKIP_INSTALL: '1' } });
    expect([typed.code, typed.stderr]).toEqual([0, '']);
    expect(read(other, '.git/config')).toContain('[merge "checkpoint"]');
    const plain = tempDir();
    dirs.push(plain);
    expect(cli(plain, ['install-driver', '--optional']).code).toBe(0);
    expect(cli(plain, ['install-driver']).code).toBe(2);
  });

  it('install-driver --optional (npm prepare) succeeds quietly where git cannot open the clone: no git installed (a node:alpine image), a .git file whose repository was not copied', async () => {
    const dir = repo();
    const config = read(dir, '.git/config');
    const noGit = tempDir('cp-no-git-');
    dirs.push(noGit);
    const skipped = cli(dir, ['install-driver', '--optional'], { env: { PATH: noGit } });
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(skipped.stderr).toContain('git was not found');
    expect(read(dir, '.git/config')).toBe(config);
    expect(existsSync(join(dir, '.gitattributes'))).toBe(false);
    const refused = cli(dir, ['install-driver'], { env: { PATH: noGit } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^checkpoint: git was not found on PATH; hint: install git/);
    // A worktree or submodule folder copied (COPY . . in a Dockerfile) without the repository its .git file names.
    const copied = tempDir('cp-copied-');
    dirs.push(copied);
    write(copied, '.git', 'gitdir: /nowhere/repo/.git/worktrees/feature\n');
    const quiet = cli(copied, ['install-driver', '--optional']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).toContain('nothing to install');
    const named = cli(copied, ['install-driver']);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain(`${copied} is not a git repository git can open`);
    // A clone git opens, where the install is refused (a committed .gitattributes link) or git
    // turns the write down (a stale .git/config.lock): one warning line, npm install goes on.
    symlinkSync('/etc/hostname', join(dir, '.gitattributes'));
    const linked = cli(dir, ['install-driver', '--optional']);
    expect(linked.code, linked.stderr).toBe(0);
    expect(linked.stderr).toMatch(/^checkpoint install-driver: \.gitattributes is a symlink .*; merge driver not installed \(--optional: run checkpoint install-driver once that is fixed\)\n$/);
    rmSync(join(dir, '.gitattributes'));
    write(dir, '.git/config.lock', '');
    const locked = cli(dir, ['install-driver', '--optional']);
    expect(locked.code, locked.stderr).toBe(0);
    expect(locked.stderr).toMatch(/^checkpoint install-driver: git config .*could not lock config file.*; merge driver not installed/);
    expect(read(dir, '.git/config')).toBe(config);
    expect(existsSync(join(dir, '.gitattributes'))).toBe(false);
    expect(cli(dir, ['install-driver']).code).toBe(2);
  });
});

describe('install-driver is all or nothing', () => {
  it('a write git turns down half way (a second value of merge.checkpoint.driver) takes back the name set before it: .git/config byte-identical, no .gitattributes, --optional or not (stop 62 known limit)', () => {
    const dir = repo();
    // An older install's driver, then a second, empty value added by hand: git will not overwrite the pair with one value.
    expect(cli(dir, ['install-driver']).code).toBe(0);
    const older = git(dir, ['config', 'merge.checkpoint.driver']).trim().replaceAll(ROOT, '/opt/old-checkpoint');
    git(dir, ['config', '--unset-all', 'merge.checkpoint.driver']);
    git(dir, ['config', '--unset', 'merge.checkpoint.name']);
    git(dir, ['config', 'merge.checkpoint.driver', older]);
    git(dir, ['config', '--add', 'merge.checkpoint.driver', '']);
    rmSync(join(dir, '.gitattributes'));
    const config = read(dir, '.git/config');
    const optional = cli(dir, ['install-driver', '--optional']);
    expect(optional.code, optional.stderr).toBe(0);
    expect(optional.stderr).toMatch(/^checkpoint install-driver: git config --local merge\.checkpoint\.driver .* failed: .*cannot overwrite multiple values.*; none of the merge driver's install was kept \(merge\.checkpoint\.name put back as it was\); merge driver not installed \(--optional: run checkpoint install-driver once that is fixed\)\n$/);
    expect(read(dir, '.git/config')).toBe(config);
    expect(existsSync(join(dir, '.gitattributes'))).toBe(false);
    const typed = cli(dir, ['install-driver']);
    expect(typed.code).toBe(2);
    expect(typed.stderr).toContain("; none of the merge driver's install was kept (merge.checkpoint.name put back as it was)");
    expect(read(dir, '.git/config')).toBe(config);
    expect(existsSync(join(dir, '.gitattributes'))).toBe(false);
  });
});

describe('a repository used through GIT_DIR / GIT_WORK_TREE (red team, 12-07)', () => {
  it('init, install-driver and doctor name the variables and the way in, never "no repository" alone or a silent "no drift"', async () => {
    const base = tempDir('cp-gitdir-');
    dirs.push(base);
    const [gd, wk] = [join(base, 'gd'), join(base, 'wk')];
    mkdirSync(wk);
    execFileSync('git', ['init', '-q', '--bare', gd]);
    const env = { GIT_DIR: gd, GIT_WORK_TREE: wk };
    const init = cli(wk, ['init'], { env });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain(`merge driver and pre-push hook not installed: GIT_DIR and GIT_WORK_TREE are set, which checkpoint does not follow; it reads the repository from the project's own .git (a folder, or a file naming one: echo "gitdir: ${gd}" > .git)`);
    const driver = cli(wk, ['install-driver'], { env });
    expect(driver.code).toBe(2);
    expect(driver.stderr).toContain(`${wk} has no .git of its own: GIT_DIR and GIT_WORK_TREE are set`);
    const doctor = await runCli(wk, ['doctor'], { env });
    expect(doctor.stdout).toContain(`note: git history was not checked: ${wk} has no .git (it is not the root of a clone); GIT_DIR and GIT_WORK_TREE are set`);
    // Without the variables (a tarball in CI): the note alone.
    expect((await runCli(wk, ['doctor'])).stdout).toMatch(/note: git history was not checked: .* has no \.git \(it is not the root of a clone\)\n$/);
    // The way in the note gives works: a .git file naming the git dir.
    write(wk, '.git', `gitdir: ${gd}\n`);
    expect((await runCli(wk, ['doctor'])).stdout).not.toContain('git history was not checked');
  });
});

describe('a later .gitattributes line that decides how checkpoint files merge (red team, 12-04)', () => {
  it('init, install-driver and doctor name it (the driver would never run); without it, none does', async () => {
    const dir = makeRepo();
    expect(cli(dir, ['init']).code).toBe(0);
    write(dir, '.gitattributes', `${read(dir, '.gitattributes')}.checkpoints/** merge=union\n`);
    // It takes history files too: both our lines have to move below it.
    const message = '.gitattributes line 4 ".checkpoints/** merge=union" comes after the checkpoint lines and decides how checkpoint files merge (union): git never runs the checkpoint driver on them; remove it, or move the checkpoint lines below it';
    expect(git(dir, ['check-attr', 'merge', '--', '.checkpoints/api.checkpoint.json'])).toBe('.checkpoints/api.checkpoint.json: merge: union\n');
    expect(cli(dir, ['install-driver']).stdout).toContain(`! ${message}`);
    expect(cli(dir, ['init']).stdout).toContain(`! ${message}`);
    const health = (JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout).findings as { check: string; level: string; message: string }[]).filter((f) => f.check === 'merge_driver');
    expect(health).toEqual([expect.objectContaining({ level: 'warning', message })]);
    // `binary` after it turns merging off for them too; a line for other files is no matter.
    write(dir, '.gitattributes', `${read(dir, '.gitattributes').replace('.checkpoints/** merge=union\n', '')}*.json binary\n*.png merge=binary\n`);
    expect((await runCli(dir, ['doctor'])).stdout).toContain('.gitattributes line 4 "*.json binary" comes after the checkpoint lines and decides how checkpoint files merge (binary)');
    write(dir, '.gitattributes', read(dir, '.gitattributes').replace('*.json binary\n', ''));
    expect(cli(dir, ['install-driver']).stdout).toBe('✓ merge driver already installed\n');
    expect((JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout).findings as { check: string }[]).filter((f) => f.check === 'merge_driver')).toEqual([]);
    // The other files git reads attributes from, and a macro (red team, 12-04).
    for (const [file, text, named] of [
      ['.checkpoints/.gitattributes', '*.json merge=union\n', '.checkpoints/.gitattributes line 1 "*.json merge=union" decides how checkpoint files merge (union)'],
      ['.git/info/attributes', '*.json merge=union\n', '.git/info/attributes line 1 "*.json merge=union" decides how checkpoint files merge (union)'],
    ] as const) {
      write(dir, file, text);
      expect((await runCli(dir, ['doctor'])).stdout, file).toContain(named);
      rmSync(join(dir, file));
    }
    const top = read(dir, '.gitattributes');
    write(dir, '.gitattributes', `${top}[attr]nomerge -merge\n*.json nomerge\n`);
    expect(git(dir, ['check-attr', 'merge', '--', '.checkpoints/api.checkpoint.json'])).toBe('.checkpoints/api.checkpoint.json: merge: unset\n');
    expect((await runCli(dir, ['doctor'])).stdout).toContain('.gitattributes line 6 "*.json nomerge" comes after the checkpoint lines and decides how checkpoint files merge (binary)');
  });
});

describe('a line naming one checkpoint file takes it from the driver (red team, 61d-04)', () => {
  it('doctor, init and install-driver name the file, the line and where it is, as git check-attr reads it', async () => {
    const dir = repo();
    expect(cli(dir, ['init']).code).toBe(0);
    save(dir, cp({ step: 'auth (half done)' }));
    write(dir, '.checkpoints/web.checkpoint.json', `${JSON.stringify(cp({ skill: 'web', status: 'blocked-ish' }), null, 2)}\n`);
    write(dir, '.checkpoints/history/api.2026-10-30.json', '{"entries": []}\n');
    commitAll(dir, 'two skills');
    const health = async () => (JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout).findings as { check: string; level: string; message: string }[]).filter((f) => f.check === 'merge_driver').map((f) => `${f.level} ${f.message}`);
    const attr = (path: string) => git(dir, ['check-attr', 'merge', '--', path]).trim().split(': ').at(-1);
    const cases: [file: string, line: string, path: string, named: string][] = [
      ['.checkpoints/.gitattributes', 'api.checkpoint.json merge=union', '.checkpoints/api.checkpoint.json',
        '.checkpoints/.gitattributes line 2 "api.checkpoint.json merge=union" decides how .checkpoints/api.checkpoint.json merges (union): git never runs the checkpoint driver on it; remove it'],
      ['.gitattributes', '/.checkpoints/web.checkpoint.json -merge', '.checkpoints/web.checkpoint.json',
        '.gitattributes line 4 "/.checkpoints/web.checkpoint.json -merge" comes after the checkpoint line and decides how .checkpoints/web.checkpoint.json merges (binary): git never runs the checkpoint driver on it; remove it, or move the checkpoint line below it'],
      // A bracket set and a quoted pattern, which git reads as any other.
      ['.checkpoints/.gitattributes', 'ap[i].checkpoint.json binary', '.checkpoints/api.checkpoint.json',
        '.checkpoints/.gitattributes line 2 "ap[i].checkpoint.json binary" decides how .checkpoints/api.checkpoint.json merges (binary)'],
      ['.checkpoints/.gitattributes', '"w\\145b.checkpoint.json" merge=union', '.checkpoints/web.checkpoint.json',
        'decides how .checkpoints/web.checkpoint.json merges (union)'],
      ['.checkpoints/history/.gitattributes', 'api.2026-10-30.json merge=union', '.checkpoints/history/api.2026-10-30.json',
        '.checkpoints/history/.gitattributes line 2 "api.2026-10-30.json merge=union" decides how .checkpoints/history/api.2026-10-30.json merges (union)'],
      // A pattern that takes only some names takes the files it matches, not "checkpoint files" (red team 61e).
      ['.checkpoints/.gitattributes', '[!w]*.checkpoint.json merge=union', '.checkpoints/api.checkpoint.json',
        '.checkpoints/.gitattributes line 2 "[!w]*.checkpoint.json merge=union" decides how .checkpoints/api.checkpoint.json merges (union): git never runs the checkpoint driver on it; remove it'],
    ];
    const top = read(dir, '.gitattributes');
    for (const [file, line, path, named] of cases) {
      write(dir, file, file === '.gitattributes' ? `${top}${line}\n` : `# kept by hand\n${line}\n`);
      expect(attr(path), line).not.toBe('checkpoint');
      const found = await health();
      expect(found, line).toHaveLength(1);
      expect(found[0], line).toMatch(/^warning /);
      expect(found[0], line).toContain(named);
      expect(cli(dir, ['init']).stdout, line).not.toContain('already set up');
      const installed = cli(dir, ['install-driver']).stdout;
      expect(installed, line).toMatch(/^! /m);
      expect(installed, line).toContain(named);
      // The way out it gives works: git routes the file to the driver again, and doctor is quiet.
      if (file === '.gitattributes') write(dir, file, top);
      else rmSync(join(dir, file));
      expect(attr(path), line).toBe('checkpoint');
      expect(await health(), line).toEqual([]);
    }
    // A line for a file that is not there, or not a checkpoint, takes nothing.
    write(dir, '.checkpoints/.gitattributes', 'docs.checkpoint.json merge=union\nREADME.md merge=union\n');
    expect(await health()).toEqual([]);
    expect(cli(dir, ['init']).stdout).toContain('is already set up');
  });
});

describe('uninstall-driver after install-driver gives .gitattributes back byte for byte', () => {
  it.each([
    ['CRLF, no final newline', '*.png binary\r\n*.md text'],
    ['LF, no final newline', '*.png binary\n*.md text'],
    ['an empty file', ''],
    ['no file', null],
  ])('%s', (_name, attrs) => {
    const dir = repo();
    if (attrs !== null) write(dir, '.gitattributes', attrs);
    expect(cli(dir, ['install-driver']).code).toBe(0);
    // git reads the lines install added, and the project's own last line is still whole.
    expect(git(dir, ['check-attr', 'merge', '.checkpoints/api.checkpoint.json', '.checkpoints/history/api.2026-11-01.json'])).toBe(
      '.checkpoints/api.checkpoint.json: merge: checkpoint\n.checkpoints/history/api.2026-11-01.json: merge: checkpoint\n',
    );
    if (attrs) expect(git(dir, ['check-attr', 'text', 'README.md'])).toBe('README.md: text: set\n');
    const r = cli(dir, ['uninstall-driver']);
    expect(r.code, r.stderr).toBe(0);
    if (attrs === null) expect(existsSync(join(dir, '.gitattributes'))).toBe(false);
    else expect(readFileSync(join(dir, '.gitattributes'), 'latin1')).toBe(attrs);
  });
});

describe('a .gitattributes a sparse checkout leaves out (red team, 12-05)', () => {
  /** A clone whose no-cone sparse checkout keeps the committed root .gitattributes out of the work tree. */
  function sparseClone(attrs: string): string {
    const origin = repo();
    write(origin, '.gitattributes', attrs);
    write(origin, 'web/a.ts', 'a\n');
    save(origin, cp({}));
    commitAll(origin, 'base');
    const dir = tempDir();
    dirs.push(dir);
    git(dir, ['clone', '-q', '--no-local', origin, '.']);
    git(dir, ['sparse-checkout', 'set', '--no-cone', '/web/', '/.checkpoints/']);
    expect(existsSync(join(dir, '.gitattributes'))).toBe(false);
    return dir;
  }
  const health = async (dir: string) => (JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout).findings as { check: string; level: string; message: string }[]).filter((f) => f.check === 'merge_driver');

  it('is read from the index as git reads it: install-driver writes nothing there, and doctor sees the routing it commits', async () => {
    const dir = sparseClone(`*.png binary\n*.sh text eol=lf\n${ATTRIBUTES_MARKER}\n.checkpoints/*.checkpoint.json merge=checkpoint\n.checkpoints/history/*.json merge=checkpoint\n`);
    const r = cli(dir, ['install-driver']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('.gitattributes');
    expect(existsSync(join(dir, '.gitattributes'))).toBe(false);
    expect(git(dir, ['status', '--porcelain'])).toBe('');
    expect(git(dir, ['check-attr', 'binary', 'x.png'])).toBe('x.png: binary: set\n');
    expect((await health(dir)).filter((f) => f.level !== 'info')).toEqual([]);
  });

  it('without the lines, install-driver still writes no file of its own there (it would drop the committed rules) and says how to bring it in', async () => {
    const dir = sparseClone('*.png binary\n');
    const r = cli(dir, ['install-driver']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toContain('.gitattributes is outside this sparse checkout and does not route checkpoints to the driver; nothing was written there. Bring it in (git sparse-checkout add /.gitattributes), then run install-driver again');
    expect(existsSync(join(dir, '.gitattributes'))).toBe(false);
    expect(git(dir, ['status', '--porcelain'])).toBe('');
    // Its advice names the step install-driver needs first, so following it does not loop.
    expect((await health(dir))).toEqual([expect.objectContaining({ level: 'warning', message: expect.stringContaining('(it is outside this sparse checkout: git sparse-checkout add /.gitattributes first); run `checkpoint install-driver`') })]);
  });
});

describe('install-driver and uninstall-driver beside what the user set', () => {
  const REFERENCE = 'node scripts/merge-checkpoint.mjs %O %A %B';
  const THEIR_LINE = '.checkpoints/*.checkpoint.json merge=checkpoint';

  it("keeps a driver the user set (the protocol's reference driver) and its section, still routing checkpoints to it; uninstall takes back only the marked line", async () => {
    const dir = repo();
    git(dir, ['config', 'merge.checkpoint.driver', REFERENCE]);
    git(dir, ['config', 'merge.checkpoint.foo', 'bar']);
    write(dir, '.gitattributes', `*.png binary\n${THEIR_LINE}\n`);
    const config = read(dir, '.git/config');
    const install = cli(dir, ['install-driver']);
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toBe(`✓ added a line to .gitattributes (routing checkpoints to this clone's own merge.checkpoint.driver)\n! kept merge.checkpoint.driver as this clone set it (${REFERENCE}), not checkpoint's; to use checkpoint's driver instead: git config --unset-all merge.checkpoint.driver, then checkpoint install-driver\n`);
    expect(read(dir, '.git/config')).toBe(config);
    expect(read(dir, '.gitattributes')).toBe(`*.png binary\n${THEIR_LINE}\n${ATTRIBUTES_MARKER}\n.checkpoints/history/*.json merge=checkpoint\n`);
    const uninstall = cli(dir, ['uninstall-driver', '--json']);
    expect(uninstall.code, uninstall.stderr).toBe(0);
    expect(JSON.parse(uninstall.stdout)).toMatchObject({
      ok: true,
      changes: ['removed the lines install-driver added to .gitattributes'],
      notes: [expect.stringContaining(`its driver (${REFERENCE}) is not checkpoint's`), expect.stringContaining('left a checkpoint line in .gitattributes')],
    });
    expect(read(dir, '.git/config')).toBe(config);
    expect(read(dir, '.gitattributes')).toBe(`*.png binary\n${THEIR_LINE}\n`);
  });

  it("routes checkpoints to the user's own driver, so it runs in a merge; doctor names it instead of looping on install-driver", async () => {
    const dir = divergedRepo();
    // Their driver keeps our side and leaves a trace, as a real one would do its own work.
    write(dir, '.git/their-driver.sh', 'echo "$3" >> .git/their-driver.ran\nexit 0\n');
    git(dir, ['config', 'merge.checkpoint.driver', 'sh .git/their-driver.sh %O %A %B']);
    const health = async () => (JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout).findings as { check: string; level: string; message: string }[]).filter((f) => f.check === 'merge_driver');
    expect((await health())).toEqual([{ check: 'merge_driver', level: 'warning', skill: null, path: '', blocks: expect.anything(), message:
      "merge.checkpoint.driver is this clone's own (sh .git/their-driver.sh %O %A %B), not checkpoint's, and never runs for checkpoints: .gitattributes lacks \".checkpoints/*.checkpoint.json merge=checkpoint\"; run `checkpoint install-driver` to add it (it keeps that driver), or, to use checkpoint's instead: git config --unset-all merge.checkpoint.driver, then `checkpoint install-driver`" }]);
    const install = cli(dir, ['install-driver']);
    expect(install.code, install.stderr).toBe(0);
    expect(install.stdout).toMatch(/^✓ added 2 lines to \.gitattributes \(routing checkpoints to this clone's own merge\.checkpoint\.driver\)\n! kept merge\.checkpoint\.driver /);
    expect(git(dir, ['check-attr', 'merge', '.checkpoints/api.checkpoint.json', '.checkpoints/history/api.2026-11-01.json'])).toBe(
      '.checkpoints/api.checkpoint.json: merge: checkpoint\n.checkpoints/history/api.2026-11-01.json: merge: checkpoint\n',
    );
    expect(git(dir, ['config', 'merge.checkpoint.driver'])).toBe('sh .git/their-driver.sh %O %A %B\n');
    expect((await health())).toEqual([]);
    expect(cli(dir, ['install-driver']).stdout).not.toContain('✓');
    commitAll(dir, 'route checkpoints to our driver');
    const merged = gitTry(dir, ['merge', '-q', '--no-edit', 'other']);
    expect(merged.status, merged.stderr).toBe(0);
    expect(read(dir, '.git/their-driver.ran')).toMatch(/\S/);
  });

  it("doctor never sends the user to install-driver for what it keeps or refuses: their driver's missing file, an unreadable .gitattributes", async () => {
    const dir = repo();
    write(dir, '.gitattributes', `${THEIR_LINE}\n`);
    git(dir, ['config', 'merge.checkpoint.driver', "'/gone/merge-checkpoint.mjs' %O %A %B"]);
    const health = async () => (JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout).findings as { check: string; level: string; message: string }[]).filter((f) => f.check === 'merge_driver');
    expect((await health())).toEqual([expect.objectContaining({ level: 'warning', message:
      "merge.checkpoint.driver is this clone's own ('/gone/merge-checkpoint.mjs' %O %A %B), not checkpoint's, and points at /gone/merge-checkpoint.mjs, which no longer exists; fix that driver, or, to use checkpoint's instead: git config --unset-all merge.checkpoint.driver, then `checkpoint install-driver`" })]);
    rmSync(join(dir, '.gitattributes'));
    symlinkSync('/etc/hostname', join(dir, '.gitattributes'));
    expect(cliGuarded(dir, ['install-driver']).code).toBe(2);
    expect((await health())).toEqual([expect.objectContaining({ level: 'warning', message: expect.stringMatching(/^checkpoint cannot read \.gitattributes, and install-driver refuses it too: \.gitattributes is a symlink to \/etc\/hostname, outside the project; .+; then run `checkpoint install-driver`$/) })]);
  });

  it("after the user switches to ours: uninstall removes our keys and marked line only, keeping their key and their line", async () => {
    const dir = repo();
    git(dir, ['config', 'merge.checkpoint.driver', REFERENCE]);
    git(dir, ['config', 'merge.checkpoint.foo', 'bar']);
    write(dir, '.gitattributes', `*.png binary\r\n${THEIR_LINE}\r\n`);
    git(dir, ['config', '--unset', 'merge.checkpoint.driver']); // what the note says to do
    const install = cli(dir, ['install-driver']);
    expect(install.stdout).toBe('✓ set merge.checkpoint.name\n✓ set merge.checkpoint.driver\n✓ added a line to .gitattributes\n');
    expect(read(dir, '.gitattributes')).toContain('# added by checkpoint install-driver');
    // The user sets how git merges the bases: theirs, kept, and said what it does.
    git(dir, ['config', 'merge.checkpoint.recursive', 'text']);
    expect(cli(dir, ['install-driver']).stdout).toContain("! kept merge.checkpoint.recursive as this clone set it (text), not checkpoint's; git merges a criss-cross merge's bases with it instead of checkpoint's driver");
    const uninstall = cli(dir, ['uninstall-driver']);
    expect(uninstall.code, uninstall.stderr).toBe(0);
    expect(uninstall.stdout).toContain('✓ removed merge.checkpoint.name, merge.checkpoint.driver from git config\n✓ removed the lines install-driver added to .gitattributes\n');
    expect(git(dir, ['config', '--get-regexp', '^merge\\.checkpoint\\.'])).toBe('merge.checkpoint.foo bar\nmerge.checkpoint.recursive text\n');
    expect(read(dir, '.gitattributes')).toBe(`*.png binary\r\n${THEIR_LINE}\r\n`);
  });

  it('the recursive = binary an earlier version set is removed by install (it brought back what one side of a criss-cross merge removed), and by uninstall', async () => {
    for (const command of ['install-driver', 'uninstall-driver']) {
      const dir = repo();
      expect(cli(dir, ['install-driver']).code).toBe(0);
      git(dir, ['config', 'merge.checkpoint.recursive', 'binary']);
      const r = cli(dir, [command]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(command === 'install-driver' ? '✓ removed merge.checkpoint.recursive=binary, which an earlier version set' : 'merge.checkpoint.recursive from git config');
      expect(gitTry(dir, ['config', 'merge.checkpoint.recursive']).status).toBe(1);
    }
  });

  it('a clone set up by the npm prepare script alone (install-driver, no hook) is told its pushes are not checked; init ends the note (red team 61h, 01)', async () => {
    const dir = repo();
    const hookNote = async () => (JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout).findings as { check: string; level: string; message: string }[]).filter((f) => f.check === 'hook');
    expect(await hookNote()).toEqual([]);
    expect(cli(dir, ['install-driver', '--optional']).code).toBe(0);
    expect(await hookNote()).toEqual([expect.objectContaining({ level: 'info', message: 'this clone has the merge driver but no pre-push hook, so pushes are not checked; `checkpoint init` installs one' })]);
    expect((await runCli(dir, ['doctor', '--fail-on-warnings'])).code).toBe(0);
    expect(cli(dir, ['init']).code).toBe(0);
    expect(await hookNote()).toEqual([]);
  });

  it("with core.hooksPath (the project's .githooks, or a global ~/.githooks) init writes no hook there: the note names the file to create and its line, and followed as printed it checks pushes (red team 62d 05)", () => {
    const home = tempDir('cp-home-');
    write(home, '.gitconfig', '[core]\n\thooksPath = ~/.githooks\n');
    const global = { HOME: home, GIT_CONFIG_GLOBAL: join(home, '.gitconfig') };
    for (const [env, folder] of [[{}, '.githooks'], [global, join(home, '.githooks')]] as const) {
      const dir = repo();
      if (folder === '.githooks') git(dir, ['config', 'core.hooksPath', '.githooks']);
      mkdirSync(resolve(dir, folder), { recursive: true });
      expect(cli(dir, ['init'], { env }).code).toBe(0);
      expect(cli(dir, ['init'], { env }).code).toBe(0);
      // The built CLI: its line names the installed package's hooks/ (the sources have none beside them).
      const hookNote = () => (JSON.parse(cli(dir, ['doctor', '--json'], { env }).stdout).findings as { check: string; level: string; message: string }[]).filter((f) => f.check === 'hook');
      const [note] = hookNote();
      expect(note?.message).not.toContain('installs one');
      const advice = note?.message.match(/^this clone has the merge driver but no pre-push hook, so pushes are not checked; core\.hooksPath points at (.+), where `checkpoint init` writes none; to check pushes, create (.+) \(#!\/bin\/sh, then this line; chmod \+x\) with: (.+)$/);
      expect(advice, note?.message).not.toBeNull();
      const [, named, file, line] = advice!;
      expect([named, file]).toEqual([folder, join(folder, 'pre-push')]);
      // As printed: a path in the project, or the global folder's.
      writeFileSync(resolve(dir, file!), `#!/bin/sh\n${line}\n`);
      chmodSync(resolve(dir, file!), 0o755);
      expect(hookNote()).toEqual([]);
      write(dir, '.checkpoints/api.checkpoint.json', '{ "skill": "api", "status": "half done (see PR 12)", "progress": 8.0 }\n');
      commitAll(dir, 'checkpoint: api, half written');
      withRemote(dir);
      const push = gitTry(dir, ['push', '-q', 'origin', 'HEAD:refs/heads/main'], env);
      expect(push.status).not.toBe(0);
      expect(push.stderr).toContain('checkpoint pre-push: push refused');
    }
  });

  it('on a branch with no .checkpoints/ folder (gh-pages, an old release) a driver without the attributes line is a note, not a warning on every push', async () => {
    const dir = repo();
    const health = async () => (JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout).findings as { check: string; level: string; message: string }[]).filter((f) => f.check === 'merge_driver');
    expect(cli(dir, ['install-driver']).code).toBe(0);
    commitAll(dir, 'route checkpoints');
    git(dir, ['checkout', '-q', '--orphan', 'gh-pages']);
    git(dir, ['rm', '-rq', '--cached', '.']);
    rmSync(join(dir, '.checkpoints'), { recursive: true, force: true });
    rmSync(join(dir, '.gitattributes'));
    write(dir, 'index.html', '<h1>docs</h1>\n');
    commitAll(dir, 'site');
    expect((await health())).toEqual([expect.objectContaining({ level: 'info', message: 'merge.checkpoint.driver is set, but this branch has no .checkpoints/ folder, so nothing is routed to it here' })]);
    const r = await runCli(dir, ['doctor', '--fail-on-warnings']);
    expect(r.code, r.stdout).toBe(0);
    // Back on a branch with checkpoints, the same missing line is a warning again.
    git(dir, ['checkout', '-q', 'main']);
    rmSync(join(dir, '.gitattributes'));
    write(dir, '.checkpoints/api.checkpoint.json', '{"protocol_version": "1.1", "skill": "api", "status": "in-progress"}\n');
    expect((await health())).toEqual([expect.objectContaining({ level: 'warning' })]);
  });

  it('doctor does not take a history/ line alone or a commented-out line for routing checkpoints; install-driver adds what is missing', async () => {
    const dir = repo();
    const health = async () => (JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout).findings as { check: string; level: string; message: string }[]).filter((f) => f.check === 'merge_driver');
    expect(cli(dir, ['install-driver']).code).toBe(0);
    mkdirSync(join(dir, '.checkpoints'));
    for (const attrs of ['.checkpoints/history/*.json merge=checkpoint\n', `#${THEIR_LINE}\n# ${THEIR_LINE}\n`]) {
      write(dir, '.gitattributes', attrs);
      expect(git(dir, ['check-attr', 'merge', '.checkpoints/api.checkpoint.json'])).toBe('.checkpoints/api.checkpoint.json: merge: unspecified\n');
      expect((await health())).toEqual([expect.objectContaining({ level: 'warning', message: `merge.checkpoint.driver is configured but .gitattributes lacks "${THEIR_LINE}"; run \`checkpoint install-driver\`` })]);
      expect(cli(dir, ['install-driver']).stdout).toContain('to .gitattributes');
      expect((await health())).toEqual([]);
    }
  });

  it('a merge attribute the project gave checkpoints (merge=union, -merge) is overridden with a note, never silently, and given back', async () => {
    for (const [line, shownAs] of [['.checkpoints/*.checkpoint.json merge=union', 'merge=union'], ['* -merge', '-merge']]) {
      const dir = repo();
      write(dir, '.gitattributes', `${line}\n`);
      const r = cli(dir, ['install-driver']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`! .gitattributes already gave checkpoint files ${shownAs}; the lines added after it take precedence`);
      expect(git(dir, ['check-attr', 'merge', '--', '.checkpoints/api.checkpoint.json']).trim()).toBe('.checkpoints/api.checkpoint.json: merge: checkpoint');
      expect(cli(dir, ['uninstall-driver']).code).toBe(0);
      expect(read(dir, '.gitattributes')).toBe(`${line}\n`);
    }
    // Nothing of the project's routed checkpoints: no note.
    expect(cli(repo(), ['install-driver']).stdout).not.toContain('!');
  });

  it('a marked line the user edited (` -diff` appended) stays, and uninstall says so', async () => {
    const dir = repo();
    write(dir, '.gitattributes', '*.png binary\n');
    expect(cli(dir, ['install-driver']).code).toBe(0);
    write(dir, '.gitattributes', read(dir, '.gitattributes').replace(`${THEIR_LINE}\n`, `${THEIR_LINE} -diff\n`));
    const r = cli(dir, ['uninstall-driver']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe([
      '✓ removed merge.checkpoint.name, merge.checkpoint.driver from git config',
      '✓ removed the lines install-driver added to .gitattributes',
      `! left a line in .gitattributes that install-driver added and the project since edited ("${THEIR_LINE} -diff"); remove by hand if the project no longer uses the driver`,
      '',
    ].join('\n'));
    expect(read(dir, '.gitattributes')).toBe(`*.png binary\n${THEIR_LINE} -diff\n`);
  });

  it('uninstall decides before it writes: a FIFO at .gitattributes is refused with the config untouched', async () => {
    const dir = repo();
    expect(cli(dir, ['install-driver']).code).toBe(0);
    rmSync(join(dir, '.gitattributes'));
    execFileSync('mkfifo', [join(dir, '.gitattributes')]);
    const config = read(dir, '.git/config');
    const r = cliGuarded(dir, ['uninstall-driver']);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^checkpoint: \.gitattributes is a FIFO, not a plain file; refused; hint: .+\n$/);
    expect(read(dir, '.git/config')).toBe(config);
  });

  it('a merge with the driver\'s install gone says so in one line (no stack trace), leaves the file unmerged, and merges once the driver is back', async () => {
    const pkg = join(tempDir('cp-gone-'), 'pkg');
    mkdirSync(pkg, { recursive: true });
    for (const part of ['bin', 'dist', 'hooks', 'package.json']) cpSync(join(ROOT, part), join(pkg, part), { recursive: true });
    const dir = divergedRepo();
    expect(spawnSync(process.execPath, [join(pkg, 'bin/checkpoint.js'), 'install-driver'], { cwd: dir, encoding: 'utf8' }).status).toBe(0);
    commitAll(dir, 'route checkpoints to the driver');
    rmSync(pkg, { recursive: true, force: true });
    const r = gitTry(dir, ['merge', '--no-edit', 'other']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).not.toMatch(/\n\s+at |MODULE_NOT_FOUND|node:internal/);
    expect(r.stderr).toContain('checkpoint: the merge driver cannot run (its install, or the node it runs with, moved or was removed), so this checkpoint was left unmerged; run checkpoint install-driver, then: git checkout --merge -- .checkpoints/');
    expect(git(dir, ['status', '--porcelain'])).toMatch(/^UU \.checkpoints\//m);
    // The way out it names.
    expect(cli(dir, ['install-driver']).code).toBe(0);
    const file = /--merge -- (\S+)/.exec(r.stderr)![1]!;
    expect(gitTry(dir, ['checkout', '--merge', '--', file]).status).toBe(0);
    expect(read(dir, file)).not.toMatch(/^[<=>]{7}/m);
  });

  it('a merge with the node the driver was installed with gone (a version manager removed it) says so in one line and leaves the file unmerged', async () => {
    const dir = divergedRepo();
    expect(cli(dir, ['install-driver']).code).toBe(0);
    commitAll(dir, 'route checkpoints to the driver');
    const installed = git(dir, ['config', 'merge.checkpoint.driver']).trim();
    const gone = join(tempDir('cp-node-gone-'), 'v20.19.0', 'bin', 'node');
    const moved = installed.split(`'${process.execPath}'`).join(`'${gone}'`);
    expect(moved).not.toBe(installed);
    git(dir, ['config', 'merge.checkpoint.driver', moved]);
    const r = gitTry(dir, ['merge', '--no-edit', 'other']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).not.toMatch(/not found|No such file/);
    expect(r.stderr).toContain('checkpoint: the merge driver cannot run (its install, or the node it runs with, moved or was removed), so this checkpoint was left unmerged; run checkpoint install-driver, then: git checkout --merge -- .checkpoints/');
    expect(git(dir, ['status', '--porcelain'])).toMatch(/^UU \.checkpoints\//m);
    // install-driver knows the value as its own and re-points it; the merge then goes through.
    const install = cli(dir, ['install-driver']);
    expect(install.stdout).toContain('✓ set merge.checkpoint.driver\n');
    expect(git(dir, ['config', 'merge.checkpoint.driver']).trim()).toBe(installed);
    const file = /--merge -- (\S+)/.exec(r.stderr)![1]!;
    expect(gitTry(dir, ['checkout', '--merge', '--', file]).status).toBe(0);
    expect(read(dir, file)).not.toMatch(/^[<=>]{7}/m);
  });

  it('an install moved since (a stale driver path of ours) is updated, and uninstall empties and drops the section', async () => {
    const dir = repo();
    const before = read(dir, '.git/config');
    git(dir, ['config', 'merge.checkpoint.driver', "'/old/node' '/gone/it'\\''s/bin/checkpoint.js' merge-driver %O %A %B %P %L"]);
    const install = cli(dir, ['install-driver']);
    expect(install.stdout).toContain('✓ set merge.checkpoint.driver\n');
    expect(install.stdout).not.toContain('!');
    expect(git(dir, ['config', 'merge.checkpoint.driver'])).toContain(BIN);
    expect(cli(dir, ['uninstall-driver']).code).toBe(0);
    expect(read(dir, '.git/config')).toBe(before);
    expect(existsSync(join(dir, '.gitattributes'))).toBe(false);
  });
});

describe('a merge driver set in the global or system git config', () => {
  /** A global and a system config file of the test's own (the machine's are never read or written). */
  const outerConfig = () => {
    const home = tempDir('cp-home-');
    const global = join(home, 'gitconfig');
    const system = join(home, 'system-gitconfig');
    write(home, 'gitconfig', '');
    write(home, 'system-gitconfig', '');
    return { home, global, system, env: { HOME: home, GIT_CONFIG_GLOBAL: global, GIT_CONFIG_SYSTEM: system, GIT_CONFIG_NOSYSTEM: '' } };
  };
  const ours = `'${process.execPath}' '${BIN}' merge-driver %O %A %B %P %L`;
  const localDriver = (dir: string, env: NodeJS.ProcessEnv) => gitTry(dir, ['config', '--local', '--get', 'merge.checkpoint.driver'], env).stdout.trim();
  const health = async (dir: string, env: NodeJS.ProcessEnv) => (JSON.parse((await runCli(dir, ['doctor', '--json'], { env })).stdout).findings as { check: string; level: string; message: string }[]).filter((f) => f.check === 'merge_driver');

  it.each([['global'], ['system']] as const)('in the %s config: install-driver adds no local driver that would shadow it, says so in one line, and doctor finds it installed', async (scope) => {
    const dir = repo();
    const { global, system, env } = outerConfig();
    git(dir, ['config', '--file', scope === 'global' ? global : system, 'merge.checkpoint.driver', 'my-merge %O %A %B']);
    const r = cli(dir, ['install-driver'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`✓ added 2 lines to .gitattributes (routing checkpoints to the merge.checkpoint.driver in your ${scope} git config)\n! found merge.checkpoint.driver in your ${scope} git config (my-merge %O %A %B, not checkpoint's): git uses it here, so none was added to this clone's config (it would shadow it); to give this clone its own: checkpoint install-driver --local\n`);
    expect(localDriver(dir, env)).toBe('');
    expect(read(dir, '.git/config')).not.toContain('merge "checkpoint"');
    // Idempotent: the same line again, nothing written.
    expect(cli(dir, ['install-driver'], { env }).stdout).toBe(`! found merge.checkpoint.driver in your ${scope} git config (my-merge %O %A %B, not checkpoint's): git uses it here, so none was added to this clone's config (it would shadow it); to give this clone its own: checkpoint install-driver --local\n`);
    // doctor reads the global and system files too: no "has no merge.checkpoint.driver" warning.
    expect((await health(dir, env))).toEqual([]);
    // Asked for: this clone's own, which then takes precedence.
    const local = cli(dir, ['install-driver', '--local'], { env });
    expect(local.code, local.stderr).toBe(0);
    expect(local.stdout).toContain('✓ set merge.checkpoint.driver');
    expect(localDriver(dir, env)).toMatch(/merge-driver %O %A %B %P %L; echo .* >&2; exit 1$/);
  });

  it("checkpoint's own driver set globally: init and install-driver leave it in charge, and doctor is content", async () => {
    const dir = repo();
    const { global, env } = outerConfig();
    git(dir, ['config', '--file', global, 'merge.checkpoint.driver', ours]);
    const init = cli(dir, ['init'], { env });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain("! found merge.checkpoint.driver in your global git config ('");
    expect(init.stdout).toContain(", checkpoint's): git uses it here, so none was added to this clone's config");
    expect(localDriver(dir, env)).toBe('');
    expect((await health(dir, env))).toEqual([]);
  });

  it('a global driver of ours whose install is gone: doctor says where it is set and how to fix it, never a bare install-driver that would change nothing', async () => {
    const dir = repo();
    const { global, env } = outerConfig();
    git(dir, ['config', '--file', global, 'merge.checkpoint.driver', `'/gone/node' '/gone/bin/checkpoint.js' merge-driver %O %A %B %P %L`]);
    expect(cli(dir, ['install-driver'], { env }).code).toBe(0);
    expect((await health(dir, env))).toEqual([expect.objectContaining({ level: 'warning', message: `merge.checkpoint.driver, set in your global git config (${global}), points at /gone/node, which no longer exists; fix it there (git config --global --unset-all merge.checkpoint.driver, then \`checkpoint install-driver\`), or give this clone its own: \`checkpoint install-driver --local\`` })]);
  });
});

describe('resolve', () => {
  it('fixes a file a plain text merge left conflicted, from the index stages', async () => {
    const dir = divergedRepo();
    const merge = gitTry(dir, ['merge', '-q', 'other']);
    expect(merge.status).not.toBe(0);
    expect(read(dir, '.checkpoints/api.checkpoint.json')).toContain('<<<<<<<');
    expect(cli(dir, ['resolve', '--check']).code).toBe(1);
    const r = cli(dir, ['resolve', '--add']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('resolved from stages');
    const result = JSON.parse(read(dir, '.checkpoints/api.checkpoint.json'));
    expect(result.next_actions).toEqual(['second', 'third']);
    expect(result.recently_done.map((d: { action: string }) => d.action).sort()).toEqual(['first', 'setup']);
    expect(git(dir, ['status', '--porcelain'])).not.toMatch(/^UU/m);
    expect(cli(dir, ['resolve', '--check']).code).toBe(0);
  });

  it('fixes committed conflict markers when the stages are gone', async () => {
    const dir = divergedRepo();
    gitTry(dir, ['merge', '-q', 'other']);
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '-m', 'server-side merge committed markers']);
    expect(cli(dir, ['validate']).code).toBe(1);
    const r = cli(dir, ['resolve']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('resolved from markers');
    expect(cli(dir, ['validate']).code).toBe(0);
  });

  it('leaves real conflicts marked and exits 1', async () => {
    const dir = repo();
    save(dir, cp({}));
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'other']);
    save(dir, cp({ phase: 'audit' }));
    commitAll(dir, 'other');
    git(dir, ['checkout', '-q', 'main']);
    save(dir, cp({ phase: 'deploy' }));
    commitAll(dir, 'main');
    gitTry(dir, ['merge', '-q', 'other']);
    const r = cli(dir, ['resolve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('phase');
    const text = read(dir, '.checkpoints/api.checkpoint.json');
    expect(text.match(/<<<<<<</g)).toHaveLength(1);
    expect(text).toContain('"deploy"');
    expect(text).toContain('"audit"');
    expect(readFileSync(BIN, 'utf8')).toContain('merge-driver');
  });
});

describe('a .gitattributes committed as a link to a file of the project', () => {
  // git (2.32 on) reads no linked .gitattributes: the lines of the file it names apply to nothing.
  const TARGET = '# shared attributes, kept in docs/\r\n*.sh text eol=lf\r\n.checkpoints/*.checkpoint.json merge=checkpoint\r\n';
  const MESSAGE = 'checkpoint: .gitattributes is a symlink to docs/attributes.txt: git reads no linked .gitattributes, so it sets no attribute; refused; hint: replace the link with a regular file holding the lines git should apply\n';

  function linkedAttributes(): string {
    const dir = repo();
    write(dir, 'docs/attributes.txt', TARGET);
    symlinkSync('docs/attributes.txt', join(dir, '.gitattributes'));
    save(dir, cp({}));
    commitAll(dir, 'attributes kept in docs/, linked');
    return dir;
  }

  it('install-driver, init and uninstall-driver refuse it in one line, writing nothing: never its target\'s lines copied into a regular file git would apply', () => {
    const dir = linkedAttributes();
    for (const args of [['install-driver'], ['init'], ['uninstall-driver']]) {
      const r = cliGuarded(dir, args);
      expect(r.code, `${args[0]}: ${r.stdout}${r.stderr}`).toBe(2);
      expect(r.stderr).toBe(MESSAGE);
      expect(r.stdout).toBe('');
    }
    expect(readFileSync(join(dir, '.gitattributes'), 'utf8')).toBe(TARGET); // still the link, to the same file
    expect(git(dir, ['status', '--porcelain'])).toBe('');
    expect(gitTry(dir, ['config', '--get-regexp', '^merge\\.checkpoint\\.']).stdout).toBe('');
    expect(existsSync(join(dir, '.git/hooks/pre-push'))).toBe(false);
  });

  it('init refuses a .checkpoints/.gitignore committed as a link the same way, writing nothing: git would leave the lock files untracked (red team s56)', () => {
    const dir = repo();
    write(dir, 'docs/ignores.txt', '*.lock\n');
    mkdirSync(join(dir, '.checkpoints'), { recursive: true });
    symlinkSync('../docs/ignores.txt', join(dir, '.checkpoints/.gitignore'));
    commitAll(dir, 'ignores kept in docs/, linked');
    const r = cliGuarded(dir, ['init']);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toBe('checkpoint: .checkpoints/.gitignore is a symlink to ../docs/ignores.txt: git reads no linked .gitignore, so the lock files it should ignore show as untracked; refused; hint: replace the link with a regular file holding the lines git should apply, then run init again\n');
    expect(git(dir, ['status', '--porcelain'])).toBe('');
    expect(existsSync(join(dir, '.git/hooks/pre-push'))).toBe(false);
    // Replaced by a regular file, init goes on and leaves it as the project wrote it.
    rmSync(join(dir, '.checkpoints/.gitignore'));
    write(dir, '.checkpoints/.gitignore', '*.lock\n');
    expect(cliGuarded(dir, ['init']).code).toBe(0);
    expect(read(dir, '.checkpoints/.gitignore')).toBe('*.lock\n');
  });

  it('doctor says git reads none of it, never that it routes checkpoints to the driver', async () => {
    const dir = linkedAttributes();
    const r = await runCli(dir, ['doctor', '--json']);
    const findings = (JSON.parse(r.stdout).findings as { check: string; level: string; message: string }[]).filter((f) => f.check === 'merge_driver');
    expect(findings).toEqual([expect.objectContaining({ level: 'info', message: `checkpoint cannot read .gitattributes, and install-driver refuses it too: ${MESSAGE.slice('checkpoint: '.length, -1).replace('; hint: ', '; ')}; then run \`checkpoint install-driver\`` })]);
  });
});
