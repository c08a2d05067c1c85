// resume's "Files for this step" marks each listed file git shows renamed or deleted since the
// checkpoint, with the commit doctor names for it, in text and --json (red team 51, B12).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanup, cli, commitAll, git, makeRepo, tempDir, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));
beforeAll(assertBuilt);

const ago = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');

/** As sessions write them: a note after a path, a path from another machine's checkout, two files in one entry, a plan. */
const FILES = ['src/limiter.ts (PR 12)', '/home/claude/shop/src/old.ts', 'src/a.ts, src/b.ts', 'src/keep.ts', 'docs/notes.md — to write'];

function repo(): string {
  const dir = makeRepo();
  dirs.push(dir);
  for (const f of ['limiter', 'old', 'a', 'b', 'keep']) write(dir, `src/${f}.ts`, `export const ${f} = 1;\n`);
  write(dir, '.checkpoints/api.checkpoint.json', `{
  "protocol_version": "1.1",
  "skill": "api",
  "project": "shop",
  "project_dir": "/home/claude/shop",
  "created_at": "${ago(30)}",
  "updated_at": "${ago(20)}",
  "phase": "build",
  "step": "throttling",
  "status": "in_progress",
  "progress_summary": "Rate limiter in; tests next.",
  "progress_table": [{ "id": "rl", "label": "Rate limits", "status": "in_progress" }],
  "context_primer": { "key_decisions": ["Token bucket"], "generated_files": ${JSON.stringify(FILES)} },
  "next_actions": ["Add tests for the limiter"],
  "skill_state": { "score": 8.0 }
}
`);
  commitAll(dir, 'checkpoint: api', ago(19));
  git(dir, ['mv', 'src/limiter.ts', 'src/rate-limiter.ts']);
  commitAll(dir, 'Rename the limiter', ago(10));
  git(dir, ['rm', '-q', 'src/old.ts', 'src/b.ts']);
  commitAll(dir, 'Drop old.ts and b.ts', ago(9));
  return dir;
}

/** doctor's commit for each generated_files entry it finds gone, by index. */
async function doctorShas(dir: string, engine: string): Promise<Map<number, string>> {
  const findings = JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings as { path: string; evidence?: { sha?: string; missing?: boolean } }[];
  return new Map(findings.flatMap((f) => {
    const m = /^context_primer\.generated_files\[(\d+)\]$/.exec(f.path);
    return m && f.evidence?.missing && f.evidence.sha ? [[Number(m[1]), f.evidence.sha] as const] : [];
  }));
}

describe.each(['native', 'isomorphic'] as const)('resume lists a file git shows renamed or deleted (%s)', (engine) => {
  it('marked with the commit doctor names, in text and --json; the rest as written', async () => {
    const dir = repo();
    const shas = await doctorShas(dir, engine);
    expect([...shas.keys()].sort()).toEqual([0, 1, 2]);
    const short = (i: number) => shas.get(i)!.slice(0, 7);

    const text = await runCli(dir, ['resume', 'api', '--engine', engine]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.slice(text.stdout.indexOf('Files for this step:'))).toBe([
      'Files for this step:',
      `  src/limiter.ts (PR 12) — src/limiter.ts renamed to src/rate-limiter.ts in ${short(0)}`,
      `  /home/claude/shop/src/old.ts — src/old.ts deleted in ${short(1)}`,
      `  src/a.ts, src/b.ts — src/b.ts deleted in ${short(2)}`,
      '  src/keep.ts',
      '  docs/notes.md — to write',
      '  (marked: not where the checkpoint says; update generated_files, `checkpoint doctor` has the details)',
      '',
    ].join('\n'));

    const json = JSON.parse((await runCli(dir, ['resume', 'api', '--json', '--engine', engine])).stdout);
    expect(json.files).toEqual(FILES);
    expect(json.files_gone).toEqual([
      { path: 'context_primer.generated_files[0]', entry: FILES[0], file: 'src/limiter.ts', renamed_to: 'src/rate-limiter.ts', sha: shas.get(0), note: `renamed to src/rate-limiter.ts in ${short(0)}` },
      { path: 'context_primer.generated_files[1]', entry: FILES[1], file: 'src/old.ts', sha: shas.get(1), note: `deleted in ${short(1)}` },
      { path: 'context_primer.generated_files[2]', entry: FILES[2], file: 'src/b.ts', sha: shas.get(2), note: `deleted in ${short(2)}` },
    ]);
  });

  it('a file deleted in the work tree and not committed is marked missing; with nothing gone, no mark and no files_gone', async () => {
    const dir = repo();
    git(dir, ['mv', 'src/rate-limiter.ts', 'src/limiter.ts']);
    git(dir, ['checkout', '-q', 'HEAD~1', '--', 'src/old.ts', 'src/b.ts']);
    commitAll(dir, 'Put the files back', ago(8));
    const clean = await runCli(dir, ['resume', 'api', '--engine', engine]);
    expect(clean.stdout).not.toMatch(/ — (?!to write)|marked:/);
    expect(JSON.parse((await runCli(dir, ['resume', 'api', '--json', '--engine', engine])).stdout).files_gone).toBeUndefined();

    rmSync(join(dir, 'src/keep.ts'));
    const text = await runCli(dir, ['resume', 'api', '--engine', engine]);
    expect(text.stdout).toContain('\n  src/keep.ts — missing\n');
  });
});

