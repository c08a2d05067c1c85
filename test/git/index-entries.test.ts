// The one reader of git's index entries, against git's own account of the same index file
// (`git ls-files --stage` and `--debug`) in every version git writes: v2, v3 (extended flags:
// skip-worktree, intent-to-add), v4 (names cut into suffixes of the one before), names of 0xfff
// bytes or more (their length is where their NUL is), unicode, conflict stages, gitlinks, many
// entries; cut short anywhere, and read in parts as a caller reading the file by chunks does.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IndexEntries, indexVersion } from '../../src/git/index-entries.js';
import { cleanup, commitAll, git, makeRepo, write } from '../helpers/repo.js';

interface Seen {
  path: string;
  mode: string;
  oid: string;
  stage: number;
  /** As git's in-memory ce_flags that --debug prints: flag bits, extended flags above them. */
  flags: string;
  stat: string;
}

const LONG = `long/${`${'d'.repeat(150)}ü/`.repeat(30)}end.txt`;

let dir: string;
beforeAll(() => {
  dir = makeRepo();
  write(dir, 'a.txt', 'a\n');
  write(dir, 'ünï/cödé ✓.txt', 'unicode\n');
  write(dir, '日本/語.md', 'ja\n');
  for (let i = 0; i < 300; i++) write(dir, `many/${String(i).padStart(3, '0')}/f.txt`, `${i}\n`);
  commitAll(dir, 'files');
  const blob = git(dir, ['hash-object', '-w', 'a.txt']).trim();
  const head = git(dir, ['rev-parse', 'HEAD']).trim();
  git(dir, ['update-index', '--add', '--cacheinfo', `100644,${blob},${LONG}`, '--cacheinfo', `160000,${head},vendor/lib`]);
  execFileSync('git', ['update-index', '--index-info'], { cwd: dir, input: [1, 2, 3].map((s) => `100644 ${blob} ${s}\tmany/150/conflict.txt\n`).join('') });
  git(dir, ['update-index', '--skip-worktree', 'a.txt']);
  git(dir, ['update-index', '--assume-unchanged', 'ünï/cödé ✓.txt']);
  write(dir, 'new.txt', 'new\n');
  git(dir, ['add', '--intent-to-add', 'new.txt']);
});
afterAll(() => cleanup(dir));

function walk(buf: Buffer, entries = IndexEntries.of(buf)!): Seen[] {
  const seen: Seen[] = [];
  const u32 = (at: number) => buf.readUInt32BE(entries.at + at);
  while (entries.step()) {
    seen.push({
      path: entries.path(),
      mode: entries.mode.toString(8).padStart(6, '0'),
      oid: entries.oid(),
      stage: entries.stage,
      flags: (((entries.flags & 0xf000) | (entries.extended << 16)) >>> 0).toString(16),
      stat: `${u32(0)}:${u32(4)} ${u32(8)}:${u32(12)} ${u32(16)} ${u32(20)} ${u32(28)} ${u32(32)} ${u32(36)}`,
    });
  }
  expect(entries.broken).toBe(false);
  expect(entries.read).toBe(entries.count);
  return seen;
}

/** git's own account: `ls-files --stage -z` for mode, oid, stage and path, `--debug` for stat data and flags. */
function gitSays(): Seen[] {
  const staged = git(dir, ['ls-files', '--stage', '-z']).split('\0').filter(Boolean);
  const debug = git(dir, ['-c', 'core.quotepath=false', 'ls-files', '--stage', '--debug']).split('\n');
  return staged.map((line, i) => {
    const [info, path] = line.split('\t') as [string, string];
    const [mode, oid, stage] = info.split(' ') as [string, string, string];
    const [, ctime, mtime, devIno, uidGid, sizeFlags] = debug.slice(i * 6, i * 6 + 6).map((l) => l.trim());
    const field = (text: string | undefined, name: string) => new RegExp(`${name}: (\\S+)`).exec(text ?? '')![1];
    return {
      path,
      mode,
      oid,
      stage: Number(stage),
      flags: field(sizeFlags, 'flags')!,
      stat: `${field(ctime, 'ctime')} ${field(mtime, 'mtime')} ${field(devIno, 'dev')} ${field(devIno, 'ino')} ${field(uidGid, 'uid')} ${field(uidGid, 'gid')} ${field(sizeFlags, 'size')}`,
    };
  });
}

const indexFile = () => readFileSync(join(dir, '.git', 'index'));

