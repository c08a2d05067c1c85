// Line-ending conversion: with core.autocrlf or text/eol attributes the work tree holds other
// bytes than the blobs (CRLF on disk, LF stored), and git status calls such a file clean. Both
// engines must answer as git status does, whether the index's stat data settles a file or its
// content has to be converted and hashed (files touched: same bytes, another mtime). The pure
// conversion is checked against git's own (hash-object --path) on open-ended contents.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { configPlaces, windowsGitInstall } from '../../src/git/config-file.js';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createHistory, type EngineName } from '../../src/git/index.js';
import { cleanRule, toGit, type EolAttributes } from '../../src/git/eol-convert.js';
import { eolAttributes, parseAttributes, readEolConfig } from '../../src/git/eol-attributes.js';
import { checkpointDoc } from '../helpers/fixtures.js';
import { commitAll, git, GIT_ENV, makeRepo, settleIndex, tempDir, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

/** git's test environment without the config isolation (each case sets its own). */
const GIT_ENV_BASE: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(GIT_ENV).filter(([k]) => !k.startsWith('GIT_CONFIG')));

const WATCHED = ['src/a.ts', 'docs/x.md', 'assets/logo.bin', 'src/legacy.ts', 'media/clip.lfs'];
const ENGINES: EngineName[] = ['native', 'isomorphic'];

/** What git status itself lists among `paths` (leaving the index unrefreshed: the next answer must not lean on it). */
function gitStatus(dir: string, paths: readonly string[]): string[] {
  const out = git(dir, ['--no-optional-locks', 'status', '--porcelain=v1', '-z', '--untracked-files=all', '--', ...paths]);
  return out.split('\0').filter(Boolean).map((line) => line.slice(3)).sort();
}

async function answers(dir: string, paths: readonly string[] = WATCHED): Promise<Record<EngineName | 'git', string[]>> {
  const out = { git: gitStatus(dir, paths) } as Record<EngineName | 'git', string[]>;
  for (const engine of ENGINES) out[engine] = (await (await createHistory({ dir, engine })).uncommittedPaths(paths)).sort();
  return out;
}

/** Every tracked file given a new mtime (same bytes): git must look at contents, not stat data. */
function touchAll(dir: string): void {
  const at = new Date(Date.now() - 60_000);
  for (const f of git(dir, ['ls-files', '-z']).split('\0').filter(Boolean)) if (existsSync(join(dir, f))) utimesSync(join(dir, f), at, at);
}

/** A clone-like checkout: files removed and checked out again under the current settings, then settled. */
function recheckout(dir: string): void {
  git(dir, ['rm', '-r', '-q', '--cached', '.']);
  for (const f of WATCHED) git(dir, ['rm', '-q', '--force', '--ignore-unmatch', '--', f]);
  git(dir, ['reset', '-q', '--hard', 'HEAD']);
  settleIndex(dir);
}

function project(files: Record<string, string | Buffer>): string {
  const dir = makeRepo();
  for (const [rel, content] of Object.entries(files)) {
    if (typeof content === 'string') write(dir, rel, content);
    else {
      write(dir, rel, '');
      writeFileSync(join(dir, rel), content);
    }
  }
  commitAll(dir, 'files as the team wrote them (PR 12)', '2026-03-02T09:00:00Z');
  return dir;
}

const TS = 'export const a = 1;\n// TODO(PR 12): drop the shim\nexport const b = 2.0;\n';
const MD = '# Notes\n\n- status: in-progress\n- 8.0 of 10 done\n';

/** Asserts all three agree, and on `expected`. */
async function expectAll(dir: string, expected: string[]): Promise<void> {
  const got = await answers(dir);
  expect(got).toEqual({ git: expected, native: expected, isomorphic: expected });
}

