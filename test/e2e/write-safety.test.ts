// What a write leaves on disk beyond the checkpoint's text (red team, write commands): the
// file's permission bits, no torn file when the disk refuses a restore, and the folder a
// command runs in; and what a refused :json value is told to do.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanup, errorLine, git, GIT_ENV, makeRepo, read, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';
import { freshCheckpoint } from '../helpers/fixtures.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

function repo(): string {
  const dir = makeRepo();
  dirs.push(dir);
  return dir;
}

const FILE = (skill: string) => `.checkpoints/${skill}.checkpoint.json`;
const mode = (dir: string, rel: string) => statSync(join(dir, rel)).mode & 0o7777;

/** A hand-kept checkpoint: CRLF, 4-space indent, a score written 8.0. */
function messy(dir: string, skill: string, over: Record<string, unknown> = {}): string {
  const doc = freshCheckpoint(skill, { eval_scores: [{ rubric: 'audit', score: 8, max: 10, at: '2026-06-01T00:00:00Z' }], ...over });
  const text = `${JSON.stringify(doc, null, 4).replace('"score": 8,', '"score": 8.0,').replace(/\n/g, '\r\n')}\r\n`;
  write(dir, FILE(skill), text);
  return text;
}

describe('a write keeps the file\'s permission bits', () => {
  it('a private (0600) checkpoint stays private through update, done, pause --auto, rotate and resolve-free writes', async () => {
    const dir = repo();
    messy(dir, 'api', { next_actions: ['one', 'two', 'three'], skill_state: { run_history: Array.from({ length: 8 }, (_, i) => ({ at: `2026-06-0${i + 1}T00:00:00Z`, ok: i })) } });
    chmodSync(join(dir, FILE('api')), 0o600);
    for (const args of [['update', 'api', '--step=two'], ['done', 'api'], ['pause', 'api', '--auto'], ['rotate', 'api', '--keep', '2']]) {
      const r = await runCli(dir, args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(mode(dir, FILE('api')), args.join(' ')).toBe(0o600);
    }
  });

  it('reset and restore keep a private checkpoint private: the archive and the restored file stay 0600', async () => {
    const dir = repo();
    const text = messy(dir, 'api');
    chmodSync(join(dir, FILE('api')), 0o600);
    expect((await runCli(dir, ['reset', 'api'])).code).toBe(0);
    const archive = readdirSync(join(dir, '.checkpoints/history'))[0]!;
    expect(mode(dir, `.checkpoints/history/${archive}`)).toBe(0o600);
    expect((await runCli(dir, ['restore', archive])).code).toBe(0);
    expect(read(dir, FILE('api'))).toBe(text);
    expect(mode(dir, FILE('api'))).toBe(0o600);
  });

  it('a checkpoint committed executable (100755) stays so: git shows no mode change after an update', async () => {
    const dir = repo();
    messy(dir, 'api');
    chmodSync(join(dir, FILE('api')), 0o755);
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-qm', 'exec']);
    expect((await runCli(dir, ['update', 'api', '--step=next'])).code).toBe(0);
    expect(mode(dir, FILE('api'))).toBe(0o755);
    expect(git(dir, ['diff', '--summary'])).not.toMatch(/mode change/);
  });
});

describe('restore never leaves a torn live checkpoint (a full disk, a file size limit)', () => {
  // RLIMIT_FSIZE as in rotate-cli.test.ts: the write fails with EFBIG (SIGXFSZ ignored).
  function limited(dir: string, args: string[]) {
    const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const r = spawnSync('/bin/sh', ['-c', `trap '' XFSZ; ulimit -f 40 && exec "$0" "$1" ${quoted}`, process.execPath, BIN], { cwd: dir, env: GIT_ENV, encoding: 'utf8' });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  it('a restore whose write fails leaves no live file, so the message is true and a retry restores it whole', async () => {
    const dir = repo();
    const text = messy(dir, 'api', { skill_state: { notes: 'x'.repeat(100_000) } });
    expect((await runCli(dir, ['reset', 'api'])).code).toBe(0);
    const archive = readdirSync(join(dir, '.checkpoints/history'))[0]!;
    const r = limited(dir, ['restore', archive]);
    expect(r.code, r.stderr).toBe(2);
    expect(errorLine(r.stderr).lines).toBe(1);
    expect(r.stderr).toMatch(/nothing was changed/);
    expect(existsSync(join(dir, FILE('api')))).toBe(false);
    expect(readdirSync(join(dir, '.checkpoints')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const again = await runCli(dir, ['restore', archive]);
    expect(again.code, again.stderr).toBe(0);
    expect(read(dir, FILE('api'))).toBe(text);
  });
});

describe('update -C with no folder after it', () => {
  it('is refused as every other command refuses it, nothing written in the current folder', async () => {
    const dir = repo();
    const before = messy(dir, 'api');
    for (const flag of ['-C', '--dir']) {
      const r = await runCli(dir, ['update', 'api', '--step=elsewhere', flag]);
      expect(r.code, r.stderr).toBe(2);
      expect(errorLine(r.stderr, /^checkpoint update: /)).toMatchObject({ lines: 1, message: "option '-C, --dir <value>' argument missing" });
      expect(readFileSync(join(dir, FILE('api')), 'utf8')).toBe(before);
    }
    // As status refuses it.
    expect((await runCli(dir, ['status', '-C'])).stderr).toMatch(/argument missing/);
  });
});

describe('a :json value refused for what it holds, not for its quoting', () => {
  it('names the key, the repeat or the depth, with advice that helps (quoting for the shell would not)', async () => {
    const dir = repo();
    const before = messy(dir, 'api');
    const cases: Array<[string, RegExp, RegExp]> = [
      ['--skill_state.cfg:json={"__proto__": {"x": 1}}', /forbidden key "__proto__"/, /choose another key name/],
      ['--skill_state.cfg:json={"a": {"constructor": 1}}', /forbidden key "constructor"/, /choose another key name/],
      ['--skill_state.cfg:json={"a": 1, "a": 2}', /duplicate key "a"/, /each key once/],
      [`--skill_state.cfg:json=${'['.repeat(300)}${']'.repeat(300)}`, /nesting deeper than 256 levels/, /flatten/],
    ];
    for (const [flag, what, todo] of cases) {
      const r = await runCli(dir, ['update', 'api', flag]);
      expect(r.code).toBe(2);
      const line = errorLine(r.stderr);
      expect(line.lines).toBe(1);
      expect(line.message).toMatch(what);
      expect(line.hint).toMatch(todo);
      expect(line.hint).not.toMatch(/quote the JSON/);
      expect(read(dir, FILE('api'))).toBe(before);
    }
    // A real syntax slip still gets the quoting advice.
    expect(errorLine((await runCli(dir, ['update', 'api', '--skill_state.cfg:json={k:1}'])).stderr).hint).toMatch(/quote the JSON/);
  });
});

describe('every pause and restore refusal says what to do', () => {
  it('a missing or odd --context-file, --auto with a capsule, a capsule given twice, an archive restore cannot read: one line with a hint, nothing changed', async () => {
    const dir = repo();
    const before = messy(dir, 'api');
    write(dir, 'cap.json', '{}');
    write(dir, '.checkpoints/history/api.notes.txt', 'kept by hand');
    write(dir, '.checkpoints/history/api.2026-01-09.json', '{"skill": "api", "rotated_at": "2026-01-09T00:00:00Z", "entries": 5}');
    const runs: string[][] = [
      ['pause', 'api', '--context-file', 'nope.json'],
      ['pause', 'api', '--context-file', '.checkpoints'],
      ['pause', 'api', '--auto', '--context-file', 'cap.json'],
      ['pause', 'api', '--context', '{}', '--context-file', 'cap.json'],
      ['restore', 'api.notes.txt'],
      ['restore', 'api.2026-01-09.json'],
    ];
    for (const args of runs) {
      const r = await runCli(dir, args);
      expect(r.code, args.join(' ')).toBe(2);
      const line = errorLine(r.stderr);
      expect(line.lines, args.join(' ')).toBe(1);
      expect(line.hint, `${args.join(' ')}: ${r.stderr}`).toMatch(/\S/);
      expect(read(dir, FILE('api'))).toBe(before);
    }
  });
});

describe('an append onto a value that is no list', () => {
  it('says what the value is and gives the flag that makes it a list, which then takes the append', async () => {
    const dir = repo();
    const before = messy(dir, 'api', { next_actions: "Merge PR #12 then deploy (it's blocked)" });
    const r = await runCli(dir, ['update', 'api', '--next_actions+=Write the tests']);
    expect(r.code).toBe(2);
    const line = errorLine(r.stderr);
    expect(line.lines).toBe(1);
    expect(line.message).toBe(`--next_actions+=Write the tests: cannot append: next_actions is not an array (it is "Merge PR #12 then deploy (it's blocked)")`);
    expect(read(dir, FILE('api'))).toBe(before);
    // The flag, pasted through a shell as printed, makes the list; the append then lands.
    const flag = /make it a list first \((.+)\), then append/.exec(line.hint!)![1]!;
    const word = spawnSync('/bin/sh', ['-c', `printf %s ${flag}`], { encoding: 'utf8' }).stdout;
    expect((await runCli(dir, ['update', 'api', word, '--next_actions+=Write the tests'])).code).toBe(0);
    expect(JSON.parse(read(dir, FILE('api'))).next_actions).toEqual(["Merge PR #12 then deploy (it's blocked)", 'Write the tests']);
  });
});

describe('an append onto a number the file writes as 8.0', () => {
  it("gives the flag that makes a list of the file's own text, so following it keeps 8.0", async () => {
    const dir = repo();
    const before = messy(dir, 'api', { skill_state: { best: 8 } }).replace('"best": 8', '"best": 8.0');
    write(dir, FILE('api'), before);
    const line = errorLine((await runCli(dir, ['update', 'api', '--skill_state.best+:json=9'])).stderr);
    expect(line.message).toBe('--skill_state.best+:json=9: cannot append: skill_state.best is not an array (it is 8.0)');
    expect(line.hint).toBe("make it a list first ('--skill_state.best:json=[8.0]'), then append; the checkpoint was not changed");
    expect(read(dir, FILE('api'))).toBe(before);
    expect((await runCli(dir, ['update', 'api', '--skill_state.best:json=[8.0]', '--skill_state.best+:json=9'])).code).toBe(0);
    expect(read(dir, FILE('api'))).toMatch(/"best": \[\s*8\.0,\s*9\s*\]/);
  });
});

describe('an append onto a context_primer written as prose (red team, 12-06)', () => {
  it('is told to make it an object of lists, which then takes the append; status reads the prose as its key decisions meanwhile', async () => {
    const dir = repo();
    const before = messy(dir, 'api', { context_primer: 'read src/x.ts first (PR 12)' });
    const status = await runCli(dir, ['status']);
    expect(status.stdout).toMatch(/^api +in_progress /m);
    expect(status.stdout).toContain(`context_primer is a string ("read src/x.ts first (PR 12)"), not an object (read as its key_decisions); fix: checkpoint update api --context_primer:json='{"key_decisions":["read src/x.ts first (PR 12)"]}'`);
    const line = errorLine((await runCli(dir, ['update', 'api', '--context_primer+=also read y'])).stderr);
    expect(line.message).toBe('--context_primer+=also read y: cannot append: context_primer is an object of lists (key_decisions, generated_files, user_preferences), and this one holds "read src/x.ts first (PR 12)"');
    expect(read(dir, FILE('api'))).toBe(before);
    // Both flags of the hint, pasted through a shell as printed, then work.
    const [make, then] = /make it one \((.+)\), then append to a list in it \((.+)\);/.exec(line.hint!)!.slice(1) as [string, string];
    const words = spawnSync('/bin/sh', ['-c', `printf '%s\\n' ${make}`], { encoding: 'utf8' }).stdout.trim().split('\n');
    expect(then).toBe('--context_primer.key_decisions+=…');
    expect((await runCli(dir, ['update', 'api', ...words, '--context_primer.key_decisions+=also read y'])).code).toBe(0);
    expect(JSON.parse(read(dir, FILE('api'))).context_primer).toEqual({ key_decisions: ['read src/x.ts first (PR 12)', 'also read y'] });
  });

  it('an append to one of its lists names the update that makes it the object it is read as (red team, 12-06)', async () => {
    const dir = repo();
    const before = messy(dir, 'api', { context_primer: 'read src/x.ts first' });
    const line = errorLine((await runCli(dir, ['update', 'api', '--context_primer.key_decisions+=also read y'])).stderr);
    expect(line.message).toBe('--context_primer.key_decisions+=also read y: cannot write inside context_primer: it is "read src/x.ts first", not an object');
    expect(line.hint).toBe(`make it the object it is read as first ('--context_primer:json={"key_decisions":["read src/x.ts first"]}'); the checkpoint was not changed`);
    expect(read(dir, FILE('api'))).toBe(before);
  });
});

describe('an item index into a map written where the protocol keeps a list (red team 62c 01)', () => {
  /** As a hand-written file has them: blockers keyed by id, rows as "name": "status", actions numbered from 1. */
  const maps = {
    status: 'blocked',
    blockers: { b1: { description: 'need the API key (ask ops)', needs: 'user_decision' } },
    progress_table: { planning: 'complete', 'sprint-1': 'in_progress' },
    next_actions: { '1': 'Ask ops for the key', '2': { text: 'Wire it in', done_when: 'npm test' } },
  };
  const shellWords = (word: string) => spawnSync('/bin/sh', ['-c', `printf '%s\\n' ${word}`], { encoding: 'utf8' }).stdout.replace(/\n$/, '').split('\n');

  it('is refused, file byte-identical, with the flag that makes the map that list, every entry kept; pasted, it works and so does the index', async () => {
    const dir = repo();
    const before = messy(dir, 'api', maps);
    const cases: Array<[string, string, unknown]> = [
      ['--blockers.0.resolved:json=true', 'blockers is a map of 1 entry', [{ id: 'b1', description: 'need the API key (ask ops)', needs: 'user_decision' }]],
      ['--progress_table.1.status=complete', 'progress_table is a map of 2 entries', [{ id: 'planning', label: 'planning', status: 'complete' }, { id: 'sprint-1', label: 'sprint-1', status: 'in_progress' }]],
      ['--next_actions.0=Ask ops today', 'next_actions is a map of 2 entries', ['Ask ops for the key', { text: 'Wire it in', done_when: 'npm test' }]],
    ];
    for (const [flag, what, list] of cases) {
      const r = await runCli(dir, ['update', 'api', flag]);
      expect(r.code, r.stderr).toBe(2);
      const line = errorLine(r.stderr);
      expect(line.lines, r.stderr).toBe(1);
      expect(line.message).toBe(`${flag}: ${what} here, not the list the protocol keeps: item ${/\.(\d)/.exec(flag)![1]} would be written as a new key "${/\.(\d)/.exec(flag)![1]}" of it`);
      expect(read(dir, FILE('api'))).toBe(before);
      const fix = /^make it the list it stands for, every entry kept: (.+), then address its items by index; the checkpoint was not changed$/.exec(line.hint!)?.[1];
      expect(fix, line.hint!).toBeDefined();
      const words = shellWords(fix!);
      expect(words).toHaveLength(1);
      expect(JSON.parse(words[0]!.replace(/^--\w+:json=/, ''))).toEqual(list);
    }
    // Each fix as pasted, then the index meant: the blocker resolved, the row complete, the file valid.
    for (const [flag] of cases) {
      const fix = /every entry kept: (.+), then/.exec(errorLine((await runCli(dir, ['update', 'api', flag])).stderr).hint!)![1]!;
      const made = await runCli(dir, ['update', 'api', ...shellWords(fix)]);
      expect(made.code, made.stderr).toBe(0);
    }
    for (const [flag] of cases) expect((await runCli(dir, ['update', 'api', flag])).code).toBe(0);
    const doc = JSON.parse(read(dir, FILE('api')));
    expect(doc.blockers[0]).toMatchObject({ id: 'b1', resolved: true });
    expect(doc.progress_table[1]).toEqual({ id: 'sprint-1', label: 'sprint-1', status: 'complete' });
    expect(doc.next_actions[0]).toBe('Ask ops today');
    expect((await runCli(dir, ['validate', 'api'])).code).toBe(0);
  });

  it('where no valid list keeps every entry as it is, says to make it by hand; never a flag update would refuse in turn', async () => {
    const dir = repo();
    const before = messy(dir, 'api', { progress_table: { planning: 'Done ✅' }, next_actions: { first: 'Ask ops', then: 'Wire it in' } });
    let line = errorLine((await runCli(dir, ['update', 'api', '--progress_table.0.status=complete'])).stderr);
    expect(line.hint).toBe('make it a list by hand (each entry a record {id, label, status}), then address its items by index; the checkpoint was not changed');
    line = errorLine((await runCli(dir, ['update', 'api', '--next_actions.0=x'])).stderr);
    expect(line.hint).toBe('make it a list by hand (its entries as the items), then address its items by index; the checkpoint was not changed');
    expect(read(dir, FILE('api'))).toBe(before);
  });

  it('a key written into such a map is noted as still wrong where the write changed it, never as "left as it was"', async () => {
    const dir = repo();
    messy(dir, 'api', maps);
    const r = await runCli(dir, ['update', 'api', '--blockers.b1.resolved:json=true']);
    expect(r.code, r.stderr).toBe(0);
    const note = r.stderr.split('\n').filter((l) => l.startsWith('checkpoint: note:'));
    expect(note).toHaveLength(1);
    expect(note[0]).toContain('already had 3 errors; still wrong where this write changed it: blockers: blockers must be an array; left as they were: progress_table');
    const json = await runCli(dir, ['update', 'api', '--blockers.b1.owner=ops', '--json']);
    const kept = JSON.parse(json.stdout).kept_errors as Array<{ path: string; rewritten?: true }>;
    expect(Object.fromEntries(kept.map((e) => [e.path, e.rewritten ?? false]))).toEqual({ blockers: true, progress_table: false, next_actions: false });
  });
});

describe('an append onto a field the protocol holds as one text (red team, 12-04)', () => {
  it('is told to set it, never to make it a list (which update would refuse); the file unchanged', async () => {
    const dir = repo();
    const before = messy(dir, 'api', {});
    for (const [flag, hint] of [['--phase+=deploy', "set it instead: --phase='<phase>'"], ['--status+=blocked', "set it instead: --status='<status>'"]]) {
      const r = await runCli(dir, ['update', 'api', flag!]);
      expect(r.code, flag).toBe(2);
      const line = errorLine(r.stderr);
      expect(line.message, flag).toMatch(/^--\w+\+=\w+: cannot append: \w+ holds one text \(".*"\), not a list$/);
      expect(line.hint, flag).toBe(`${hint}; the checkpoint was not changed`);
    }
    expect(read(dir, FILE('api'))).toBe(before);
  });
});

describe('an append onto null', () => {
  it('is told to start an empty list, never a list holding null', async () => {
    const dir = repo();
    messy(dir, 'api', { skill_state: { findings: null } });
    const line = errorLine((await runCli(dir, ['update', 'api', '--skill_state.findings+=x'])).stderr);
    expect(line.message).toBe('--skill_state.findings+=x: cannot append: skill_state.findings is not an array (it is null)');
    expect(line.hint).toBe("make it a list first ('--skill_state.findings:json=[]'), then append; the checkpoint was not changed");
  });
});

describe('an append onto an object', () => {
  it('is never told to make the object a list', async () => {
    const dir = repo();
    const before = messy(dir, 'api', { skill_state: { a: 1 } });
    const line = errorLine((await runCli(dir, ['update', 'api', '--skill_state+=x'])).stderr);
    expect(line).toMatchObject({ lines: 1, message: '--skill_state+=x: cannot append: skill_state is not an array (it is an object)' });
    expect(line.hint).toMatch(/^set a key in it \(--skill_state\.<key>=…\), or append to a list inside it/);
    expect(read(dir, FILE('api'))).toBe(before);
  });
});

describe('a restore that puts nothing back', () => {
  it('says no file was written with errors: it writes nothing, and the file stays byte-identical', async () => {
    const dir = repo();
    const runs = Array.from({ length: 8 }, (_, i) => ({ at: `2026-06-0${i + 1}T00:00:00Z`, ok: i }));
    messy(dir, 'api', { status: 'In Progress', skill_state: { run_history: runs } });
    expect((await runCli(dir, ['rotate', 'api', '--keep', '2'])).code).toBe(0);
    const file = readdirSync(join(dir, '.checkpoints/history'))[0]!;
    const first = await runCli(dir, ['restore', file]);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/note: .* is written with an error it already had: status/);
    const before = read(dir, FILE('api'));
    const again = await runCli(dir, ['restore', file]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/put 0 rotated entries back/);
    expect(again.stderr).not.toMatch(/is written with/);
    expect(read(dir, FILE('api'))).toBe(before);
  });
});

describe('resolve names a conflict by the path its line printed, whatever its key holds', () => {
  it('a key with a C1 control, a line separator and a bidi override: the printed path (or its JSON spelling) settles it', async () => {
    const key = 'k\n\u009b31mFAKE\u2028x\u202e';
    const base = (value: string) => ({ ...freshCheckpoint('api', { created_at: '2026-06-01T00:00:00Z', updated_at: '2026-06-01T00:00:00Z' }), skill_state: { [key]: value, other: 8 } });
    const make = () => {
      const dir = repo();
      write(dir, FILE('api'), `${JSON.stringify(base('base'), null, 2)}\n`);
      git(dir, ['add', '-A']);
      git(dir, ['commit', '-qm', 'base']);
      git(dir, ['checkout', '-qb', 'other']);
      write(dir, FILE('api'), `${JSON.stringify(base('theirs'), null, 2)}\n`);
      git(dir, ['commit', '-qam', 'theirs']);
      git(dir, ['checkout', '-q', 'main']);
      write(dir, FILE('api'), `${JSON.stringify(base('ours'), null, 2)}\n`);
      git(dir, ['commit', '-qam', 'ours']);
      expect(spawnSync('git', ['merge', '-q', 'other'], { cwd: dir, env: GIT_ENV }).status).not.toBe(0);
      return dir;
    };
    const dir = make();
    const shown = await runCli(dir, ['resolve']);
    expect(shown.code).toBe(1);
    const printed = /conflict at (skill_state\[".*"\]): ours/.exec(shown.stdout + shown.stderr)![1]!;
    expect(printed).toBe('skill_state["k\\n\\x9b31mFAKE\\u2028x\\u202e"]');
    const r = await runCli(dir, ['resolve', '--theirs', printed]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(read(dir, FILE('api'))).skill_state[key]).toBe('theirs');
    // Its JSON spelling names it too.
    const again = make();
    await runCli(again, ['resolve']);
    expect((await runCli(again, ['resolve', '--ours', 'skill_state["k\\n\\u009b31mFAKE\\u2028x\\u202e"]'])).code).toBe(0);
    expect(JSON.parse(read(again, FILE('api'))).skill_state[key]).toBe('ours');
  });
});
