// The index reader answers `git status` for named paths only where git itself would answer
// from the index alone; everywhere else it says null and git is asked. Checked against real
// git in real repositories: each answer it gives is git's, and it does answer the common case
// (a settled, clean index at HEAD), else doctor would quietly pay for a process every run.
import { chmodSync, lutimesSync, mkdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { indexEntries, uncommittedFromIndex } from '../../src/git/index-status.js';
import { createHistory } from '../../src/git/index.js';
import { cleanup, commitAll, git, makeRepo, settleIndex, tempDir, write } from '../helpers/repo.js';

const PATHS = ['a.txt', 'docs/spec.md', 'docs/notes (old).md', 'run.sh', 'new.txt', 'debug.log', 'build/out.js', 'never.txt', 'docs', '.checkpoints/api.checkpoint.json'];
const HOUR_AGO = new Date(Date.now() - 3_600_000);

/** A repository whose files were written well before its index: nothing is racily clean. */
function settledRepo(): string {
  const dir = makeRepo();
  write(dir, '.gitignore', '*.log\nbuild/\n');
  write(dir, 'a.txt', 'one\n');
  write(dir, 'docs/spec.md', '# Spec\n');
  write(dir, 'docs/notes (old).md', 'notes\n');
  write(dir, 'run.sh', '#!/bin/sh\n');
  commitAll(dir, 'files', '2026-11-01T00:00:00Z');
  settle(dir);
  return dir;
}

const settle = (dir: string) => settleIndex(dir, HOUR_AGO);

/** The reader's answer when its index holds HEAD's tree (as the native engine takes it), else null. */
function fromIndex(dir: string, paths = PATHS): string[] | null {
  const tree = git(dir, ['rev-parse', 'HEAD^{tree}']).trim();
  const gitdir = join(dir, '.git');
  const answer = uncommittedFromIndex({ root: dir, gitdir, commonDir: gitdir, paths });
  return answer && answer.tree === tree ? paths.filter((p) => answer.changed.has(p)) : null;
}

/** git's answer, independently: content differs from HEAD (diff), or the file is untracked or ignored (ls-files --others). */
function gitSays(dir: string, paths = PATHS): string[] {
  const listed = new Set([
    ...git(dir, ['diff', 'HEAD', '--name-only', '-z', '--no-renames', '--', ...paths]).split('\0'),
    ...git(dir, ['ls-files', '--others', '-z', '--', ...paths]).split('\0'),
  ]);
  return paths.filter((p) => listed.has(p));
}

describe('uncommittedFromIndex', () => {
  it('answers a settled clean index at HEAD as git does: untracked and ignored files, deletions, folders, absent paths', async () => {
    const dir = settledRepo();
    try {
      write(dir, 'new.txt', 'untracked\n');
      write(dir, 'debug.log', 'ignored\n');
      write(dir, 'build/out.js', 'ignored folder\n');
      write(dir, '.checkpoints/api.checkpoint.json', '{}\n');
      rmSync(join(dir, 'run.sh'));
      const expected = ['run.sh', 'new.txt', 'debug.log', 'build/out.js', '.checkpoints/api.checkpoint.json'];
      expect(gitSays(dir)).toEqual(expected);
      expect(fromIndex(dir)).toEqual(expected);
      // The native engine takes it, and says the same.
      expect(await (await createHistory({ dir, engine: 'native' })).uncommittedPaths(PATHS)).toEqual(expected);
    } finally {
      cleanup(dir);
    }
  });

  it('answers from a version 4 index (feature.manyFiles writes one) as from v2: git is asked no more there', async () => {
    const dir = settledRepo();
    try {
      git(dir, ['update-index', '--index-version', '4']);
      write(dir, 'new.txt', 'untracked\n');
      rmSync(join(dir, 'run.sh'));
      const expected = ['run.sh', 'new.txt'];
      expect(gitSays(dir)).toEqual(expected);
      expect(fromIndex(dir)).toEqual(expected);
      // The embedded engine's staged entries, from the same reader.
      const staged = indexEntries(join(dir, '.git'), ['a.txt', 'docs/notes (old).md', 'never.txt']);
      expect([...(staged?.keys() ?? [])]).toEqual(['a.txt', 'docs/notes (old).md']);
      expect(staged?.get('a.txt')?.oid).toBe(git(dir, ['rev-parse', ':a.txt']).trim());
      expect(staged?.get('a.txt')?.settles(statSync(join(dir, 'a.txt'), { bigint: true }))).toBe(true);
    } finally {
      cleanup(dir);
    }
  });

  it('leaves to git what only its own rules can tell', () => {
    const cases: [string, (dir: string) => void][] = [
      ['a staged edit (the cached tree no longer matches HEAD)', (dir) => {
        write(dir, 'docs/spec.md', '# Spec v2\n');
        git(dir, ['add', 'docs/spec.md']);
        write(dir, 'docs/spec.md', '# Spec\n');
        utimesSync(join(dir, 'docs/spec.md'), HOUR_AGO, HOUR_AGO);
      }],
      ['a staged rename', (dir) => git(dir, ['mv', 'docs/spec.md', 'docs/spec-v2.md'])],
      ['assume-unchanged', (dir) => {
        git(dir, ['update-index', '--assume-unchanged', 'a.txt']);
        write(dir, 'a.txt', 'changed\n');
      }],
      ['skip-worktree', (dir) => {
        git(dir, ['update-index', '--skip-worktree', 'a.txt']);
        write(dir, 'a.txt', 'changed\n');
      }],
      ['a file under a nested repository', (dir) => {
        mkdirSync(join(dir, 'vendor/.git'), { recursive: true });
        write(dir, 'vendor/x.txt', 'x\n');
      }],
      ['a file beyond a symlink', (dir) => {
        mkdirSync(join(dir, 'real'));
        write(dir, 'real/x.txt', 'x\n');
        symlinkSync('real', join(dir, 'link'));
      }],
      ['an executable bit flipped', (dir) => git(dir, ['update-index', '--chmod=+x', 'run.sh'])],
    ];
    for (const [name, change] of cases) {
      const dir = settledRepo();
      try {
        change(dir);
        const paths = [...PATHS, 'docs/spec-v2.md', 'vendor/x.txt', 'link/x.txt'];
        expect(fromIndex(dir, paths), name).toBeNull();
      } finally {
        cleanup(dir);
      }
    }
  });

  it('never answers for paths git treats apart', () => {
    const dir = settledRepo();
    try {
      for (const odd of ['.git/config', 'docs/../a.txt', './a.txt', 'docs/', '/a.txt']) expect(fromIndex(dir, [odd]), odd).toBeNull();
      git(dir, ['config', 'core.ignorecase', 'true']);
      expect(fromIndex(dir, ['a.txt'])).toBeNull();
    } finally {
      cleanup(dir);
    }
  });

  it('leaves case folding to git, wherever core.ignorecase was set', () => {
    const dir = settledRepo();
    const global = join(dir, '..', `${dir.split('/').pop()}-gitconfig`);
    const saved = process.env.GIT_CONFIG_GLOBAL;
    try {
      // An untracked A.txt beside the tracked a.txt: with ignorecase from the global config
      // git lists nothing, without it git lists A.txt. Either way the reader must not answer.
      write(dir, 'A.txt', 'twin\n');
      writeFileSync(global, '[core] ignorecase\n');
      process.env.GIT_CONFIG_GLOBAL = global;
      expect(fromIndex(dir, ['A.txt'])).toBeNull();
      writeFileSync(global, '[include]\n\tpath = elsewhere.cfg\n');
      expect(fromIndex(dir, ['a.txt'])).toBeNull();
      // git reads section and key names in any case: so does the reader.
      writeFileSync(global, '[Core]\n\tIgnoreCase = true\n');
      expect(fromIndex(dir, ['A.txt'])).toBeNull();
      writeFileSync(global, '[INCLUDE]\n\tpath = elsewhere.cfg\n');
      expect(fromIndex(dir, ['a.txt'])).toBeNull();
      writeFileSync(global, '[user]\n\tname = Dev\n');
      expect(fromIndex(dir, ['A.txt'])).toBeNull(); // the case twin alone
      expect(fromIndex(dir, ['a.txt', 'docs/spec.md'])).toEqual(gitSays(dir, ['a.txt', 'docs/spec.md']));
    } finally {
      if (saved === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = saved;
      rmSync(global, { force: true });
      cleanup(dir);
    }
  });

  it('whatever the work tree went through, an answer is git\'s', () => {
    const ops = ['edit', 'delete', 'create', 'stage', 'touch', 'chmod', 'settle', 'racy'] as const;
    const files = ['a.txt', 'docs/spec.md', 'new.txt', 'debug.log', 'docs/notes (old).md'];
    let answered = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...ops), fc.constantFrom(...files)), { maxLength: 4 }), (steps) => {
        const dir = settledRepo();
        try {
          for (const [op, file] of steps) {
            const p = join(dir, file);
            try {
              if (op === 'edit' || op === 'create') write(dir, file, `${op} ${file}\n`);
              else if (op === 'delete') rmSync(p, { force: true });
              else if (op === 'stage') git(dir, ['add', '-A', '--', file]);
              else if (op === 'touch') utimesSync(p, HOUR_AGO, HOUR_AGO);
              else if (op === 'chmod') git(dir, ['update-index', '--chmod=+x', '--', file]);
              else if (op === 'racy') racy(dir, file);
              else settle(dir);
            } catch {
              // a step that does not apply (touching a deleted file, chmod of an untracked one) leaves the state as it was
            }
          }
          const answer = fromIndex(dir);
          if (answer !== null) {
            answered++;
            expect(answer).toEqual(gitSays(dir));
          }
        } finally {
          cleanup(dir);
        }
      }),
      { numRuns: 12 },
    );
    expect(answered).toBeGreaterThan(0);
  });
});

