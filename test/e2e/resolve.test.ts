// `checkpoint resolve --ours/--theirs` settling real conflicts field by field, and resolve's
// safety: only checkpoint and history files, no symlinks, no special files, markers kept
// (exit 1) whenever the result still conflicts or is invalid. Real git, the built binary.
import { execFileSync } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertBuilt, cleanup, cli, commitAll, errorLine, git, gitTry, makeRepo, read, tempDir, write, initialized } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
beforeAll(assertBuilt);
afterEach(() => dirs.splice(0).forEach(cleanup));

// Messy, like a real one: a note in a path list, a glob, an old date, a number written 8.0.
const cp = (over: Record<string, unknown>) => ({
  protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: '/demo',
  created_at: '2026-06-01T00:00:00Z', updated_at: '2026-06-01T00:00:00Z',
  phase: 'build', step: 'one', status: 'in_progress', progress_summary: 'Working.',
  progress_table: [{ id: 'one', label: 'One', status: 'in_progress' }],
  context_primer: { key_decisions: [], generated_files: ['src/x.ts (PR 12)', 'docs/**/*.md'] },
  next_actions: ['first', 'second'], recently_done: [],
  skill_state: { run_history: [{ id: 'nightly', at: '2026-06-01T00:00:00Z', score: 8.0 }] },
  ...over,
});
const save = (dir: string, doc: unknown) => write(dir, FILE, `${JSON.stringify(doc, null, 2)}\n`);
const load = (dir: string) => JSON.parse(read(dir, FILE));

/** A copy of a repository made once per file, for one test (a merge in progress copies whole: index, MERGE_HEAD). */
function once(make: () => string): () => string {
  let made: string | undefined;
  return () => {
    made ??= make();
    const dir = join(tempDir('cp-resolve-'), 'work');
    cpSync(made, dir, { recursive: true });
    return dir;
  };
}

/** A plain text merge (no driver) of two sessions that also set phase differently: UU, line markers. */
const phaseConflict = once(() => {
  const dir = makeRepo();
  save(dir, cp({}));
  commitAll(dir, 'base');
  git(dir, ['checkout', '-q', '-b', 'other']);
  save(dir, cp({ phase: 'audit', updated_at: '2026-06-02T00:00:00Z', next_actions: ['second', 'theirs next'], recently_done: [{ at: '2026-06-02T00:00:00Z', action: 'first' }] }));
  commitAll(dir, 'other session');
  git(dir, ['checkout', '-q', 'main']);
  save(dir, cp({ phase: 'deploy', step: 'two', updated_at: '2026-06-03T00:00:00Z', skill_state: { run_history: [{ id: 'nightly', at: '2026-06-01T00:00:00Z', score: 8.0 }, { id: 'nightly', at: '2026-06-03T00:00:00Z', ok: false, note: 'REGRESSION' }] } }));
  commitAll(dir, 'main session');
  expect(gitTry(dir, ['merge', '-q', 'other']).status).not.toBe(0);
  return dir;
});