describe('uncommittedPaths under line-ending conversion: both engines answer as git status', () => {
  it('core.autocrlf=true: a clean CRLF checkout is clean (stat data or contents), a real edit is not', async () => {
    const dir = project({ 'src/a.ts': TS, 'docs/x.md': MD });
    git(dir, ['config', 'core.autocrlf', 'true']);
    recheckout(dir);
    expect(git(dir, ['show', ':src/a.ts'])).toBe(TS);
    expect(git(dir, ['cat-file', '-p', 'HEAD:src/a.ts'])).toBe(TS);
    await expectAll(dir, []);
    touchAll(dir);
    await expectAll(dir, []);
    // An edit of the same size (so only the content tells), CRLF kept as the editor keeps it.
    write(dir, 'src/a.ts', TS.replace('a = 1', 'a = 7').replace(/\n/g, '\r\n'));
    await expectAll(dir, ['src/a.ts']);
  });

  it('autocrlf turned on over an LF checkout, then a file rewritten with CRLF: git calls it modified (its size moved), so do both', async () => {
    const dir = project({ 'src/a.ts': TS, 'docs/x.md': MD });
    settleIndex(dir);
    git(dir, ['config', 'core.autocrlf', 'true']);
    await expectAll(dir, []);
    // What the clean conversion would give back is HEAD's blob, but git never looks: the size recorded in the index differs.
    write(dir, 'src/a.ts', TS.replace(/\n/g, '\r\n'));
    await expectAll(dir, ['src/a.ts']);
  });

  it('core.autocrlf=input: CRLF files added under it are stored LF and read clean', async () => {
    const dir = makeRepo();
    git(dir, ['config', 'core.autocrlf', 'input']);
    write(dir, 'src/a.ts', TS.replace(/\n/g, '\r\n'));
    write(dir, 'docs/x.md', MD.replace(/\n/g, '\r\n'));
    commitAll(dir, 'from a Windows editor');
    expect(git(dir, ['cat-file', '-p', 'HEAD:src/a.ts'])).toBe(TS);
    settleIndex(dir);
    await expectAll(dir, []);
    touchAll(dir);
    await expectAll(dir, []);
    write(dir, 'docs/x.md', MD.replace('8.0', '9.0').replace(/\n/g, '\r\n'));
    await expectAll(dir, ['docs/x.md']);
  });

  it('.gitattributes `*.md text eol=crlf` (autocrlf unset): the CRLF checkout is clean', async () => {
    const dir = project({ '.gitattributes': '# docs are edited on Windows\n*.md text eol=crlf\n', 'src/a.ts': TS, 'docs/x.md': MD });
    recheckout(dir);
    expect(git(dir, ['ls-files', '--eol', 'docs/x.md'])).toMatch(/i\/lf\s+w\/crlf/);
    await expectAll(dir, []);
    touchAll(dir);
    await expectAll(dir, []);
    write(dir, 'docs/x.md', `${MD.replace(/\n/g, '\r\n')}more\r\n`);
    await expectAll(dir, ['docs/x.md']);
  });

  it('`* text=auto` with autocrlf=true: a binary file (NUL, CRLF inside) is stored and compared as it is', async () => {
    const binary = Buffer.from('PNG\r\n\x1a\n\0\0\0\rIHDR\r\n', 'latin1');
    const dir = project({ '.gitattributes': '* text=auto\n', 'src/a.ts': TS, 'assets/logo.bin': binary });
    git(dir, ['config', 'core.autocrlf', 'true']);
    recheckout(dir);
    await expectAll(dir, []);
    touchAll(dir);
    await expectAll(dir, []);
    // The same bytes with one NUL dropped for a CR-free byte: still binary, same size, changed.
    const edited = Buffer.from(binary);
    edited[7] = 0x41;
    writeFileSync(join(dir, 'assets/logo.bin'), edited);
    await expectAll(dir, ['assets/logo.bin']);
  });

  it('the safe rule: a blob committed with CRLF before autocrlf was turned on stays clean, an edit does not', async () => {
    const dir = project({ 'src/legacy.ts': 'const old = 1;\r\nconst older = 2;\r\n', 'src/a.ts': TS });
    git(dir, ['config', 'core.autocrlf', 'true']);
    recheckout(dir);
    await expectAll(dir, []);
    touchAll(dir);
    await expectAll(dir, []);
    write(dir, 'src/legacy.ts', 'const old = 1;\r\nconst older = 3;\r\n');
    await expectAll(dir, ['src/legacy.ts']);
  });

  it('a filter driver (filter=lfs): settled by stat data both engines agree; otherwise the embedded engine never calls it clean', async () => {
    const dir = project({ '.gitattributes': '*.lfs filter=lfs diff=lfs merge=lfs -text\n', 'src/a.ts': TS });
    // A stand-in for git-lfs: stored upper-case, checked out lower-case.
    git(dir, ['config', 'filter.lfs.clean', 'tr a-z A-Z']);
    git(dir, ['config', 'filter.lfs.smudge', 'tr A-Z a-z']);
    write(dir, 'media/clip.lfs', 'oid sha256:4d7a pointer\n');
    commitAll(dir, 'add the clip');
    recheckout(dir);
    expect(git(dir, ['cat-file', '-p', 'HEAD:media/clip.lfs'])).toBe('OID SHA256:4D7A POINTER\n');
    await expectAll(dir, []);
    // Touched: only running the filter tells, which the embedded engine does not do: it reports
    // the file (a named difference, never a false "clean").
    touchAll(dir);
    expect(await answers(dir)).toEqual({ git: [], native: [], isomorphic: ['media/clip.lfs'] });
    const iso = await createHistory({ dir, engine: 'isomorphic' });
    await iso.uncommittedPaths(WATCHED);
    expect(Object.fromEntries(iso.unsure ?? [])).toEqual({ 'media/clip.lfs': 'filter=lfs' });
    write(dir, 'media/clip.lfs', 'oid sha256:9f00 pointer\n');
    await expectAll(dir, ['media/clip.lfs']);
    // A size other than the one the index recorded: a change to git without running the filter, so certain here too.
    write(dir, 'media/clip.lfs', 'oid sha256:9f00aa pointer\n');
    await expectAll(dir, ['media/clip.lfs']);
    await iso.uncommittedPaths(WATCHED);
    expect(iso.unsure?.size).toBe(0);
  });
});

