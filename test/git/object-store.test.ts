// ObjectStore against the git binary: every object it reads must equal `git cat-file`'s,
// for loose objects, packs as gc, aggressive gc, REF_DELTA repacks, thin packs, v1 and
// 64-bit-offset indexes and alternates make them. Crafted packs and indexes that lie must
// give one clear CheckpointError, never a hang, a crash or an allocation of what they claim.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { isCheckpointError } from '../../src/errors.js';
import { createHistory } from '../../src/git/index.js';
import { MAX_DELTA_DEPTH, ObjectStore, type ObjectType } from '../../src/git/object-store.js';
import { assertBuilt, cleanup, cli, commitAll, errorLine, git, GIT_ENV, gitTry, makeRepo, tempDir, write, headSha } from '../helpers/repo.js';
import { checkpointDoc } from '../helpers/fixtures.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) cleanup(dir);
});
function repo(): string {
  const dir = makeRepo();
  dirs.push(dir);
  return dir;
}
const objectsOf = (dir: string) => join(dir, '.git', 'objects');

/** Every object git finds in the repository (alternates included), as `git cat-file --batch` prints it. */
function catAll(dir: string): Map<string, { type: string; data: Buffer }> {
  const out = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], { cwd: dir, env: GIT_ENV, maxBuffer: 1 << 28 });
  const objects = new Map<string, { type: string; data: Buffer }>();
  for (let at = 0; at < out.length; ) {
    const newline = out.indexOf(10, at);
    const [oid, type, size] = out.toString('latin1', at, newline).split(' ');
    const start = newline + 1;
    objects.set(oid!, { type: type!, data: out.subarray(start, start + Number(size)) });
    at = start + Number(size) + 1;
  }
  return objects;
}

async function expectSameAsGit(dir: string): Promise<number> {
  const store = new ObjectStore(objectsOf(dir));
  try {
    const expected = catAll(dir);
    expect(expected.size).toBeGreaterThan(0);
    for (const [oid, { type, data }] of expected) {
      const found = await store.read(oid);
      expect(found?.type, oid).toBe(type);
      expect(found?.data?.equals(data), `${oid} content`).toBe(true);
    }
    return expected.size;
  } finally {
    store.close();
  }
}

/** Lines of text that change a little per commit, so git stores them as deltas. */
function drift(seed: number, lines = 60): string {
  return Array.from({ length: lines }, (_, i) => `line ${i} of a long generated file ${i % 7 === seed % 7 ? seed : 0}\n`).join('');
}

function historyRepo(commits = 6): string {
  const dir = repo();
  for (let i = 0; i < commits; i++) {
    write(dir, 'src/big.txt', drift(i));
    write(dir, `src/dir-${i % 3}/file.txt`, drift(i * 3, 30));
    write(dir, 'README.md', `readme ${i}\n`);
    commitAll(dir, `commit ${i}\n\nbody ${i}\n`);
  }
  return dir;
}

function packFiles(dir: string, ext: string): string[] {
  const packDir = join(objectsOf(dir), 'pack');
  return readdirSync(packDir).filter((n) => n.endsWith(ext)).map((n) => join(packDir, n));
}

/**
 * Re-index every pack with `git index-pack --index-version=<version>`: "2,12" puts every
 * offset past the first object in the 64-bit table (git refuses more large offsets than that).
 */
function reindex(dir: string, version: string): void {
  for (const pack of packFiles(dir, '.pack')) {
    const idx = pack.replace(/\.pack$/, '.idx');
    git(dir, ['index-pack', `--index-version=${version}`, '-o', `${idx}.new`, pack]);
    rmSync(idx, { force: true });
    renameSync(`${idx}.new`, idx);
  }
}

/** Deltas in the repository's packs, from `git verify-pack -v` (lines with a base id). */
function deltaCount(dir: string): number {
  let count = 0;
  for (const idx of packFiles(dir, '.idx')) {
    for (const line of git(dir, ['verify-pack', '-v', idx]).split('\n')) if (/^[0-9a-f]{40} \w+ +\d+ \d+ \d+ \d+ [0-9a-f]{40}$/.test(line)) count++;
  }
  return count;
}