describe('resolve --ours / --theirs', () => {
  it('resolve --check tells markers in the file from a file only unmerged in the index', async () => {
    const dir = phaseConflict();
    const markers = await runCli(dir, ['resolve', '--check']);
    expect(markers.code).toBe(1);
    expect(markers.stdout).toContain(`✗ ${FILE} holds merge conflict markers (and is unmerged in git's index)`);
    expect((await runCli(dir, ['resolve', '--theirs', 'phase'])).code).toBe(0); // settled, not staged
    const unmerged = await runCli(dir, ['resolve', '--check']);
    expect(unmerged.code).toBe(1);
    expect(unmerged.stdout).toContain(`✗ ${FILE} has no conflict markers but is still unmerged in git's index (git add ${FILE}, or checkpoint resolve --add)`);
    expect(unmerged.stdout).not.toContain('holds merge conflict markers');
    expect(JSON.parse((await runCli(dir, ['resolve', '--check', '--json'])).stdout)).toMatchObject({ ok: false, markers: [], unmerged: [FILE] });
    git(dir, ['add', FILE]);
    expect((await runCli(dir, ['resolve', '--check'])).code).toBe(0);
  });

  it('resolve --check on a file settled by hand into invalid JSON or an invalid checkpoint gives advice that works, never --add alone', async () => {
    const dir = phaseConflict();
    // As a person settles git's line markers: theirs kept, the markers cut, a comma lost on the way.
    const settled = read(dir, FILE).replace(/<{7} HEAD\n[\s\S]*?={7}\n/, '').replace(/>{7} other\n/, '').replace('"step": "one",', '"step": "one"');
    write(dir, FILE, settled);
    expect(git(dir, ['status', '--porcelain'])).toMatch(/^UU /m);
    const r = await runCli(dir, ['resolve', '--check']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`✗ ${FILE} is not valid JSON at 10:3: expected ',' or '}' in object, and is still unmerged in git's index: fix it by hand, or drop the edits and merge it again with \`git checkout --merge -- ${FILE}\`; then \`checkpoint resolve --add ${FILE}\`\n`);
    expect(r.stdout).not.toContain('git add');
    expect(JSON.parse((await runCli(dir, ['resolve', '--check', '--json'])).stdout)).toMatchObject({ ok: false, unmerged: [FILE], invalid: [{ path: FILE, problem: "is not valid JSON at 10:3: expected ',' or '}' in object" }] });
    expect(read(dir, FILE)).toBe(settled);
    // The advice, followed as printed, works: the merge again, then resolve (a real conflict is left to settle).
    git(dir, ['checkout', '--merge', '--', FILE]);
    const again = await runCli(dir, ['resolve', '--add', FILE]);
    expect(again.stderr).toContain('conflict at phase');
    expect((await runCli(dir, ['resolve', '--theirs', 'phase', '--add', FILE])).code).toBe(0);
    expect((await runCli(dir, ['resolve', '--check'])).code).toBe(0);
    expect(load(dir).phase).toBe('audit');
  });

  it('resolve --check on a hand-settled file that parses but is no valid checkpoint names the field, and the way back', async () => {
    const dir = phaseConflict();
    const settled = read(dir, FILE).replace(/<{7} HEAD\n[\s\S]*?={7}\n/, '').replace(/>{7} other\n/, '').replace('"phase": "audit"', '"phase": 8.0');
    write(dir, FILE, settled);
    const r = await runCli(dir, ['resolve', '--check']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`^✗ ${FILE.replace(/\./g, '\\.')} is invalid at phase: .*, and is still unmerged in git's index: fix it by hand, or drop the edits and merge it again with \`git checkout --merge -- ${FILE.replace(/\./g, '\\.')}\`; then \`checkpoint resolve --add ${FILE.replace(/\./g, '\\.')}\`\n$`));
    expect((await runCli(dir, ['resolve', '--add'])).code).toBe(1); // what --add alone would do
    expect(read(dir, FILE)).toBe(settled);
  });

  it('settles a phase conflict with their version, keeps everything else merged, and stages it', async () => {
    const dir = phaseConflict();
    const r = await runCli(dir, ['resolve', '--theirs', 'phase', '--add']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${FILE}: ✓ resolved from stages and staged`);
    const doc = load(dir);
    expect(doc.phase).toBe('audit');
    expect(doc.step).toBe('two');
    expect(doc.updated_at).toBe('2026-06-03T00:00:00Z');
    expect(doc.next_actions).toEqual(['second', 'theirs next']);
    expect(doc.recently_done.map((d: any) => d.action)).toEqual(['first']);
    expect(doc.skill_state.run_history).toHaveLength(2);
    expect(git(dir, ['status', '--porcelain'])).toMatch(/^M {2}\.checkpoints\/api\.checkpoint\.json$/m);
    expect((await runCli(dir, ['resolve', '--check'])).code).toBe(0);
    expect((await runCli(dir, ['validate'])).code).toBe(0);
  });

  it('settles with our version from the markers once the stages are gone', async () => {
    const dir = phaseConflict();
    // First pass without a choice: semantic markers around phase only, exit 1.
    const first = await runCli(dir, ['resolve']);
    expect(first.code).toBe(1);
    expect(first.stderr).toContain('conflict at phase');
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-q', '-m', 'committed with markers']);
    expect(read(dir, FILE).match(/^<{7}/gm)).toHaveLength(1);
    const r = await runCli(dir, ['resolve', '--ours', 'phase']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('resolved from markers');
    expect(load(dir).phase).toBe('deploy');
    expect(load(dir).next_actions).toEqual(['second', 'theirs next']);
  });

  it('refuses a path that is not in conflict: one line, exit 2, the file byte-identical', async () => {
    const dir = phaseConflict();
    const before = readFileSync(join(dir, FILE));
    const r = await runCli(dir, ['resolve', '--ours', 'status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no conflict at status in \.checkpoints\/api\.checkpoint\.json/);
    expect(r.stderr).toContain('conflicts there: phase');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(join(dir, FILE)).equals(before)).toBe(true);
    const both = await runCli(dir, ['resolve', '--ours', 'phase', '--theirs', 'phase']);
    expect(both.code).toBe(2);
    expect(readFileSync(join(dir, FILE)).equals(before)).toBe(true);
  });
});

/** Our driver's merge of two sessions that each set phase and step: two localized marker blocks, UU. */
const twoConflicts = once(() => {
  const dir = makeRepo();
  expect(cli(dir, ['install-driver']).code).toBe(0);
  save(dir, cp({}));
  commitAll(dir, 'base');
  git(dir, ['checkout', '-q', '-b', 'other']);
  save(dir, cp({ phase: 'audit', step: 'theirs-step', updated_at: '2026-06-02T00:00:00Z' }));
  commitAll(dir, 'other session');
  git(dir, ['checkout', '-q', 'main']);
  save(dir, cp({ phase: 'deploy', step: 'our-step', updated_at: '2026-06-03T00:00:00Z' }));
  commitAll(dir, 'main session');
  expect(gitTry(dir, ['merge', '-q', 'other']).status).not.toBe(0);
  expect(read(dir, FILE).match(/^<{7} ours$/gm)).toHaveLength(2);
  return dir;
});

/** The file with the marker block around `key` replaced by `replacement`. */
const cutBlock = (text: string, key: string, replacement: string) => {
  const block = new RegExp(`<{7} ours\\n  "${key}": [^\\n]*\\n\\|{7} base\\n[^\\n]*\\n={7}\\n[^\\n]*\\n>{7} theirs\\n`);
  expect(text).toMatch(block);
  return text.replace(block, replacement);
};

describe('resolve takes a merge up from the file, never over what is settled', () => {
  it('a second --ours/--theirs keeps the first choice: only the chosen block changes, byte for byte', async () => {
    const dir = twoConflicts();
    const merged = read(dir, FILE);
    const first = await runCli(dir, ['resolve', '--ours', 'phase']);
    expect(first.code).toBe(1);
    const afterFirst = read(dir, FILE);
    expect(afterFirst).toBe(cutBlock(merged, 'phase', '  "phase": "deploy",\n'));
    const second = await runCli(dir, ['resolve', '--theirs', 'step']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('resolved from markers');
    expect(read(dir, FILE)).toBe(cutBlock(afterFirst, 'step', '  "step": "theirs-step",\n'));
    expect(load(dir)).toMatchObject({ phase: 'deploy', step: 'theirs-step', updated_at: '2026-06-03T00:00:00Z' });
  });

  it('keeps a hand-settled block as typed: resolve --add neither re-merges it nor stages a conflict', async () => {
    const dir = twoConflicts();
    write(dir, FILE, cutBlock(read(dir, FILE), 'phase', '  "phase":"hand-chosen",\n'));
    const handEdited = read(dir, FILE);
    const r = await runCli(dir, ['resolve', '--add']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('conflict at step');
    expect(r.stderr).not.toContain('conflict at phase');
    expect(read(dir, FILE)).toBe(handEdited);
    expect(git(dir, ['status', '--porcelain'])).toMatch(/^UU /m);
    expect((await runCli(dir, ['resolve', '--ours', 'phase'])).code).toBe(2); // nothing to settle there any more
    expect(read(dir, FILE)).toBe(handEdited);
    const done = await runCli(dir, ['resolve', '--theirs', 'step', '--add']);
    expect(done.code, done.stderr).toBe(0);
    expect(read(dir, FILE)).toBe(cutBlock(handEdited, 'step', '  "step": "theirs-step",\n'));
    expect(git(dir, ['status', '--porcelain'])).toMatch(/^M {2}\.checkpoints/m);
  });

  it('a block settled by hand that dropped the comma after it: the file\'s own line is named, with git\'s way back, never three sides invalid (red team, 12-06)', async () => {
    const dir = twoConflicts();
    // The phase block cut to one line without its comma; the step block left for resolve.
    const slipped = cutBlock(read(dir, FILE), 'phase', '  "phase": "deploy"\n');
    write(dir, FILE, slipped);
    // Where the parser stops: the next member, the first line of the step block's ours part.
    const line = slipped.split('\n').findIndex((l) => l.includes('"step": "our-step"')) + 1;
    for (const args of [['resolve'], ['resolve', '--add'], ['resolve', '--theirs', 'step']]) {
      const r = await runCli(dir, args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toContain(`${FILE}:${line}:`);
      expect(r.stderr).toContain(`not valid JSON outside the conflict blocks`);
      expect(r.stderr).toMatch(/git checkout --merge -- \.checkpoints\/api\.checkpoint\.json$/m); // a path the shell reads as it is: bare, as every printed path
      expect(r.stderr).not.toMatch(/base is not valid|no conflict at/);
      expect(read(dir, FILE)).toBe(slipped);
    }
    // The way back works: git's conflict again, which resolve settles.
    git(dir, ['checkout', '--merge', '--', FILE]);
    expect((await runCli(dir, ['resolve', '--ours', 'phase', '--theirs', 'step', '--add'])).code).toBe(0);
  });

  it('a block whose closing line a hand edit deleted: the place is named and the file, with its edits, is never merged over from the stages (red team, 12-07)', async () => {
    const dir = twoConflicts();
    const broken = read(dir, FILE).replace(/^>{7} theirs\n/m, '').replace('"progress_summary": "Working."', '"progress_summary": "HAND EDIT"');
    write(dir, FILE, broken);
    const open = broken.split('\n').findIndex((l) => l.startsWith('<<<<<<<')) + 1;
    for (const args of [['resolve'], ['resolve', '--theirs', 'phase', '--add'], ['resolve', '--ours', 'phase', '--ours', 'step', '--add']]) {
      const r = await runCli(dir, args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toContain(`${FILE}:`);
      expect(r.stderr).toMatch(/not closed|never closed/);
      expect(r.stderr).toMatch(/git checkout --merge -- \.checkpoints\/api\.checkpoint\.json$/m); // a path the shell reads as it is: bare, as every printed path
      expect(read(dir, FILE)).toBe(broken);
      expect(git(dir, ['status', '--porcelain'])).toMatch(/^UU /m);
    }
    // The next block's opening line is where the first one shows it was never closed.
    const next = broken.split('\n').findIndex((l, i) => i >= open && l.startsWith('<<<<<<<')) + 1;
    expect((await runCli(dir, ['resolve'])).stderr).toContain(`:${next}: the conflict block opened at line ${open} is not closed before this <<<<<<< marker`);
    expect((await runCli(dir, ['resolve', '--check'])).stdout).toContain(`${FILE} holds merge conflict markers`);
  });

  it("git's own line markers with a hand edit beside them: the edit is kept, the file's sides merged (red team, 12-07)", async () => {
    const dir = phaseConflict();
    const edited = read(dir, FILE).replace('"progress_summary": "Working."', '"progress_summary": "HAND EDIT"');
    expect(edited).toContain('HAND EDIT');
    write(dir, FILE, edited);
    const r = await runCli(dir, ['resolve', '--theirs', 'phase', '--add']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('resolved from markers');
    expect(load(dir)).toMatchObject({ phase: 'audit', progress_summary: 'HAND EDIT' });
  });

  it("a block of git's line markers cut down to one side by hand keeps that side's spend, however resolve is run, and once committed (red team 62a 01)", async () => {
    // No driver: git's two-way markers around the phase lines and the cost lines. Base 5.0, main spent to 6.0, other to 7.5.
    const conflicted = (ours: string, theirs: string) => {
      const dir = makeRepo();
      dirs.push(dir);
      const spent = (doc: Record<string, unknown>, usd: string) => `${JSON.stringify(cp({ ...doc, cost: { currency: 'USD', total_usd: 0 } }), null, 2).replace('"total_usd": 0', `"total_usd": ${usd}`)}\n`;
      write(dir, FILE, spent({}, '5.0'));
      commitAll(dir, 'base');
      git(dir, ['checkout', '-q', '-b', 'other']);
      write(dir, FILE, spent({ phase: 'audit', updated_at: '2026-06-02T00:00:00Z' }, theirs));
      commitAll(dir, 'other session');
      git(dir, ['checkout', '-q', 'main']);
      write(dir, FILE, spent({ phase: 'deploy', updated_at: '2026-06-03T00:00:00Z' }, ours));
      commitAll(dir, 'main session');
      expect(gitTry(dir, ['merge', '-q', 'other']).status).not.toBe(0);
      expect(read(dir, FILE).match(/^<{7} HEAD$/gm)).toHaveLength(ours === theirs ? 1 : 2);
      return dir;
    };
    // As a mergetool settles a hunk: ours' lines kept, the markers gone; sometimes a line written beside it.
    const keepOursCost = (dir: string, edit: boolean) => {
      const text = read(dir, FILE).replace(/<{7} HEAD\n(\s*"total_usd": [^\n]*\n)={7}\n[^\n]*\n>{7} other\n/, '$1');
      expect(text.match(/^<{7} HEAD$/gm)).toHaveLength(1);
      write(dir, FILE, edit ? text.replace('"progress_summary": "Working."', '"progress_summary": "Merged by hand."') : text);
    };
    const total = (dir: string) => /"total_usd": ([^\n,]*)/.exec(read(dir, FILE))![1];
    for (const edit of [true, false]) {
      const dir = conflicted('6.0', '7.5');
      keepOursCost(dir, edit);
      const open = await runCli(dir, ['resolve']);
      expect(open.code).toBe(1);
      expect(open.stderr).toContain('conflict at phase');
      expect(total(dir)).toBe('6.0');
      const r = await runCli(dir, ['resolve', '--theirs', 'phase', '--add']);
      expect(r.code, r.stderr).toBe(0);
      expect([load(dir).phase, total(dir)]).toEqual(['audit', '6.0']);
    }
    // The markers committed as they stand (a hosted merge's): the same.
    const committed = conflicted('6.0', '7.5');
    keepOursCost(committed, true);
    git(committed, ['commit', '-qam', 'Merge other (markers and all)']);
    expect((await runCli(committed, ['resolve', '--theirs', 'phase', '--add'])).code).toBe(0);
    expect(total(committed)).toBe('6.0');
    // Two sessions that both spent to 6.0, the line git took once: both counted, as the driver counts them.
    const alike = conflicted('6.0', '6.0');
    write(alike, FILE, read(alike, FILE).replace('"progress_summary": "Working."', '"progress_summary": "Merged by hand."'));
    expect((await runCli(alike, ['resolve', '--theirs', 'phase', '--add'])).code).toBe(0);
    expect(total(alike)).toBe('7.0');
  });

  it('a block whose base section was deleted by hand is still read from the file: what was settled elsewhere stays', async () => {
    // Red team s21: two-way markers in one block made resolve merge again from git's stages,
    // and the value settled by hand elsewhere in the file was gone.
    const dir = twoConflicts();
    const text = cutBlock(read(dir, FILE), 'step', '  "step": "hand-settled, 8.0 min",\n').replace(/(<{7} ours\n  "phase": [^\n]*\n)\|{7} base\n[^\n]*\n/, '$1');
    expect(text).not.toMatch(/^\|{7}/m);
    write(dir, FILE, text);
    const r = await runCli(dir, ['resolve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('conflict at phase');
    expect(r.stderr).not.toContain('conflict at step');
    expect(read(dir, FILE)).toMatch(/^<{7} ours\n  "phase"/m);
    expect(read(dir, FILE)).toContain('"step": "hand-settled, 8.0 min"');
    const done = await runCli(dir, ['resolve', '--theirs', 'phase', '--add']);
    expect(done.code, done.stderr).toBe(0);
    expect(load(dir)).toMatchObject({ phase: 'audit', step: 'hand-settled, 8.0 min' });
    expect(read(dir, FILE)).toContain('"step": "hand-settled, 8.0 min"');
    expect(git(dir, ['status', '--porcelain'])).toMatch(/^M {2}\.checkpoints/m);
  });

  it("finishing a line merge (a hosted merge's markers) keeps ours' hand layout, as the driver does: only what the merge changed is rewritten (red team)", async () => {
    const dir = makeRepo();
    dirs.push(dir);
    // Kept by hand: 4-space indent, several members a line, inline arrays, 8.0 and 7.50.
    const hand = (updated: string, scores: string) =>
      [
        '{',
        '    "protocol_version": "1.1", "skill": "api", "project": "demo", "project_dir": "/demo",',
        `    "created_at": "2026-06-01T00:00:00Z", "updated_at": "${updated}",`,
        '    "phase": "build", "step": "one", "status": "in_progress", "progress_summary": "Working.",',
        '    "next_actions": ["first", "second"],',
        '    "context_primer": {"generated_files": ["src/x.ts (PR 12)", "docs/**/*.md"]},',
        `    "eval_scores": [{"at": "2026-06-01T00:00:00Z", "score": 8.0}${scores}]`,
        '}',
        '',
      ].join('\n');
    write(dir, FILE, hand('2026-06-01T00:00:00Z', ''));
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'other']);
    const theirs = ', {"at": "2026-06-02T00:00:00Z", "score": 9.0}';
    write(dir, FILE, hand('2026-06-02T00:00:00Z', theirs));
    commitAll(dir, 'other session');
    git(dir, ['checkout', '-q', 'main']);
    const ours = ', {"at": "2026-06-03T00:00:00Z", "score": 7.50}';
    write(dir, FILE, hand('2026-06-03T00:00:00Z', ours));
    commitAll(dir, 'main session');
    expect(gitTry(dir, ['merge', '-q', 'other']).status).not.toBe(0); // no driver: git's line markers
    expect(read(dir, FILE)).toContain('<<<<<<< HEAD');
    const r = await runCli(dir, ['resolve', '--add']);
    expect(r.code, r.stderr).toBe(0);
    expect(read(dir, FILE)).toBe(hand('2026-06-03T00:00:00Z', theirs + ours));
  });

  it('a file git left as ours alone (the driver did not run: its install moved) is not called merged: theirs\' changes are named as missing (red team)', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, '.gitattributes', '.checkpoints/*.checkpoint.json merge=checkpoint\n');
    git(dir, ['config', 'merge.checkpoint.driver', `'${process.execPath}' '${join(dir, 'moved', 'checkpoint.js')}' merge-driver %O %A %B %P %L`]);
    save(dir, cp({}));
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'other']);
    save(dir, cp({ updated_at: '2026-06-02T00:00:00Z', recently_done: [{ at: '2026-06-02T00:00:00Z', action: 'theirs did this' }] }));
    commitAll(dir, 'other session');
    git(dir, ['checkout', '-q', 'main']);
    const ours = cp({ updated_at: '2026-06-03T00:00:00Z', step: 'two' });
    save(dir, ours);
    commitAll(dir, 'main session');
    expect(gitTry(dir, ['merge', '-q', 'other']).status).not.toBe(0);
    expect(load(dir)).toEqual(ours); // git left ours as it was: no markers, UU
    const r = await runCli(dir, ['resolve']);
    expect(r.stdout).not.toContain('already resolved in the file (stage it');
    expect(r.stdout).toContain(`${FILE}: ✓ holds ours' side alone, as git left it: theirs' changes are not in it`);
    expect(r.stderr).toContain(`checkpoint install-driver, then git checkout --merge -- ${FILE}`);
    expect(git(dir, ['status', '--porcelain'])).toMatch(/^UU /m);
  });

  it('after `git checkout --theirs` (the way out the docs give), --add stages theirs without calling the installed driver broken', async () => {
    const dir = twoConflicts();
    git(dir, ['checkout', '--theirs', '--', FILE]);
    const theirs = read(dir, FILE);
    const r = await runCli(dir, ['resolve', '--add']);
    expect(r.code, r.stderr).toBe(0);
    // Git never leaves theirs alone (a driver that failed or is gone leaves ours): no reinstall advice.
    expect(r.stdout).toContain(`${FILE}: ✓ holds theirs' side alone, as \`git checkout --theirs\` leaves it: ours' changes are not in it; staged as it is`);
    expect(r.stderr).not.toMatch(/install-driver|did not run/);
    expect(r.stderr).toContain(`to merge ours back in: git checkout --merge -- ${FILE}`);
    expect(git(dir, ['show', `:0:${FILE}`])).toBe(theirs);
  });

  /** Our driver's merge where theirs also changed what ours did not (recently_done): `git checkout --ours` drops that. */
  const oursTaken = () => {
    const dir = makeRepo();
    dirs.push(dir);
    expect(cli(dir, ['install-driver']).code).toBe(0);
    save(dir, cp({}));
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'other']);
    save(dir, cp({ phase: 'audit', updated_at: '2026-06-02T00:00:00Z', next_actions: ['first', 'second', 'theirs'] }));
    commitAll(dir, 'other session');
    git(dir, ['checkout', '-q', 'main']);
    save(dir, cp({ phase: 'deploy', updated_at: '2026-06-03T00:00:00Z' }));
    commitAll(dir, 'main session');
    expect(gitTry(dir, ['merge', '-q', 'other']).status).not.toBe(0);
    git(dir, ['checkout', '--ours', '--', FILE]);
    return dir;
  };

  it('after `git checkout --ours` (the way out the docs give), --add stages ours without calling the installed driver broken (red team 64 r2, repro8)', async () => {
    const dir = oursTaken();
    const ours = read(dir, FILE);
    const r = await runCli(dir, ['resolve', '--add']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${FILE}: ✓ holds ours' side alone, as \`git checkout --ours\` leaves it: theirs' changes are not in it; staged as it is`);
    expect(r.stderr).not.toMatch(/install-driver|did not run/);
    expect(r.stderr).toContain(`to merge theirs back in: git checkout --merge -- ${FILE}`);
    expect(git(dir, ['show', `:0:${FILE}`])).toBe(ours);
  });

  it('ours alone with the driver not set up for the file (its attribute turned off) still names the driver as the likely cause', async () => {
    const dir = oursTaken();
    write(dir, '.git/info/attributes', '.checkpoints/*.checkpoint.json -merge\n');
    const r = await runCli(dir, ['resolve']);
    expect(r.stdout).toContain(`${FILE}: ✓ holds ours' side alone, as git left it`);
    expect(r.stderr).toContain(`checkpoint install-driver, then git checkout --merge -- ${FILE}`);
  });

  it('every conflict settled as ours, then resolve again: a merge that took our side of each collision, never a driver that did not run (red team, 12-07)', async () => {
    const dir = twoConflicts();
    expect((await runCli(dir, ['resolve', '--ours', 'phase', '--ours', 'step'])).code).toBe(0);
    const settled = read(dir, FILE);
    const r = await runCli(dir, ['resolve']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${FILE}: ✓ already resolved in the file`);
    expect(r.stdout + r.stderr).not.toMatch(/side alone|did not run|install-driver|checkout --merge/);
    expect(read(dir, FILE)).toBe(settled);
  });

  it("a one-line checkpoint without a final newline (Python's json.dump) settled from the driver's markers ends as ours did (red team, 12-07)", async () => {
    const dir = makeRepo();
    expect(cli(dir, ['install-driver']).code).toBe(0);
    const oneLine = (over: Record<string, unknown>) => JSON.stringify(cp(over)).replace(/,"/g, ', "').replace(/":/g, '": ');
    write(dir, FILE, oneLine({}));
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'other']);
    write(dir, FILE, oneLine({ phase: 'audit' }));
    commitAll(dir, 'other session');
    git(dir, ['checkout', '-q', 'main']);
    write(dir, FILE, oneLine({ phase: 'deploy' }));
    commitAll(dir, 'main session');
    expect(gitTry(dir, ['merge', '-q', 'other']).status).not.toBe(0);
    expect((await runCli(dir, ['resolve', '--ours', 'phase', '--add'])).code).toBe(0);
    expect(read(dir, FILE)).toBe(oneLine({ phase: 'deploy' }));
    expect(git(dir, ['diff', '--cached', 'HEAD', '--', FILE])).toBe('');
  });

  it('a file settled entirely by hand is checked and staged as it is, never merged again', async () => {
    const dir = twoConflicts();
    const mine = `${JSON.stringify(cp({ phase: 'by-hand', step: 'mine', next_actions: ['first', 'second'], progress_summary: 'Settled 8.0 by hand.' }), null, 4)}\n`;
    write(dir, FILE, mine);
    const check = await runCli(dir, ['resolve']);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain('already resolved in the file (stage it');
    expect(read(dir, FILE)).toBe(mine);
    expect(git(dir, ['status', '--porcelain'])).toMatch(/^UU /m);
    const add = await runCli(dir, ['resolve', '--add']);
    expect(add.code).toBe(0);
    expect(read(dir, FILE)).toBe(mine);
    expect(git(dir, ['status', '--porcelain'])).toMatch(/^M {2}\.checkpoints/m);
  });

  it('does not stage a hand-settled file that is broken or that the merge made invalid', async () => {
    const dir = twoConflicts();
    const broken = '{ "phase": "by-hand",\n';
    write(dir, FILE, broken);
    const r = await runCli(dir, ['resolve', '--add']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is not valid JSON at \d+:\d+/);
    expect(read(dir, FILE)).toBe(broken);
    const invalid = `${JSON.stringify(cp({ next_actions: [] }), null, 2)}\n`;
    write(dir, FILE, invalid);
    const v = await runCli(dir, ['resolve', '--add']);
    expect(v.code).toBe(1);
    expect(v.stderr).toContain('next_actions');
    expect(read(dir, FILE)).toBe(invalid);
    expect(git(dir, ['status', '--porcelain'])).toMatch(/^UU /m);
  });
});

/** One branch deletes the checkpoint, the other changes it: git's modify/delete conflict (DU from D1, UD from D2). */
const modifyDelete = once(() => {
  const dir = makeRepo();
  save(dir, cp({}));
  commitAll(dir, 'base');
  git(dir, ['checkout', '-q', '-b', 'D1']);
  git(dir, ['rm', '-q', FILE]);
  commitAll(dir, 'drop api');
  git(dir, ['checkout', '-q', 'main']);
  git(dir, ['checkout', '-q', '-b', 'D2']);
  save(dir, cp({ step: 'two', updated_at: '2026-06-02T00:00:00Z', progress_summary: 'Scored 8.0 on the nightly run.' }));
  commitAll(dir, 'edit api');
  return dir;
});

describe('resolve: a modify/delete conflict', () => {
  it.each([
    ['D1', 'D2', 'DU', 'our side (HEAD)', 'theirs'],
    ['D2', 'D1', 'UD', 'their side', 'ours (HEAD)'],
  ])('on %s merging %s (%s): says which side deleted it, chooses nothing, and --add keeps the changed file only when asked', async (head, other, xy, deleter, changer) => {
    const dir = modifyDelete();
    git(dir, ['checkout', '-q', head]);
    expect(gitTry(dir, ['merge', '-q', other]).status).not.toBe(0);
    expect(git(dir, ['status', '--porcelain'])).toMatch(new RegExp(`^${xy} \\.checkpoints/api`, 'm'));
    const changed = read(dir, FILE);
    const r = await runCli(dir, ['resolve']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`${FILE}: ✗ deleted on ${deleter}, changed on ${changer}: \`checkpoint resolve --add ${FILE}\` keeps the changed file, \`checkpoint resolve --accept-deletion ${FILE}\` accepts the deletion (archiving the changed version in history/)\n`);
    expect(JSON.parse((await runCli(dir, ['resolve', '--json'])).stdout)).toMatchObject({ ok: false, files: [{ path: FILE, status: 'deleted-on-one-side', deleted: head === 'D1' ? 'ours' : 'theirs' }] });
    expect(read(dir, FILE)).toBe(changed);
    expect(git(dir, ['status', '--porcelain'])).toMatch(new RegExp(`^${xy} `, 'm'));

    const add = await runCli(dir, ['resolve', '--add']);
    expect(add.code).toBe(0);
    expect(add.stdout).toBe(`${FILE}: ✓ kept the changed file and staged it; ${deleter} deleted it (\`git rm -f ${FILE}\` accepts the deletion instead)\n`);
    expect(read(dir, FILE)).toBe(changed);
    expect(git(dir, ['ls-files', '-u'])).toBe('');
    expect((await runCli(dir, ['resolve', '--check'])).code).toBe(0);
    // The way out the message names works as written.
    git(dir, ['rm', '-q', '-f', FILE]);
    expect(git(dir, ['ls-files', FILE])).toBe('');
  });

  it.each([
    ['D1', 'D2', 'theirs'],
    ['D2', 'D1', 'ours'],
  ])('on %s merging %s, the changed file edited into invalid JSON: resolve --check says how to take the changed side back (git checkout --%s)', async (head, other, side) => {
    const dir = modifyDelete();
    git(dir, ['checkout', '-q', head]);
    expect(gitTry(dir, ['merge', '-q', other]).status).not.toBe(0);
    const changed = read(dir, FILE);
    write(dir, FILE, changed.replace('"step": "two",', '"step": "two",,'));
    const r = await runCli(dir, ['resolve', '--check']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`is not valid JSON at \\d+:\\d+: [^\\n]*, and is still unmerged in git's index: fix it by hand, or drop the edits and take the changed side again with \`git checkout --${side} -- ${FILE.replace(/\./g, '\\.')}\`; then \`checkpoint resolve --add ${FILE.replace(/\./g, '\\.')}\` \\(or \`checkpoint resolve --accept-deletion ${FILE.replace(/\./g, '\\.')}\` to accept the deletion, the edited file archived in history/\\)\n$`));
    git(dir, ['checkout', `--${side}`, '--', FILE]);
    expect(read(dir, FILE)).toBe(changed);
    expect((await runCli(dir, ['resolve', '--add', FILE])).code).toBe(0);
    expect((await runCli(dir, ['resolve', '--check'])).code).toBe(0);
  });

  it('the deletion accepted with git rm, as the message says, leaves nothing to resolve', async () => {
    const dir = modifyDelete();
    git(dir, ['checkout', '-q', 'D1']);
    gitTry(dir, ['merge', '-q', 'D2']);
    git(dir, ['rm', '-q', FILE]);
    const r = await runCli(dir, ['resolve']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('no conflicted checkpoint files\n');
  });
});