describe('IndexEntries', () => {
  it.each(['3', '4', '2'])('reads every entry of a version %s index as git does', (version) => {
    git(dir, ['update-index', '--index-version', version]);
    const buf = indexFile();
    // Extended flags are written as v3 whatever v2 was asked for (git bumps it).
    expect(indexVersion(buf)).toBe(version === '4' ? 4 : 3);
    const expected = gitSays();
    expect(expected.length).toBeGreaterThan(300);
    expect(expected.some((e) => e.path === LONG && Buffer.byteLength(LONG) >= 0xfff)).toBe(true);
    const seen = walk(buf);
    expect(seen).toEqual(expected);
    const flagsOf = (path: string) => seen.find((e) => e.path === path)!.flags;
    expect([flagsOf('a.txt'), flagsOf('new.txt'), flagsOf('ünï/cödé ✓.txt')]).toEqual(['40004000', '20004000', '8000']);
    expect(seen.filter((e) => e.path === 'many/150/conflict.txt').map((e) => e.stage)).toEqual([1, 2, 3]);
    expect(seen.find((e) => e.path === 'vendor/lib')!.mode).toBe('160000');
  });

  it('reads a plain version 2 index (no extended flags), and one git writes under feature.manyFiles', () => {
    const plain = makeRepo();
    try {
      write(plain, 'x/y.txt', 'y\n');
      write(plain, 'x/z.txt', 'z\n');
      commitAll(plain, 'files');
      const buf = readFileSync(join(plain, '.git', 'index'));
      expect(indexVersion(buf)).toBe(2);
      expect(walk(buf).map((e) => e.path)).toEqual(['x/y.txt', 'x/z.txt']);
      // It applies to an index git makes anew.
      git(plain, ['config', 'feature.manyFiles', 'true']);
      rmSync(join(plain, '.git', 'index'));
      git(plain, ['reset', '-q']);
      write(plain, 'x/w.txt', 'w\n');
      git(plain, ['add', 'x/w.txt']);
      const many = readFileSync(join(plain, '.git', 'index'));
      expect(indexVersion(many)).toBe(4);
      expect(walk(many).map((e) => e.path)).toEqual(['x/w.txt', 'x/y.txt', 'x/z.txt']);
    } finally {
      cleanup(plain);
    }
  });

  it.each(['3', '4'])('read in parts (version %s), steps as it does over the whole file, and asks only for bytes it lacks', (version) => {
    git(dir, ['update-index', '--index-version', version]);
    const whole = indexFile();
    const expected = walk(whole);
    for (const first of [12, 100, 4096]) {
      // Bytes not yet read are garbage: a step must never look at them.
      const part = Buffer.alloc(whole.length, 0xff);
      whole.copy(part, 0, 0, first);
      const entries = IndexEntries.of(part, 20, whole.length)!;
      entries.have = first;
      const seen: string[] = [];
      for (;;) {
        if (entries.step()) seen.push(entries.path());
        else if (entries.short > 0) {
          expect(entries.short).toBeGreaterThan(entries.have);
          const have = Math.max(entries.short, Math.min(whole.length, entries.have * 2));
          whole.copy(part, entries.have, entries.have, have);
          entries.have = have;
        } else break;
      }
      expect(entries.broken).toBe(false);
      expect(seen).toEqual(expected.map((e) => e.path));
    }
  });

  it.each(['3', '4'])('cut short anywhere (version %s): never throws, and says the entries do not fit rather than stop early', (version) => {
    git(dir, ['update-index', '--index-version', version]);
    const whole = indexFile();
    const entriesEnd = (() => {
      const entries = IndexEntries.of(whole)!;
      while (entries.step());
      return entries.next;
    })();
    for (let cut = 0; cut < whole.length; cut += 97) {
      const entries = IndexEntries.of(whole.subarray(0, cut));
      if (entries === null) {
        expect(cut).toBeLessThan(32);
        continue;
      }
      while (entries.step());
      // Past the entries, a cut leaves them whole (the extensions and checksum are the callers').
      expect(entries.broken, `cut at ${cut}`).toBe(cut < entriesEnd + 20);
    }
  });

  it('refuses a header git refuses: no signature, an unknown version, too short', () => {
    const buf = indexFile();
    expect(IndexEntries.of(Buffer.concat([Buffer.from('DIRX'), buf.subarray(4)]))).toBeNull();
    const v5 = Buffer.from(buf);
    v5.writeUInt32BE(5, 4);
    expect(IndexEntries.of(v5)).toBeNull();
    expect(IndexEntries.of(buf.subarray(0, 31))).toBeNull();
  });
});