describe('ObjectStore reads what git reads', () => {
  it('loose objects', async () => {
    const dir = historyRepo(3);
    expect(packFiles(dir, '.pack')).toEqual([]);
    expect(await expectSameAsGit(dir)).toBeGreaterThan(10);
  });

  it('git gc --aggressive: deltified commits, trees and blobs (OFS_DELTA)', async () => {
    const dir = historyRepo(8);
    const loose = await expectSameAsGit(dir);
    git(dir, ['gc', '-q', '--aggressive', '--prune=now']);
    expect(deltaCount(dir)).toBeGreaterThan(3);
    expect(await expectSameAsGit(dir)).toBe(loose);
  });

  it('REF_DELTA: a repack without delta base offsets', async () => {
    const dir = historyRepo(8);
    const loose = await expectSameAsGit(dir);
    git(dir, ['-c', 'repack.useDeltaBaseOffset=false', 'repack', '-q', '-a', '-d', '-f']);
    expect(deltaCount(dir)).toBeGreaterThan(3);
    expect(await expectSameAsGit(dir)).toBe(loose);
  });

  it('a thin pack completed by index-pack --fix-thin, beside the clone\'s own pack', async () => {
    const source = historyRepo(4);
    const old = headSha(source);
    for (let i = 4; i < 8; i++) {
      write(source, 'src/big.txt', drift(i));
      commitAll(source, `later ${i}`);
    }
    const clone = tempDir();
    dirs.push(clone);
    git(source, ['branch', 'old', old]);
    // The clone holds the old history only: the thin pack's deltas name bases it has.
    git(clone, ['clone', '-q', '--no-local', '--single-branch', '-b', 'old', source, '.']);
    const thin = execFileSync('git', ['pack-objects', '--thin', '--stdout', '--revs', '-q'], { cwd: source, env: GIT_ENV, input: `main\n^${old}\n` });
    execFileSync('git', ['index-pack', '--fix-thin', '--stdin'], { cwd: clone, env: GIT_ENV, input: thin, stdio: ['pipe', 'ignore', 'pipe'] });
    expect(packFiles(clone, '.pack').length).toBe(2);
    expect(catAll(clone).has(git(source, ['rev-parse', 'main']).trim())).toBe(true);
    await expectSameAsGit(clone);
  });

  it('version 1 indexes, and version 2 indexes with every offset in the 64-bit table', async () => {
    const dir = historyRepo(5);
    git(dir, ['gc', '-q', '--aggressive', '--prune=now']);
    const objects = await expectSameAsGit(dir);
    reindex(dir, '1');
    expect(readFileSync(packFiles(dir, '.idx')[0]!).readUInt32BE(0)).not.toBe(0xff744f63);
    expect(await expectSameAsGit(dir)).toBe(objects);
    reindex(dir, '2,12');
    const idx = readFileSync(packFiles(dir, '.idx')[0]!);
    const count = idx.readUInt32BE(8 + 255 * 4);
    expect(idx.length - (8 + 1024 + count * 28 + 40)).toBe((count - 1) * 8);
    expect(await expectSameAsGit(dir)).toBe(objects);
  });

  it('alternates: a `clone --shared` reads its source\'s objects', async () => {
    const source = historyRepo(3);
    git(source, ['gc', '-q']);
    const clone = tempDir();
    dirs.push(clone);
    git(clone, ['clone', '-q', '--shared', source, '.']);
    write(clone, 'src/big.txt', drift(42));
    commitAll(clone, 'in the clone');
    expect(readFileSync(join(objectsOf(clone), 'info/alternates'), 'utf8')).toContain(source);
    expect(await expectSameAsGit(clone)).toBeGreaterThan(10);
    const history = await createHistory({ dir: clone, engine: 'isomorphic' });
    const native = await createHistory({ dir: clone, engine: 'native' });
    expect(await history.commitsSince(0)).toEqual(await native.commitsSince(0));
  });

  it('a linked worktree reads the common dir\'s objects', async () => {
    const dir = historyRepo(3);
    git(dir, ['gc', '-q']);
    const wt = join(tempDir(), 'wt');
    dirs.push(wt);
    git(dir, ['worktree', 'add', '-q', '-b', 'side', wt]);
    write(wt, 'side.txt', 'side\n');
    commitAll(wt, 'on the side');
    const history = await createHistory({ dir: wt, engine: 'isomorphic' });
    const commits = await history.commitsSince(0);
    expect(commits.map((c) => c.subject).sort()).toEqual(['commit 0', 'commit 1', 'commit 2', 'on the side', 'root']);
    expect(commits).toEqual(await (await createHistory({ dir: wt, engine: 'native' })).commitsSince(0));
  });

  it('abbreviations: unique, ambiguous and unknown prefixes, loose and packed', async () => {
    const dir = historyRepo(3);
    const all = [...catAll(dir).keys()];
    const store = new ObjectStore(objectsOf(dir));
    const check = () => {
      for (const oid of all) expect(store.withPrefix(oid.slice(0, 12))).toEqual([oid]);
      expect(store.withPrefix('0000000000000000')).toEqual([]);
    };
    check();
    git(dir, ['gc', '-q', '--prune=now']);
    // The store lists the pack directory again when a lookup misses: gc moved everything.
    check();
    // Two ids sharing their first four digits, if this history has any, are both returned.
    const byPrefix = new Map<string, string[]>();
    for (const oid of all) byPrefix.set(oid.slice(0, 4), [...(byPrefix.get(oid.slice(0, 4)) ?? []), oid]);
    for (const [prefix, oids] of byPrefix) if (oids.length > 1) expect(store.withPrefix(prefix)).toEqual(oids.sort().slice(0, 2));
    store.close();
  });

  it('a blob over maxBytes comes back without data, and readBlobs leaves it out', async () => {
    const dir = repo();
    write(dir, 'big.txt', 'x'.repeat(5000));
    write(dir, 'small.txt', 'small\n');
    commitAll(dir, 'blobs');
    const big = git(dir, ['rev-parse', 'HEAD:big.txt']).trim();
    const small = git(dir, ['rev-parse', 'HEAD:small.txt']).trim();
    const store = new ObjectStore(objectsOf(dir));
    expect(await store.read(big, 4999)).toEqual({ type: 'blob', size: 5000, data: null });
    const history = await createHistory({ dir, engine: 'isomorphic' });
    expect([...(await history.readBlobs([big, small, 'nonsense'], 4999)).keys()]).toEqual([small]);
    store.close();
  });

  it('a pack of several MiB, read whole, then backwards: objects across and beyond the reader\'s pages', async () => {
    const dir = repo();
    // Incompressible text (hex of a hash chain) so entries keep their size in the pack: some
    // smaller than a page, some straddling two, some longer than two; more than the pages kept.
    let seed = createHash('sha1').update('pages').digest();
    const noise = (bytes: number) => {
      let text = '';
      while (text.length < bytes) {
        seed = createHash('sha1').update(seed).digest();
        text += seed.toString('hex');
      }
      return text.slice(0, bytes);
    };
    for (let i = 0; i < 12; i++) {
      for (const [j, size] of [5_000, 31_000, 33_000, 47_000, 70_000, 150_000, 400_000].entries()) write(dir, `blob-${j}.txt`, noise(size));
      commitAll(dir, `round ${i}`);
    }
    // No delta search: noise has no deltas to find, and the search over 84 large blobs is most of this test's CPU.
    git(dir, ['-c', 'pack.window=0', 'gc', '-q', '--prune=now']);
    const [pack] = readdirSync(join(objectsOf(dir), 'pack')).filter((f) => f.endsWith('.pack'));
    expect(readFileSync(join(objectsOf(dir), 'pack', pack!)).length).toBeGreaterThan(4.5 * 1024 * 1024); // over the 4 MiB of pages kept
    const expected = catAll(dir);
    const store = new ObjectStore(objectsOf(dir));
    try {
      for (const oids of [[...expected.keys()], [...expected.keys()].reverse()]) {
        for (const oid of oids) expect((await store.read(oid))?.data?.equals(expected.get(oid)!.data), oid).toBe(true);
      }
    } finally {
      store.close();
    }
  });
});

