// doctor, next and the pre-push hook against real repositories built by the test.
import { afterEach, describe, expect, it } from 'vitest';
import { cpSync, existsSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, commitAll, git, gitTry, makeRepo, tempDir, write, headSha, initialized } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';
import { builtOnce } from '../helpers/built-once.js';
import { History } from '../helpers/history.js';

const ENGINES = ['native', 'isomorphic'] as const;
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');

function checkpoint(over: Record<string, unknown> = {}) {
  return {
    protocol_version: '1.1',
    skill: 'api',
    project: 'demo',
    project_dir: '/elsewhere/demo',
    created_at: ago(300),
    updated_at: ago(120),
    phase: 'build',
    step: 'auth',
    status: 'in_progress',
    progress_summary: 'Auth in review.',
    progress_table: [{ id: 'auth', label: 'Auth', status: 'in_progress' }],
    context_primer: { key_decisions: ['JWT'], generated_files: ['src/auth.ts', 'src/session.ts', 'docs/notes.md'] },
    next_actions: ['Merge PR #12 (auth middleware)', 'Write the session docs'],
    ...over,
  };
}

/** A repo whose checkpoint was committed 2h ago, then: a PR merge, a rename and an edit (built once per file, a copy each). */
const driftedRepo = (): string => builtOnce('drifted', () => ({ dir: buildDriftedRepo() })).dir;
function buildDriftedRepo(): string {
  const dir = makeRepo();
  dirs.push(dir);
  // The commits as git writes them (test/helpers/history.ts): a fixture, not what is tested.
  const h = new History(dir);
  h.write('src/auth.ts', 'auth\n').write('src/session.ts', 'session\n').write('docs/notes.md', 'notes\n');
  h.write('.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint(), null, 2)}\n`).commit('checkpoint: api', ago(119));
  h.checkout('feature', true).write('src/middleware.ts', 'mw\n').commit('Add auth middleware', ago(90));
  h.checkout('main').merge('feature', 'Merge pull request #12 from team/feature', ago(80));
  h.mv('src/session.ts', 'src/sessions.ts').commit('Rename session module', ago(70));
  h.write('docs/notes.md', 'notes, revised\n').commit('Revise notes; see #12 for context', ago(60));
  h.done();
  return dir;
}

describe.each(ENGINES)('doctor with the %s engine', (engine) => {
  it('flags landed PRs, renamed and modified files, with evidence', async () => {
    const dir = driftedRepo();
    const r = await runCli(dir, ['doctor', '--json', '--engine', engine]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    const byCheck = (check: string) => report.findings.filter((f: { check: string }) => f.check === check);
    const landed = byCheck('landed');
    expect(landed).toHaveLength(1);
    expect(landed[0]).toMatchObject({ skill: 'api', path: 'next_actions[0]', level: 'warning' });
    expect(landed[0].message).toContain('Merge pull request #12');
    const files = byCheck('generated_files');
    const renamed = files.find((f: { path: string }) => f.path === 'context_primer.generated_files[1]');
    expect(renamed.evidence).toMatchObject({ file: 'src/session.ts', renamed_to: 'src/sessions.ts' });
    const modified = files.find((f: { path: string }) => f.path === 'context_primer.generated_files[2]');
    expect(modified.evidence.sha).toBe(headSha(dir));
    expect(modified.message).toContain('re-read it');
    // src/auth.ts did not change: no finding for it; the body mention of #12 is not a landing.
    expect(files.find((f: { path: string }) => f.path === 'context_primer.generated_files[0]')).toBeUndefined();
    expect(report.engine).toBe(engine);
    expect((await runCli(dir, ['doctor', '--fail-on-warnings', '--engine', engine])).code).toBe(1);
  });

  it('a listed file outside a sparse checkout is a note, not drift; a deletion or move not yet committed is named so, not blamed on an old rename', async () => {
    const { dir } = builtOnce('spec renamed and back', () => {
      const dir = makeRepo();
      const h = new History(dir);
      h.write('docs/spec.md', 'spec\n').write('docs/other.md', 'other\n').write('src/a.ts', 'a\n');
      h.write('.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint({ context_primer: { key_decisions: [], generated_files: ['docs/spec.md (v1, PR 12)', 'src/a.ts', 'docs/*.md'] } }), null, 2)}\n`);
      h.commit('checkpoint: api', ago(119));
      h.mv('docs/spec.md', 'docs/spec-v2.md').commit('spec v2', ago(60));
      h.mv('docs/spec-v2.md', 'docs/spec.md').commit('back to spec.md', ago(50));
      h.done();
      return { dir };
    });
    const entry = async (i: number) => {
      const report = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout);
      return report.findings.find((f: { path: string }) => f.path === `context_primer.generated_files[${i}]`);
    };
    const spec = () => entry(0);
    // Renamed again in the index only: the old rename (undone since) is not the reason.
    git(dir, ['mv', 'docs/spec.md', 'docs/spec-v3.md']);
    expect(await spec()).toMatchObject({ level: 'warning', message: `docs/spec.md is missing: deleted or moved in the work tree, not committed; update the checkpoint (\`checkpoint update api --context_primer.generated_files.0='docs/spec.md (v1, PR 12; deleted)'\`) or restore the file` });
    git(dir, ['mv', 'docs/spec-v3.md', 'docs/spec.md']);
    // Outside the sparse set, with skip-worktree entries, then a sparse index (a folder entry), then index v4.
    git(dir, ['sparse-checkout', 'set', 'src', '.checkpoints']);
    expect(existsSync(join(dir, 'docs/spec.md'))).toBe(false);
    const notCheckedOut = { level: 'info', message: 'docs/spec.md is not checked out here (sparse checkout or skip-worktree); not checked' };
    expect(await spec()).toMatchObject(notCheckedOut);
    expect(await entry(2)).toMatchObject({ level: 'info', message: 'docs/*.md matches no file in this checkout; a sparse checkout leaves out what it may name; not checked' });
    git(dir, ['sparse-checkout', 'init', '--cone', '--sparse-index']);
    expect(git(dir, ['ls-files', '--sparse'])).toContain('docs/\n');
    expect(await spec()).toMatchObject(notCheckedOut);
    expect(await entry(2)).toMatchObject({ level: 'info' });
    git(dir, ['update-index', '--index-version', '4']);
    expect(await spec()).toMatchObject(notCheckedOut);
    expect(await entry(2)).toMatchObject({ level: 'info' });
    expect((await runCli(dir, ['doctor', '--fail-on-warnings', '--engine', engine])).code).toBe(0);
    // Deleted by a commit while its folder stays folded: drift, named by that commit.
    git(dir, ['rm', '-q', '--sparse', 'docs/spec.md']);
    const dropped = commitAll(dir, 'drop the spec', ago(10));
    expect(git(dir, ['ls-files', '--sparse'])).toContain('docs/\n');
    expect(await spec()).toMatchObject({ level: 'warning', message: `docs/spec.md is missing: deleted in ${dropped.slice(0, 7)} "drop the spec"; update the checkpoint (\`checkpoint update api --context_primer.generated_files.0='docs/spec.md (v1, PR 12; deleted)'\`) or restore the file` });
  });

  it('a listed folder a sparse checkout leaves out ("docs/", "docs/guide") is a note, not missing', async () => {
    const { dir } = builtOnce('folders listed', () => {
      const dir = makeRepo();
      const h = new History(dir);
      h.write('docs/guide/setup.md', 'setup\n').write('src/a.ts', 'a\n');
      h.write('.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint({ context_primer: { key_decisions: [], generated_files: ['docs/', 'docs/guide', 'src/a.ts'] } }), null, 2)}\n`);
      h.commit('checkpoint: api', ago(119));
      h.done();
      return { dir };
    });
    git(dir, ['sparse-checkout', 'set', 'src', '.checkpoints']);
    expect(existsSync(join(dir, 'docs'))).toBe(false);
    for (const mode of ['skip-worktree entries', 'sparse index']) {
      if (mode === 'sparse index') git(dir, ['sparse-checkout', 'init', '--cone', '--sparse-index']);
      const r = await runCli(dir, ['doctor', '--json', '--engine', engine]);
      const found = (JSON.parse(r.stdout).findings as { path: string; level: string; message: string }[]).filter((f) => f.path.startsWith('context_primer.generated_files'));
      expect(found.map((f) => `${f.level} ${f.message}`), mode).toEqual([
        'info docs/ is not checked out here (sparse checkout or skip-worktree); not checked',
        'info docs/guide is not checked out here (sparse checkout or skip-worktree); not checked',
      ]);
    }
  });

  it('a glob under a folder a sparse index folds is a note only when HEAD has a match there; matching nothing in HEAD either, it is drift', async () => {
    const { dir } = builtOnce('globs under a sparse index', () => {
      const dir = makeRepo();
      const h = new History(dir);
      h.write('docs/api/orders.yaml', 'openapi: 3.0.0\n').write('docs/guide/deep/setup.md', 'setup\n').write('src/a.ts', 'a\n');
      const entries = ['docs/api/*.yaml (PR 12)', 'docs/**/*.md', 'docs/**/*.txt — exports', 'docs/api/*.json', '**/*.csv', 'src/*.ts'];
      h.write('.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint({ context_primer: { key_decisions: [], generated_files: entries } }), null, 2)}\n`);
      h.commit('checkpoint: api', ago(119));
      h.done();
      git(dir, ['sparse-checkout', 'set', '--cone', 'src', '.checkpoints']);
      git(dir, ['sparse-checkout', 'init', '--cone', '--sparse-index']);
      return { dir };
    });
    expect(git(dir, ['ls-files', '--sparse'])).toContain('docs/\n');
    const r = await runCli(dir, ['doctor', '--json', '--engine', engine]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    const at = (i: number) => report.findings.find((f: { path: string }) => f.path === `context_primer.generated_files[${i}]`);
    const hidden = (text: string) => ({ level: 'info', message: `${text} matches no file in this checkout; a sparse checkout leaves out what it may name; not checked` });
    expect(at(0)).toMatchObject(hidden('docs/api/*.yaml'));
    expect(at(1)).toMatchObject(hidden('docs/**/*.md'));
    expect(at(2)).toMatchObject({ level: 'warning', message: 'docs/**/*.txt matches no file; update the checkpoint', evidence: { missing: true } });
    expect(at(3)).toMatchObject({ level: 'warning', message: 'docs/api/*.json matches no file; update the checkpoint' });
    expect(at(4)).toMatchObject({ level: 'warning', message: '**/*.csv matches no file; update the checkpoint' });
    expect(at(5)).toBeUndefined();
  });

  it('a PR commit in the same second as the checkpoint write counts as landed in doctor, next and status alike, unless the commit that queued it has it in its history', async () => {
    // 'pr first': the PR commit is the parent of the commit that queued the action, so it was made
    // before the queueing, whatever the second says (after.ts, the tie), as one a second earlier is.
    // Uncommitted, the queueing has no commit to say so, and the tie counts as landed.
    for (const order of ['pr first', 'checkpoint first', 'pr first, checkpoint not committed'] as const) {
      const { dir, landing } = builtOnce(`same second: ${order}`, () => {
        const dir = makeRepo();
        const h = new History(dir);
        const second = Math.floor(Date.now() / 1000) - 7200;
        const at = new Date(second * 1000).toISOString();
        const written = at.replace(/\.\d+Z$/, '.700Z');
        const pr = () => h.write('src/orders.ts', 'orders\n').commit('Orders API (#12)', at);
        const prFirst = order !== 'checkpoint first';
        const first = prFirst ? pr() : null;
        const text = `${JSON.stringify(checkpoint({ updated_at: written, context_primer: { key_decisions: [], generated_files: [] }, next_actions: ['Merge PR #12 (orders API)', 'Write the orders docs'] }), null, 2)}\n`;
        const committed = order !== 'pr first, checkpoint not committed';
        if (committed) h.write('.checkpoints/api.checkpoint.json', text).commit('checkpoint: api', at);
        const landing = first ?? pr();
        h.done();
        if (!committed) write(dir, '.checkpoints/api.checkpoint.json', text);
        return { dir, landing };
      });
      const landed = order !== 'pr first';
      const report = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout);
      expect(report.findings.filter((f: { check: string }) => f.check === 'landed').map((f: { evidence: { sha: string } }) => f.evidence.sha), order).toEqual(landed ? [landing] : []);
      const next = (await runCli(dir, ['next', '--engine', engine])).stdout;
      expect(next.includes(`skipped next_actions[0] "Merge PR #12 (orders API)": #12 landed in ${landing.slice(0, 7)}`), order).toBe(landed);
      expect((await runCli(dir, ['status', '--engine', engine])).stdout.includes(`(already landed: #12 landed in ${landing.slice(0, 7)}`), order).toBe(landed);
    }
  });

  it('entries no file can have (".", "..", a NUL in the name) are notes, never a failed run', async () => {
    const { dir } = builtOnce('entries no file can have', () => {
      const dir = makeRepo();
      const h = new History(dir);
      const entries = ['.', '..', 'Make\u0000file', 'src/a\u0000.ts (PR 12)', 'Makefile'];
      h.write('Makefile', 'all:\n').write('.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint({ context_primer: { key_decisions: [], generated_files: entries } }), null, 2)}\n`);
      h.commit('checkpoint: api', ago(119));
      h.done();
      return { dir };
    });
    const r = await runCli(dir, ['doctor', '--json', '--engine', engine]);
    expect(r.code, r.stderr).toBe(0);
    const files = JSON.parse(r.stdout).findings.filter((f: { check: string }) => f.check === 'generated_files');
    expect(files.map((f: { path: string; level: string }) => [f.path, f.level])).toEqual([0, 1, 2, 3].map((i) => [`context_primer.generated_files[${i}]`, 'info']));
  });

  it('a deleted Next.js route is a missing path with its commit; a hostile glob (an empty range, stars that backtrack) is a finding, never a crash or a hang', async () => {
    const { dir, dropped } = builtOnce('a deleted route, a hostile glob', () => {
      const dir = makeRepo();
      const h = new History(dir);
      h.write('app/[lang-code]/page.tsx', 'export default 1;\n');
      for (let i = 0; i < 200; i++) h.write(`src/d${i}/${'a'.repeat(80)}${i}.ts`, '\n');
      const entries = ['app/[lang-code]/page.tsx (route)', '**/*a*a*a*a*a*a*a*a*a*a*a*a*b', 'src/d1/[z-a]*.ts'];
      h.write('.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint({ context_primer: { key_decisions: [], generated_files: entries } }), null, 2)}\n`);
      h.commit('checkpoint: api', ago(119));
      const dropped = h.rm('app').commit('Drop the lang route', ago(60));
      h.done();
      return { dir, dropped };
    });
    const r = await runCli(dir, ['doctor', '--json', '--engine', engine]);
    expect(r.code, r.stderr).toBe(0);
    const files = JSON.parse(r.stdout).findings.filter((f: { check: string }) => f.check === 'generated_files');
    expect(files.map((f: { path: string; message: string }) => [f.path, f.message])).toEqual([
      ['context_primer.generated_files[0]', `app/[lang-code]/page.tsx is missing: deleted in ${dropped.slice(0, 7)} "Drop the lang route"; update the checkpoint (\`checkpoint update api --context_primer.generated_files.0='app/[lang-code]/page.tsx (route; deleted)'\`) or restore the file`],
      ['context_primer.generated_files[1]', '**/*a*a*a*a*a*a*a*a*a*a*a*a*b matches no file; update the checkpoint'],
      ['context_primer.generated_files[2]', 'src/d1/[z-a]*.ts matches no file; update the checkpoint'],
    ]);
  });

  it('a listed folder that is gone is named with the commit that deleted or moved it, with or without its trailing slash', async () => {
    const { dir, dropped, moved } = builtOnce('listed folders gone', () => {
      const dir = makeRepo();
      const h = new History(dir);
      h.write('src/lib/a.ts', 'a\n').write('src/lib/b.ts', 'b\n').write('src/gen/c.ts', 'c\n');
      const entries = ['src/lib/', 'src/lib', 'src/gen/ (generated client)'];
      h.write('.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint({ context_primer: { key_decisions: [], generated_files: entries } }), null, 2)}\n`);
      h.commit('checkpoint: api', ago(119));
      h.write('src/lib/a.ts', 'a2\n').commit('Edit a', ago(90));
      const dropped = h.rm('src/lib').commit('Drop lib', ago(60));
      const moved = h.mv('src/gen', 'src/client').commit('Move the generated client', ago(30));
      h.done();
      return { dir, dropped, moved };
    });
    const r = await runCli(dir, ['doctor', '--json', '--engine', engine]);
    expect(r.code, r.stderr).toBe(0);
    const files = JSON.parse(r.stdout).findings.filter((f: { check: string }) => f.check === 'generated_files');
    expect(files.map((f: { message: string }) => f.message)).toEqual([
      `src/lib/ is missing: deleted in ${dropped.slice(0, 7)} "Drop lib"; update the checkpoint (\`checkpoint update api --context_primer.generated_files.0='src/lib/ (deleted)'\`) or restore the file`,
      `src/lib is missing: deleted in ${dropped.slice(0, 7)} "Drop lib"; update the checkpoint (\`checkpoint update api --context_primer.generated_files.1='src/lib (deleted)'\`) or restore the file`,
      `src/gen/ is missing: renamed to src/client/ in ${moved.slice(0, 7)}; update the checkpoint (\`checkpoint update api --context_primer.generated_files.2='src/gen/ (generated client; renamed to src/client/)'\`)`,
    ]);
  });

  it('an entry outside the repository ("../Makefile", "/etc/hosts", "../docs/*.md") or the repository itself ("./") gets a note saying so, never nothing', async () => {
    const parent = tempDir();
    dirs.push(parent);
    const dir = join(parent, 'app');
    cpSync(makeRepo(), dir, { recursive: true });
    dirs.push(dir);
    // Real files there: an entry outside is not checked even when it would be found.
    write(parent, 'Makefile', 'all:\n');
    write(parent, 'docs/setup.md', 'setup\n');
    const entries = ['../Makefile', '../Makefile (shared build, PR 12)', `${parent}/docs/setup.md`, '/etc/hosts', '../docs/*.md', 'src/../../Makefile', 'docs/../../docs/*.md', './', 'src/orders.ts', 'src/./orders.ts'];
    const h = new History(dir);
    h.write('src/orders.ts', 'export const orders = 8.0;\n');
    h.write('.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint({ context_primer: { key_decisions: [], generated_files: entries } }), null, 2)}\n`);
    h.commit('checkpoint: api', ago(119));
    h.done();
    const r = await runCli(dir, ['doctor', '--json', '--engine', engine]);
    expect(r.code, r.stderr).toBe(0);
    const files = JSON.parse(r.stdout).findings.filter((f: { check: string }) => f.check === 'generated_files');
    expect(files.map((f: { path: string; level: string; message: string }) => [f.path, f.level, f.message])).toEqual([
      ...[0, 1, 2, 3, 4, 5, 6].map((i) => [`context_primer.generated_files[${i}]`, 'info', `${JSON.stringify(entries[i])} names a path outside the repository; not checked`]),
      ['context_primer.generated_files[7]', 'info', '"./" names the repository itself, not a file in it; not checked'],
    ]);
  });

  it('a home path however written ($HOME/…, ${HOME}/…, %USERPROFILE%\\…) is outside the repository, as ~/… is, never missing', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    const entries = ['~/.ssh/id_rsa', '$HOME/.ssh/id_rsa (deploy key)', '${HOME}/.aws/credentials', '%USERPROFILE%\\.ssh\\id_rsa', '$env:USERPROFILE\\.npmrc', 'src/orders.ts'];
    const h = new History(dir);
    h.write('src/orders.ts', 'export const orders = 8.0;\n');
    h.write('.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint({ context_primer: { key_decisions: [], generated_files: entries } }), null, 2)}\n`);
    h.commit('checkpoint: api', ago(119));
    h.done();
    const r = await runCli(dir, ['doctor', '--json', '--fail-on-warnings', '--engine', engine]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const files = JSON.parse(r.stdout).findings.filter((f: { check: string }) => f.check === 'generated_files');
    expect(files.map((f: { path: string; level: string; message: string }) => [f.path, f.level, f.message])).toEqual(
      [0, 1, 2, 3, 4].map((i) => [`context_primer.generated_files[${i}]`, 'info', `${JSON.stringify(entries[i])} names a path outside the repository; not checked`]),
    );
  });

  it('a bare file name (Makefile, LICENSE, HEAD) is checked once it is gone when git knows it; a plain word stays a note', async () => {
    const entries = ['Makefile (build targets)', 'LICENSE', 'Procfile', 'HEAD', 'Brewfile', 'Dockerfile', 'tests', 'none', 'n/a', 'TBD'];
    const { dir, early, dropped } = builtOnce('bare file names', () => {
      const dir = makeRepo();
      const h = new History(dir);
      for (const f of ['Makefile', 'LICENSE', 'Procfile', 'HEAD', 'Dockerfile']) h.write(f, `${f}\n`);
      h.commit('init', ago(300));
      const early = h.rm('Procfile').commit('drop the Procfile', ago(200));
      h.write('.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint({ context_primer: { key_decisions: [], generated_files: entries } }), null, 2)}\n`);
      h.commit('checkpoint: api', ago(119));
      const dropped = h.rm('Makefile').commit('drop make', ago(60));
      h.done();
      git(dir, ['rm', '-q', '--cached', 'LICENSE']);
      rmSync(join(dir, 'LICENSE'));
      git(dir, ['update-index', '--skip-worktree', 'HEAD']);
      rmSync(join(dir, 'HEAD'));
      write(dir, 'Brewfile', 'b\n');
      git(dir, ['add', 'Brewfile']);
      rmSync(join(dir, 'Brewfile'));
      return { dir, early, dropped };
    });
    const report = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout);
    const at = (i: number) => report.findings.find((f: { path: string }) => f.path === `context_primer.generated_files[${i}]`);
    expect(at(0)).toMatchObject({ level: 'warning', message: `Makefile is missing: deleted in ${dropped.slice(0, 7)} "drop make"; update the checkpoint (\`checkpoint update api --context_primer.generated_files.0='Makefile (build targets; deleted)'\`) or restore the file` });
    expect(at(1)).toMatchObject({ level: 'warning', message: `LICENSE is missing: deleted or moved in the work tree, not committed; update the checkpoint (\`checkpoint update api --context_primer.generated_files.1='LICENSE (deleted)'\`) or restore the file` });
    expect(at(2)).toMatchObject({ level: 'warning', message: `Procfile is missing: deleted in ${early.slice(0, 7)} "drop the Procfile"; update the checkpoint (\`checkpoint update api --context_primer.generated_files.2='Procfile (deleted)'\`) or restore the file` });
    expect(at(3)).toMatchObject({ level: 'info', message: 'HEAD is not checked out here (sparse checkout or skip-worktree); not checked' });
    // Staged, never committed, deleted: an uncommitted deletion as LICENSE's.
    expect(at(4)).toMatchObject({ level: 'warning', message: `Brewfile is missing: deleted or moved in the work tree, not committed; update the checkpoint (\`checkpoint update api --context_primer.generated_files.4='Brewfile (deleted)'\`) or restore the file` });
    expect(at(5)).toBeUndefined();
    for (const i of [6, 7, 8, 9]) expect(at(i)).toMatchObject({ level: 'info', message: `"${entries[i]}" names no file; read as a note, not checked` });
  });

  it('a listed file only the index holds (staged, never committed), deleted from the work tree mid-session, is an uncommitted deletion as a file from HEAD is', async () => {
    const entries = ['Brewfile', 'src/new.ts (PR 12, draft)', 'src/orders.ts'];
    const { dir } = builtOnce('listed files only the index holds', () => {
      const dir = makeRepo();
      const h = new History(dir);
      h.write('src/orders.ts', 'export const orders = 8.0;\n');
      h.write('.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint({ context_primer: { key_decisions: [], generated_files: entries } }), null, 2)}\n`);
      h.commit('checkpoint: api', ago(119));
      h.done();
      write(dir, 'Brewfile', 'brew "git"\n');
      write(dir, 'src/new.ts', 'export {};\n');
      git(dir, ['add', 'Brewfile', 'src/new.ts']);
      rmSync(join(dir, 'Brewfile'));
      rmSync(join(dir, 'src/new.ts'));
      rmSync(join(dir, 'src/orders.ts'));
      return { dir };
    });
    expect(git(dir, ['status', '--porcelain=v2'])).toMatch(/^1 AD .* Brewfile$/m);
    // The session is mid-work: its checkpoint has uncommitted edits.
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint({ next_actions: ['Wire src/new.ts into the router'], context_primer: { key_decisions: [], generated_files: entries } }), null, 2)}\n`);
    const report = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout);
    const files = report.findings.filter((f: { check: string }) => f.check === 'generated_files');
    expect(files.map((f: { path: string; level: string; message: string }) => [f.path, f.level, f.message])).toEqual(
      // Each names the update that says, in its entry, that the file is gone (its own note kept).
      [['Brewfile', 'Brewfile (deleted)'], ['src/new.ts', 'src/new.ts (PR 12, draft; deleted)'], ['src/orders.ts', 'src/orders.ts (deleted)']].map(([file, marked], i) => [`context_primer.generated_files[${i}]`, 'info', `${file} is missing: deleted or moved in the work tree, not committed; update the checkpoint (\`checkpoint update api --context_primer.generated_files.${i}='${marked}'\`) or restore the file`]),
    );
  });

  it('a glob at the top of the repository ("*.md", "**/*.csv") is checked like any other, not a failed walk', async () => {
    const { dir, dropped } = builtOnce('globs at the top', () => {
      const dir = makeRepo();
      const h = new History(dir);
      h.write('README.md', 'readme\n').write('CHANGELOG.md', 'changes\n');
      h.write('.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint({ context_primer: { key_decisions: [], generated_files: ['*.md (top docs)', '**/*.csv'] } }), null, 2)}\n`);
      h.commit('checkpoint: api', ago(119));
      const dropped = h.rm('CHANGELOG.md').commit('drop the changelog', ago(60));
      h.done();
      return { dir, dropped };
    });
    const r = await runCli(dir, ['doctor', '--json', '--engine', engine]);
    expect(r.code, r.stderr).toBe(0);
    const files = JSON.parse(r.stdout).findings.filter((f: { check: string }) => f.check === 'generated_files');
    expect(files.map((f: { message: string }) => f.message)).toEqual([
      `CHANGELOG.md (matched by *.md) was deleted after the checkpoint was written (${dropped.slice(0, 7)} "drop the changelog", ${files[0].evidence.date}); update the checkpoint (\`checkpoint update api --progress_summary='<what the change means for the work>'\`)`,
      '**/*.csv matches no file; update the checkpoint',
    ]);
  });

  it('a listed file renamed at the top of the repository is named with its new path, as one in a folder is', async () => {
    const { dir, moved } = builtOnce('renamed at the top', () => {
      const dir = makeRepo();
      const h = new History(dir);
      h.write('NOTES.md', 'notes\n').write('docs/c.md', 'c\n');
      h.write('.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint({ context_primer: { key_decisions: [], generated_files: ['NOTES.md (kept by hand)', 'docs/c.md'] } }), null, 2)}\n`);
      h.commit('checkpoint: api', ago(119));
      const moved = h.mv('NOTES.md', 'NOTES-2026.md').mv('docs/c.md', 'docs/d.md').commit('rename notes and c', ago(60));
      h.done();
      return { dir, moved };
    });
    const files = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings.filter((f: { check: string }) => f.check === 'generated_files');
    expect(files.map((f: { message: string }) => f.message)).toEqual([
      `NOTES.md is missing: renamed to NOTES-2026.md in ${moved.slice(0, 7)}; update the checkpoint (\`checkpoint update api --context_primer.generated_files.0='NOTES.md (kept by hand; renamed to NOTES-2026.md)'\`)`,
      `docs/c.md is missing: renamed to docs/d.md in ${moved.slice(0, 7)}; update the checkpoint (\`checkpoint update api --context_primer.generated_files.1='docs/c.md (renamed to docs/d.md)'\`)`,
    ]);
  });

  it('a file a glob entry matched, deleted or renamed since, is named as deleted or renamed, not as changed', async () => {
    const { dir, dropped, moved } = builtOnce('glob matches deleted and renamed', () => {
      const dir = makeRepo();
      const h = new History(dir);
      h.write('src/a.ts', 'a\n').write('src/b.ts', 'b\n').write('lib/c.ts', 'c\n').write('lib/e.ts', 'e\n');
      const entries = ['src/**/*.ts (PR 12)', 'lib/*.ts', 'src/a.ts'];
      h.write('.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint({ context_primer: { key_decisions: [], generated_files: entries } }), null, 2)}\n`);
      h.commit('checkpoint: api', ago(119));
      const dropped = h.rm('src/b.ts').commit('drop b', ago(60));
      // Out of the glob's reach (a rename it still matches at both ends would be no change).
      const moved = h.mv('lib/c.ts', 'lib/old/d.ts').commit('c becomes d', ago(50));
      h.done();
      return { dir, dropped, moved };
    });
    const files = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings.filter((f: { check: string }) => f.check === 'generated_files');
    const at = (i: number) => files.find((f: { path: string }) => f.path === `context_primer.generated_files[${i}]`);
    expect(at(0).message).toBe(`src/b.ts (matched by src/**/*.ts) was deleted after the checkpoint was written (${dropped.slice(0, 7)} "drop b", ${at(0).evidence.date}); update the checkpoint (\`checkpoint update api --progress_summary='<what the change means for the work>'\`)`);
    expect(at(0).evidence).toMatchObject({ file: 'src/b.ts', missing: true, sha: dropped });
    expect(at(1).message).toContain(`lib/c.ts (matched by lib/*.ts) was renamed to lib/old/d.ts after the checkpoint was written (${moved.slice(0, 7)}`);
    expect(at(1).evidence).toMatchObject({ file: 'lib/c.ts', renamed_to: 'lib/old/d.ts', sha: moved });
    expect(at(2)).toBeUndefined();
    expect(files.some((f: { message: string }) => f.message.includes('re-read it'))).toBe(false);
  });

  it('names generated files with uncommitted edits, in entry order among committed drift; notes only while the checkpoint itself is mid-edit and written after them', async () => {
    const { dir, cp, edit } = builtOnce('uncommitted edits of listed files', () => {
      const dir = makeRepo();
      const h = new History(dir);
      h.write('src/a.ts', 'a\n').write('src/b.ts', 'b\n').write('src/c file.ts', 'c\n');
      const entries = ['src/a.ts (PR 12)', 'src/b.ts — reviewed', 'src/c file.ts', 'src/new.ts'];
      const cp = `${JSON.stringify(checkpoint({ context_primer: { key_decisions: [], generated_files: entries }, next_actions: ['Write the docs'] }), null, 2)}\n`;
      h.write('.checkpoints/api.checkpoint.json', cp).commit('checkpoint: api', ago(119));
      const edit = h.write('src/b.ts', 'b, committed later\n').commit('edit b', ago(60));
      h.done();
      write(dir, 'src/a.ts', 'a, not committed\n');
      write(dir, 'src/c file.ts', 'c, staged\n');
      git(dir, ['add', 'src/c file.ts']);
      write(dir, 'src/new.ts', 'untracked\n');
      return { dir, cp, edit };
    });
    const files = async () => JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings.filter((f: { check: string }) => f.check === 'generated_files');
    const dirty = (level: string, i: number, file: string) => ({ level, path: `context_primer.generated_files[${i}]`, message: `${file} has uncommitted edits made after the checkpoint; re-read it`, evidence: { file } });
    const committed = { level: 'warning', path: 'context_primer.generated_files[1]', evidence: { file: 'src/b.ts', sha: edit } };
    // A file never added is not tracked: no edits to claim, a note either way (r11 #4).
    const untracked = { level: 'info', path: 'context_primer.generated_files[3]', message: 'src/new.ts is not tracked by git (never added: commit it if the work needs it); not checked', evidence: { file: 'src/new.ts' } };
    expect(await files()).toMatchObject([dirty('warning', 0, 'src/a.ts'), committed, dirty('warning', 2, 'src/c file.ts'), untracked]);
    write(dir, '.checkpoints/api.checkpoint.json', cp.replace('Write the docs', 'Write the docs, then the tests'));
    expect(await files()).toMatchObject([dirty('info', 0, 'src/a.ts'), committed, dirty('info', 2, 'src/c file.ts'), untracked]);
    // Edited after that write (its mtime set, not waited for): no save saw it, so drift again (red team 60, 10).
    write(dir, 'src/a.ts', 'a, rewritten after the save\n');
    const later = new Date(statSync(join(dir, '.checkpoints/api.checkpoint.json')).mtimeMs + 5_000);
    utimesSync(join(dir, 'src/a.ts'), later, later);
    expect(await files()).toMatchObject([dirty('warning', 0, 'src/a.ts'), committed, dirty('info', 2, 'src/c file.ts'), untracked]);
  });

  it('checks verified_for_sha against HEAD history', async () => {
    const { dir, rootSha, sideSha } = builtOnce('a side commit', () => {
      const dir = makeRepo();
      const h = new History(dir);
      const rootSha = h.head;
      const sideSha = h.checkout('side', true).commit('side work', ago(200));
      h.checkout('main').done();
      return { dir, rootSha, sideSha };
    });
    const write3 = (sha: string) => write(dir, '.checkpoints/api.checkpoint.json', JSON.stringify(checkpoint({ context_primer: { key_decisions: [] }, next_actions: ['x'], skill_state: { verified_for_sha: sha } })));
    const findings = async () => JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings.filter((f: { check: string }) => f.check === 'verified_for_sha');
    write3(rootSha);
    expect(await findings()).toEqual([]);
    write3(sideSha);
    expect((await findings())[0].message).toContain("not in HEAD's history");
    write3('deadbeefdeadbeef');
    expect((await findings())[0].message).toContain('not a commit');
  });
});

describe('without a git binary', () => {
  it('doctor and next fall back to the embedded engine and give the same answers', async () => {
    const dir = driftedRepo();
    const noGit = { PATH: '/nonexistent' };
    const report = JSON.parse((await runCli(dir, ['doctor', '--json'], { env: noGit })).stdout);
    expect(report.engine).toBe('isomorphic');
    const native = JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout);
    expect(native.engine).toBe('native');
    expect(report.findings).toEqual(native.findings);
    rmSync(join(dir, '.git/checkpoint'), { recursive: true, force: true }); // no cached walk: next must ask the engine
    expect(JSON.parse((await runCli(dir, ['next', '--json'], { env: noGit })).stdout).next.text).toBe('Write the session docs');
  });
});

describe('next', () => {
  it('skips an action whose PR landed and recommends reconciling when all landed', async () => {
    const dir = driftedRepo();
    const next = JSON.parse((await runCli(dir, ['next', '--json'])).stdout);
    expect(next.next).toMatchObject({ skill: 'api', kind: 'action', text: 'Write the session docs' });
    expect(next.next.skipped_as_landed[0].text).toBe('Merge PR #12 (auth middleware)');
    const cp = JSON.parse(readFileSync(join(dir, '.checkpoints/api.checkpoint.json'), 'utf8'));
    cp.next_actions = ['Merge PR #12 (auth middleware)'];
    writeFileSync(join(dir, '.checkpoints/api.checkpoint.json'), JSON.stringify(cp));
    const all = JSON.parse((await runCli(dir, ['next', '--json'])).stdout);
    expect(all.reconcile).toBe(true);
    expect(all.next.kind).toBe('reconcile');
    expect((await runCli(dir, ['next'])).stdout).toContain('Reconcile api');
  });
});

describe('pre-push hook', () => {
  function withRemote(dir: string): string {
    const remote = tempDir('cp-remote-');
    dirs.push(remote);
    git(remote, ['init', '-q', '--bare']);
    git(dir, ['remote', 'add', 'origin', remote]);
    return remote;
  }

  it('refuses a push while doctor warns and allows it once fixed', async () => {
    const dir = driftedRepo();
    initialized(dir);
    commitAll(dir, 'init checkpoint tooling', ago(50));
    withRemote(dir);
    const refused = gitTry(dir, ['push', '-q', 'origin', 'main']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('push refused');
    expect(gitTry(dir, ['ls-remote', 'origin']).stdout).toBe('');
    // --no-verify is git's usual bypass.
    expect(gitTry(dir, ['push', '-q', '--no-verify', 'origin', 'main']).status).toBe(0);
    // Reconcile: drop the landed action, point at the renamed file, re-read the notes.
    const fixed = checkpoint({
      updated_at: ago(1),
      next_actions: ['Write the session docs'],
      context_primer: { key_decisions: ['JWT'], generated_files: ['src/auth.ts', 'src/sessions.ts', 'docs/notes.md'] },
    });
    write(dir, '.checkpoints/api.checkpoint.json', JSON.stringify(fixed, null, 2));
    commitAll(dir, 'checkpoint: reconcile api');
    const ok = gitTry(dir, ['push', '-q', 'origin', 'main']);
    expect(ok.status, ok.stderr).toBe(0);
  });
  it('lets an unrelated push through with a bad walk_days in an untracked config.json, warning about it', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    initialized(dir);
    expect((await runCli(dir, ['update', 'api', '--phase=build', '--step=auth', '--status=in_progress', '--progress_summary=x', '--next_actions+=Write the docs'])).code).toBe(0);
    commitAll(dir, 'checkpoint: api');
    const remote = withRemote(dir);
    write(dir, '.checkpoints/config.json', '{"walk_days": -1}\n');
    write(dir, 'unrelated.txt', 'hi\n');
    git(dir, ['add', 'unrelated.txt']);
    git(dir, ['commit', '-q', '-m', 'unrelated']);
    const pushed = gitTry(dir, ['push', '-q', 'origin', 'main']);
    expect(pushed.status, pushed.stderr).toBe(0);
    expect(pushed.stdout).toContain('warning .checkpoints/config.json walk_days: "walk_days" must be a number of days >= 0 (0: walk all history), not -1; the default 365 is used');
    expect(git(remote, ['rev-parse', 'main']).trim()).toBe(headSha(dir));
  });

  it('a config.json setting past a double\'s range (1e400) is told to be written as the number it means, not as a string (red team 62e, 08)', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, '.checkpoints/config.json', '{"walk_days": 1e400}\n');
    const r = await runCli(dir, ['doctor']);
    expect(r.stdout).toContain('.checkpoints/config.json:1:15: number 1e400 at walk_days is beyond what a JSON number can hold here (it would read as Infinity); write a number the setting takes (.checkpoints/README.md lists each; walk_days: 0 reads all history)');
    expect(r.stdout).not.toContain('write it as a string');
  });
});

describe.each(ENGINES)('doctor --engine %s: the walk_days bound', (engine) => {
  const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');

  /** A checkpoint saved two years ago whose PR #12 landed 500 days ago, then a recent unrelated commit (built once per file, a copy each). */
  const oldRepo = () => builtOnce('an old checkpoint', buildOldRepo);
  function buildOldRepo(): { dir: string; landing: string; base: string } {
    const dir = makeRepo();
    const h = new History(dir);
    h.write('src/auth.ts', 'auth\n').write('src/session.ts', 'session\n').write('docs/notes.md', 'notes\n');
    h.write('.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint({ created_at: daysAgo(731), updated_at: daysAgo(730) }), null, 2)}\n`);
    const base = h.commit('checkpoint: api', daysAgo(729));
    const landing = h.write('src/auth.ts', 'auth with middleware\n').commit('Auth middleware (#12)', daysAgo(500));
    h.write('README.md', 'readme\n').commit('readme', daysAgo(1));
    h.done();
    return { dir, landing, base };
  }

  it('cuts the walk at 365 days by default and says so in one line, still finding the queued PR that landed before the cut; walk_days 0 walks it all', async () => {
    const { dir, landing } = oldRepo();
    const cut = await runCli(dir, ['doctor', '--engine', engine, '--json']);
    const report = JSON.parse(cut.stdout);
    const history = report.findings.filter((f: { check: string }) => f.check === 'history');
    expect(history).toHaveLength(1);
    expect(history[0].message).toMatch(/older commits back to \d{4}-\d\d-\d\d were searched only for #12 \(still queued\)/);
    expect(report.findings.find((f: { check: string }) => f.check === 'landed')?.evidence.sha).toBe(landing);
    expect((await runCli(dir, ['doctor', '--engine', engine])).stdout).toMatch(/^ {2}info +history walk cut at \d{4}-\d\d-\d\d \(walk_days 365\)/m);
    // next does not tell an agent to merge a PR that merged a year and a half ago.
    const next = (await runCli(dir, ['next', '--engine', engine])).stdout;
    expect(next).toMatch(/^→ Write the session docs$/m);
    expect(next).toContain(`#12 landed in ${landing.slice(0, 7)}`);

    write(dir, '.checkpoints/config.json', '{ "walk_days": 0 }\n');
    const all = JSON.parse((await runCli(dir, ['doctor', '--engine', engine, '--json'])).stdout);
    expect(all.findings.some((f: { check: string }) => f.check === 'history')).toBe(false);
    expect(all.findings.find((f: { check: string }) => f.check === 'landed')?.evidence.sha).toBe(landing);
  });

  it('before the cut: a landing reverted later still counts as open; a generated file renamed away is named with its new path', async () => {
    const { dir, landing } = oldRepo();
    git(dir, ['revert', '--no-edit', landing], { GIT_COMMITTER_DATE: daysAgo(450), GIT_AUTHOR_DATE: daysAgo(450) });
    git(dir, ['mv', 'docs/notes.md', 'docs/notes-v2.md']);
    const renamed = commitAll(dir, 'Rename the notes', daysAgo(440));
    write(dir, 'src/late.ts', 'x\n');
    commitAll(dir, 'late', daysAgo(2));
    const report = JSON.parse((await runCli(dir, ['doctor', '--engine', engine, '--json'])).stdout);
    expect(report.findings.some((f: { check: string }) => f.check === 'landed')).toBe(false);
    const missing = report.findings.find((f: { check: string; evidence?: { file?: string } }) => f.check === 'generated_files' && f.evidence?.file === 'docs/notes.md');
    expect(missing.message).toContain(`renamed to docs/notes-v2.md in ${renamed.slice(0, 7)}`);
    expect(missing.evidence).toMatchObject({ renamed_to: 'docs/notes-v2.md', sha: renamed });
    const line = report.findings.find((f: { check: string }) => f.check === 'history').message;
    expect(line).toContain('for the removal of docs/notes.md');
    expect(line.split('\n')).toHaveLength(1);
  });

  it('a checkpoint saved after the cut that still queues a PR from before it: that PR is searched too (the dates change the deep question)', async () => {
    const { dir, landing } = oldRepo();
    // Queued two years ago, re-saved ten days ago with the text kept; PR #77 landed in between.
    write(dir, '.checkpoints/web.checkpoint.json', `${JSON.stringify(checkpoint({ skill: 'web', created_at: daysAgo(721), updated_at: daysAgo(720), next_actions: ['Land PR #77 (web login)', 'Polish the web login'] }), null, 2)}\n`);
    commitAll(dir, 'checkpoint: web', daysAgo(719));
    write(dir, 'src/web.ts', 'login\n');
    const web = commitAll(dir, 'Web login (#77)', daysAgo(600));
    write(dir, '.checkpoints/web.checkpoint.json', `${JSON.stringify(checkpoint({ skill: 'web', created_at: daysAgo(721), updated_at: daysAgo(10), next_actions: ['Land PR #77 (web login)', 'Polish the web login'], step: 're-saved' }), null, 2)}\n`);
    commitAll(dir, 'checkpoint: web re-saved', daysAgo(9));
    const report = JSON.parse((await runCli(dir, ['doctor', '--engine', engine, '--json'])).stdout);
    const landed = report.findings.filter((f: { check: string }) => f.check === 'landed').map((f: { evidence: { sha: string } }) => f.evidence.sha).sort();
    expect(landed).toEqual([landing, web].sort());
    expect(report.findings.find((f: { check: string }) => f.check === 'history').message).toMatch(/searched only for #12, #77 \(still queued\)/);
    // status (and next) say so too: they ask the same deep question.
    expect((await runCli(dir, ['status', '--engine', engine])).stdout).toContain(`Land PR #77 (web login)  (already landed: #77 landed in ${web.slice(0, 7)}`);
  });

  it('before the cut: a request Azure DevOps or GitLab merged is found too, though its message never writes #12 (red team s12 #4)', async () => {
    const { dir, azure, gitlab } = builtOnce('requests merged on other hosts', () => {
      const dir = makeRepo();
      const h = new History(dir);
      h.write('src/auth.ts', 'auth\n');
      h.write('.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint({ created_at: daysAgo(731), updated_at: daysAgo(730), next_actions: ['Merge PR 12 (auth)', 'Merge MR !13 (session)', 'Write the session docs'], context_primer: { key_decisions: ['JWT'] } }), null, 2)}\n`);
      h.commit('checkpoint: api', daysAgo(729));
      const azure = h.write('src/auth.ts', 'auth with middleware\n').commit('Merged PR 12: Auth middleware', daysAgo(500));
      const gitlab = h.write('src/session.ts', 'session\n').commit("Merge branch 'session' into 'main'\n\nSessions\n\nSee merge request acme/shop!13", daysAgo(490));
      h.write('README.md', 'readme\n').commit('readme', daysAgo(1));
      h.done();
      return { dir, azure, gitlab };
    });
    const report = JSON.parse((await runCli(dir, ['doctor', '--engine', engine, '--json'])).stdout);
    expect(report.findings.find((f: { check: string }) => f.check === 'history').message).toMatch(/searched only for !13, #12 \(still queued\)/);
    const landed = report.findings.filter((f: { check: string }) => f.check === 'landed').map((f: { evidence: { sha: string } }) => f.evidence.sha);
    expect(landed.sort()).toEqual([azure, gitlab].sort());
    expect((await runCli(dir, ['next', '--engine', engine])).stdout).toMatch(/^→ Write the session docs$/m);
  });

  it('a shallow clone: one line says landings older than its boundary cannot be checked, never that older history was searched; next notes it', async () => {
    const { dir } = oldRepo();
    const clone = join(tempDir(), 'clone');
    dirs.push(clone.slice(0, -'/clone'.length));
    // Only the two newest commits: the checkpoint's and #12's landings lie beyond the boundary.
    git(dir, ['clone', '-q', '--depth', '1', `file://${dir}`, clone]);
    const report = JSON.parse((await runCli(clone, ['doctor', '--engine', engine, '--json'])).stdout);
    const history = report.findings.filter((f: { check: string }) => f.check === 'history');
    expect(history).toHaveLength(1);
    expect(history[0].message).toMatch(/^shallow clone: landings, renames and removals older than its boundary cannot be checked \(`git fetch --unshallow` to check\)$/);
    expect((await runCli(clone, ['doctor', '--engine', engine])).stdout).not.toMatch(/searched|walk cut/);
    const next = (await runCli(clone, ['next', '--engine', engine])).stdout;
    // Its one stale checkpoint is named with the stale line (only stale work is queued), then the note.
    expect(next).toMatch(/^→ Merge PR #12 \(auth middleware\)\n {2}stale: nothing fresh is queued; .*\n {2}note: shallow clone: work that landed before its boundary is not seen/m);
    // The full clone says nothing of the kind.
    expect((await runCli(dir, ['next', '--engine', engine])).stdout).not.toContain('shallow');
  });

  it('never hides what a push sends: pushed commits older than the cut are still judged', async () => {
    const { dir, landing, base } = oldRepo();
    const r = await runCli(dir, ['doctor', '--engine', engine, '--json', '--fail-on-warnings', '--pushed', `${base}..${landing}`]);
    const report = JSON.parse(r.stdout);
    const landed = report.findings.find((f: { check: string }) => f.check === 'landed');
    expect(landed?.evidence.sha).toBe(landing);
    expect(landed?.blocks).toBe(true);
    expect(r.code).toBe(1);
  });

  it('a bare name removed past the cut: found back to the oldest checkpoint save, or within walk_days before it; older only under walk_days 0', async () => {
    const { dir, ancient, before, after } = builtOnce('bare names removed past the cut', () => {
      const dir = makeRepo();
      const h = new History(dir);
      for (const f of ['Makefile', 'Procfile', 'Brewfile']) h.write(f, `${f}\n`);
      h.commit('base', daysAgo(1200));
      const ancient = h.rm('Brewfile').commit('drop the Brewfile', daysAgo(1100));
      const before = h.rm('Procfile').commit('drop the Procfile', daysAgo(900));
      h.write('.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint({ created_at: daysAgo(731), updated_at: daysAgo(730), context_primer: { key_decisions: [], generated_files: ['Makefile (build targets)', 'Procfile', 'Brewfile'] } }), null, 2)}\n`);
      h.commit('checkpoint: api', daysAgo(729));
      const after = h.rm('Makefile').commit('drop make', daysAgo(500));
      h.write('README.md', 'readme\n').commit('readme', daysAgo(1));
      h.done();
      return { dir, ancient, before, after };
    });
    const messages = async () => JSON.parse((await runCli(dir, ['doctor', '--engine', engine, '--json'])).stdout).findings
      .filter((f: { check: string }) => f.check === 'generated_files').map((f: { message: string }) => f.message);
    const note = '"Brewfile" names no file; read as a note, not checked';
    // The checkpoint was saved 730 days ago: removals back to then are searched, past a 365-day cut.
    write(dir, '.checkpoints/config.json', '{ "walk_days": 365 }\n');
    expect(await messages()).toEqual([`Makefile is missing: deleted in ${after.slice(0, 7)} "drop make"; update the checkpoint (\`checkpoint update api --context_primer.generated_files.0='Makefile (build targets; deleted)'\`) or restore the file`, '"Procfile" names no file; read as a note, not checked', note]);
    // A bound older than the save reaches the Procfile's removal, not the Brewfile's.
    write(dir, '.checkpoints/config.json', '{ "walk_days": 1000 }\n');
    expect(await messages()).toEqual([`Makefile is missing: deleted in ${after.slice(0, 7)} "drop make"; update the checkpoint (\`checkpoint update api --context_primer.generated_files.0='Makefile (build targets; deleted)'\`) or restore the file`, `Procfile is missing: deleted in ${before.slice(0, 7)} "drop the Procfile"; update the checkpoint (\`checkpoint update api --context_primer.generated_files.1='Procfile (deleted)'\`) or restore the file`, note]);
    write(dir, '.checkpoints/config.json', '{ "walk_days": 0 }\n');
    expect((await messages())[2]).toBe(`Brewfile is missing: deleted in ${ancient.slice(0, 7)} "drop the Brewfile"; update the checkpoint (\`checkpoint update api --context_primer.generated_files.2='Brewfile (deleted)'\`) or restore the file`);
  });

  it('reads a walk_days that is not a number of days as the default 365, with a (repository) warning naming it and its value', async () => {
    const { dir } = oldRepo();
    for (const [value, as] of [['"a year"', '"a year"'], ['-1', '-1'], ['"365"', '"365"'], ['null', 'null'], ['[]', '[]']] as const) {
      write(dir, '.checkpoints/config.json', `{ "walk_days": ${value} }\n`);
      const r = await runCli(dir, ['doctor', '--engine', engine]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain(`(repository)\n  warning .checkpoints/config.json walk_days: "walk_days" must be a number of days >= 0 (0: walk all history), not ${as}; the default 365 is used\n`);
      // The walk is the default one: cut at 365 days, and said so.
      expect(r.stdout).toMatch(/^ {2}info +history walk cut at \d{4}-\d\d-\d\d \(walk_days 365\)/m);
      expect((await runCli(dir, ['doctor', '--engine', engine, '--fail-on-warnings'])).code).toBe(1);
    }
    // rotate, which uses the config, refuses it as it refuses any bad entry: without claiming a default is used.
    const rotate = await runCli(dir, ['rotate']);
    expect(rotate.code).toBe(2);
    expect(rotate.stderr).toContain('"walk_days" must be a number of days >= 0 (0: walk all history), not []');
    expect(rotate.stderr).not.toContain('default');
  });
});

describe('status and next with a broken walk_days', () => {
  it('answer with the default walk, as for any other bad config entry (a queued PR is still looked up), leaving the checkpoint byte-identical', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpoint(), null, 2)}\n`);
    commitAll(dir, 'checkpoint: api');
    git(dir, ['commit', '-q', '--allow-empty', '-m', 'Merge pull request #12 from team/auth']);
    const before = readFileSync(join(dir, '.checkpoints/api.checkpoint.json'));
    for (const value of ['-1', '"365"', 'null', '[]']) {
      write(dir, '.checkpoints/config.json', `{ "walk_days": ${value} }\n`);
      for (const cmd of ['status', 'next']) {
        const r = await runCli(dir, [cmd, '--json']);
        expect(r.code, r.stderr).toBe(0);
        const out = JSON.parse(r.stdout);
        const next = out.next;
        expect(next.text).toBe('Write the session docs');
        expect(next.skipped_as_landed.map((s: { text: string }) => s.text)).toEqual(['Merge PR #12 (auth middleware)']);
      }
    }
    expect(readFileSync(join(dir, '.checkpoints/api.checkpoint.json')).equals(before)).toBe(true);
  });
});