describe('which files are "for this step" (red team 12-07)', () => {
  it('a row id matches a file by whole words, not inside one (rate is not migrate); a file gone is listed whatever its name', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    for (const f of ['src/config/rate.ts', 'src/limiter.ts', 'src/old/legacy.ts', 'scripts/migrate.sh', 'docs/Rate_Limits.md']) write(dir, f, 'x\n');
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify({
      protocol_version: '1.1', skill: 'api', project: 'shop', project_dir: '.', created_at: ago(30), updated_at: ago(20),
      phase: 'build', step: 'token-bucket', status: 'in_progress', progress_summary: 'Limiter half done (8.0/10).',
      progress_table: [{ id: 'rate', label: 'Rate limiting', status: 'in_progress' }],
      context_primer: { key_decisions: [], generated_files: ['src/config/rate.ts', 'src/limiter.ts', 'src/old/legacy.ts (moving)', 'scripts/migrate.sh', 'docs/Rate_Limits.md'] },
      next_actions: ['Finish the limiter'],
    }, null, 4)}\n`);
    commitAll(dir, 'checkpoint: api', ago(19));
    git(dir, ['mv', 'src/old/legacy.ts', 'src/legacy.ts']);
    commitAll(dir, 'Move legacy up', ago(10));
    const out = (await runCli(dir, ['resume', 'api'])).stdout;
    const listed = out.slice(out.indexOf('Files for this step:')).split('\n').slice(1).filter((l) => l.startsWith('  ') && !l.includes('(marked:'));
    expect(listed.map((l) => l.trim())).toEqual(['src/config/rate.ts', `src/old/legacy.ts (moving) — src/old/legacy.ts renamed to src/legacy.ts in ${git(dir, ['rev-parse', '--short', 'HEAD']).trim()}`, 'docs/Rate_Limits.md']);
  });

  it('past the cap of 12 a file gone is still listed, and a line counts the files left out (red team rt60c 03)', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    const names = Array.from({ length: 14 }, (_, i) => `src/limit${String(i + 1).padStart(2, '0')}.ts`);
    for (const f of [...names, 'src/old.ts']) write(dir, f, 'x\n');
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify({
      protocol_version: '1.1', skill: 'api', project: 'shop', project_dir: '.', created_at: ago(30), updated_at: ago(20),
      phase: 'build', step: 'rate-limit', status: 'in_progress', progress_summary: 'Limiter.',
      context_primer: { generated_files: [...names.map((f) => `${f} (rate-limit)`), 'src/old.ts'] }, next_actions: ['Run tests'],
    })}\n`);
    commitAll(dir, 'checkpoint: api', ago(19));
    git(dir, ['rm', '-q', 'src/old.ts']);
    commitAll(dir, 'Remove old limiter', ago(10));
    const out = (await runCli(dir, ['resume', 'api'])).stdout;
    const listed = out.slice(out.indexOf('Files for this step:')).split('\n').slice(1).filter((l) => l.startsWith('  '));
    expect(listed).toHaveLength(14);
    expect(listed[11]).toMatch(/^ {2}src\/old\.ts — deleted in [0-9a-f]{7}$/);
    expect(listed[13]).toBe('  … and 3 more: checkpoint show api');
    const json = JSON.parse((await runCli(dir, ['resume', 'api', '--json'])).stdout);
    expect(json.files).toHaveLength(12);
    expect(json.files_gone.map((g: { path: string }) => g.path)).toEqual(['context_primer.generated_files[14]']);
    expect(json.files_left_out).toBe(3);
  });
});