// ---- crafted packs: what a hostile clone can hold ----

interface Crafted {
  oid: string;
  /** Pack type: 1 commit, 2 tree, 3 blob, 4 tag, 6 OFS_DELTA, 7 REF_DELTA. */
  type: number;
  /** Size the header declares; defaults to the body's length. */
  size?: number;
  body: Buffer;
  /** OFS_DELTA: index of the base entry (earlier in the pack). REF_DELTA: the base id. */
  base?: number | string;
}

function typeBits(type: number, size: number): Buffer {
  const bytes: number[] = [];
  let c = (type << 4) | (size % 16);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(c | 0x80);
    c = rest % 128;
    rest = Math.floor(rest / 128);
  }
  bytes.push(c);
  return Buffer.from(bytes);
}

function ofsBytes(back: number): Buffer {
  const bytes = [back & 0x7f];
  while ((back >>= 7) > 0) bytes.unshift(0x80 | (--back & 0x7f));
  return Buffer.from(bytes);
}

function varint(n: number): Buffer {
  const bytes: number[] = [];
  do {
    bytes.push((n % 128) | (n >= 128 ? 0x80 : 0));
    n = Math.floor(n / 128);
  } while (n > 0);
  return Buffer.from(bytes);
}

/** A delta that copies all of a `size`-byte base, then inserts `extra`. */
function copyAllDelta(size: number, extra = Buffer.alloc(0)): Buffer {
  const ops = [0x80 | 0x10 | 0x20, size & 0xff, (size >> 8) & 0xff];
  return Buffer.concat([varint(size), varint(size + extra.length), Buffer.from(ops), extra.length ? Buffer.from([extra.length]) : Buffer.alloc(0), extra]);
}

