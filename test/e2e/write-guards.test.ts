// What a write may leave on disk: never a file the readers then refuse (too big, nested too
// deep), and never a refusal for a problem the file already had and the write left as it was.
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, errorLine, makeRepo, read, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';
import { freshCheckpoint } from '../helpers/fixtures.js';
import { MAX_READ_BYTES } from '../../src/store/checkpoints.js';
import { MAX_JSON_DEPTH } from '../../src/protocol/json.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

function repo(): string {
  const dir = makeRepo();
  dirs.push(dir);
  return dir;
}

const FILE = (skill: string) => `.checkpoints/${skill}.checkpoint.json`;

/** A hand-kept checkpoint: CRLF line ends, prose in paths, a score written 8.0, a months-old date. */
function messy(dir: string, skill: string, over: Record<string, unknown> = {}): string {
  const doc = freshCheckpoint(skill, {
    created_at: '2026-06-01T09:00:00Z',
    context_primer: { key_decisions: ['JWT in cookies (see PR 12)'], generated_files: ['src/x.ts (PR 12)', 'src/**/*.test.ts', 'the migration notes'] },
    eval_scores: [{ rubric: 'audit', score: 8, max: 10, at: '2026-06-01T00:00:00Z' }],
    ...over,
  });
  const text = `${JSON.stringify(doc, null, 2).replace('"score": 8,', '"score": 8.0,').replace(/\n/g, '\r\n')}\r\n`;
  write(dir, FILE(skill), text);
  return text;
}

describe('a write never leaves a file the readers refuse', () => {
  it('refuses an update whose result passes the read size limit; the file stays readable and byte-identical', async () => {
    const dir = repo();
    // Just under the limit already (a long-running skill that kept dumps in skill_state).
    const before = messy(dir, 'old', { skill_state: { dump: 'x'.repeat(MAX_READ_BYTES - 100_000) } });
    const r = await runCli(dir, ['update', 'old', `--skill_state.blob2=${'y'.repeat(120_000)}`]);
    expect(r.code).toBe(2);
    const line = errorLine(r.stderr);
    expect(line.lines).toBe(1);
    expect(line.message).toMatch(new RegExp(`^refused: the result would be \\d+ bytes, over the ${MAX_READ_BYTES}-byte limit`));
    expect(line.hint).toContain('was not changed');
    expect(read(dir, FILE('old'))).toBe(before);
    expect((await runCli(dir, ['show', 'old'])).code).toBe(0);
    // A write that fits still goes through.
    expect((await runCli(dir, ['update', 'old', '--step=trimmed'])).code).toBe(0);
  });

  it('refuses a value nested past the read depth limit, wherever it lands; one level less is written and reads back', async () => {
    const dir = repo();
    const before = messy(dir, 'crlf');
    // skill_state.deep sits at depth 2: 255 more levels make 257, one past the reader's 256.
    const nest = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    const r = await runCli(dir, ['update', 'crlf', `--skill_state.deep:json=${nest(MAX_JSON_DEPTH - 1)}`]);
    expect(r.code).toBe(2);
    const line = errorLine(r.stderr);
    expect(line.lines).toBe(1);
    expect(line.message).toMatch(/^refused: the result would nest deeper than 256 levels at skill_state\.deep\[0\]/);
    expect(read(dir, FILE('crlf'))).toBe(before);
    // A long dotted path nests too: refused the same way, never a stack overflow.
    const path = Array.from({ length: 1_000 }, () => 'a').join('.');
    const long = await runCli(dir, ['update', 'crlf', `--skill_state.${path}=x`]);
    expect(long.code).toBe(2);
    expect(errorLine(long.stderr).message).toMatch(/^refused: the result would nest deeper than 256 levels at skill_state\.a\.a/);
    expect(read(dir, FILE('crlf'))).toBe(before);
    // At the limit: written, and every reader still takes it.
    expect((await runCli(dir, ['update', 'crlf', `--skill_state.deep:json=${nest(MAX_JSON_DEPTH - 2)}`])).code).toBe(0);
    expect((await runCli(dir, ['validate'])).code).toBe(0);
    expect((await runCli(dir, ['update', 'crlf', '--step=next'])).code).toBe(0);
  });
});