describe('uncommittedPaths by the index\'s rules: both engines answer as git status', () => {
  const CRLF_MD = MD.replace(/\n/g, '\r\n');

  it('a .gitattributes deleted from the work tree but still in the index keeps its rules (text=auto eol=crlf); git rm --cached leaves the work tree\'s copy in force', async () => {
    const dir = project({ '.gitattributes': '# Windows team\n* text=auto eol=crlf\n', 'src/a.ts': TS, 'docs/x.md': MD });
    recheckout(dir);
    expect(git(dir, ['ls-files', '--eol', 'docs/x.md'])).toMatch(/i\/lf\s+w\/crlf/);
    rmSync(join(dir, '.gitattributes'));
    await expectAll(dir, []);
    // Content compared: only the staged rules make the CRLF files clean.
    touchAll(dir);
    await expectAll(dir, []);
    write(dir, 'docs/x.md', CRLF_MD.replace('8.0', '9.0'));
    await expectAll(dir, ['docs/x.md']);
    write(dir, 'docs/x.md', CRLF_MD);
    git(dir, ['checkout', '--', '.gitattributes']);
    git(dir, ['rm', '-q', '--cached', '.gitattributes']);
    touchAll(dir);
    await expectAll(dir, []);
    // Gone from both: no rule applies, and a touched CRLF file is an edit to git.
    rmSync(join(dir, '.gitattributes'));
    await expectAll(dir, ['docs/x.md', 'src/a.ts']);
  });

  it('a staged `-text` .gitattributes deleted from the work tree: its rule, not autocrlf, decides', async () => {
    const dir = project({ '.gitattributes': '*.md -text\n', 'src/a.ts': TS, 'docs/x.md': MD });
    git(dir, ['config', 'core.autocrlf', 'true']);
    recheckout(dir);
    rmSync(join(dir, '.gitattributes'));
    touchAll(dir);
    // docs/x.md is stored as it is (LF on disk): clean; src/a.ts went out CRLF and converts back.
    await expectAll(dir, []);
    write(dir, 'docs/x.md', CRLF_MD);
    const got = await answers(dir);
    expect(got.git).toEqual(['docs/x.md']);
    expect(got).toEqual({ git: got.git, native: got.git, isomorphic: got.git });
  });

  it('same bytes, another size: dos2unix on a CRLF checkout is a change to git (the recorded size moved), unix2dos back is not', async () => {
    const dir = makeRepo();
    write(dir, '.gitattributes', '* text=auto\n');
    write(dir, 'docs/x.md', CRLF_MD);
    write(dir, 'src/a.ts', TS);
    commitAll(dir, 'notes from a Windows editor (PR 12)');
    expect(git(dir, ['cat-file', '-p', 'HEAD:docs/x.md'])).toBe(MD);
    settleIndex(dir);
    await expectAll(dir, []);
    // Now HEAD's very bytes, but not the size git recorded.
    write(dir, 'docs/x.md', MD);
    await expectAll(dir, ['docs/x.md']);
    write(dir, 'docs/x.md', CRLF_MD);
    await expectAll(dir, []);
    // And the other way: unix2dos on an LF checkout.
    write(dir, 'src/a.ts', TS.replace(/\n/g, '\r\n'));
    await expectAll(dir, ['src/a.ts']);
  });

  it('HEAD\'s bytes under a rule that converts them (CRLF committed before `* text`): modified once the stat data no longer settle it', async () => {
    const dir = project({ 'src/legacy.ts': 'const old = 1;\r\nconst older = 2;\r\n', 'src/a.ts': TS });
    settleIndex(dir);
    write(dir, '.gitattributes', '* text\n');
    await expectAll(dir, []);
    touchAll(dir);
    await expectAll(dir, ['src/legacy.ts']);
  });

  it('bytes other than HEAD\'s but stat data the index recorded: clean to git, with no conversion at all', async () => {
    const dir = project({ '.gitattributes': '* text eol=crlf\n', 'src/a.ts': TS, 'docs/x.md': MD });
    recheckout(dir);
    git(dir, ['rm', '-q', '.gitattributes']);
    await expectAll(dir, []);
    touchAll(dir);
    await expectAll(dir, ['docs/x.md', 'src/a.ts']);
  });

  it('assume-unchanged and skip-worktree files are clean to git however they change, in index v2, v4 and a split index', async () => {
    const dir = project({ 'src/a.ts': TS, 'docs/x.md': MD, 'src/legacy.ts': 'const old = 1;\n' });
    git(dir, ['update-index', '--assume-unchanged', 'src/a.ts']);
    git(dir, ['update-index', '--skip-worktree', 'docs/x.md']);
    write(dir, 'src/a.ts', `${TS}// local tweak\n`);
    write(dir, 'docs/x.md', `${MD}- local\n`);
    write(dir, 'src/legacy.ts', 'const old = 2;\n');
    await expectAll(dir, ['src/legacy.ts']);
    git(dir, ['update-index', '--index-version', '4']);
    await expectAll(dir, ['src/legacy.ts']);
    git(dir, ['update-index', '--index-version', '2', '--split-index']);
    await expectAll(dir, ['src/legacy.ts']);
    rmSync(join(dir, 'src/a.ts'));
    await expectAll(dir, ['src/legacy.ts']);
    git(dir, ['update-index', '--no-assume-unchanged', 'src/a.ts']);
    await expectAll(dir, ['src/a.ts', 'src/legacy.ts']);
  });
});