const fakeOid = (n: number) => createHash('sha1').update(`fake ${n}`).digest('hex');

/** Writes a pack and its v2 index into `objectsDir/pack`; `idx` may rewrite the index before it is stored. */
function writePack(objectsDir: string, entries: Crafted[], opts: { large?: boolean; idx?: (idx: Buffer) => Buffer } = {}): void {
  const parts: Buffer[] = [Buffer.from('PACK'), Buffer.from([0, 0, 0, 2]), Buffer.alloc(4)];
  parts[2]!.writeUInt32BE(entries.length);
  const offsets: number[] = [];
  let at = 12;
  for (const entry of entries) {
    offsets.push(at);
    const extra = typeof entry.base === 'number' ? ofsBytes(at - offsets[entry.base]!) : typeof entry.base === 'string' ? Buffer.from(entry.base, 'hex') : Buffer.alloc(0);
    const bytes = Buffer.concat([typeBits(entry.type, entry.size ?? entry.body.length), extra, deflateSync(entry.body)]);
    parts.push(bytes);
    at += bytes.length;
  }
  parts.push(Buffer.alloc(20));
  const pack = Buffer.concat(parts);
  const order = entries.map((e, i) => ({ oid: Buffer.from(e.oid, 'hex'), offset: offsets[i]! })).sort((a, b) => Buffer.compare(a.oid, b.oid));
  const n = order.length;
  const idx = Buffer.alloc(8 + 1024 + n * 28 + (opts.large ? n * 8 : 0) + 40);
  idx.writeUInt32BE(0xff744f63, 0);
  idx.writeUInt32BE(2, 4);
  for (let b = 0; b < 256; b++) idx.writeUInt32BE(order.filter((o) => o.oid[0]! <= b).length, 8 + b * 4);
  order.forEach((o, i) => {
    o.oid.copy(idx, 8 + 1024 + i * 20);
    if (opts.large) {
      idx.writeUInt32BE((0x80000000 | i) >>> 0, 8 + 1024 + n * 24 + i * 4);
      idx.writeBigUInt64BE(BigInt(o.offset), 8 + 1024 + n * 28 + i * 8);
    } else idx.writeUInt32BE(o.offset, 8 + 1024 + n * 24 + i * 4);
  });
  mkdirSync(join(objectsDir, 'pack'), { recursive: true });
  const name = createHash('sha1').update(pack).digest('hex');
  writeFileSync(join(objectsDir, 'pack', `pack-${name}.pack`), pack);
  writeFileSync(join(objectsDir, 'pack', `pack-${name}.idx`), opts.idx ? opts.idx(idx) : idx);
}