describe('a problem the file already had does not block writes that leave it as it was', () => {
  /** web: a top-level status outside the enum; api: a progress_table row with one. Both hand-written. */
  function offEnum(dir: string): { web: string; api: string } {
    const web = messy(dir, 'web', { status: 'blocked-on-review', next_actions: ['Wait for the review of PR 12', 'Merge it'] });
    const api = messy(dir, 'api', {
      progress_table: [{ id: 'auth', label: 'Auth', status: 'complete' }, { id: 'crud', label: 'CRUD (see notes)', status: 'blocked-on-review' }],
      next_actions: ['Write the auth middleware tests', { text: 'Ship it', done_when: 'true' }],
    });
    return { web, api };
  }

  it('update, done and pause --auto go through, each saying in one line that the error was already there', async () => {
    const dir = repo();
    offEnum(dir);
    const note = (stderr: string, file: string, where: string) => {
      const lines = stderr.split('\n').filter((l) => l.startsWith('checkpoint: note:'));
      expect(lines, stderr).toHaveLength(1);
      expect(lines[0]).toContain(`${file} already had an error, left as it was: ${where}`);
    };
    const update = await runCli(dir, ['update', 'api', '--step=crud']);
    expect(update.code, update.stderr).toBe(0);
    note(update.stderr, FILE('api'), 'progress_table[1].status');
    const done = await runCli(dir, ['done', 'api']);
    expect(done.code, done.stderr).toBe(0);
    note(done.stderr, FILE('api'), 'progress_table[1].status');
    // The PreCompact hook's command: documented to exit 0.
    const pause = await runCli(dir, ['pause', 'web', '--auto']);
    expect(pause.code, pause.stderr).toBe(0);
    note(pause.stderr, FILE('web'), 'status');
    const json = await runCli(dir, ['update', 'web', '--step=review', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).kept_errors).toEqual([expect.objectContaining({ path: 'status' })]);
    // The error stays as the user wrote it.
    expect(JSON.parse(read(dir, FILE('web'))).status).toBe('blocked-on-review');
    expect(JSON.parse(read(dir, FILE('api'))).progress_table[1].status).toBe('blocked-on-review');
  });

  it('an error inside a list item the write moves is still the file\'s own: done goes through, twice', async () => {
    // A date-only `at` in recently_done and an action object without text, both hand-written:
    // done puts a record before the one and takes an action off before the other.
    const dir = repo();
    messy(dir, 'api', {
      next_actions: ['Write the auth middleware', 'Wire it in (PR 12)', { title: 'Run tests', done_when: 'npm test' }, 'Ship'],
      recently_done: [{ at: '2026-11-30', action: 'Set up the repo' }],
    });
    for (const [i, action] of ['Write the auth middleware', 'Wire it in (PR 12)'].entries()) {
      const r = await runCli(dir, ['done', 'api']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`done: ${action}`);
      expect(r.stderr).toContain('already had 2 errors, left as they were');
      expect(r.stdout).not.toContain('undefined');
      // Read by its words as `next` reads it, not "has no text to show" (red team rt60c 01).
      if (i === 1) expect(r.stdout).toContain('\n  next: Run tests\n');
      const doc = JSON.parse(read(dir, FILE('api')));
      expect(doc.recently_done[i + 1]).toEqual({ at: '2026-11-30', action: 'Set up the repo' });
    }
    // The bad action is first now: shown as such, never as "undefined".
    const doc = JSON.parse(read(dir, FILE('api')));
    expect(doc.next_actions[0]).toEqual({ title: 'Run tests', done_when: 'npm test' });
    expect(read(dir, FILE('api'))).toContain('"score": 8.0');
  });

  it('an error a write moves and also changes is the write\'s: refused', async () => {
    const dir = repo();
    const before = messy(dir, 'api', { next_actions: ['a', 'b', { title: 'c' }] });
    // The item moves up one place and gains another bad field: not the error the file had.
    const r = await runCli(dir, ['update', 'api', '--next_actions:json=["b",{"title":"c","text":""}]']);
    expect(r.code).toBe(2);
    expect(errorLine(r.stderr).message).toMatch(/^refused: the result would be invalid at next_actions\[1\]\.text/);
    expect(read(dir, FILE('api'))).toBe(before);
  });

  it('a write that brings in an error of its own is still refused, the file byte-identical', async () => {
    const dir = repo();
    const { web } = offEnum(dir);
    const r = await runCli(dir, ['update', 'web', '--status=parked', '--step=x']);
    expect(r.code).toBe(2);
    expect(errorLine(r.stderr).message).toMatch(/^refused: the result would be invalid at status: status "parked"/);
    expect(read(dir, FILE('web'))).toBe(web);
    const row = await runCli(dir, ['update', 'web', '--progress_table.0.status=half-done']);
    expect(row.code).toBe(2);
    expect(read(dir, FILE('web'))).toBe(web);
  });

  it('a new wrong value over a wrong one is the write\'s own error: refused (red team, 12-03)', async () => {
    const dir = repo();
    const { api } = offEnum(dir);
    // An unfilled placeholder pasted from a fix line (refused as such), or any other value outside the enum.
    for (const [value, refusal] of [
      ['<complete|in_progress|not_started|blocked|failed>', /is a placeholder from a hint, not a value$/],
      ['bogus', /^refused: the result would be invalid at progress_table\[1\]\.status/],
    ] as const) {
      const r = await runCli(dir, ['update', 'api', `--progress_table.1.status=${value}`]);
      expect(r.code, r.stderr).toBe(2);
      expect(errorLine(r.stderr).message).toMatch(refusal);
      expect(read(dir, FILE('api'))).toBe(api);
    }
    // The fix itself goes through.
    expect((await runCli(dir, ['update', 'api', '--progress_table.1.status=blocked'])).code).toBe(0);
  });

  it('migrate --dry-run says what the real run does, file by file', async () => {
    const dir = repo();
    const { web } = offEnum(dir);
    // web: a 1.0 file with the off-enum status (migrates, the error kept); old: a leftover the
    // repair would turn into an invalid status (refused by both runs).
    write(dir, FILE('web'), web.replace('"protocol_version": "1.1"', '"protocol_version": "1.0"'));
    const old = freshCheckpoint('old', { protocol_version: '1.0' }) as Record<string, unknown>;
    delete old.status;
    write(dir, FILE('old'), `${JSON.stringify({ ...old, 'status:json': '"parked"' }, null, 2)}\n`);
    const dry = await runCli(dir, ['migrate', '--dry-run', '--json']);
    const onDisk = [read(dir, FILE('web')), read(dir, FILE('old'))];
    const real = await runCli(dir, ['migrate', '--json']);
    type Report = { skill: string; changed: boolean; error: { code: string } | null; kept_errors: { path: string }[] };
    const outcome = (stdout: string) =>
      (JSON.parse(stdout).files as Report[]).map((f) => ({ skill: f.skill, changed: f.changed, error: f.error?.code ?? null, kept: f.kept_errors.map((e) => e.path) }));
    expect(outcome(dry.stdout)).toEqual(outcome(real.stdout));
    expect(outcome(real.stdout)).toEqual([
      { skill: 'api', changed: false, error: null, kept: [] },
      { skill: 'old', changed: false, error: 'E_INVALID', kept: [] },
      { skill: 'web', changed: true, error: null, kept: ['status'] },
    ]);
    expect(dry.code).toBe(real.code);
    expect(read(dir, FILE('old'))).toBe(onDisk[1]);
    expect(JSON.parse(read(dir, FILE('web'))).protocol_version).toBe('1.1');
  });
});