describe('checkpoint doctor under core.autocrlf=true', () => {
  /** A checkpoint months old in the way agents leave them: notes after paths, a glob, prose. */
  const checkpoint = JSON.stringify(
    checkpointDoc({
      skill: 'build',
      created_at: '2026-06-20T08:00:00.0Z',
      updated_at: '2026-07-01T10:00:00Z',
      context_primer: { key_decisions: ['CRLF on Windows clones'], generated_files: ['src/a.ts (PR 12)', 'docs/x.md', 'media/clip.lfs (LFS pointer)', 'docs/*.md', 'see the wiki for the rest'] },
    }),
    null,
    2,
  );

  // In-process (runCli: doctor's parsing, run and exit code without a node start); the built bundle is test/package's and test/e2e's.
  async function doctor(dir: string, engine: EngineName): Promise<{ code: number; findings: { message: string; path: string }[]; rest: unknown }> {
    const r = await runCli(dir, ['doctor', '--engine', engine, '--json']);
    const { engine: _e, findings, ...rest } = JSON.parse(r.stdout) as { engine: string; findings: { message: string; path: string }[] };
    return { code: r.code, findings, rest };
  }

  it('gives the same findings from both engines on a clean CRLF checkout and on an edit; a filter it cannot run is named', async () => {
    const dir = project({ 'src/a.ts': TS, 'docs/x.md': MD, '.gitattributes': '*.lfs filter=lfs -text\n' });
    git(dir, ['config', 'filter.lfs.clean', 'tr a-z A-Z']);
    git(dir, ['config', 'filter.lfs.smudge', 'tr A-Z a-z']);
    write(dir, 'media/clip.lfs', 'oid sha256:4d7a pointer\n');
    commitAll(dir, 'clip', '2026-03-03T09:00:00Z');
    // Committed after its save (a commit holding it is made after it: one descending from it changes what it lists).
    write(dir, '.checkpoints/build.checkpoint.json', `${checkpoint}\n`);
    commitAll(dir, 'checkpoint: build', '2026-07-01T10:00:00Z');
    git(dir, ['config', 'core.autocrlf', 'true']);
    recheckout(dir);
    const native = await doctor(dir, 'native');
    expect(await doctor(dir, 'isomorphic')).toEqual(native);
    expect(native.findings.filter((f) => /uncommitted/.test(f.message))).toEqual([]);
    write(dir, 'src/a.ts', TS.replace('a = 1', 'a = 7').replace(/\n/g, '\r\n'));
    const edited = await doctor(dir, 'native');
    expect(await doctor(dir, 'isomorphic')).toEqual(edited);
    expect(edited.findings.filter((f) => /uncommitted/.test(f.message)).map((f) => f.message)).toEqual(['src/a.ts has uncommitted edits made after the checkpoint; re-read it']);
    touchAll(dir);
    const unsure = (await doctor(dir, 'isomorphic')).findings.filter((f) => /uncommitted/.test(f.message)).map((f) => f.message);
    expect(unsure).toEqual([
      'src/a.ts has uncommitted edits made after the checkpoint; re-read it',
      'media/clip.lfs may have uncommitted edits (not checked exactly: the embedded engine does not follow filter=lfs; git on PATH checks it) made after the checkpoint; re-read it',
    ]);
  });
});