function emptyObjects(): string {
  const dir = tempDir();
  dirs.push(dir);
  mkdirSync(join(dir, 'pack'), { recursive: true });
  return dir;
}

async function readError(store: ObjectStore, oid: string): Promise<string> {
  try {
    await store.read(oid);
  } catch (error) {
    expect(isCheckpointError(error), String(error)).toBe(true);
    expect((error as { code: string }).code).toBe('E_GIT');
    return (error as Error).message;
  }
  throw new Error(`reading ${oid} did not fail`);
}

describe('ObjectStore on crafted packs', () => {
  const text = Buffer.from('hello, delta\n'.repeat(4));

  it('64-bit offsets: every object found through the large-offset table', async () => {
    const objects = emptyObjects();
    const entries: Crafted[] = [
      { oid: fakeOid(1), type: 3, body: text },
      { oid: fakeOid(2), type: 6, base: 0, body: copyAllDelta(text.length, Buffer.from('more\n')) },
    ];
    writePack(objects, entries, { large: true });
    const store = new ObjectStore(objects);
    expect((await store.read(fakeOid(1)))?.data?.equals(text)).toBe(true);
    expect((await store.read(fakeOid(2)))?.data?.toString()).toBe(`${text}more\n`);
    expect((await store.read(fakeOid(2), 10))?.data).toBeNull();
  });

  it('a fan-out bucket too large to keep is searched by positional reads', async () => {
    const objects = emptyObjects();
    // 5000 ids that all start with 00: one bucket, past what the index keeps in memory.
    const ids = Array.from({ length: 5000 }, (_, i) => `00${fakeOid(i).slice(2)}`);
    writePack(objects, ids.map((oid, i) => ({ oid, type: 3, body: Buffer.from(`blob ${i}\n`) })), { large: true });
    const store = new ObjectStore(objects);
    for (const i of [0, 1, 777, 2500, 4998, 4999]) expect((await store.read(ids[i]!))?.data?.toString()).toBe(`blob ${i}\n`);
    expect(await store.read(`00${'f'.repeat(38)}`)).toBeNull();
    expect(await store.read(`00${'0'.repeat(38)}`)).toBeNull();
    expect(store.withPrefix(ids[2500]!.slice(0, 10))).toEqual([ids[2500]]);
  });

  it('a delta chain as deep as git allows reads; one past the cap is refused', async () => {
    const build = (depth: number) => {
      const objects = emptyObjects();
      const entries: Crafted[] = [{ oid: fakeOid(0), type: 3, body: text }];
      for (let i = 1; i <= depth; i++) entries.push({ oid: fakeOid(i), type: 6, base: i - 1, body: copyAllDelta(text.length) });
      writePack(objects, entries);
      return new ObjectStore(objects);
    };
    expect((await build(300).read(fakeOid(300)))?.data?.equals(text)).toBe(true);
    expect(await readError(build(MAX_DELTA_DEPTH + 2), fakeOid(MAX_DELTA_DEPTH + 2))).toMatch(/deeper than 4096/);
  });

  it('REF_DELTA bases that point at each other: a loop, not a hang', async () => {
    const objects = emptyObjects();
    writePack(objects, [
      { oid: fakeOid(1), type: 7, base: fakeOid(2), body: copyAllDelta(4) },
      { oid: fakeOid(2), type: 7, base: fakeOid(1), body: copyAllDelta(4) },
    ]);
    expect(await readError(new ObjectStore(objects), fakeOid(1))).toMatch(/delta chain of .* loops/);
  });

  it('a huge declared size is never allocated: over maxBytes it has no data, past 2^53 it is an error', async () => {
    const objects = emptyObjects();
    writePack(objects, [
      { oid: fakeOid(1), type: 3, size: 2 ** 40, body: text },
      { oid: fakeOid(2), type: 3, size: 2 ** 60, body: text },
      { oid: fakeOid(3), type: 6, base: 0, body: Buffer.concat([varint(2 ** 40), varint(2 ** 30)]) },
      { oid: fakeOid(4), type: 6, base: 0, body: Buffer.concat([varint(2 ** 40), varint(5), Buffer.from([5]), Buffer.from('small')]) },
    ]);
    const store = new ObjectStore(objects);
    expect(await store.read(fakeOid(1))).toEqual({ type: 'blob', size: 2 ** 40, data: null });
    expect(await readError(store, fakeOid(2))).toMatch(/impossible size/);
    // The result's size comes from the top delta: its 2^40-byte base is never inflated.
    expect(await store.read(fakeOid(3), 1000)).toEqual({ type: 'blob', size: 2 ** 30, data: null });
    // A small result on a base that claims 2^40 bytes: the base is refused before any allocation.
    expect(await readError(store, fakeOid(4))).toMatch(/declares 1099511627776 bytes, over the 67108864-byte limit/);
  });

  it('sizes that lie, deltas that copy outside their base, offsets outside the pack', async () => {
    const objects = emptyObjects();
    writePack(objects, [
      { oid: fakeOid(1), type: 3, size: 10, body: text },
      { oid: fakeOid(2), type: 3, size: text.length + 5, body: text },
      { oid: fakeOid(3), type: 3, body: text },
      { oid: fakeOid(4), type: 6, base: 2, body: Buffer.concat([varint(text.length), varint(9), Buffer.from([0x80 | 0x01 | 0x10, 200, 9])]) },
      { oid: fakeOid(5), type: 6, base: 2, body: copyAllDelta(text.length + 1) },
      { oid: fakeOid(6), type: 3, body: text },
    ], {
      idx: (idx) => {
        // The last entry in sorted order points far past the end of the pack.
        const n = idx.readUInt32BE(8 + 255 * 4);
        idx.writeUInt32BE(0x7fff0000, 8 + 1024 + n * 24 + (n - 1) * 4);
        return idx;
      },
    });
    const store = new ObjectStore(objects);
    const last = [1, 2, 3, 4, 5, 6].map(fakeOid).sort().at(-1)!;
    const messages = await Promise.all([1, 2, 4, 5].filter((i) => fakeOid(i) !== last).map((i) => readError(store, fakeOid(i))));
    expect(messages.join('\n')).toMatch(/\.pack: /);
    if (fakeOid(1) !== last) expect(await readError(store, fakeOid(1))).toMatch(/more than the 10 bytes it declares/);
    if (fakeOid(2) !== last) expect(await readError(store, fakeOid(2))).toMatch(/not the \d+ it declares|does not inflate/);
    if (fakeOid(4) !== last) expect(await readError(store, fakeOid(4))).toMatch(/copies outside its base/);
    if (fakeOid(5) !== last) expect(await readError(store, fakeOid(5))).toMatch(/expects a \d+-byte base/);
    expect(await readError(store, last)).toMatch(/outside the pack/);
  });

  it('a truncated index, an index version it does not know (goes to the fallback), a pack that is not one', async () => {
    const truncated = emptyObjects();
    writePack(truncated, [{ oid: fakeOid(1), type: 3, body: text }], { idx: (idx) => idx.subarray(0, idx.length - 3) });
    expect(await readError(new ObjectStore(truncated), fakeOid(1))).toMatch(/\.idx: is \d+ bytes, which does not fit/);

    const future = emptyObjects();
    writePack(future, [{ oid: fakeOid(1), type: 3, body: text }], { idx: (idx) => (idx.writeUInt32BE(3, 4), idx) });
    const asked: string[] = [];
    const store = new ObjectStore(future, async (oid) => (asked.push(oid), oid === fakeOid(1) ? { type: 'blob' as ObjectType, data: text } : null));
    expect((await store.read(fakeOid(1)))?.data?.equals(text)).toBe(true);
    expect(await store.read(fakeOid(2))).toBeNull();
    expect(asked).toEqual([fakeOid(1), fakeOid(2)]);
    expect(store.skipped.length).toBe(1);

    const notPack = emptyObjects();
    writePack(notPack, [{ oid: fakeOid(1), type: 3, body: text }]);
    const packFile = readdirSync(join(notPack, 'pack')).find((n) => n.endsWith('.pack'))!;
    writeFileSync(join(notPack, 'pack', packFile), Buffer.alloc(64));
    expect(await readError(new ObjectStore(notPack), fakeOid(1))).toMatch(/not a version 2 or 3 pack/);
  });

  it('loose objects that are FIFOs or garbage: a clear error, no hang', async () => {
    const objects = emptyObjects();
    const fifo = fakeOid(1);
    mkdirSync(join(objects, fifo.slice(0, 2)), { recursive: true });
    execFileSync('mkfifo', [join(objects, fifo.slice(0, 2), fifo.slice(2))]);
    const garbage = fakeOid(2);
    mkdirSync(join(objects, garbage.slice(0, 2)), { recursive: true });
    writeFileSync(join(objects, garbage.slice(0, 2), garbage.slice(2)), 'not zlib at all');
    const liar = fakeOid(3);
    mkdirSync(join(objects, liar.slice(0, 2)), { recursive: true });
    writeFileSync(join(objects, liar.slice(0, 2), liar.slice(2)), deflateSync(Buffer.from('blob 3\0more than three')));
    const store = new ObjectStore(objects);
    expect(await readError(store, fifo)).toMatch(/is not a regular file/);
    expect(await readError(store, garbage)).toMatch(/does not inflate/);
    expect(await readError(store, liar)).toMatch(/more than the \d+ bytes it declares/);
  });

  it('a damaged pack in a clone: the isomorphic engine fails with one E_GIT line', async () => {
    const dir = historyRepo(3);
    git(dir, ['gc', '-q', '--prune=now']);
    const pack = packFiles(dir, '.pack')[0]!;
    const bytes = readFileSync(pack);
    bytes.fill(0xff, 12, bytes.length - 20);
    writeFileSync(pack, bytes);
    const history = await createHistory({ dir, engine: 'isomorphic' });
    await expect(history.commitsSince(0)).rejects.toMatchObject({ code: 'E_GIT', message: expect.stringMatching(/\.pack: /) });
  });
});