describe('resolve is safe', () => {
  it('leaves the markers and exits 1 when the merge is clean but invalid', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    save(dir, cp({}));
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'other']);
    save(dir, cp({ next_actions: ['second'], step: 'x' }));
    commitAll(dir, 'other popped first');
    git(dir, ['checkout', '-q', 'main']);
    save(dir, cp({ next_actions: ['first'], step: 'y' }));
    commitAll(dir, 'main popped second');
    gitTry(dir, ['merge', '-q', 'other']);
    const before = readFileSync(join(dir, FILE));
    expect(before.toString()).toContain('<<<<<<<');
    const r = await runCli(dir, ['resolve', '--theirs', 'step']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('the merged result is invalid');
    expect(r.stderr).toContain('next_actions must not be empty');
    expect(readFileSync(join(dir, FILE)).equals(before)).toBe(true);
    expect((await runCli(dir, ['resolve', '--check'])).code).toBe(1);
  });

  it('refuses a symlinked checkpoint, a file outside .checkpoints/ and a non-checkpoint file, touching nothing', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    const outside = tempDir('cp-outside-');
    dirs.push(outside);
    write(outside, 'victim.json', '<<<<<<< ours\n{}\n=======\n[]\n>>>>>>> theirs\n');
    mkdirSync(join(dir, '.checkpoints'), { recursive: true });
    symlinkSync(join(outside, 'victim.json'), join(dir, '.checkpoints/evil.checkpoint.json'));
    write(dir, 'notes.json', '{}\n');
    write(dir, '.checkpoints/config.json', '{}\n');
    for (const [path, why] of [
      ['.checkpoints/evil.checkpoint.json', /is a symlink/],
      ['notes.json', /not a file under \.checkpoints/],
      ['.checkpoints/config.json', /not a checkpoint or history file/],
    ] as const) {
      const r = await runCli(dir, ['resolve', path]);
      expect(r.code, path).toBe(2);
      expect(r.stderr).toMatch(why);
    }
    expect(read(outside, 'victim.json')).toBe('<<<<<<< ours\n{}\n=======\n[]\n>>>>>>> theirs\n');
  });

  it('--check fails on a conflicted checkpoint too large to read for markers, and never calls it free of them', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    save(dir, cp({}));
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'big']);
    save(dir, cp({ phase: 'audit', skill_state: { dump: 'x'.repeat(17 * 1024 * 1024) } }));
    commitAll(dir, 'a 17 MiB dump');
    git(dir, ['checkout', '-q', 'main']);
    save(dir, cp({ phase: 'deploy' }));
    commitAll(dir, 'main sets phase');
    expect(gitTry(dir, ['merge', '-q', 'big']).status).not.toBe(0);
    expect(read(dir, FILE)).toContain('<<<<<<<');
    const unmerged = await runCli(dir, ['resolve', '--check']);
    expect(unmerged.code).toBe(1);
    expect(unmerged.stdout).toMatch(/✗ \.checkpoints\/api\.checkpoint\.json is \d+ bytes, over the 16777216-byte limit: too large to check for conflict markers \(and is unmerged/);
    expect(unmerged.stdout).not.toContain('has no conflict markers');
    // resolve refuses it with the advice --check gives, not the one for a path it never takes (red team 64 r2).
    for (const args of [['resolve'], ['resolve', FILE]]) {
      const refused = await runCli(dir, args);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('a checkpoint is kilobytes: check it by hand and cut the bulk out');
      expect(refused.stderr).not.toContain('files only');
    }
    git(dir, ['add', FILE]);
    const staged = await runCli(dir, ['resolve', '--check']);
    expect(staged.code).toBe(1);
    expect(staged.stdout).toContain('too large to check for conflict markers');
    expect(staged.stdout).not.toContain('✓');
    expect(JSON.parse((await runCli(dir, ['resolve', '--check', '--json'])).stdout)).toMatchObject({ ok: false, tooLarge: [FILE], markers: [], unmerged: [] });
  });

  it('never opens a FIFO while looking for conflicted files', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    mkdirSync(join(dir, '.checkpoints'), { recursive: true });
    execFileSync('mkfifo', [join(dir, '.checkpoints/trap.checkpoint.json')]);
    // If resolve opened it, this would block until vitest's timeout: a hang fails the test.
    // A gate does not pass what it could not read: it fails, saying which file and why.
    const r = cli(dir, ['resolve', '--check']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^✗ \.checkpoints\/trap\.checkpoint\.json could not be read for conflict markers: .*is a FIFO, not a plain file; refused$/m);
    const named = cli(dir, ['resolve', '.checkpoints/trap.checkpoint.json']);
    expect(named.code).toBe(2);
    expect(named.stderr).toMatch(/is a FIFO, not a plain file; refused/);
  });
});

