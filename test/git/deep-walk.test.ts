// The deep walk's shortcuts against the full parser they stand in for: a commit header read
// from its bytes must give parseCommit's parents, tree and time (or leave the commit to it),
// and a message searched in its bytes must never miss a token the decoded message holds.
import fc from 'fast-check';
import { chmodSync, cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitHeader, DeepReader, mayName, tokenBytes, type WalkCommit } from '../../src/git/deep-walk.js';
import { parseCommit } from '../../src/git/object-parse.js';
import { ObjectStore } from '../../src/git/object-store.js';
import { createHistory } from '../../src/git/index.js';
import { deepAnswer, deepReaders, type DeepQuestion } from '../../src/git/isomorphic.js';
import { cleanup, commitAll, git, makeRepo, tempDir, write, headSha } from '../helpers/repo.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) cleanup(dir);
});

const SHA = 'c'.repeat(40);
const id = (c: string) => c.repeat(40);

/** Header and message pieces as real and hostile commits hold them. */
const piece = fc.constantFrom(
  `tree ${id('a')}\n`,
  `parent ${id('b')}\n`,
  `parent ${id('d')}\n`,
  `parent ${id('B')}\n`,
  'parent not-an-id\n',
  'author A U Thor <a@example.com> 1700000000 +0000\n',
  'committer C O Mitter <c@example.com> 1700000100 +0100\n',
  'committer Two <t@example.com> 1700000200 -0500\n',
  'committer broken line\n',
  'committer Ünïcode <u@example.com> 1700000300 +0000\n',
  'committer CR <c@example.com> 1700000400 +0000\r\n',
  'committer X <x@example.com> NaN +0000\n',
  'committer Two <t@x> <u@x> 1700000500 +0000\n',
  'committer A > B <a@x> 1700000600 +0000\n',
  'committer A <a@x>  1700000700 +0000\n',
  'committer A <a@x> 1700000800 +0000 extra\n',
  'committer A <a@x> 1700000900\n',
  'committer A <a@x> 1700001000 \n',
  'committer A <a@x> 17000010001234567 +0000\n',
  'committer A <a@x> +1700001100 +0000\n',
  'committer A <a@x> 0017000012 +0000\n',
  'committer A\u2028B <a@x> 1700001300 +0000\n',
  'committer <a@x> 1700001400 +0000\n',
  'committer  <a@x> 1700001500 +0000\n',
  'encoding ISO-8859-1\n',
  'gpgsig -----BEGIN PGP SIGNATURE-----\n committer Fake <f@example.com> 1 +0000\n -----END PGP SIGNATURE-----\n',
  ' continued\n',
  '\n',
  'Subject (#482)\n',
  'body PLAT-4471 café\n',
  '\r\n',
);

const asBytes = (pieces: (string | readonly number[])[]) => Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

describe('commitHeader', () => {
  it('reads a commit in git\'s own shape without the full parser', () => {
    const data = Buffer.from(`tree ${id('a')}\nparent ${id('b')}\nparent ${id('d')}\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 1700000100 +0100\n\nSubject\n`);
    expect(commitHeader(SHA, data)).toEqual({ sha: SHA, parents: [id('b'), id('d')], tree: id('a'), time: 1700000100, data });
  });

  it('gives parseCommit\'s parents, tree and time whenever it reads a header, and leaves the rest to it', () => {
    fc.assert(
      fc.property(fc.boolean(), fc.array(piece, { maxLength: 9 }), (withTree, pieces) => {
        const data = asBytes([...(withTree ? [`tree ${id('a')}\n`] : []), ...pieces]);
        const quick = commitHeader(SHA, data);
        if (quick === null) return;
        const full = parseCommit(SHA, data);
        expect({ parents: quick.parents, tree: quick.tree, time: quick.time }).toEqual({ parents: full.parents, tree: full.tree, time: full.time });
      }),
      { numRuns: 2000 },
    );
  });
});