describe('a pack whose trailing checksum is damaged', () => {
  /** A repository of one pack, its last byte flipped: the objects intact, the trailer not the .idx's. */
  function badTrailer(): { dir: string; pack: string } {
    const dir = historyRepo(3);
    write(dir, '.checkpoints/build.checkpoint.json', `${JSON.stringify(checkpointDoc({ skill: 'build', created_at: '2026-05-01T09:00:00Z', updated_at: '2026-05-02T09:00:00.0Z', context_primer: { key_decisions: ['keep the pack'], generated_files: ['src/big.txt (PR 12)'] } }), null, 2)}\n`);
    commitAll(dir, 'checkpoint');
    git(dir, ['gc', '-q', '--prune=now']);
    const pack = packFiles(dir, '.pack')[0]!;
    const bytes = readFileSync(pack);
    bytes[bytes.length - 1]! ^= 0xff;
    writeFileSync(pack, bytes);
    return { dir, pack };
  }
  const LINE = /\.pack does not match its \.idx \(the pack's trailing checksum is not the one the \.idx records\), so git refuses every object in it$/;

  it('is refused whole by git and by both engines, with the same one line naming the pack', async () => {
    const { dir, pack } = badTrailer();
    const log = gitTry(dir, ['log', '--oneline']);
    expect(log.status).not.toBe(0);
    expect(log.stderr).toMatch(/does not match index/);
    const errors: string[] = [];
    for (const engine of ['native', 'isomorphic'] as const) {
      const history = await createHistory({ dir, engine });
      const error = await history.commitsSince(0).then(() => null, (e: unknown) => e);
      expect(isCheckpointError(error), `${engine}: ${String(error)}`).toBe(true);
      expect((error as Error).message).toMatch(LINE);
      expect((error as Error).message).toContain(pack);
      errors.push((error as Error).message);
    }
    expect(errors[1]).toBe(errors[0]);
  });

  it('its objects found elsewhere (loose again) are read, as git reads them', async () => {
    const { dir, pack } = badTrailer();
    const good = Buffer.from(readFileSync(pack));
    good[good.length - 1]! ^= 0xff;
    // Unpack a good copy into loose objects beside the damaged pack.
    const spare = tempDir();
    dirs.push(spare);
    git(spare, ['init', '-q', '--bare']);
    execFileSync('git', ['unpack-objects', '-q'], { cwd: spare, input: good, env: GIT_ENV });
    for (const fan of readdirSync(join(spare, 'objects')).filter((n) => /^[0-9a-f]{2}$/.test(n))) cpSync(join(spare, 'objects', fan), join(dir, '.git/objects', fan), { recursive: true });
    expect(gitTry(dir, ['log', '--oneline']).status).toBe(0);
    const native = await (await createHistory({ dir, engine: 'native' })).commitsSince(0);
    const iso = await (await createHistory({ dir, engine: 'isomorphic' })).commitsSince(0);
    expect(iso.map((c) => c.sha)).toEqual(native.map((c) => c.sha));
    expect(native).toHaveLength(5); // the initial commit, 3 commits, the checkpoint
  });

  it('checkpoint doctor (built): one line, exit 2, the same on both engines; an object damaged inside the pack names git fsck on both', () => {
    assertBuilt();
    const { dir, pack } = badTrailer();
    const runs = (['native', 'isomorphic'] as const).map((engine) => cli(dir, ['doctor', '--engine', engine]));
    for (const r of runs) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      const { lines, message, hint } = errorLine(r.stderr);
      expect(lines).toBe(1);
      expect(message).toMatch(LINE);
      expect(hint).toMatch(/git fsck/);
    }
    expect(runs[1]!.stderr).toBe(runs[0]!.stderr);
    // The trailer mended, the object data overwritten: git reads the pack and fails on an object.
    const bytes = readFileSync(pack);
    bytes[bytes.length - 1]! ^= 0xff;
    bytes.fill(0xff, 40, bytes.length - 60);
    writeFileSync(pack, bytes);
    for (const engine of ['native', 'isomorphic'] as const) {
      const r = cli(dir, ['doctor', '--engine', engine]);
      expect(r.code, engine).toBe(2);
      const { lines, message, hint } = errorLine(r.stderr);
      expect(lines, r.stderr).toBe(1);
      expect(message).toContain(pack.slice(pack.lastIndexOf('pack-')));
      expect(hint).toMatch(/git fsck/);
    }
  });
});