describe('an entry doctor reads as a note, naming no file (red team 64 r11)', () => {
  it('is no file to read in text or --json, nor counts toward the cap; a URL stays, and a bare name git shows deleted is still marked', () => {
    const dir = makeRepo();
    dirs.push(dir);
    const names = Array.from({ length: 12 }, (_, i) => `src/limit${String(i + 1).padStart(2, '0')}.ts`);
    for (const f of [...names, 'Makefile']) write(dir, f, 'x\n');
    const notes = ['none yet', 'N/A', 'see PR 44', '~~src/old.ts~~ (replaced)', 'https://example.com/design'];
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify({
      protocol_version: '1.1', skill: 'api', project: 'shop', project_dir: '.', created_at: ago(30), updated_at: ago(20),
      phase: 'build', step: 'rate-limit', status: 'in_progress', progress_summary: 'Limiter.',
      context_primer: { generated_files: [...notes, ...names, 'Makefile'] }, next_actions: ['Run tests'],
    })}\n`);
    commitAll(dir, 'checkpoint: api', ago(19));
    git(dir, ['rm', '-q', 'Makefile']);
    commitAll(dir, 'Drop the Makefile', ago(10));
    const out = cli(dir, ['resume', 'api']);
    expect(out.code, out.stderr).toBe(0);
    const listed = out.stdout.slice(out.stdout.indexOf('Files for this step:')).split('\n').slice(1).filter((l) => l.startsWith('  ') && !l.includes('(marked:'));
    expect(listed.map((l) => l.trim())).toEqual([notes[4], ...names.slice(0, 10), expect.stringMatching(/^Makefile — deleted in [0-9a-f]{7}$/), '… and 2 more: checkpoint show api']);
    const json = JSON.parse(cli(dir, ['resume', 'api', '--json']).stdout);
    expect(json.files).toEqual([notes[4], ...names.slice(0, 10), 'Makefile']);
    expect(json.files_left_out).toBe(2);
  });
});

describe('a path from the repository\'s top written with a leading slash (red team 64 r12)', () => {
  it('"/src/a.ts" git shows deleted is marked gone, not as a path out; "/etc/hosts" is still not read', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, 'src/a.ts', 'x\n');
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify({
      protocol_version: '1.1', skill: 'api', project: 'shop', project_dir: '/home/claude/shop', created_at: ago(30), updated_at: ago(20),
      phase: 'build', step: 'limits', status: 'in_progress', progress_summary: 'Limiter.',
      context_primer: { generated_files: ['/src/a.ts', '/etc/hosts'] }, next_actions: ['Run tests'],
    })}\n`);
    commitAll(dir, 'checkpoint: api', ago(19));
    git(dir, ['rm', '-q', 'src/a.ts']);
    commitAll(dir, 'Drop a', ago(10));
    const json = JSON.parse((await runCli(dir, ['resume', 'api', '--json'])).stdout);
    expect(json.files_gone.map((g: { entry: string; file: string }) => [g.entry, g.file])).toEqual([['/src/a.ts', 'src/a.ts']]);
    expect(json.files_not_read.map((o: { entry: string }) => o.entry)).toEqual(['/etc/hosts']);
    expect((await runCli(dir, ['resume', 'api'])).stdout).toMatch(/\n {2}\/src\/a\.ts — src\/a\.ts deleted in [0-9a-f]{7}\n/);
  });
});