describe('resolve only reads git state', () => {
  it('resolve --check, resolve and resolve --add with nothing conflicted leave git\'s index byte-identical', () => {
    const dir = makeRepo();
    dirs.push(dir);
    save(dir, cp({}));
    write(dir, 'src/a.ts', 'export const a = 1;\n');
    commitAll(dir, 'base');
    // A work-tree file whose stat no longer matches its index entry: any index refresh rewrites the index.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100);
    write(dir, 'src/a.ts', 'export const a = 1;\n');
    const index = () => readFileSync(join(dir, '.git/index'));
    const before = index();
    for (const args of [['resolve', '--check'], ['resolve'], ['resolve', '--add']]) {
      const r = cli(dir, args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBeLessThan(2);
      expect(index().equals(before), args.join(' ')).toBe(true);
    }
  });
});

describe('resolve mid-merge with files it cannot read', () => {
  /** phaseConflict plus `links` links out of the project and a FIFO, all under .checkpoints/. */
  const hostile = (links: number) => {
    const dir = phaseConflict();
    const outside = tempDir('cp-resolve-outside-');
    dirs.push(dir, outside);
    write(outside, 'victim.json', '{"secret": true}\n');
    for (let i = 0; i < links; i++) symlinkSync(join(outside, 'victim.json'), join(dir, `.checkpoints/link${i}.checkpoint.json`));
    execFileSync('mkfifo', [join(dir, '.checkpoints/trap.checkpoint.json')]);
    return dir;
  };

  it('a refusal is one line naming the skipped files, bounded, and leaves the conflicted file byte-identical', async () => {
    const dir = hostile(40);
    const before = readFileSync(join(dir, FILE));
    const r = await runCli(dir, ['resolve', '--ours', 'no.such.path']);
    expect(r.code).toBe(2);
    const line = errorLine(r.stderr);
    expect(line.lines, r.stderr).toBe(1);
    expect(line.message).toBe(
      'resolve: no conflict at no.such.path in .checkpoints/api.checkpoint.json (skipped 41 files that cannot be read safely (`checkpoint resolve --check` says why): .checkpoints/link0.checkpoint.json, .checkpoints/link1.checkpoint.json, .checkpoints/link10.checkpoint.json and 38 more)',
    );
    expect(line.hint).toBe('conflicts there: phase');
    expect(readFileSync(join(dir, FILE))).toEqual(before);
  });

  it('a report names the skipped files in one note, not a line each', async () => {
    const dir = hostile(5);
    const r = await runCli(dir, ['resolve']);
    expect(r.code).toBe(1); // the phase conflict remains
    expect(r.stderr.split('\n').filter((l) => l.includes('skipped'))).toEqual([
      'checkpoint: skipped 6 files that cannot be read safely (`checkpoint resolve --check` says why): .checkpoints/link0.checkpoint.json, .checkpoints/link1.checkpoint.json, .checkpoints/link2.checkpoint.json and 3 more; hint: check them by hand',
    ]);
    const json = JSON.parse((await runCli(dir, ['resolve', '--json'])).stdout);
    expect(json.skipped).toHaveLength(6);
    expect(json.skipped[0]).toMatchObject({ path: '.checkpoints/link0.checkpoint.json', why: expect.stringMatching(/symlink/) });
  });

  it('one skipped file is named with its reason', async () => {
    const dir = hostile(0);
    const r = await runCli(dir, ['resolve', '--theirs', 'nowhere']);
    expect(r.code).toBe(2);
    const line = errorLine(r.stderr);
    expect(line.lines).toBe(1);
    expect(line.message).toMatch(/^resolve: no conflict at nowhere in \.checkpoints\/api\.checkpoint\.json \(skipped \.checkpoints\/trap\.checkpoint\.json: is a FIFO, not a plain file\)$/);
  });
});

describe('.checkpoints/config.json', () => {
  it('refuses an unknown key or a bad pattern naming it: exit 2, nothing written', async () => {
    const dir = phaseConflict();
    const before = readFileSync(join(dir, FILE));
    write(dir, '.checkpoints/config.json', '{"telemtry": ["skill_state.coverage"]}\n');
    const typo = await runCli(dir, ['resolve', '--theirs', 'phase']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('.checkpoints/config.json: unknown key "telemtry"');
    write(dir, '.checkpoints/config.json', '{"logs": ["skill_state.**.audits", "skill_state.*x"]}\n');
    const pattern = await runCli(dir, ['resolve', '--theirs', 'phase']);
    expect(pattern.code).toBe(2);
    expect(pattern.stderr).toContain('"logs"[1] "skill_state.*x" uses * inside a segment');
    expect(readFileSync(join(dir, FILE)).equals(before)).toBe(true);
    write(dir, '.checkpoints/config.json', '{"telemetry": ["skill_state.**.coverage"], "logs": ["skill_state.audits"]}\n');
    expect((await runCli(dir, ['resolve', '--theirs', 'phase'])).code).toBe(0);
  });
});

const CONFIG = '.checkpoints/config.json';
/** What every command says of a config.json holding git's markers (from the top). */
const SETTLE_CONFIG = "holds merge conflict markers: fix it by hand (keep both sides' entries as wanted), then `git add .checkpoints/config.json`";

/**
 * A plain text merge (no driver) in which each side added a log of its own to config.json (git's
 * markers in it, as a hand-kept config is one line) and set phase apart. `apart`: both sides also
 * appended to skill_state.audits, a log only by their side's rule, so how it merges depends on the config.
 */
const configConflictRepo = (apart: boolean) => () => {
  const dir = makeRepo();
  write(dir, 'src/x.ts', 'export {};\n');
  write(dir, CONFIG, '{ "logs": ["skill_state.run_history"] }\n');
  const audits = ['2026-06-01 lint ok (8.0)'];
  save(dir, cp({ skill_state: { run_history: [], audits } }));
  commitAll(dir, 'base');
  git(dir, ['checkout', '-q', '-b', 'other']);
  write(dir, CONFIG, '{ "logs": ["skill_state.run_history", "skill_state.audits"] }\n');
  save(dir, cp({ phase: 'audit', skill_state: { run_history: [], audits: apart ? [...audits, '2026-06-02 theirs'] : audits } }));
  commitAll(dir, 'other session');
  git(dir, ['checkout', '-q', 'main']);
  write(dir, CONFIG, '{ "logs": ["skill_state.run_history", "skill_state.reviews"] }\n');
  save(dir, cp({ phase: 'deploy', skill_state: { run_history: [], audits: apart ? [...audits, '2026-06-03 ours'] : audits } }));
  commitAll(dir, 'main session');
  expect(gitTry(dir, ['merge', '-q', 'other']).status).not.toBe(0);
  expect(git(dir, ['status', '--porcelain'])).toContain(`UU ${CONFIG}`);
  return dir;
};
const rulesAside = once(configConflictRepo(false));
const rulesApart = once(configConflictRepo(true));
/** The config settled by hand as the message says: both sides' entries kept, then staged. */
const settleConfig = (dir: string) => {
  write(dir, CONFIG, '{ "logs": ["skill_state.run_history", "skill_state.audits", "skill_state.reviews"] }\n');
  git(dir, ['add', CONFIG]);
};

describe('a .checkpoints/config.json git left with its conflict markers (red team 62a 4)', () => {
  it('validate, doctor, resolve --check and resolve naming it all say the same: fix it by hand, then git add it (never `checkpoint resolve`)', async () => {
    const dir = rulesAside();
    const before = readFileSync(join(dir, CONFIG));
    const validate = await runCli(dir, ['validate']);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(`error   (file): 1:1: ${SETTLE_CONFIG}`);
    const doctor = await runCli(dir, ['doctor']);
    expect(doctor.stdout).toContain(`${CONFIG}:1:1: ${SETTLE_CONFIG}`);
    for (const out of [validate.stdout, doctor.stdout]) expect(out.split('\n').filter((l) => l.includes('config.json')).join('\n')).not.toContain('checkpoint resolve');
    const check = await runCli(dir, ['resolve', '--check']);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain(`✗ ${CONFIG} holds merge conflict markers (and is unmerged in git's index): fix it by hand (keep both sides' entries as wanted), then \`git add ${CONFIG}\``);
    expect(check.stdout).toContain(`✗ ${FILE} holds merge conflict markers`); // the checkpoint is still resolve's
    const named = await runCli(dir, ['resolve', '--add', CONFIG]);
    expect(named.code).toBe(2);
    expect(errorLine(named.stderr)).toEqual({ lines: 1, message: `${CONFIG}: ${SETTLE_CONFIG}`, hint: 'resolve merges checkpoints only; no command merges settings' });
    // From a folder below the top, the path is the one to paste there.
    expect((await runCli(join(dir, 'src'), ['resolve', '--check'])).stdout).toContain('then `git add ../.checkpoints/config.json`');
    expect(readFileSync(join(dir, CONFIG)).equals(before)).toBe(true);
  });

  it('resolve still settles a checkpoint whose merge the config\'s sides do not change, names the config as left to settle (exit 1), and passes once it is added', async () => {
    const dir = rulesAside();
    const r = await runCli(dir, ['resolve', '--theirs', 'phase', '--add']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain(`${FILE}: ✓ resolved from`);
    expect(r.stderr).toContain(`checkpoint: ${CONFIG} ${SETTLE_CONFIG}`);
    expect(load(dir).phase).toBe('audit');
    expect(git(dir, ['ls-files', '-u']).trim().split('\n').every((l) => l.endsWith(`\t${CONFIG}`))).toBe(true);
    settleConfig(dir);
    expect((await runCli(dir, ['resolve', '--check'])).code).toBe(0);
  });

  it('a checkpoint whose merge depends on the rules the sides set apart is refused in one line naming the config to settle first, the file byte-identical; settled, it merges by both rules', async () => {
    const dir = rulesApart();
    const before = readFileSync(join(dir, FILE));
    for (const args of [['resolve', '--theirs', 'phase', '--add'], ['resolve', FILE, '--theirs', 'phase']]) {
      const r = await runCli(dir, args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(errorLine(r.stderr)).toEqual({
        lines: 1,
        message: `${FILE}: its merge depends on merge rules (logs, telemetry, counters) that the two sides of ${CONFIG} set apart; settle that first: it ${SETTLE_CONFIG}, then rerun \`checkpoint resolve\`; nothing was written`,
        hint: null,
      });
      expect(readFileSync(join(dir, FILE)).equals(before)).toBe(true);
    }
    settleConfig(dir);
    expect((await runCli(dir, ['resolve', '--theirs', 'phase', '--add'])).code).toBe(0);
    expect(load(dir).skill_state.audits).toEqual(['2026-06-01 lint ok (8.0)', '2026-06-02 theirs', '2026-06-03 ours']); // a log: both kept
  });
});

describe('a conflict path in any spelling update takes (red team 62c 04)', () => {
  /** Both sides change a key with an accent and a row's label (a note in it); the driver installed. */
  const accented = once(() => {
    const dir = makeRepo();
    initialized(dir);
    const row = (label: string) => [{ id: 'r1', label, status: 'in_progress' }];
    save(dir, cp({ progress_table: row('Auth (see PR 12)'), skill_state: { café: 1, run_history: [] } }));
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'other']);
    save(dir, cp({ progress_table: row('Auth (PR 14)'), skill_state: { café: 2, run_history: [] } }));
    commitAll(dir, 'theirs');
    git(dir, ['checkout', '-q', 'main']);
    save(dir, cp({ progress_table: row('Auth (PR 13)'), skill_state: { café: 3, run_history: [] } }));
    commitAll(dir, 'ours');
    expect(gitTry(dir, ['merge', '-q', 'other']).status).not.toBe(0);
    return dir;
  });

  it('settles skill_state.café and progress_table.0.label as it settles skill_state["café"] and progress_table[0].label', async () => {
    for (const [ours, theirs] of [['skill_state.café', 'progress_table.0.label'], ['skill_state["café"]', 'progress_table[0].label'], ['skill_state', 'progress_table.0']]) {
      const dir = accented();
      expect(read(dir, FILE)).toContain('<<<<<<<');
      const r = await runCli(dir, ['resolve', '--ours', ours!, '--theirs', theirs!]);
      expect(r.code, `${ours} ${theirs}: ${r.stderr}`).toBe(0);
      expect(load(dir)).toMatchObject({ skill_state: { café: 3 }, progress_table: [{ label: 'Auth (PR 14)' }] });
    }
  });

  it('refuses one path given to both sides in two spellings, the file byte-identical', async () => {
    const dir = accented();
    const before = readFileSync(join(dir, FILE));
    const r = await runCli(dir, ['resolve', '--ours', 'skill_state.café', '--theirs', 'skill_state["café"]']);
    expect(r.code).toBe(2);
    expect(errorLine(r.stderr).message).toBe('resolve: skill_state.café is given to both --ours and --theirs');
    expect(readFileSync(join(dir, FILE)).equals(before)).toBe(true);
  });
});

describe('a side git cannot give as JSON (an editor saved it as UTF-16)', () => {
  it('with the driver installed, the file holds the other side alone: resolve and --add refuse, naming the broken side, until it is settled by hand or kept on purpose (red team, 12-04)', async () => {
    const dir = makeRepo();
    initialized(dir);
    save(dir, cp({}));
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'other']);
    const theirs = `${JSON.stringify(cp({ step: 'two-theirs' }), null, 2)}\n`;
    writeFileSync(join(dir, FILE), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(theirs, 'utf16le')]));
    commitAll(dir, 'saved as UTF-16');
    git(dir, ['checkout', '-q', 'main']);
    save(dir, cp({ phase: 'deploy' }));
    commitAll(dir, 'ours');
    expect(gitTry(dir, ['merge', '-q', 'other']).status).not.toBe(0);
    const ours = read(dir, FILE);
    for (const args of [['resolve'], ['resolve', '--add']]) {
      const r = await runCli(dir, args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toContain(`checkpoint: ${FILE} holds ours alone: theirs is not valid JSON (not UTF-8, or not JSON at all), so nothing of it was merged; look at it with \`git show :3:${FILE}\``);
    }
    expect(git(dir, ['ls-files', '-u', '--', FILE])).not.toBe('');
    expect(read(dir, FILE)).toBe(ours);
    // Settled by hand (theirs' step brought in): staged as any settled file.
    save(dir, { ...load(dir), step: 'two-theirs' });
    expect((await runCli(dir, ['resolve', '--add'])).code).toBe(0);
    expect(git(dir, ['ls-files', '-u', '--', FILE])).toBe('');
  });
});