describe('uncommittedFromIndex in a linked worktree', () => {
  it('reads the worktree\'s own index and answers as git does there', () => {
    const dir = settledRepo();
    const linked = join(dir, '..', `${dir.split('/').pop()}-linked`);
    try {
      git(dir, ['worktree', 'add', '-q', linked, '-b', 'side']);
      settle(linked);
      write(linked, 'new.txt', 'untracked\n');
      rmSync(join(linked, 'a.txt'));
      const gitdir = git(linked, ['rev-parse', '--absolute-git-dir']).trim();
      const tree = git(linked, ['rev-parse', 'HEAD^{tree}']).trim();
      const answer = uncommittedFromIndex({ root: linked, gitdir, commonDir: join(dir, '.git'), paths: PATHS });
      expect(answer?.tree).toBe(tree);
      expect(answer && PATHS.filter((p) => answer.changed.has(p))).toEqual(['a.txt', 'new.txt']);
      expect(gitSays(linked)).toEqual(['a.txt', 'new.txt']);
    } finally {
      cleanup(linked);
      cleanup(dir);
    }
  });
});

/** `git status --porcelain` for `paths`, without the index refresh it would write (which would settle what is asked). */
function porcelain(dir: string, paths: readonly string[]): string[] {
  const out = git(dir, ['--no-optional-locks', 'status', '--porcelain', '-z', '--untracked-files=all', '--ignored=traditional', '--no-renames', '--', ...paths]);
  const listed = new Set(out.split('\0').filter(Boolean).map((line) => line.slice(3)));
  return paths.filter((p) => listed.has(p));
}