describe('a listed file that leads out of the repository (red team 12-07)', () => {
  /** A clone's checkpoint listing, beside its own files, committed links out and paths outside. */
  function hostile(files: string[]): string {
    const dir = makeRepo();
    dirs.push(dir);
    const home = tempDir('cp-home-');
    writeFileSync(join(home, 'secret.txt'), 'token-123\n');
    mkdirSync(join(home, 'keys'));
    writeFileSync(join(home, 'keys/deploy.md'), 'key\n');
    write(dir, 'src/auth.ts', 'export const auth = 1;\n');
    mkdirSync(join(dir, 'docs'));
    symlinkSync(join(home, 'secret.txt'), join(dir, 'docs/notes.md'));
    symlinkSync('/etc/passwd', join(dir, 'docs/spec.md'));
    symlinkSync(join(home, 'keys'), join(dir, 'vendor'));
    // Never committed (git holds no FIFO), but a read of it would hang the session.
    expect(spawnSync('mkfifo', [join(dir, 'docs/pipe.md')]).status).toBe(0);
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify({
      protocol_version: '1.1', skill: 'api', project: 'shop', project_dir: '.', created_at: ago(30), updated_at: ago(20),
      phase: 'build', step: 'auth', status: 'in_progress', progress_summary: 'Login done; 8.0/10 on the rubric.',
      context_primer: { key_decisions: [], generated_files: files }, next_actions: ['Wire the session store'],
    }, null, 2)}\n`);
    commitAll(dir, 'checkpoint: api', ago(19));
    return dir;
  }

  it('is marked not read in text, and in --json named in files_not_read with why, never in files', async () => {
    const files = ['docs/notes.md', 'docs/spec.md (auth spec)', 'vendor/deploy.md', '~/.ssh/id_rsa', 'src/auth.ts, ../../etc/shadow', 'docs/pipe.md', 'src/auth.ts', 'gone.md'];
    const dir = hostile(files);
    const text = await runCli(dir, ['resume', 'api']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.slice(text.stdout.indexOf('Files for this step:'))).toBe([
      'Files for this step:',
      '  docs/notes.md — a symlink out of the repository, not read',
      '  docs/spec.md (auth spec) — docs/spec.md is a symlink out of the repository, not read',
      '  vendor/deploy.md — reached through vendor, a symlink out of the repository, not read',
      '  ~/.ssh/id_rsa — outside the repository, not read',
      '  src/auth.ts, ../../etc/shadow — ../../etc/shadow is outside the repository, not read',
      '  docs/pipe.md — a FIFO, not a plain file, not read',
      '  src/auth.ts',
      '  gone.md — missing',
      '  (marked: not where the checkpoint says; update generated_files, `checkpoint doctor` has the details)',
      '  (marked not read: it leads out of the repository or is no plain file, so it is not a file to load (the other files its entry names still are); `checkpoint doctor` has the details)',
      '',
    ].join('\n'));
    expect(text.stdout).not.toContain('token-123');

    const json = JSON.parse((await runCli(dir, ['resume', 'api', '--json'])).stdout);
    expect(json.files).toEqual(['src/auth.ts', 'gone.md']);
    expect(json.files_not_read).toEqual([
      { path: 'context_primer.generated_files[0]', entry: files[0], file: 'docs/notes.md', kind: 'symlink-out', note: 'a symlink out of the repository' },
      { path: 'context_primer.generated_files[1]', entry: files[1], file: 'docs/spec.md', kind: 'symlink-out', note: 'a symlink out of the repository' },
      { path: 'context_primer.generated_files[2]', entry: files[2], file: 'vendor/deploy.md', kind: 'symlink-out', note: 'reached through vendor, a symlink out of the repository' },
      { path: 'context_primer.generated_files[3]', entry: files[3], file: '~/.ssh/id_rsa', kind: 'outside', note: 'outside the repository' },
      { path: 'context_primer.generated_files[4]', entry: files[4], file: '../../etc/shadow', kind: 'outside', note: 'outside the repository' },
      { path: 'context_primer.generated_files[5]', entry: files[5], file: 'docs/pipe.md', kind: 'not-a-file', note: 'a FIFO, not a plain file' },
    ]);
  });

  it('judges an entry part by part: its files in the repository stay to load, only the part leading out is not read', async () => {
    const files = ['src/config.ts, ~/.config/app/settings.json', 'src/auth.ts, ../../etc/shadow (both read at boot)', 'vendor/*.md', 'src/api.ts (auth routes)'];
    const dir = hostile(files);
    write(dir, 'src/config.ts', 'export const config = {};\n');
    write(dir, 'src/api.ts', 'export const api = 1;\n');
    commitAll(dir, 'config and api', ago(18));
    const text = (await runCli(dir, ['resume', 'api'])).stdout;
    expect(text.slice(text.indexOf('Files for this step:')).split('\n').slice(1, 5)).toEqual([
      '  src/config.ts, ~/.config/app/settings.json — ~/.config/app/settings.json is outside the repository, not read',
      '  src/auth.ts, ../../etc/shadow (both read at boot) — ../../etc/shadow is outside the repository, not read',
      '  vendor/*.md — reached through vendor, a symlink out of the repository, not read',
      '  src/api.ts (auth routes)',
    ]);
    const json = JSON.parse((await runCli(dir, ['resume', 'api', '--json'])).stdout);
    expect(json.files).toEqual(['src/config.ts', 'src/auth.ts', 'src/api.ts (auth routes)']);
    expect(json.files_not_read.map((o: { path: string; file: string }) => [o.path, o.file])).toEqual([
      ['context_primer.generated_files[0]', '~/.config/app/settings.json'],
      ['context_primer.generated_files[1]', '../../etc/shadow'],
      ['context_primer.generated_files[2]', 'vendor/*.md'],
    ]);
  });

  it('a home path written as a shell or Windows writes it, or a file:// URL outside the repository, is not read either', async () => {
    const files = ['src/auth.ts', '$HOME/.ssh/id_rsa', '${HOME}/.aws/credentials (prod)', '%USERPROFILE%\\.ssh\\id_rsa', 'file:///home/me/.ssh/id_rsa', 'file://fileserver/share/keys.txt', 'https://example.com/auth-spec'];
    const dir = hostile(files);
    const json = JSON.parse((await runCli(dir, ['resume', 'api', '--json'])).stdout);
    expect(json.files).toEqual(['src/auth.ts', 'https://example.com/auth-spec']);
    expect(json.files_not_read.map((o: { entry: string; kind: string }) => [o.entry, o.kind])).toEqual(files.slice(1, 6).map((f) => [f, 'outside']));
    const text = (await runCli(dir, ['resume', 'api'])).stdout;
    expect(text).toContain('  $HOME/.ssh/id_rsa — outside the repository, not read\n');
    expect(text).toContain('  file:///home/me/.ssh/id_rsa — outside the repository, not read\n');
    expect(text).not.toContain('missing');
  });

  it('an entry read as prose that names a path outside, joined by any word, is not read; the files its prose names in the repository stay (red team 61f, 03)', async () => {
    const files = ['~/.ssh/id_rsa and src/api.ts', 'src/auth.ts; $HOME/.aws/credentials', 'src/auth.ts & ~/.config/gh/hosts.yml', 'see /etc/passwd for the users', 'src/api.ts (see ../../etc/shadow)'];
    const dir = hostile(files);
    write(dir, 'src/api.ts', 'export const api = 1;\n');
    commitAll(dir, 'api', ago(18));
    const json = JSON.parse((await runCli(dir, ['resume', 'api', '--json'])).stdout);
    expect(json.files).toEqual(['src/api.ts', 'src/auth.ts']);
    expect(json.files_not_read.map((o: { entry: string; file: string }) => [o.entry, o.file])).toEqual([
      [files[0], '~/.ssh/id_rsa'], [files[1], '$HOME/.aws/credentials'], [files[2], '~/.config/gh/hosts.yml'], [files[3], '/etc/passwd'], [files[4], '../../etc/shadow'],
    ]);
    const text = (await runCli(dir, ['resume', 'api'])).stdout;
    expect(text).toContain('  ~/.ssh/id_rsa and src/api.ts — ~/.ssh/id_rsa is outside the repository, not read\n');
  });

  it('is listed first, within the cap of 12 and past it, as a file gone is', async () => {
    const names = Array.from({ length: 13 }, (_, i) => `src/auth${String(i + 1).padStart(2, '0')}.ts (auth)`);
    const dir = hostile([...names, 'docs/notes.md (auth notes)']);
    for (let i = 1; i <= 13; i++) write(dir, `src/auth${String(i).padStart(2, '0')}.ts`, 'x\n');
    commitAll(dir, 'auth files', ago(18));
    const out = (await runCli(dir, ['resume', 'api'])).stdout;
    const listed = out.slice(out.indexOf('Files for this step:')).split('\n').slice(1).filter((l) => l.startsWith('  '));
    expect(listed[11]).toBe('  docs/notes.md (auth notes) — docs/notes.md is a symlink out of the repository, not read');
    expect(listed.at(-1)).toBe('  … and 2 more: checkpoint show api');
    const json = JSON.parse((await runCli(dir, ['resume', 'api', '--json'])).stdout);
    expect(json.files).toHaveLength(11);
    expect(json.files_not_read.map((o: { path: string }) => o.path)).toEqual(['context_primer.generated_files[13]']);
    expect(json.files_left_out).toBe(2);
  });

  it('a path into the git folder, written or through a committed link, is not read either; doctor notes it, no drift (red team 63 r1 3)', async () => {
    const files = ['docs/settings.conf (deploy settings)', '.git/config', './.git/hooks/pre-push', 'src/auth.ts'];
    const dir = hostile(files);
    symlinkSync('../.git/config', join(dir, 'docs/settings.conf'));
    git(dir, ['add', 'docs/settings.conf']);
    commitAll(dir, 'settings link', ago(18));
    const json = JSON.parse((await runCli(dir, ['resume', 'api', '--json'])).stdout);
    expect(json.files).toEqual(['src/auth.ts']);
    expect(json.files_not_read.map((o: { entry: string; file: string; kind: string }) => [o.entry, o.file, o.kind])).toEqual([
      [files[0], 'docs/settings.conf', 'symlink-out'],
      [files[1], '.git/config', 'outside'],
      [files[2], './.git/hooks/pre-push', 'outside'],
    ]);
    const text = (await runCli(dir, ['resume', 'api'])).stdout;
    expect(text).toContain('  docs/settings.conf (deploy settings) — docs/settings.conf is a symlink into the git folder, not read\n');
    expect(text).toContain('  .git/config — in the git folder, not read\n');
    expect(text).not.toContain('[remote');
    const doctor = JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout) as { findings: { path: string; level: string; message: string }[] };
    const notes = doctor.findings.filter((f) => /generated_files\[[0-2]\]/.test(f.path));
    expect(notes.map((f) => [f.level, f.message])).toEqual([
      ['info', 'docs/settings.conf is a symlink into the git folder (to ../.git/config); not checked'],
      ['info', '".git/config" names a path in the git folder; not checked'],
      ['info', '"./.git/hooks/pre-push" names a path in the git folder; not checked'],
    ]);
  });

  it('a list of thousands of entries, marks among them, is briefed as a short one is: each marked in list order, the rest counted (red team 63 r1 2)', async () => {
    // Each kind every few hundred entries, interleaved; the rest name the step's file with a note.
    const kind = (i: number) => (i % 500 === 7 ? 'home' : i % 500 === 9 ? 'link' : i % 500 === 11 ? 'gone' : i % 100 === 3 ? 'part' : 'kept');
    const entry = (i: number) => ({ home: '~/.ssh/id_rsa', link: 'docs/notes.md', gone: `src/gone${i}.ts`, part: `src/auth.ts, ~/.config/app${i}.json`, kept: `src/auth.ts (note ${i}, 8.0)` })[kind(i)];
    const all = Array.from({ length: 3000 }, (_, i) => i);
    const dir = hostile(all.map(entry));
    const at = (i: number) => `context_primer.generated_files[${i}]`;
    const notRead = all.filter((i) => ['home', 'link', 'part'].includes(kind(i)));
    const gone = all.filter((i) => kind(i) === 'gone');
    const kept = all.filter((i) => kind(i) === 'kept');

    const json = JSON.parse((await runCli(dir, ['resume', 'api', '--json'])).stdout);
    expect(json.files_not_read.map((o: { path: string; file: string }) => [o.path, o.file])).toEqual(notRead.map((i) => [at(i), { home: '~/.ssh/id_rsa', link: 'docs/notes.md', part: `~/.config/app${i}.json` }[kind(i) as 'home']]));
    expect(json.files_gone.map((g: { path: string; entry: string }) => [g.path, g.entry])).toEqual(gone.map((i) => [at(i), entry(i)]));
    // Every marked one is shown, so none of the others fits in the cap of 12.
    expect(json.files).toEqual(['src/auth.ts', ...gone.map(entry)]);
    expect(json.files_left_out).toBe(kept.length);

    const text = (await runCli(dir, ['resume', 'api'])).stdout;
    const listed = text.slice(text.indexOf('Files for this step:')).split('\n').slice(1).filter((l) => l.startsWith('  ') && !l.startsWith('  ('));
    expect(listed).toEqual([...all.filter((i) => kind(i) !== 'kept').map((i) => `  ${entry(i)} — ${{ home: 'outside the repository, not read', link: 'a symlink out of the repository, not read', gone: 'missing', part: `~/.config/app${i}.json is outside the repository, not read` }[kind(i) as 'home']}`), `  … and ${kept.length} more: checkpoint show api`]);

    // doctor: a finding per marked entry in list order, the link (one file) at its first entry only.
    const doctor = JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout) as { findings: { path: string; check: string }[] };
    const paths = doctor.findings.filter((f) => f.check === 'generated_files').map((f) => f.path);
    expect([...new Set(paths)]).toEqual(all.filter((i) => kind(i) !== 'kept' && !(kind(i) === 'link' && i !== 9)).map(at));
    const doctorText = (await runCli(dir, ['doctor'])).stdout;
    expect(doctorText.indexOf('src/gone11.ts')).toBeLessThan(doctorText.indexOf('src/gone2511.ts'));
  });
});

describe('the built binary', () => {
  it('marks them as the repro has it, run after run', () => {
    const dir = repo();
    const first = cli(dir, ['resume']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/ {2}src\/limiter\.ts \(PR 12\) — src\/limiter\.ts renamed to src\/rate-limiter\.ts in [0-9a-f]{7}\n/);
    expect(first.stdout).toMatch(/ {2}\/home\/claude\/shop\/src\/old\.ts — src\/old\.ts deleted in [0-9a-f]{7}\n/);
    // From the caches doctor keeps at an unchanged HEAD: the same briefing.
    expect(cli(dir, ['resume']).stdout).toBe(first.stdout);
  });

  it('marks a generated_files list written at the top level too, under its own path', () => {
    const dir = repo();
    const file = join(dir, '.checkpoints/api.checkpoint.json');
    // The list where many agents put it: beside context_primer, not in it.
    write(dir, '.checkpoints/api.checkpoint.json', readFileSync(file, 'utf8').replace(/"generated_files": (\[.*?\]) \}/, '"note": "x" },\n  "generated_files": $1'));
    commitAll(dir, 'checkpoint: list at the top', ago(8));
    const json = JSON.parse(cli(dir, ['resume', '--json']).stdout);
    expect(json.files).toEqual(FILES);
    expect(json.files_gone.map((g: { path: string; file: string }) => [g.path, g.file])).toEqual([
      ['generated_files[0]', 'src/limiter.ts'],
      ['generated_files[1]', 'src/old.ts'],
      ['generated_files[2]', 'src/b.ts'],
    ]);
  });
});

describe('a path written in another checkout', () => {
  it('is listed where it lies here, as doctor reads it (under project_dir, with backslashes), in text and --json', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, 'src/auth.ts', 'export const a = 1;\n');
    const now = new Date().toISOString();
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify({
      protocol_version: '1.1', skill: 'api', project: 'p', project_dir: '/home/alice/proj', created_at: now, updated_at: now,
      phase: 'build', step: 'auth', status: 'in_progress', progress_summary: 's', next_actions: ['Finish auth'],
      context_primer: { key_decisions: ['k'], generated_files: ['/home/alice/proj/src/auth.ts', 'src\\auth.ts'] },
    }, null, 2)}\n`);
    commitAll(dir, 'checkpoint: api');
    const text = (await runCli(dir, ['resume'])).stdout;
    expect(text).toContain('Files for this step:\n  src/auth.ts (written as /home/alice/proj/src/auth.ts)\n  src/auth.ts (written as src\\auth.ts)\n');
    expect(JSON.parse((await runCli(dir, ['resume', '--json'])).stdout).files).toEqual(['src/auth.ts']);
  });
});
