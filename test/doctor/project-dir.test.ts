// Which checkout path a generated_files entry written on another machine names (r14 W4).
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { checkProjectDir, fromProjectDir, generatedTargets, repoRelative } from '../../src/doctor/checks.js';
import { shownPath } from '../../src/one-line.js';
import { cleanup, tempDir } from '../helpers/repo.js';
import type { Checkpoint } from '../../src/protocol/types.js';

const ROOT = '/work/repo';
const inRepo = (projectDir: string, entry: string) => {
  const mapped = fromProjectDir({ project_dir: projectDir } as Checkpoint, ROOT);
  return repoRelative(ROOT, mapped ? mapped(entry) : entry);
};

describe('paths under project_dir written elsewhere', () => {
  it.each([
    ['C:\\Users\\me\\proj', 'C:\\Users\\me\\proj\\src\\x.ts', 'src/x.ts'],
    ['C:\\Users\\me\\proj', 'C:/Users/me/proj/src/x.ts', 'src/x.ts'],
    ['C:\\Users\\me\\proj\\', 'c:\\users\\ME\\PROJ\\src\\x.ts', 'src/x.ts'],
    ['c:/users/me/proj', 'C:\\Users\\me\\proj\\src\\Deep\\X.ts', 'src/Deep/X.ts'],
    ['C:\\Users\\me\\proj', 'C:\\Users\\me\\proj\\..\\other\\x.ts', null],
    ['C:\\Users\\me\\proj', 'C:\\Users\\me\\project2\\x.ts', null],
    ['C:\\Users\\me\\proj', 'D:\\x.ts', null],
    ['C:\\', 'C:\\src\\x.ts', null],
    ['/home/me/proj', 'C:\\Users\\me\\proj\\src\\x.ts', null],
    ['/home/me/proj', '/home/me/proj/src/x.ts', 'src/x.ts'],
    ['/home/me/proj', '~/proj/src/x.ts', null],
    ['~/proj', '~/proj/src/x.ts', 'src/x.ts'],
    ['~/proj', '~/other/x.ts', null],
    ['/home/me/proj', 'src/x.ts', 'src/x.ts'],
  ])('project_dir %s: %s -> %s', (dir, entry, rel) => {
    expect(inRepo(dir, entry)).toBe(rel);
  });

  it('property: a Windows path under a Windows project_dir maps to its rest, whatever the case and slashes', () => {
    const seg = fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/);
    const flip = (s: string, upper: boolean[]) => [...s].map((c, i) => (upper[i % upper.length] ? c.toUpperCase() : c.toLowerCase())).join('');
    fc.assert(fc.property(fc.array(seg, { minLength: 1, maxLength: 3 }), fc.array(seg, { minLength: 1, maxLength: 3 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }), fc.constantFrom('\\', '/'), (dirSegs, rest, upper, slash) => {
      const dir = `C:\\${dirSegs.join('\\')}`;
      const entry = flip(`c:${slash}${dirSegs.join(slash)}`, upper) + slash + rest.join('\\');
      expect(inRepo(dir, entry)).toBe(rest.join('/'));
    }));
  });
});

describe('an absolute path with a space in its folders (red team 12-06)', () => {
  const rels = (projectDir: string, files: string[]) =>
    generatedTargets({ project_dir: projectDir, context_primer: { generated_files: files } } as unknown as Checkpoint, ROOT, new Map(), () => false).map((t) => t.rel);

  it('maps under project_dir as one without spaces does, whether or not the file is there', () => {
    expect(rels(ROOT, [`${ROOT}/docs/my dir/notes.md`])).toEqual(['docs/my dir/notes.md']);
    expect(rels('/home/claude/My Demo', ['/home/claude/My Demo/docs/my dir/notes.md (PR 2)'])).toEqual(['docs/my dir/notes.md']);
    expect(rels('C:\\Users\\me\\My Project', ['C:\\Users\\me\\My Project\\docs\\my dir\\notes.md', 'c:/users/me/my project/src/x.ts'])).toEqual(['docs/my dir/notes.md', 'src/x.ts']);
    // Outside both: no file in the repository.
    expect(rels('/home/claude/demo', ['/Users/me/Other Project/a.md', 'D:\\My Files\\a.md'])).toEqual([null, null]);
  });
});

describe('a package checkpoint kept at the top of a monorepo (red team, 12-05)', () => {
  const targets = (projectDir: string, files: string[], held: string[]) =>
    generatedTargets({ project_dir: projectDir, context_primer: { generated_files: files } } as unknown as Checkpoint, ROOT, new Map(), (rel) => held.includes(rel)).map((t) => t.rel);

  it('reads a relative entry from project_dir when the top has no such file, and from the top when it has', () => {
    const held = ['packages/app/src/index.ts', 'README.md', 'packages/app/README.md', 'packages/app/src/b.ts'];
    // A file gone from both is the package's (its deletion is looked for there); one written from the top stays as written (12-06).
    expect(targets(`${ROOT}/packages/app`, ['src/index.ts', 'README.md', 'packages/app/src/b.ts', 'src/gone.ts', 'packages/app/src/gone.ts'], held)).toEqual(['packages/app/src/index.ts', 'README.md', 'packages/app/src/b.ts', 'packages/app/src/gone.ts', 'packages/app/src/gone.ts']);
    // project_dir the top itself, or another machine's: as before.
    expect(targets(ROOT, ['src/index.ts'], held)).toEqual(['src/index.ts']);
    expect(targets('/home/me/monorepo/packages/app', ['src/index.ts'], held)).toEqual(['src/index.ts']);
  });

  it('reads a pattern from project_dir when the top has no match (12-06)', () => {
    const [target] = generatedTargets({ project_dir: `${ROOT}/packages/app`, context_primer: { generated_files: ['gen/*.ts'] } } as unknown as Checkpoint, ROOT, new Map(), () => false);
    expect(target!.target).toEqual({ kind: 'pattern', text: 'gen/*.ts', alternatives: ['packages/app/gen/*.ts'] });
  });
});