describe('done keeps the whole action in recently_done', () => {
  it('every field of an object action, with its exact text, next to at and action; older records untouched', async () => {
    const dir = repo();
    const text = messy(dir, 'api', {
      next_actions: ['PLACEHOLDER', 'Write the auth middleware tests'],
      recently_done: [{ at: '2026-06-01T00:00:00Z', text: 'Set up CI (hand-written record)' }],
    }).replace('"PLACEHOLDER"', '{"text": "Run evals \\u2014 sprint 2", "done_when": "true", "weird": 1e3, "meta": {"pr": 12, "score": 8.0}}');
    write(dir, FILE('api'), text);
    const r = await runCli(dir, ['done', 'api']);
    expect(r.code, r.stderr).toBe(0);
    const after = read(dir, FILE('api'));
    const done = JSON.parse(after).recently_done;
    expect(done).toEqual([
      { at: expect.any(String), action: 'Run evals — sprint 2', done_when: 'true', weird: 1000, meta: { pr: 12, score: 8 } },
      { at: '2026-06-01T00:00:00Z', text: 'Set up CI (hand-written record)' },
    ]);
    // The texts as written: a respelled number or escape would be a change nobody asked for.
    expect(after).toContain('"weird": 1e3');
    expect(after).toContain('"score": 8.0');
    expect(after).toContain('"action": "Run evals \\u2014 sprint 2"');
  });

  it('a recently_done that is not a list is refused, never replaced', async () => {
    const dir = repo();
    const before = messy(dir, 'api', { recently_done: 'Set up CI by hand (see PR 3)', next_actions: ['Write the tests', 'Ship it'] });
    const r = await runCli(dir, ['done', 'api']);
    expect(r.code).toBe(2);
    expect(errorLine(r.stderr)).toMatchObject({ lines: 1, message: 'recently_done of "api" is not a list: done would replace it and lose what it holds' });
    expect(read(dir, FILE('api'))).toBe(before);
  });

  it('names the update that makes it a valid list, which then lets done through (red team 62c 06)', async () => {
    const shellWords = (line: string) => spawnSync('/bin/sh', ['-c', `printf '%s\\n' ${line}`], { encoding: 'utf8' }).stdout.replace(/\n$/, '').split('\n');
    // null is what Python's json.dump writes for None; one entry written without its list; a number no list can hold as it is.
    const cases: Array<[unknown, string | null]> = [
      [null, "checkpoint update api '--recently_done:json=[]'"],
      ['Set up CI by hand (see PR 3)', `checkpoint update api '--recently_done:json=["Set up CI by hand (see PR 3)"]'`],
      [8.0, null],
    ];
    for (const [value, fix] of cases) {
      const dir = repo();
      const before = messy(dir, 'api', { recently_done: value, next_actions: ['Write the tests', 'Ship it'] });
      const r = await runCli(dir, ['done', 'api']);
      expect(r.code).toBe(2);
      const line = errorLine(r.stderr);
      expect(line.message).toBe(value === null ? 'recently_done of "api" is null, not a list' : 'recently_done of "api" is not a list: done would replace it and lose what it holds');
      expect(read(dir, FILE('api'))).toBe(before);
      if (fix === null) {
        expect(line.hint).toBe('make it a list by hand (each entry {at, action} or a string, what it holds kept in one), then run done again; nothing was changed');
        continue;
      }
      expect(line.hint).toBe(`make it a list first: ${fix}, then run done again; nothing was changed`);
      // Pasted as printed, then done twice: the file stays valid.
      expect((await runCli(dir, shellWords(fix).slice(1))).code).toBe(0);
      for (let i = 0; i < 2; i++) expect((await runCli(dir, ['done', 'api', '--complete'])).code).toBe(0);
      expect((await runCli(dir, ['validate', 'api'])).code).toBe(0);
    }
  });

  it('an action with its own at or action field is kept whole beside the record', async () => {
    const dir = repo();
    const action = { text: 'Deploy', at: 'after the freeze', action: 'kubectl apply', done_when: 'true' };
    messy(dir, 'api', { next_actions: [action, 'Announce'] });
    expect((await runCli(dir, ['done', 'api'])).code).toBe(0);
    expect(JSON.parse(read(dir, FILE('api'))).recently_done[0]).toEqual({ at: expect.any(String), action: 'Deploy', next_action: action });
  });
});