describe('checkpoint doctor by the index\'s rules', () => {
  it('a staged .gitattributes the work tree lost, dos2unix on a CRLF checkout, assume-unchanged and skip-worktree files: the same findings from both engines, as git status says', async () => {
    const checkpoint = JSON.stringify(checkpointDoc({
      skill: 'build', created_at: '2026-06-20T08:00:00.0Z', updated_at: '2026-07-01T10:00:00Z',
      context_primer: { key_decisions: ['CRLF for the Windows team'], generated_files: ['src/a.ts (PR 12)', 'docs/x.md', 'src/legacy.ts — assume-unchanged locally', 'docs/*.md'] },
    }), null, 2);
    const dir = project({ '.gitattributes': '* text=auto eol=crlf\n', 'src/a.ts': TS, 'docs/x.md': MD, 'src/legacy.ts': 'const old = 1;\n', '.checkpoints/build.checkpoint.json': `${checkpoint}\n` });
    recheckout(dir);
    const doctor = async (engine: EngineName) => {
      const r = await runCli(dir, ['doctor', '--engine', engine, '--json']);
      const { engine: _e, findings } = JSON.parse(r.stdout) as { engine: string; findings: { message: string }[] };
      return { code: r.code, uncommitted: findings.map((f) => f.message).filter((m) => /uncommitted/.test(m)), findings };
    };
    const same = async (expected: string[]) => {
      const native = await doctor('native');
      expect(await doctor('isomorphic')).toEqual(native);
      expect(native.uncommitted).toEqual(expected.map((f) => `${f} has uncommitted edits made after the checkpoint; re-read it`));
    };
    rmSync(join(dir, '.gitattributes'));
    touchAll(dir);
    await same([]);
    git(dir, ['checkout', '--', '.gitattributes']);
    // dos2unix: HEAD's very bytes, another size than git recorded: a change to git, of line endings
    // only, so no edit to re-read (doctor-whitespace.test.ts); an edit beside it is one.
    write(dir, 'docs/x.md', MD);
    await same([]);
    write(dir, 'docs/x.md', MD.replace('8.0 of 10', '9.0 of 10'));
    await same(['docs/x.md']);
    git(dir, ['update-index', '--assume-unchanged', 'src/legacy.ts']);
    git(dir, ['update-index', '--skip-worktree', 'docs/x.md']);
    write(dir, 'src/legacy.ts', 'const old = 2;\r\n');
    await same([]);
  });
});

/**
 * The blob git stores for each of `contents` at `path`, added over an index holding `staged`
 * (git add reads it for the safe rule; hash-object does not). Each content at `path` in a folder
 * of its own (d0/, d1/, ...; `path` is a bare name, so the attributes line names it there too),
 * all added by one git add: a few processes per case, not four per content.
 */
function gitStores(dir: string, path: string, staged: Buffer | null, contents: readonly Buffer[]): string[] {
  const paths = contents.map((_, i) => `d${i}/${path}`);
  git(dir, ['rm', '-q', '-r', '-f', '--cached', '--ignore-unmatch', '--', ...paths]);
  if (staged !== null) {
    writeFileSync(join(dir, 'staged.tmp'), staged);
    const stagedOid = git(dir, ['hash-object', '-w', '--no-filters', 'staged.tmp']).trim();
    git(dir, ['update-index', '--add', ...paths.flatMap((p) => ['--cacheinfo', `100644,${stagedOid},${p}`])]);
  }
  contents.forEach((content, i) => {
    mkdirSync(join(dir, `d${i}`), { recursive: true });
    writeFileSync(join(dir, paths[i]!), content);
  });
  git(dir, ['add', '--', ...paths]);
  const stored = new Map(git(dir, ['ls-files', '-s', '-z', '--', ...paths]).split('\0').filter(Boolean).map((l) => [l.slice(l.indexOf('\t') + 1), l.split(/\s+/)[1]!]));
  return paths.map((p) => stored.get(p)!);
}

describe('toGit (pure) against git hash-object --path', () => {
  const dir = makeRepo();
  // Settings as git reads them, each naming the attributes line and config that produce it.
  const SETTINGS: { line: string; autocrlf: 'true' | 'false' | 'input'; attrs: EolAttributes }[] = [
    { line: '', autocrlf: 'true', attrs: {} },
    { line: '', autocrlf: 'input', attrs: {} },
    { line: '', autocrlf: 'false', attrs: {} },
    { line: 'f text=auto', autocrlf: 'false', attrs: { text: 'auto' } },
    { line: 'f text', autocrlf: 'false', attrs: { text: true } },
    { line: 'f -text', autocrlf: 'true', attrs: { text: false } },
    { line: 'f eol=crlf', autocrlf: 'false', attrs: { eol: 'crlf' } },
    { line: 'f text=auto eol=lf', autocrlf: 'true', attrs: { text: 'auto', eol: 'lf' } },
    { line: 'f crlf=input', autocrlf: 'false', attrs: { crlf: 'input' } },
  ];
  const bytes = fc.array(fc.constantFrom(0x0d, 0x0a, 0x00, 0x61, 0x20, 0x1a, 0x7f, 0x01, 0x09), { maxLength: 40 }).map((a) => Buffer.from(a));

  it('gives the blob git stores, for any bytes, staged blob and setting', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SETTINGS.keys()), fc.option(bytes, { nil: null }), fc.array(bytes, { minLength: 1, maxLength: 3 }), (s, staged, contents) => {
        const setting = SETTINGS[s]!;
        writeFileSync(join(dir, '.gitattributes'), `${setting.line}\n`);
        git(dir, ['config', 'core.autocrlf', setting.autocrlf]);
        const parsed = parseAttributes(setting.line, '', true);
        const attrs: EolAttributes = {};
        for (const l of parsed.lines) if (l.matches('f')) for (const [k, v] of l.assigns) (attrs as Record<string, unknown>)[k] = v;
        expect(attrs).toEqual(setting.attrs);
        const rule = cleanRule(attrs, setting.autocrlf);
        if (!('action' in rule)) throw new Error('inexact');
        const expected = gitStores(dir, 'f', staged, contents);
        const ours = contents.map((c) => toGit(c, rule.action, staged));
        ours.forEach((out, i) => writeFileSync(join(dir, `out${i}.tmp`), out));
        const oursIds = git(dir, ['hash-object', '--no-filters', ...ours.map((_, i) => `out${i}.tmp`)]).split('\n').filter(Boolean);
        expect(oursIds).toEqual(expected);
      }),
      { numRuns: 25 },
    );
  });
});

