// projectEntry says what is at a project path without reading through a link out of the project:
// the same answer whether or not anything exists where such a link points (red team s12 #5).
import { execFileSync } from 'node:child_process';
import fs, { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { projectEntry } from '../../src/store/safe-fs.js';
import { tempDir } from '../helpers/repo.js';

/** A project and a folder outside it, with every kind of thing a hostile clone may hold. */
function project(outsideExists: boolean): { root: string; outside: string } {
  const base = tempDir('cp-entry-');
  const root = join(base, 'repo');
  const outside = join(base, 'outside');
  mkdirSync(join(root, 'docs/real'), { recursive: true });
  writeFileSync(join(root, 'docs/a.md'), 'a\n');
  writeFileSync(join(root, 'docs/real/b.md'), 'b\n');
  execFileSync('mkfifo', [join(root, 'docs/fifo.md')]);
  symlinkSync('a.md', join(root, 'docs/to-a.md'));
  symlinkSync('real', join(root, 'docs/in'));
  symlinkSync(outside, join(root, 'docs/out'));
  symlinkSync('../../outside', join(root, 'docs/up'));
  symlinkSync(join(outside, 'x.md'), join(root, 'docs/x.md'));
  symlinkSync('out', join(root, 'docs/chain'));
  symlinkSync('gone.md', join(root, 'docs/dangling.md'));
  symlinkSync('loop2', join(root, 'docs/loop1'));
  symlinkSync('loop1', join(root, 'docs/loop2'));
  symlinkSync('/dev/null', join(root, 'docs/null'));
  if (outsideExists) {
    mkdirSync(outside);
    writeFileSync(join(outside, 'x.md'), 'x\n');
    writeFileSync(join(outside, 'present.md'), 'p\n');
  }
  return { root, outside };
}

const PATHS: [string, unknown][] = [
  ['docs/a.md', { kind: 'file' }],
  ['docs/real', { kind: 'folder' }],
  ['docs/real/b.md', { kind: 'file' }],
  ['docs/none.md', { kind: 'missing' }],
  ['docs/a.md/x', { kind: 'missing' }],
  ['docs/fifo.md', { kind: 'special', what: 'a FIFO' }],
  ['docs/to-a.md', { kind: 'file' }],
  ['docs/in/b.md', { kind: 'file' }],
  ['docs/dangling.md', { kind: 'missing' }],
  ['docs/loop1', { kind: 'missing' }],
  ['docs/out/present.md', { kind: 'link-out', link: 'docs/out', to: 'OUTSIDE' }],
  ['docs/out/absent.md', { kind: 'link-out', link: 'docs/out', to: 'OUTSIDE' }],
  ['docs/out', { kind: 'link-out', link: 'docs/out', to: 'OUTSIDE' }],
  ['docs/up/present.md', { kind: 'link-out', link: 'docs/up', to: '../../outside' }],
  ['docs/x.md', { kind: 'link-out', link: 'docs/x.md', to: 'OUTSIDE/x.md' }],
  ['docs/null', { kind: 'link-out', link: 'docs/null', to: '/dev/null' }],
];

describe('projectEntry (red team s12 #5)', () => {
  it.each([true, false])('tells each kind apart, the same whether the outside exists (%s)', (outsideExists) => {
    const { root, outside } = project(outsideExists);
    for (const [rel, want] of PATHS) {
      const expected = JSON.parse(JSON.stringify(want).replace('OUTSIDE', outside));
      expect(projectEntry(root, rel), rel).toEqual(expected);
    }
    // A chain of in-project links whose last one leads out: the link that leads out is named.
    expect(projectEntry(root, 'docs/chain/present.md')).toEqual({ kind: 'link-out', link: 'docs/out', to: outside });
  });

  it('property: no answer depends on what lies outside', () => {
    const a = project(true);
    const b = project(false);
    const part = fc.constantFrom('docs', 'a.md', 'real', 'b.md', 'fifo.md', 'to-a.md', 'in', 'out', 'up', 'x.md', 'present.md', 'absent.md', 'dangling.md', 'null', 'chain', 'loop1');
    fc.assert(fc.property(fc.array(part, { minLength: 1, maxLength: 4 }), (parts) => {
      const rel = parts.join('/');
      const norm = (e: ReturnType<typeof projectEntry>, outside: string) => JSON.stringify(e).replaceAll(outside, 'OUTSIDE');
      expect(norm(projectEntry(a.root, rel), a.outside), rel).toBe(norm(projectEntry(b.root, rel), b.outside));
    }), { numRuns: 300 });
    rmSync(a.outside, { recursive: true, force: true });
  });

  it('never stats, resolves or opens anything through a link out: each path it asks the file system about lies in the project (f4 2)', () => {
    const { root, outside } = project(true);
    symlinkSync('/dev/zero', join(root, 'docs/zero.md'));
    execFileSync('mkfifo', [join(outside, 'pipe')]);
    symlinkSync(join(outside, 'pipe'), join(root, 'docs/pipe.md'));
    // Recorded, not replaced: every call still reaches the real file system.
    const asked: string[] = [];
    const record = <F extends (...a: never[]) => unknown>(name: string, orig: F) => ((p: fs.PathLike, ...rest: unknown[]) => (asked.push(`${name} ${String(p)}`), (orig as unknown as (...a: unknown[]) => unknown)(p, ...rest))) as never;
    const names = ['statSync', 'lstatSync', 'openSync', 'readFileSync', 'readlinkSync', 'realpathSync'] as const;
    const originals = names.map((name) => [name, fs[name]] as const);
    const native = fs.realpathSync.native;
    const spies = originals.map(([name, orig]) => vi.spyOn(fs, name).mockImplementation(record(name, orig)));
    spies.push(vi.spyOn(fs.realpathSync, 'native').mockImplementation(record('realpathSync.native', native)) as never);
    try {
      for (const rel of ['docs/out/present.md', 'docs/x.md', 'docs/zero.md', 'docs/pipe.md', 'docs/chain/present.md', 'docs/up/present.md', 'docs/null', 'docs/in/b.md', 'docs/to-a.md']) projectEntry(root, rel);
    } finally {
      spies.forEach((s) => s.mockRestore());
    }
    expect(projectEntry(root, 'docs/zero.md')).toEqual({ kind: 'link-out', link: 'docs/zero.md', to: '/dev/zero' });
    expect(projectEntry(root, 'docs/pipe.md')).toEqual({ kind: 'link-out', link: 'docs/pipe.md', to: join(outside, 'pipe') });
    expect(projectEntry(root, 'docs/in/b.md')).toEqual({ kind: 'file' });
    expect(asked.length).toBeGreaterThan(0);
    // Only calls that stop at a link (lstat, readlink), none on a path through a link out; a call that
    // follows one (stat, realpath, open) is asked only of the root itself.
    const through = /\/docs\/(?:out|chain|up)\//;
    expect(asked.filter((a) => a.includes(outside) || a.includes(' /dev/') || through.test(a))).toEqual([]);
    expect(asked.filter((a) => !/^(?:lstatSync|readlinkSync) /.test(a) && a.replace(/^\S+ /, '') !== root)).toEqual([]);
  });
});