describe('mayName', () => {
  const headers = fc.constantFrom(`tree ${id('a')}\ncommitter C <c@x> 1 +0000\n`, `tree ${id('a')}\ncommitter C <c@x> 1 +0000\nencoding ISO-8859-1\n`, `tree ${id('a')}\nencoding UTF-8\ncommitter C <c@x> 1 +0000\n`);
  /** Message bytes: text, invalid and truncated UTF-8, carriage returns, blank lines. */
  const chunk = fc.oneof(
    fc.constantFrom('#482', '#4', '82', 'PLAT-4471', 'plat-4471', 'pLaT-4471', 'café', 'CAFÉ', '日本', '\uFFFD', ' ', '\n', '\n\n', '\r', 'x', 'X', '\u212a', '@', '`'),
    fc.constantFrom([0xc3], [0xa9], [0xe6, 0x97], [0xa5], [0xff], [0xef, 0xbb, 0xbf], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xe9]),
  );
  const token = fc.constantFrom('#482', 'PLAT-4471', 'plat-4471', 'Plat-4471', 'café', 'é', '日本', '本', '\uFFFD', 'x', 'X', 'k', ' #4', '\ud800', 'a\rb', '82 x', '@x', '`x');
  /** What commitsNaming finds (types.ts): an ASCII token with its ASCII letters in either case, any other verbatim. */
  const holds = (message: string, t: string) => (/^[\x20-\x7e]+$/.test(t) ? fold(message).includes(fold(t)) : message.includes(t));
  const fold = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());

  it('never says no when the decoded message holds a token', () => {
    fc.assert(
      fc.property(headers, fc.array(chunk, { maxLength: 12 }), fc.uniqueArray(token, { minLength: 1, maxLength: 3 }), (header, body, tokens) => {
        const data = asBytes([header, '\n', ...body]);
        const message = parseCommit(SHA, data).message;
        if (tokens.some((t) => holds(message, t))) expect(mayName(data, tokenBytes(tokens))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('says no without decoding when the bytes hold no token', () => {
    const data = Buffer.from(`tree ${id('a')}\ncommitter C <c@x> 1 +0000\n\nfix thing (#4825)\n\nbody\n`);
    expect(mayName(data, tokenBytes(['#482']))).toBe(true);
    expect(mayName(data, tokenBytes(['PLAT-4471']))).toBe(false);
    // A ticket id in a lower-case branch name; never in a longer key, nor through a Kelvin sign.
    const branch = Buffer.from(`tree ${id('a')}\ncommitter C <c@x> 1 +0000\n\nMerge branch 'alice/plat-4471-x' into main\n`);
    expect(mayName(branch, tokenBytes(['PLAT-4471']))).toBe(true);
    expect(mayName(branch, tokenBytes(['Alice/PLAT']))).toBe(true);
    expect(mayName(branch, tokenBytes(['PLAT-4472', 'café']))).toBe(false);
    const kelvin = Buffer.from(`tree ${id('a')}\ncommitter C <c@x> 1 +0000\n\nsign \u212aEY-9, @EY-9\n`);
    expect(mayName(kelvin, tokenBytes(['KEY-9']))).toBe(false);
    expect(mayName(kelvin, tokenBytes(['`EY-9']))).toBe(false);
    expect(tokenBytes(['\uFFFD'])).toBeNull();
    expect(tokenBytes(['\ud800'])).toBeNull();
    expect(mayName(data, null)).toBe(true);
  });
});

describe('DeepReader', () => {
  it('walks objects only the fallback reader has, asking it object by object, with the answers of a direct read', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, 'docs/spec.md', '# Spec\n');
    write(dir, 'a.txt', 'a\n');
    commitAll(dir, 'first', '2026-01-01T00:00:00Z');
    write(dir, 'a.txt', 'b\n');
    commitAll(dir, 'second (#482)', '2026-01-02T00:00:00Z');
    git(dir, ['mv', 'docs/spec.md', 'docs/spec-v2.md']);
    commitAll(dir, 'rename the spec', '2026-01-03T00:00:00Z');
    git(dir, ['gc', '-q', '--prune=now']);
    // The same objects behind an index version this reader does not know.
    const objects = tempDir();
    dirs.push(objects);
    cpSync(join(dir, '.git', 'objects'), objects, { recursive: true });
    const idx = readdirSync(join(objects, 'pack')).find((n) => n.endsWith('.idx'))!;
    const idxPath = join(objects, 'pack', idx);
    const bytes = readFileSync(idxPath);
    bytes.writeUInt32BE(3, 4);
    chmodSync(idxPath, 0o644);
    writeFileSync(idxPath, bytes);

    const direct = new ObjectStore(join(dir, '.git', 'objects'));
    const asked: string[] = [];
    const behind = new ObjectStore(objects, async (oid) => {
      asked.push(oid);
      const found = await direct.read(oid);
      return found?.data ? { type: found.type, data: found.data } : null;
    });
    const tip = headSha(dir);
    const answers = async (store: ObjectStore) => {
      const reader = new DeepReader(store, new Set());
      const seen: unknown[] = [];
      await reader.walk(tip, 0, (commit: WalkCommit) => {
        const parent = commit.parents[0];
        seen.push([commit.sha, commit.time, reader.fileAt(commit.tree, 'docs/spec.md'), parent && reader.commit(parent).tree]);
      });
      return seen;
    };
    const expected = await answers(direct);
    expect(expected).toHaveLength(4); // makeRepo's first commit, then these three
    expect(await answers(behind)).toEqual(expected);
    expect(asked.length).toBeGreaterThan(0);
    expect(new Set(asked).size).toBe(asked.length);
    direct.close();
    behind.close();
  });
});

describe('lastRemovals: a path already explained is looked up only in newer commits', () => {
  const removalsOf = async (dir: string, paths: string[]) => {
    const out: Record<string, string[]> = {};
    for (const engine of ['native', 'isomorphic'] as const) {
      const history = await createHistory({ dir, engine });
      out[engine] = (await history.lastRemovals(paths, 0)).map((c) => c.subject);
    }
    return out;
  };

  it('finds a removal whose clock runs ahead of the commits after it, visited after a newer-listed one', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, 'docs/spec.md', '# Spec\n');
    write(dir, 'keep.txt', 'k\n');
    commitAll(dir, 'add the spec', '2026-01-02T00:00:00Z');
    git(dir, ['rm', '-q', 'docs/spec.md']);
    commitAll(dir, 'remove it, clock ahead', '2026-03-01T00:00:00Z');
    write(dir, 'docs/spec.md', '# Spec again\n');
    commitAll(dir, 'add it back', '2026-01-03T00:00:00Z');
    git(dir, ['rm', '-q', 'docs/spec.md']);
    commitAll(dir, 'remove it again', '2026-01-04T00:00:00Z');
    // The walk meets "remove it again" first; "remove it, clock ahead" is newer by time.
    expect(await removalsOf(dir, ['docs/spec.md'])).toEqual({ native: ['remove it, clock ahead'], isomorphic: ['remove it, clock ahead'] });
  });

  it('of two removals in one second (removed, added back, removed again), the later by the graph, in both engines, whichever sha sorts first', async () => {
    // The embedded walk once looked again only at a commit of a smaller sha in that second, and
    // both engines ordered the two by the commits listed between them (newestByGraph sees direct
    // parents only): with an unrelated commit between, by sha, or the first removal ahead.
    const shaOrders = new Set<string>();
    for (const attempt of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const between = attempt % 2 === 0;
      const dir = makeRepo();
      dirs.push(dir);
      const T = '2026-01-03T10:00:00Z';
      write(dir, 'docs/spec.md', '# Spec\n');
      write(dir, 'keep.txt', 'k\n');
      commitAll(dir, 'add the spec', '2026-01-02T00:00:00Z');
      git(dir, ['rm', '-q', 'docs/spec.md']);
      const first = commitAll(dir, `remove the spec (try ${attempt})`, T);
      if (between) write(dir, 'src/x.ts', 'x\n'), commitAll(dir, 'unrelated work', T);
      write(dir, 'docs/spec.md', '# Spec, restored\n');
      commitAll(dir, 'restore it', T);
      if (between) write(dir, 'src/y.ts', 'y\n'), commitAll(dir, 'more unrelated work', T);
      git(dir, ['rm', '-q', 'docs/spec.md']);
      const again = commitAll(dir, 'remove it again', T);
      shaOrders.add(`${between} ${first < again}`);
      expect(await removalsOf(dir, ['docs/spec.md', 'keep.txt']), `try ${attempt}`).toEqual({ native: ['remove it again'], isomorphic: ['remove it again'] });
    }
    expect(shaOrders.size, 'both sha orders met, with and without commits between').toBe(4);
  });

  it('lists only the newest removal of each path, whatever older ones follow, and one found late for another path', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, 'docs/spec.md', '1\n');
    write(dir, 'a.txt', 'a\n');
    write(dir, 'docs/other.md', 'o\n');
    commitAll(dir, 'add', '2026-01-02T00:00:00Z');
    git(dir, ['rm', '-q', 'a.txt']);
    commitAll(dir, 'remove a early', '2026-01-03T00:00:00Z');
    git(dir, ['rm', '-q', 'docs/spec.md']);
    commitAll(dir, 'remove spec first time', '2026-01-04T00:00:00Z');
    write(dir, 'docs/spec.md', '2\n');
    commitAll(dir, 'add spec back', '2026-01-05T00:00:00Z');
    // The spec's blob changes while docs/ keeps other files: its removal needs the subtree read.
    write(dir, 'docs/spec.md', '3\n');
    commitAll(dir, 'edit spec', '2026-01-06T00:00:00Z');
    git(dir, ['mv', 'docs/spec.md', 'docs/spec-v2.md']);
    commitAll(dir, 'rename spec', '2026-01-07T00:00:00Z');
    write(dir, 'b.txt', 'b\n');
    commitAll(dir, 'later', '2026-01-08T00:00:00Z');
    const found = await removalsOf(dir, ['docs/spec.md', 'a.txt', 'docs/other.md']);
    expect(found).toEqual({ native: ['rename spec', 'remove a early'], isomorphic: ['rename spec', 'remove a early'] });
  });

  it('gives the same answers when objects come from the fallback reader, a visit then running again', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, 'docs/spec.md', '1\n');
    write(dir, 'x.txt', 'x\n');
    commitAll(dir, 'add', '2026-01-02T00:00:00Z');
    // One commit removes both paths: both are noted only after every read of that visit.
    git(dir, ['rm', '-q', 'docs/spec.md', 'x.txt']);
    commitAll(dir, 'remove both', '2026-01-03T00:00:00Z');
    write(dir, 'y.txt', 'y\n');
    commitAll(dir, 'after', '2026-01-04T00:00:00Z');
    git(dir, ['gc', '-q', '--prune=now']);
    const tip = headSha(dir);
    const direct = new ObjectStore(join(dir, '.git', 'objects'));
    // Every object through the fallback reader: the pack behind an index version this reader does not know.
    const objects = tempDir();
    dirs.push(objects);
    cpSync(join(dir, '.git', 'objects'), objects, { recursive: true });
    const idxPath = join(objects, 'pack', readdirSync(join(objects, 'pack')).find((n) => n.endsWith('.idx'))!);
    const bytes = readFileSync(idxPath);
    bytes.writeUInt32BE(3, 4);
    chmodSync(idxPath, 0o644);
    writeFileSync(idxPath, bytes);
    let asked = 0;
    const behind = new ObjectStore(objects, async (oid) => {
      asked++;
      const got = await direct.read(oid);
      return got?.data ? { type: got.type, data: got.data } : null;
    });
    const question: DeepQuestion = { kind: 'removals', tip, since: 0, wanted: ['x.txt', 'docs/spec.md'] };
    const subjects = async (store: ObjectStore) => (await deepAnswer(deepReaders(store, new Set()), question)).map((c) => c.subject);
    expect(await subjects(direct)).toEqual(['remove both']);
    expect(await subjects(behind)).toEqual(['remove both']);
    expect(asked).toBeGreaterThan(0);
    direct.close();
    behind.close();
  });
});