describe('eolAttributes against git check-attr', () => {
  const PATTERNS = ['*', '*.md', '*.ts', 'x.md', 'docs/*', '/src/*.ts', '**/x.md', 'docs/**', 'a?.ts', 'src/', 'docs/x.md', '\\*.md', 'SRC/*.ts', '*.MD', 'src/**/*.ts', 'deep/**/b.md'];
  const ASSIGNS = ['text', '-text', 'text=auto', 'eol=crlf', 'eol=lf', '!text', 'binary', 'filter=lfs', 'crlf', '-crlf', 'crlf=input', 'ident', '!eol', 'diff'];
  const PATHS = ['x.md', 'a1.ts', 'src/a.ts', 'src/deep/b.ts', 'docs/x.md', 'docs/sub/x.md', 'deep/b.md', 'deep/1/2/b.md', 'SRC/a.ts', 'README.MD', '*.md'];
  const line = fc.tuple(fc.constantFrom(...PATTERNS), fc.subarray(ASSIGNS, { minLength: 1, maxLength: 3 })).map(([p, a]) => `${p} ${a.join(' ')}`);
  const file = fc.array(line, { maxLength: 4 }).map((ls) => `# attributes\n${ls.join('\n')}\n`);

  function viaGit(dir: string): Record<string, EolAttributes> {
    const out: Record<string, EolAttributes> = {};
    for (const row of git(dir, ['check-attr', 'text', 'crlf', 'eol', 'filter', 'ident', '--', ...PATHS]).split('\n').filter(Boolean)) {
      const m = /^(.*): (\S+): (.*)$/.exec(row)!;
      const value = m[3] === 'set' ? true : m[3] === 'unset' ? false : m[3] === 'unspecified' ? undefined : m[3];
      out[m[1]!] ??= {};
      if (value !== undefined) (out[m[1]!] as Record<string, unknown>)[m[2]!] = value;
    }
    return out;
  }

  it('reads the same attributes as git for the root, a folder and info/attributes, with or without core.ignorecase', () => {
    const dir = makeRepo();
    for (const p of PATHS) write(dir, p, 'x\n');
    fc.assert(
      fc.property(file, file, file, fc.boolean(), (root, docs, info, ignoreCase) => {
        writeFileSync(join(dir, '.gitattributes'), root);
        writeFileSync(join(dir, 'docs/.gitattributes'), docs);
        write(dir, '.git/info/attributes', info);
        git(dir, ['config', 'core.ignorecase', String(ignoreCase)]);
        const config = readEolConfig(join(dir, '.git'), join(dir, '.git'));
        const ours = Object.fromEntries(PATHS.map((p) => [p, eolAttributes(dir, join(dir, '.git'), p, config, () => null)]));
        expect(ours).toEqual(viaGit(dir));
      }),
      { numRuns: 60 },
    );
  });

  it('reads nothing from a .gitattributes that is a link, even to a file of the project, as git reads nothing (red team s56)', () => {
    const dir = makeRepo();
    for (const p of PATHS) write(dir, p, 'x\n');
    write(dir, 'shared/attributes.txt', '* text eol=crlf\n');
    symlinkSync('../shared/attributes.txt', join(dir, 'docs/.gitattributes'));
    writeFileSync(join(dir, '.gitattributes'), '*.ts -text\n');
    const config = readEolConfig(join(dir, '.git'), join(dir, '.git'));
    const ours = Object.fromEntries(PATHS.map((p) => [p, eolAttributes(dir, join(dir, '.git'), p, config, () => null)]));
    expect(ours).toEqual(viaGit(dir));
    expect(ours['docs/x.md']).toEqual({});
  });
});