describe('the wire version a write stamps', () => {
  it.each([['"2.0"'], ['"1.2"'], ['2'], ['"v1.10"'], ['"1.2-beta"'], ['"1.1.1"']])('a file that says it is a newer version (%s) is never relabelled: update and done refuse, byte-identical', async (written) => {
    const dir = repo();
    const before = messy(dir, 'api', { next_actions: ['Wire the middleware (PR 12)', 'Ship'] }).replace('"protocol_version": "1.1"', `"protocol_version": ${written}`);
    write(dir, FILE('api'), before);
    for (const args of [['update', 'api', '--step=s2'], ['done', 'api']]) {
      const r = await runCli(dir, args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(errorLine(r.stderr).message).toContain(`refused: the checkpoint says protocol_version ${written}, newer than the 1.1 this checkpoint writes`);
      expect(read(dir, FILE('api'))).toBe(before);
    }
  });
  it.each([
    ['"1.0"', null],
    ['1.1', 'protocol_version was the number 1.1, where the protocol writes the string "1.1"'],
    ['"0.9"', 'protocol_version ("0.9") was not a version checkpoint knows (1.0, 1.1)'],
    ['"1.1-rc.1"', 'protocol_version ("1.1-rc.1") was not a version checkpoint knows (1.0, 1.1)'],
  ])('%s is stamped "1.1", saying so when it was no version checkpoint knows', async (written, note) => {
    const dir = repo();
    write(dir, FILE('api'), messy(dir, 'api').replace('"protocol_version": "1.1"', `"protocol_version": ${written}`));
    const r = await runCli(dir, ['update', 'api', '--step=s2']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(read(dir, FILE('api'))).protocol_version).toBe('1.1');
    const notes = r.stderr.split('\n').filter((l) => l.includes('protocol_version'));
    if (note === null) expect(notes).toEqual([]);
    else expect(notes).toEqual([expect.stringContaining(note)]);
  });
});

describe('done --verify decides every refusal before it runs the check', () => {
  it.each(['In Progress', 'in-progress', 'IN_PROGRESS'])('the last action is refused as well when status is written %j, as every reader reads it', async (status) => {
    const dir = repo();
    const before = messy(dir, 'api', { status, next_actions: ['Ship it (PR 12)'] });
    const r = await runCli(dir, ['done', 'api']);
    expect(r.code).toBe(2);
    expect(errorLine(r.stderr).message).toContain(`that was the last action of "api" and it is "${status}" (in_progress)`);
    expect(read(dir, FILE('api'))).toBe(before);
    const ok = await runCli(dir, ['done', 'api', '--complete']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(read(dir, FILE('api'))).status).toBe('complete');
  });

  it('an action ticked by hand before the last one: the refusal leaves the file byte-identical, the ticked one included (red team, 12-06)', async () => {
    const dir = repo();
    const before = messy(dir, 'api', { next_actions: ['Write auth \u2705', 'Ship v2 (PR 12)'] });
    const r = await runCli(dir, ['done', 'api']);
    expect(r.code).toBe(2);
    expect(errorLine(r.stderr).message).toContain('those were the last 2 actions of "api" and it is in_progress');
    expect(read(dir, FILE('api'))).toBe(before);
    const ok = await runCli(dir, ['done', 'api', '--complete']);
    expect(ok.code, ok.stderr).toBe(0);
    const after = JSON.parse(read(dir, FILE('api')));
    expect(after.next_actions).toEqual([]);
    expect(after.recently_done.map((e: { action: string }) => e.action)).toEqual(['Ship v2 (PR 12)', 'Write auth \u2705']);
  });

  it('the last action while in_progress is refused without running done_when; with --complete it runs', async () => {
    const dir = repo();
    const before = messy(dir, 'api', { next_actions: [{ text: 'Ship it (PR 12)', done_when: 'touch ran' }] });
    const r = await runCli(dir, ['done', 'api', '--verify']);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('verifying');
    expect(errorLine(r.stderr).message).toContain('that was the last action of "api" and it is in_progress');
    expect(existsSync(join(dir, 'ran'))).toBe(false);
    expect(read(dir, FILE('api'))).toBe(before);
    const ok = await runCli(dir, ['done', 'api', '--verify', '--complete']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(existsSync(join(dir, 'ran'))).toBe(true);
    expect(JSON.parse(read(dir, FILE('api'))).status).toBe('complete');
  });
});

describe('update quirks', () => {
  it('a leading-zero index and an empty :json value are one-line refusals; the file stays byte-identical', async () => {
    const dir = repo();
    const before = messy(dir, 'api', { next_actions: ['Write the tests', 'Ship it (PR 12)'] });
    const zero = await runCli(dir, ['update', 'api', '--next_actions.01=Ship it today']);
    expect(zero.code).toBe(2);
    expect(errorLine(zero.stderr)).toMatchObject({ lines: 1, message: '--next_actions.01=Ship it today: index "01" has a leading zero', hint: 'write it as 1' });
    const empty = await runCli(dir, ['update', 'api', '--step:json=']);
    expect(empty.code).toBe(2);
    expect(errorLine(empty.stderr)).toMatchObject({ lines: 1, message: '--step:json=: no JSON value after "="' });
    expect(read(dir, FILE('api'))).toBe(before);
  });
});