// ---- property: random small repositories, repacked in random ways ----

type Step = 'none' | 'gc' | 'aggressive' | 'refdelta' | 'deep' | 'incremental' | 'idx-v1' | 'idx-64';
const STEPS: Step[] = ['none', 'gc', 'aggressive', 'refdelta', 'deep', 'incremental', 'idx-v1', 'idx-64'];

function applyStep(dir: string, step: Step): void {
  const has = () => packFiles(dir, '.pack').length > 0;
  if (step === 'gc') git(dir, ['gc', '-q']);
  else if (step === 'aggressive') git(dir, ['gc', '-q', '--aggressive', '--prune=now']);
  else if (step === 'refdelta') git(dir, ['-c', 'repack.useDeltaBaseOffset=false', 'repack', '-q', '-a', '-d', '-f']);
  else if (step === 'deep') git(dir, ['repack', '-q', '-a', '-d', '-f', '--depth=200', '--window=50']);
  else if (step === 'incremental') git(dir, ['repack', '-q', '-d']);
  else if (step === 'idx-v1' && has()) reindex(dir, '1');
  else if (step === 'idx-64' && has()) reindex(dir, '2,12');
}

describe('property', () => {
  it('every object of a random repository, repacked at random, equals git cat-file', async () => {
    const commitArb = fc.record({
      files: fc.array(fc.record({ path: fc.constantFrom('a.txt', 'd/b.txt', 'd/e/c.txt', 'big.txt'), seed: fc.nat(50), lines: fc.integer({ min: 0, max: 80 }) }), { minLength: 1, maxLength: 3 }),
      step: fc.constantFrom(...STEPS),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(commitArb, { minLength: 1, maxLength: 6 }), fc.constantFrom(...STEPS), async (commits, last) => {
        const dir = repo();
        for (const [i, commit] of commits.entries()) {
          for (const file of commit.files) write(dir, file.path, drift(file.seed, file.lines));
          commitAll(dir, `commit ${i}`);
          applyStep(dir, commit.step);
        }
        applyStep(dir, last);
        await expectSameAsGit(dir);
        cleanup(dir);
      }),
      { numRuns: 6 },
    );
  }, 240_000);
});