describe('readEolConfig', () => {
  const read = (config: string) => {
    const dir = makeRepo();
    write(dir, '.git/config', config);
    return readEolConfig(join(dir, '.git'), join(dir, '.git'));
  };
  it('reads core.autocrlf as git does: booleans in every spelling, input, the last one winning', () => {
    const cases: [string, string][] = [['true', 'true'], ['YES', 'true'], ['on', 'true'], ['1', 'true'], ['2', 'true'], ['false', 'false'], ['no', 'false'], ['0', 'false'], ['', 'false'], ['Input', 'input'], ['"true" ; a comment', 'true']];
    for (const [value, expected] of cases) expect(read(`[core]\n\tautocrlf = ${value}\n`).autocrlf, value).toBe(expected);
    expect(read('[core]\n\tautocrlf\n').autocrlf).toBe('true');
    expect(read('[core]\n\tautocrlf = true\n[core]\n\tAutoCRLF = input\n').autocrlf).toBe('input');
    expect(read('[core "other"]\n\tautocrlf = true\n').autocrlf).toBe('false');
    expect(read('[core]\n\tignorecase = true\n').ignoreCase).toBe(true);
  });
  it('calls inexact what it does not follow: an include, core.attributesFile, a value git would refuse', () => {
    expect(read('[include]\n\tpath = ../shared.gitconfig\n').inexact).toMatch(/include/);
    expect(read('[includeIf "gitdir:~/work/"]\n\tpath = work.gitconfig\n').inexact).toMatch(/include/);
    expect(read('[core]\n\tattributesFile = ~/.gitattributes\n').inexact).toBe('core.attributesFile');
    expect(read('[core]\n\tautocrlf = maybe\n').inexact).toBe('core.autocrlf=maybe');
    expect(read('[core]\n\tautocrlf = true\n').inexact).toBeUndefined();
  });
});