describe('a conflict left in a rebase (red team 12-07)', () => {
  const REBASING = 'checkpoint: rebasing: "ours" is the upstream your commits are replayed onto, "theirs" is your own commit (--theirs <path> keeps your value)';

  /** main and a session branch set phase apart; the driver installed (init). */
  function diverged(): string {
    const dir = makeRepo();
    initialized(dir);
    save(dir, cp({}));
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'session']);
    save(dir, cp({ phase: 'deploy' }));
    commitAll(dir, 'my work');
    git(dir, ['checkout', '-q', 'main']);
    save(dir, cp({ phase: 'test' }));
    commitAll(dir, 'upstream');
    return dir;
  }

  it('the driver and resolve say which side is whose; --theirs keeps the rebased commit\'s value; a merge says nothing of it', async () => {
    const dir = diverged();
    git(dir, ['checkout', '-q', 'session']);
    const rebase = gitTry(dir, ['rebase', 'main']);
    expect(rebase.status).not.toBe(0);
    expect(rebase.stderr + rebase.stdout).toContain(`conflict at phase: ours "test" vs theirs "deploy" (base "build")\n${REBASING}\n`);
    const r = await runCli(dir, ['resolve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${REBASING}\n`);
    expect(JSON.parse((await runCli(dir, ['resolve', '--json'])).stdout)).toMatchObject({ ok: false, rebasing: true });
    expect((await runCli(dir, ['resolve', '--theirs', 'phase', '--add'])).code).toBe(0);
    expect(load(dir).phase).toBe('deploy');
    git(dir, ['rebase', '--abort']);
    // The same conflict in a merge: ours is this branch, as the words say; no note.
    const merge = gitTry(dir, ['merge', '--no-edit', 'main']);
    expect(merge.stderr + merge.stdout).toContain('conflict at phase: ours "deploy" vs theirs "test"');
    expect(merge.stderr + merge.stdout).not.toContain('rebasing');
    const m = await runCli(dir, ['resolve']);
    expect(m.stderr).not.toContain('rebasing');
    expect(JSON.parse((await runCli(dir, ['resolve', '--json'])).stdout).rebasing).toBeUndefined();
  });

  /** Whether the driver's output, `resolve` and `resolve --json` all give the rebase note (true) or none of them (false). */
  async function noted(dir: string, gitOutput: string): Promise<boolean[]> {
    const r = await runCli(dir, ['resolve']);
    const json = JSON.parse((await runCli(dir, ['resolve', '--json'])).stdout);
    return [gitOutput.includes(REBASING), r.stderr.includes(REBASING), json.rebasing === true];
  }

  it('a --rebase-merges merge step is no replay: ours is the rebuilt branch, so no note; its picks still get one', async () => {
    const dir = diverged();
    // session merged a topic (phase "review (topic)") and kept its own "deploy" by hand.
    git(dir, ['checkout', '-q', '-b', 'topic', 'session~1']);
    save(dir, cp({ phase: 'review (topic)' }));
    commitAll(dir, 'topic work');
    git(dir, ['checkout', '-q', 'session']);
    expect(gitTry(dir, ['merge', '--no-edit', 'topic']).status).not.toBe(0);
    save(dir, cp({ phase: 'deploy' }));
    git(dir, ['add', FILE]);
    git(dir, ['commit', '-q', '--no-edit']);
    // An upstream that touched no checkpoint: the picks replay cleanly, the merge step conflicts.
    git(dir, ['checkout', '-q', '-b', 'notes', 'main~1']);
    write(dir, 'NOTES.txt', 'upstream notes\n');
    commitAll(dir, 'upstream notes');
    git(dir, ['checkout', '-q', 'session']);
    const rebase = gitTry(dir, ['rebase', '--rebase-merges', 'notes']);
    expect(rebase.status).not.toBe(0);
    expect(read(dir, '.git/rebase-merge/done').trim().split('\n').at(-1)).toMatch(/^merge /);
    expect(rebase.stderr + rebase.stdout).toContain('conflict at phase: ours "deploy" vs theirs "review (topic)"');
    expect(await noted(dir, rebase.stderr + rebase.stdout)).toEqual([false, false, false]);
    git(dir, ['rebase', '--abort']);
    // Onto main (phase "test"), a pick of the same kind of rebase conflicts first: a replay, noted.
    const picks = gitTry(dir, ['rebase', '--rebase-merges', 'main']);
    expect(read(dir, '.git/rebase-merge/done').trim().split('\n').at(-1)).toMatch(/^pick /);
    expect(await noted(dir, picks.stderr + picks.stdout)).toEqual([true, true, true]);
  });

  it('a cherry-pick, revert or stash pop at a stopped rebase merges into the user\'s own HEAD: no note', async () => {
    const dir = diverged();
    git(dir, ['checkout', '-q', '-b', 'picked', 'main~1']);
    save(dir, cp({ phase: 'picked (from ops)' }));
    commitAll(dir, 'ops session');
    // A linear line of the user's own, stopped at `edit` on its first commit (phase "mine").
    git(dir, ['checkout', '-q', '-b', 'mine', 'main']);
    save(dir, cp({ phase: 'mine' }));
    commitAll(dir, 'mine');
    write(dir, 'NOTES.txt', 'x\n');
    commitAll(dir, 'notes');
    git(dir, ['rebase', '-i', 'main'], { GIT_SEQUENCE_EDITOR: 'sed -i -e "1s/^pick/edit/"' });
    expect(git(dir, ['log', '-1', '--format=%s'])).toBe('mine\n');
    const pick = gitTry(dir, ['cherry-pick', 'picked']);
    expect(pick.stderr + pick.stdout).toContain('conflict at phase: ours "mine" vs theirs "picked (from ops)"');
    expect(await noted(dir, pick.stderr + pick.stdout)).toEqual([false, false, false]);
    git(dir, ['cherry-pick', '--abort']);
    // A revert of upstream's phase change, at the same stop.
    const revert = gitTry(dir, ['revert', '--no-edit', 'main']);
    expect(revert.stderr + revert.stdout).toContain('conflict at phase');
    expect(await noted(dir, revert.stderr + revert.stdout)).toEqual([false, false, false]);
    git(dir, ['revert', '--abort']);
    // A stash pop leaves no *_HEAD file: at an edit stop git's `amend` file says the rebase is stopped.
    save(dir, cp({ phase: 'stashed edit' }));
    git(dir, ['stash', '-q']);
    save(dir, cp({ phase: 'edited at the stop' }));
    git(dir, ['commit', '-q', '--amend', '--no-edit', '-a']);
    const pop = gitTry(dir, ['stash', 'pop']);
    expect(pop.stderr + pop.stdout).toContain('conflict at phase');
    expect(await noted(dir, pop.stderr + pop.stdout)).toEqual([false, false, false]);
  });

  it('a stash popped after settling a replay\'s conflict, before --continue, is told by its content: no note', async () => {
    const dir = diverged();
    git(dir, ['checkout', '-q', 'session']);
    save(dir, cp({ phase: 'stashed, 8.0' }));
    git(dir, ['stash', '-q']);
    const rebase = gitTry(dir, ['rebase', 'main']);
    expect(await noted(dir, rebase.stderr + rebase.stdout)).toEqual([true, true, true]);
    // The replay's conflict settled by hand and staged; then the stash popped onto it.
    save(dir, cp({ phase: 'settled by hand' }));
    git(dir, ['add', FILE]);
    const pop = gitTry(dir, ['stash', 'pop']);
    expect(pop.stderr + pop.stdout).toContain('conflict at phase: ours "settled by hand" vs theirs "stashed, 8.0"');
    expect(existsSync(join(dir, '.git/rebase-merge/stopped-sha'))).toBe(true);
    expect(await noted(dir, pop.stderr + pop.stdout)).toEqual([false, false, false]);
  });

  it('the apply backend (git rebase --apply) replays too: noted', async () => {
    const dir = diverged();
    git(dir, ['checkout', '-q', 'session']);
    const rebase = gitTry(dir, ['rebase', '--apply', 'main']);
    expect(rebase.status).not.toBe(0);
    expect(existsSync(join(dir, '.git/rebase-apply/rebasing'))).toBe(true);
    expect(await noted(dir, rebase.stderr + rebase.stdout)).toEqual([true, true, true]);
  });

  it('in a linked worktree (a .git file naming its git dir) too', () => {
    const dir = diverged();
    const wt = join(tempDir('cp-wt-'), 'wt');
    git(dir, ['worktree', 'add', '-q', wt, 'session']);
    const rebase = gitTry(wt, ['rebase', 'main']);
    expect(rebase.status).not.toBe(0);
    expect(rebase.stderr + rebase.stdout).toContain(REBASING);
  });
});