describe('an entry written from the folder above the project, its name first (red team B04)', () => {
  const rels = (projectDir: string, files: string[], held: string[], root = ROOT) =>
    generatedTargets({ project_dir: projectDir, context_primer: { generated_files: files } } as unknown as Checkpoint, root, new Map(), (rel) => held.includes(rel)).map((t) => t.rel);

  it("reads without project_dir's last name, or this checkout's, when only the rest is there", () => {
    const held = ['src/a.ts', 'docs/guide.md'];
    expect(rels('/Users/bob/code/demo', ['demo/src/a.ts (PR 12)', '`demo/docs/guide.md` — rewritten', 'demo/src/gone.ts', 'other/src/a.ts'], held)).toEqual(['src/a.ts', 'docs/guide.md', 'demo/src/gone.ts', 'other/src/a.ts']);
    expect(rels('C:\\Users\\bob\\demo\\', ['demo\\src\\a.ts'], held)).toEqual(['src/a.ts']);
    // The checkout's own folder's name (ROOT is /work/repo), whatever project_dir says.
    expect(rels(ROOT, ['repo/src/a.ts'], held)).toEqual(['src/a.ts']);
  });

  it('takes a real folder named like the project as written', () => {
    expect(rels('/Users/bob/code/demo', ['demo/src/a.ts'], ['demo/src/a.ts', 'src/a.ts'])).toEqual(['demo/src/a.ts']);
    expect(rels(ROOT, ['repo/src/a.ts'], ['repo/src/a.ts', 'src/a.ts'])).toEqual(['repo/src/a.ts']);
    // A file gone from such a folder is that folder's: its deletion is drift, never src/a.ts's.
    expect(rels('/Users/bob/code/demo', ['demo/src/a.ts', 'demo/src/*.ts'], ['demo/src', 'demo/src/b.ts', 'src/a.ts'])).toEqual(['demo/src/a.ts', null]);
  });

  it("keeps one checkpoint's reading from another's in a run: the name is each project_dir's own", () => {
    const entries = new Map();
    const of = (projectDir: string) => generatedTargets({ project_dir: projectDir, context_primer: { generated_files: ['demo/src/a.ts'] } } as unknown as Checkpoint, ROOT, entries, (rel) => rel === 'src/a.ts').map((t) => t.rel);
    expect(of('/Users/bob/code/demo')).toEqual(['src/a.ts']);
    expect(of('/Users/bob/code/other')).toEqual(['demo/src/a.ts']);
  });
});

describe('project_dir is judged by its text: nothing outside the repository is looked up (red team, 61d-06)', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach(cleanup));
  const made = () => {
    const d = tempDir();
    dirs.push(d);
    return d;
  };
  const check = (projectDir: string, root: string, inGit = true) =>
    checkProjectDir({ skill: 'api', project_dir: projectDir } as unknown as Checkpoint, root, inGit).map((f) => `${f.level} ${f.message}`);

  it('says the same of a folder elsewhere whether or not it exists, and opens no network path', () => {
    const root = made();
    const there = made(); // another checkout on this machine
    const gone = join(there, 'old clone (moved)');
    expect(check(there, root)).toEqual([`info project_dir ${there} is not this checkout (written in another checkout; this one is ${root})`]);
    expect(check(gone, root)).toEqual([`info project_dir ${gone} is not this checkout (written in another checkout; this one is ${root})`]);
    expect(check(there, root, false)).toEqual([`warning project_dir ${there} is not this folder (${root}), and this checkpoint is not in a git repository`]);
    // A share, either slash: on Windows opening it would connect to that host with the user's credentials.
    for (const share of ['\\\\build-box.corp.example\\share\\shop', '//build-box.corp.example/share/shop', '\\\\?\\UNC\\build-box\\s', '/\\build-box\\s']) {
      expect(check(share, root), share).toEqual([`info project_dir ${shownPath(share)} is not this checkout (written in another checkout; this one is ${root}); a network path, never opened`]);
    }
  });

  it('this checkout, written any way, says nothing; a folder of it is looked for inside it only', () => {
    const root = made();
    mkdirSync(join(root, 'packages', 'app'), { recursive: true });
    const outside = made();
    symlinkSync(outside, join(root, 'packages', 'linked'));
    for (const same of [root, `${root}/`, '.', `${root}/packages/..`]) expect(check(same, root), same).toEqual([]);
    expect(check(`${root}/packages/app`, root)).toEqual([]);
    expect(check('packages/app', root)).toEqual([]);
    expect(check(`${root}/packages/web`, root)).toEqual([`info project_dir ${root}/packages/web is a folder this checkout does not have (packages/web)`]);
    // Through a link out of the repository: never followed, so what lies there changes nothing.
    mkdirSync(join(outside, 'pkg'));
    expect(check(`${root}/packages/linked/pkg`, root)).toEqual([`info project_dir ${root}/packages/linked/pkg is a folder this checkout does not have (packages/linked/pkg)`]);
    // Another machine's Windows or home path, read here.
    expect(check('C:\\Users\\dana\\code\\shop', root)).toEqual([`info project_dir C:\\Users\\dana\\code\\shop is not this checkout (written in another checkout; this one is ${root})`]);
    expect(check('~/code/shop', root)).toEqual([`info project_dir ~/code/shop is not this checkout (written in another checkout; this one is ${root})`]);
  });
});