describe('where git looks for config: configPlaces against git itself (Linux), and the Windows lookup as a pure function', () => {
  /** Config keys, each set in one place: which ones git reads tells which files it read. */
  const KEYS = ['system', 'global', 'xdg', 'explicit', 'sysexplicit'] as const;

  /** The files of a fake machine: a home with both global files, an XDG folder, a system file and two explicit ones. */
  function machine(): { dir: string; files: Record<(typeof KEYS)[number], string>; home: string; xdgHome: string } {
    const root = tempDir('cp-cfg-');
    const files = {
      system: join(root, 'etc/gitconfig'),
      global: join(root, 'home/.gitconfig'),
      xdg: join(root, 'xdg/git/config'),
      explicit: join(root, 'elsewhere/global.gitconfig'),
      sysexplicit: join(root, 'elsewhere/system.gitconfig'),
    };
    for (const [key, file] of Object.entries(files)) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, `[checkpoint-test]\n\t${key} = yes\n`);
    }
    mkdirSync(join(root, 'home/.config/git'), { recursive: true });
    writeFileSync(join(root, 'home/.config/git/config'), '[checkpoint-test]\n\thomexdg = yes\n');
    return { dir: makeRepo(), files, home: join(root, 'home'), xdgHome: join(root, 'xdg') };
  }

  it('reads the files git reads under GIT_CONFIG_NOSYSTEM (any spelling), GIT_CONFIG_SYSTEM, GIT_CONFIG_GLOBAL, XDG_CONFIG_HOME and HOME', () => {
    const m = machine();
    const envs: Record<string, string | undefined>[] = [];
    for (const nosystem of [undefined, '1', '0', 'false', 'yes', '']) for (const system of [undefined, m.files.sysexplicit, '']) for (const global of [undefined, m.files.explicit, '']) for (const xdg of [undefined, m.xdgHome, '']) envs.push({ GIT_CONFIG_NOSYSTEM: nosystem, GIT_CONFIG_SYSTEM: system, GIT_CONFIG_GLOBAL: global, XDG_CONFIG_HOME: xdg, HOME: m.home });
    for (const env of envs) {
      // git's answer: every checkpoint-test key it reads, with the file it came from.
      const full: NodeJS.ProcessEnv = { ...process.env, ...GIT_ENV_BASE };
      for (const [k, v] of Object.entries(env)) if (v === undefined) delete full[k]; else full[k] = v;
      const r = spawnSync('git', ['config', '--show-origin', '--get-regexp', '^checkpoint-test\\.'], { cwd: m.dir, env: full, encoding: 'utf8' });
      const byGit = r.stdout.split('\n').filter(Boolean).map((line) => line.replace(/^file:/, '').split('\t')[0]!).filter((f) => !f.endsWith('.git/config'));
      const places = configPlaces({ env, platform: 'linux', homedir: '/nonexistent' });
      // git skips files that do not exist; the /etc/gitconfig of this machine is not one of ours.
      const ours = [...places.system, ...places.global].filter((f) => f !== '/etc/gitconfig' && existsSync(f));
      expect(ours, JSON.stringify(env)).toEqual(byGit);
    }
  });

  it('readEolConfig takes core.autocrlf from the system file git reads, and config.worktree only under extensions.worktreeConfig', () => {
    const m = machine();
    writeFileSync(m.files.sysexplicit, '[core]\n\tautocrlf = true\n');
    const saved = { ...process.env };
    try {
      Object.assign(process.env, { GIT_CONFIG_SYSTEM: m.files.sysexplicit, GIT_CONFIG_GLOBAL: '/dev/null', HOME: m.home });
      for (const nosystem of ['1', '0', 'off', undefined]) {
        if (nosystem === undefined) delete process.env.GIT_CONFIG_NOSYSTEM;
        else process.env.GIT_CONFIG_NOSYSTEM = nosystem;
        const byGit = spawnSync('git', ['config', '--get', 'core.autocrlf'], { cwd: m.dir, env: process.env, encoding: 'utf8' }).stdout.trim() || 'false';
        expect(readEolConfig(join(m.dir, '.git'), join(m.dir, '.git')).autocrlf, `GIT_CONFIG_NOSYSTEM=${nosystem}`).toBe(byGit);
      }
      process.env.GIT_CONFIG_NOSYSTEM = '1';
      write(m.dir, '.git/config.worktree', '[core]\n\tautocrlf = input\n');
      const byGit = () => spawnSync('git', ['config', '--get', 'core.autocrlf'], { cwd: m.dir, env: process.env, encoding: 'utf8' }).stdout.trim() || 'false';
      expect(byGit()).toBe('false');
      expect(readEolConfig(join(m.dir, '.git'), join(m.dir, '.git')).autocrlf).toBe('false');
      git(m.dir, ['config', 'extensions.worktreeConfig', 'true']);
      expect(byGit()).toBe('input');
      expect(readEolConfig(join(m.dir, '.git'), join(m.dir, '.git')).autocrlf).toBe('input');
    } finally {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });

  it('on Windows: %PROGRAMDATA%\\Git\\config, then the install\'s etc\\gitconfig, then the XDG and home files (HOME, else HOMEDRIVE+HOMEPATH, else USERPROFILE)', () => {
    const base = { PROGRAMDATA: 'C:\\ProgramData', USERPROFILE: 'C:\\Users\\ana', HOMEDRIVE: 'H:', HOMEPATH: '\\ana' };
    const install = windowsGitInstall('C:\\Program Files\\Git\\cmd');
    expect(install).toBe('C:\\Program Files\\Git');
    expect(configPlaces({ env: base, platform: 'win32', homedir: 'C:\\Users\\ana', gitInstall: install })).toEqual({
      system: ['C:\\ProgramData\\Git\\config', 'C:\\Program Files\\Git\\etc\\gitconfig'],
      global: ['H:\\ana\\.config\\git\\config', 'H:\\ana\\.gitconfig'],
      globalAttributes: 'H:\\ana\\.config\\git\\attributes',
      globalIgnore: 'H:\\ana\\.config\\git\\ignore',
      systemAttributes: 'C:\\Program Files\\Git\\etc\\gitattributes',
    });
    const noDrive = configPlaces({ env: { USERPROFILE: 'C:\\Users\\ana' }, platform: 'win32', homedir: 'X:\\', gitInstall: null });
    expect(noDrive).toEqual({ system: [], global: ['C:\\Users\\ana\\.config\\git\\config', 'C:\\Users\\ana\\.gitconfig'], globalAttributes: 'C:\\Users\\ana\\.config\\git\\attributes', globalIgnore: 'C:\\Users\\ana\\.config\\git\\ignore', systemAttributes: null });
    const set = configPlaces({ env: { ...base, HOME: 'D:\\home', GIT_CONFIG_SYSTEM: 'D:\\sys.cfg', GIT_CONFIG_GLOBAL: 'D:\\g.cfg', XDG_CONFIG_HOME: 'D:\\xdg' }, platform: 'win32', homedir: 'X:\\', gitInstall: install });
    expect(set.system).toEqual(['C:\\ProgramData\\Git\\config', 'D:\\sys.cfg']);
    expect(set.global).toEqual(['D:\\g.cfg']);
    expect(set.globalAttributes).toBe('D:\\xdg\\git\\attributes');
    expect(configPlaces({ env: { ...base, GIT_CONFIG_NOSYSTEM: 'true', GIT_ATTR_NOSYSTEM: '1' }, platform: 'win32', homedir: 'X:\\', gitInstall: install })).toMatchObject({ system: [], systemAttributes: null });
    for (const [dir, root] of [['C:\\Program Files\\Git\\bin', 'C:\\Program Files\\Git'], ['C:\\Program Files\\Git\\mingw64\\bin\\', 'C:\\Program Files\\Git'], ['D:/tools/PortableGit/usr/bin', 'D:\\tools\\PortableGit'], ['C:\\Windows', null]] as const) expect(windowsGitInstall(dir), dir).toBe(root);
  });
});