/** Racily clean by construction, not by a fast machine: the index dated to `rel`'s own mtime, as when both are written in one second. */
function racy(dir: string, rel = 'a.txt'): void {
  const { mtime } = statSync(join(dir, rel));
  utimesSync(join(dir, '.git/index'), mtime, mtime);
}

/** A commit of `files` (over settledRepo's), its index left racily clean for a.txt, as right after `git commit`. */
function justCommitted(files: Record<string, string> = {}): string {
  const dir = settledRepo();
  for (const [rel, text] of Object.entries({ 'a.txt': 'two\n', ...files })) write(dir, rel, text);
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'step']);
  racy(dir);
  return dir;
}

describe('uncommittedFromIndex right after a commit (entries git settles by content)', () => {
  const ASKED = [...PATHS, 'crlf.txt', 'eol.txt', 'filtered.txt', 'link', 'sub', 'folder', 'later.txt'];
  /** Each case: what it does after the commit, and whether the reader must answer (not ask git). */
  const cases: [string, boolean, (dir: string) => void][] = [
    ['a racily clean file, unchanged', true, () => {}],
    ['a racily clean file edited to the same size within the second', true, (dir) => {
      const { mtime } = statSync(join(dir, 'a.txt'));
      writeFileSync(join(dir, 'a.txt'), 'six\n');
      utimesSync(join(dir, 'a.txt'), mtime, mtime);
    }],
    ['a touched file, same content', true, (dir) => utimesSync(join(dir, 'docs/spec.md'), new Date(), new Date())],
    ['a file rewritten with the same bytes (ctime moves)', true, (dir) => writeFileSync(join(dir, 'docs/spec.md'), '# Spec\n')],
    ['a touched file of another size', true, (dir) => writeFileSync(join(dir, 'docs/spec.md'), '# Spec, longer\n')],
    ['a racily clean file deleted', true, (dir) => rmSync(join(dir, 'a.txt'))],
    ['the index re-read from HEAD (stat data zeroed, sizes 0)', true, (dir) => git(dir, ['read-tree', 'HEAD'])],
    ['attributes that change no content', true, (dir) => {
      write(dir, '.gitattributes', '*.txt diff=plain\n');
      racy(dir, '.gitattributes');
    }],
    ['a CRLF file under core.autocrlf=true', false, (dir) => {
      git(dir, ['config', 'core.autocrlf', 'true']);
      utimesSync(join(dir, 'crlf.txt'), new Date(), new Date());
    }],
    ['a file under text eol=crlf', false, (dir) => {
      write(dir, '.gitattributes', 'eol.txt text eol=crlf\n');
      writeFileSync(join(dir, 'eol.txt'), 'x\r\ny\r\n');
    }],
    ['a file under a filter attribute', false, (dir) => {
      write(dir, '.gitattributes', 'filtered.txt filter=upper\n');
      git(dir, ['config', 'filter.upper.clean', 'tr a-z A-Z']);
      utimesSync(join(dir, 'filtered.txt'), new Date(), new Date());
    }],
    ['an executable bit set on disk', false, (dir) => chmodSync(join(dir, 'a.txt'), 0o755)],
    ['an executable bit set on disk, core.fileMode off', false, (dir) => {
      git(dir, ['config', 'core.fileMode', 'false']);
      chmodSync(join(dir, 'a.txt'), 0o755);
    }],
    ['a symlink touched', true, (dir) => lutimesSync(join(dir, 'link'), new Date(), new Date())],
    ['an edit of the same size, mtime put back, under core.trustctime off (git trusts the stat)', false, (dir) => {
      git(dir, ['config', 'core.trustctime', 'false']);
      writeFileSync(join(dir, 'docs/spec.md'), '# Spuc\n');
      utimesSync(join(dir, 'docs/spec.md'), HOUR_AGO, HOUR_AGO);
    }],
    ['the same under core.checkStat minimal', false, (dir) => {
      git(dir, ['config', 'core.checkStat', 'minimal']);
      writeFileSync(join(dir, 'docs/spec.md'), '# Spuc\n');
      utimesSync(join(dir, 'docs/spec.md'), HOUR_AGO, HOUR_AGO);
    }],
    ['skip-worktree', false, (dir) => git(dir, ['update-index', '--skip-worktree', 'a.txt'])],
    ['assume-unchanged', false, (dir) => git(dir, ['update-index', '--assume-unchanged', 'a.txt'])],
    ['intent-to-add', false, (dir) => {
      write(dir, 'later.txt', 'later\n');
      git(dir, ['add', '-N', 'later.txt']);
    }],
    ['a file replaced by a folder', false, (dir) => {
      rmSync(join(dir, 'a.txt'));
      write(dir, 'a.txt/inner.txt', 'inner\n');
    }],
  ];

  it('answers as `git status --porcelain` does, and answers without git where only content tells', () => {
    for (const [name, answers, change] of cases) {
      const dir = justCommitted({ 'crlf.txt': 'x\r\ny\r\n', 'eol.txt': 'x\ny\n', 'filtered.txt': 'LOUD\n' });
      try {
        symlinkSync('a.txt', join(dir, 'link'));
        mkdirSync(join(dir, 'folder'));
        write(dir, 'folder/f.txt', 'f\n');
        git(dir, ['add', '-A']);
        git(dir, ['commit', '-q', '-m', 'link and folder']);
        racy(dir);
        change(dir);
        const paths = name.includes('folder') ? [...ASKED, 'a.txt/inner.txt'] : ASKED;
        const ours = fromIndex(dir, paths);
        if (answers) expect(ours, name).not.toBeNull();
        if (ours !== null) expect(ours, name).toEqual(porcelain(dir, paths));
      } finally {
        cleanup(dir);
      }
    }
  });

  it('leaves a submodule to git', () => {
    const dir = justCommitted();
    const inner = makeRepo();
    try {
      git(dir, ['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', inner, 'sub']);
      git(dir, ['commit', '-q', '-m', 'sub']);
      racy(dir, 'sub/.git');
      expect(fromIndex(dir, ['sub', 'a.txt'])).toBeNull();
    } finally {
      cleanup(inner);
      cleanup(dir);
    }
  });

  it('the native engine takes the answer right after a commit', async () => {
    const dir = justCommitted();
    try {
      writeFileSync(join(dir, 'a.txt'), 'six\n');
      racy(dir);
      expect(fromIndex(dir)).toEqual(['a.txt']);
      expect(await (await createHistory({ dir, engine: 'native' })).uncommittedPaths(['a.txt', 'docs/spec.md'])).toEqual(['a.txt']);
    } finally {
      cleanup(dir);
    }
  });

  it('hashes by the repository\'s object format: SHA-256 entries too', () => {
    const dir = tempDir();
    try {
      git(dir, ['init', '-q', '--object-format=sha256', '-b', 'main']);
      write(dir, 'a.txt', 'one\n');
      write(dir, 'docs/spec.md', '# Spec\n');
      git(dir, ['add', '-A']);
      git(dir, ['commit', '-q', '-m', 'one']);
      racy(dir);
      const tree = git(dir, ['rev-parse', 'HEAD^{tree}']).trim();
      const ask = () => {
        const answer = uncommittedFromIndex({ root: dir, gitdir: join(dir, '.git'), commonDir: join(dir, '.git'), paths: ['a.txt', 'docs/spec.md'] });
        expect(answer?.tree).toBe(tree);
        return ['a.txt', 'docs/spec.md'].filter((p) => answer!.changed.has(p));
      };
      expect(ask()).toEqual([]);
      const { mtime } = statSync(join(dir, 'a.txt'));
      writeFileSync(join(dir, 'a.txt'), 'two\n');
      utimesSync(join(dir, 'a.txt'), mtime, mtime);
      expect(ask()).toEqual(['a.txt']);
      expect(porcelain(dir, ['a.txt', 'docs/spec.md'])).toEqual(['a.txt']);
    } finally {
      cleanup(dir);
    }
  });
});
