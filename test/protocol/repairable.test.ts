import { parseUpdateFlag } from '../../src/protocol/update-ops.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { handRepair, readableView, repairPlan, suggestEnum, unreadableErrors } from '../../src/protocol/repairable.js';
import { validateCheckpoint } from '../../src/protocol/validate.js';
import { parseJson } from '../../src/protocol/json.js';
import { CHECKPOINT_STATUSES, ROW_STATUSES } from '../../src/protocol/shapes.generated.js';
import { checkpointDoc } from '../helpers/fixtures.js';

describe('suggestEnum', () => {
  it('reads case and separators loosely and a small table of words, nothing fuzzy', () => {
    expect(suggestEnum('Done', ROW_STATUSES)).toBe('complete');
    expect(suggestEnum('in-progress', CHECKPOINT_STATUSES)).toBe('in_progress');
    expect(suggestEnum('In Progress', CHECKPOINT_STATUSES)).toBe('in_progress');
    expect(suggestEnum('COMPLETE', CHECKPOINT_STATUSES)).toBe('complete');
    expect(suggestEnum('todo', ROW_STATUSES)).toBe('not_started');
    expect(suggestEnum('todo', CHECKPOINT_STATUSES)).toBeNull(); // no such top-level status
    expect(suggestEnum('complet', CHECKPOINT_STATUSES)).toBeNull();
    expect(suggestEnum('wip-ish', CHECKPOINT_STATUSES)).toBeNull();
    // Emoji and punctuation around a word people write (red team, 12-03).
    expect(suggestEnum('Done ✅', ROW_STATUSES)).toBe('complete');
    expect(suggestEnum('WIP!', CHECKPOINT_STATUSES)).toBe('in_progress');
    expect(suggestEnum('🚧 in progress', ROW_STATUSES)).toBe('in_progress');
    // The value and its reason (red team, 12-05): the words before it.
    expect(suggestEnum('blocked - waiting on API key', CHECKPOINT_STATUSES)).toBe('blocked');
    expect(suggestEnum('Blocked (waiting on API key)', CHECKPOINT_STATUSES)).toBe('blocked');
    expect(suggestEnum('blocked: waiting for key', CHECKPOINT_STATUSES)).toBe('blocked');
    expect(suggestEnum('on hold \u2014 vendor', CHECKPOINT_STATUSES)).toBe('blocked');
    expect(suggestEnum('done, shipped in #12', ROW_STATUSES)).toBe('complete');
    expect(suggestEnum('almost done - one test left', CHECKPOINT_STATUSES)).toBeNull();
    expect(suggestEnum('in-progress-ish', CHECKPOINT_STATUSES)).toBeNull();
    // A reason a linking word joins on, slugs too (red team, rt60c 02): read as blocked, like "blocked - on review".
    expect(suggestEnum('blocked-on-review', CHECKPOINT_STATUSES)).toBe('blocked');
    expect(suggestEnum('blocked_on_review', CHECKPOINT_STATUSES)).toBe('blocked');
    expect(suggestEnum('Waiting for design sign-off', CHECKPOINT_STATUSES)).toBe('blocked');
    expect(suggestEnum('in progress on api', CHECKPOINT_STATUSES)).toBe('in_progress');
    expect(suggestEnum('blocked-ish', CHECKPOINT_STATUSES)).toBeNull();
  });

  it('only ever suggests a value of the enum', () => {
    fc.assert(fc.property(fc.string(), (s) => {
      const m = suggestEnum(s, CHECKPOINT_STATUSES);
      return m === null || (CHECKPOINT_STATUSES as readonly string[]).includes(m);
    }));
  });
});

describe('readableView', () => {
  const doc = (over: Record<string, unknown>) => ({ ...checkpointDoc(), ...over });
  const view = (d: unknown) => readableView(d, validateCheckpoint(d).errors);

  it('keeps statuses as written, reads an action object by its words, ranks by the clear meaning', () => {
    const r = view(doc({ status: 'In Progress', next_actions: [{ action: 'Wire it' }, 'Ship'] }))!;
    expect(r.view.status).toBe('In Progress');
    expect(r.meaning.status).toBe('in_progress');
    // Its other members kept: a "pr" or "ticket" beside the words still names its work.
    expect(r.view.next_actions).toEqual([{ action: 'Wire it', text: 'Wire it' }, 'Ship']);
    expect(r.notes.map((n) => n.fix)).toEqual(['--status=in_progress', "--next_actions.0.text='Wire it'"]);
  });

  it('an action object is read by its words member, never its id; the fix sets .text (other members kept) quoted for the shell', () => {
    const r = view(doc({ next_actions: [{ id: 'n1', action: "Ship the release (it's PR 12) — ü" }, { done_when: 'npm test', id: 'n2', title: 'Run it' }] }))!;
    expect(r.view.next_actions).toEqual([{ id: 'n1', action: "Ship the release (it's PR 12) — ü", text: "Ship the release (it's PR 12) — ü" }, { done_when: 'npm test', id: 'n2', title: 'Run it', text: 'Run it' }]);
    expect(r.notes.map((n) => n.fix)).toEqual([`--next_actions.0.text='Ship the release (it'\\''s PR 12) — ü'`, "--next_actions.1.text='Run it'"]);
    // Text that cannot be printed as one line is spelled out with ANSI-C escapes, so the paste sets it exactly.
    expect(view(doc({ next_actions: [{ action: 'two\nlines' }] }))!.notes[0]!.fix).toBe(`--next_actions.0.text="$(printf -- 'two\\012lines')"`);
  });

  it('words update would not read as plain text (starting ":json", shaped like a placeholder) are set through :json, so the printed fix works when pasted (red team, 12-05)', () => {
    const r = view(doc({ next_actions: [{ action: ':json output for the API' }, { action: '<phase>' }], progress_table: [{ id: '<draft>', status: 'complete' }] }))!;
    const fixes = r.notes.map((n) => n.fix);
    expect(fixes).toContain(`--next_actions.0.text:json='":json output for the API"'`);
    expect(fixes).toContain(`--next_actions.1.text:json='"<phase>"'`);
    expect(fixes).toContain(`--progress_table.0.label:json='"<draft>"'`);
    // Each parses back to exactly those words.
    for (const fix of fixes.filter((f): f is string => f !== null && f.includes(':json='))) {
      const flag = fix.replace(/='(.*)'$/, '=$1');
      expect(typeof parseUpdateFlag(flag).value).toBe('string');
    }
  });

  it('a done_when written as a number is fixed with the text, so the fix leaves the item valid; a list is said by hand', () => {
    const r = view(doc({ next_actions: [{ action: 'ok', done_when: 5 }, { text: 'Run it', done_when: 8.0 }, { task: 'Lint', done_when: ['npm run lint'] }] }))!;
    expect(r.view.next_actions).toEqual([{ action: 'ok', done_when: 5, text: 'ok' }, { text: 'Run it', done_when: 8 }, { task: 'Lint', done_when: ['npm run lint'], text: 'Lint' }]);
    expect(r.notes.map((n) => [n.fix, n.byHand])).toEqual([
      ["--next_actions.0.text='ok' --next_actions.0.done_when='5'", undefined],
      ["--next_actions.1.done_when='8'", undefined],
      ["--next_actions.2.text='Lint'", 'make next_actions[2].done_when one command string, or remove it'],
    ]);
    // The two commands give a valid file.
    const fixed = doc({ next_actions: [{ action: 'ok', done_when: '5', text: 'ok' }, { text: 'Run it', done_when: '8' }] });
    expect(validateCheckpoint(fixed).errors).toEqual([]);
  });

  it("a number's fix and problem carry the text the file wrote it with (parseJson's literal texts), not the double's", () => {
    const text = JSON.stringify(doc({ next_actions: [{ text: 'Run it (PR 12)', done_when: 8 }, { text: 9, title: 'Lint' }, 'Ship'] }), null, 2)
      .replace('"done_when": 8', '"done_when": 8.0')
      .replace('"text": 9', '"text": 9.50e0');
    const parsed = parseJson(text);
    let asked = 0;
    const r = readableView(parsed.value, validateCheckpoint(parsed.value).errors, () => (asked++, parsed.texts))!;
    expect(r.notes.map((n) => [n.problem, n.fix])).toEqual([
      ['next_actions[0].done_when is the number 8.0, not a command string', "--next_actions.0.done_when='8.0'"],
      ['next_actions[1].text is not text (9.50e0)', "--next_actions.1.text='Lint'"],
    ]);
    expect(asked).toBeGreaterThan(0);
    // Without a number to spell out, the texts are never asked for (reading pays no scan).
    asked = 0;
    readableView(doc({ status: 'Done' }), validateCheckpoint(doc({ status: 'Done' })).errors, () => (asked++, parsed.texts));
    expect(asked).toBe(0);
  });

  it('any number written by hand as done_when is fixed to exactly its text', () => {
    const literal = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((v) => JSON.stringify(v)),
      fc.tuple(fc.integer({ min: -999, max: 999 }), fc.stringMatching(/^[0-9]{0,4}0$/)).map(([i, f]) => `${i}.${f}`),
      fc.tuple(fc.integer({ min: 1, max: 9 }), fc.constantFrom('e', 'E', 'e+', 'E-'), fc.integer({ min: 0, max: 30 })).map(([m, e, x]) => `${m}${e}${x}`),
    );
    fc.assert(fc.property(literal, (lit) => {
      const text = JSON.stringify(doc({ next_actions: [{ text: 'Check docs/**/*.md', done_when: 'X' }] }), null, 2).replace('"X"', lit);
      const parsed = parseJson(text);
      const fix = readableView(parsed.value, validateCheckpoint(parsed.value).errors, () => parsed.texts)!.notes[0]!.fix;
      expect(fix).toBe(`--next_actions.0.done_when='${lit}'`);
    }));
  });

  it('next_actions written as one string reads as a list of that action, fixed by making it one', () => {
    const r = view(doc({ next_actions: 'Merge PR #12 then deploy' }))!;
    expect(r.view.next_actions).toEqual(['Merge PR #12 then deploy']);
    expect(r.notes).toEqual([{ path: 'next_actions', problem: 'next_actions is a string ("Merge PR #12 then deploy"), not a list of actions', fix: `--next_actions:json='["Merge PR #12 then deploy"]'` }]);
    const long = view(doc({ next_actions: 'x'.repeat(600) }))!.notes[0]!;
    expect([long.fix, long.byHand]).toEqual([null, 'make next_actions a list holding that text (it is 600 characters, too long to spell out here)']);
  });

  it('an action with empty text and no other words is no slip (the file needs repair, by hand)', () => {
    expect(view(doc({ next_actions: [{ text: '' }] }))).toBeNull();
    expect(handRepair({ level: 'error', path: 'next_actions[0].text', message: 'x' })).toBe("write the action's words into next_actions[0].text, or delete that item, by hand");
    // With words elsewhere in it, they are its text.
    expect(view(doc({ next_actions: [{ text: ' ', description: 'Ship' }] }))!.notes[0]!.fix).toBe("--next_actions.0.text='Ship'");
  });

  it('reads a row status as meant where the meaning is clear; the view keeps every row as written', () => {
    const rows = [{ id: 'a', label: 'A', status: 'Done' }, { id: 'b', label: 'B', status: 'In Progress' }, { id: 'c', label: 'C', status: 'someday' }, { id: 'd', label: 'D', status: 'complete' }];
    const r = view(doc({ progress_table: rows }))!;
    expect(r.view.progress_table).toEqual(rows);
    expect(r.meaning.progress_table!.map((row) => row.status)).toEqual(['complete', 'in_progress', 'someday', 'complete']);
    expect(r.meaning.progress_table![0]).toEqual({ id: 'a', label: 'A', status: 'complete' });
  });

  it('for any rows, a row reads as meant exactly where suggestEnum gives a meaning; the view and every other member stay as written', () => {
    const status = fc.oneof(fc.constantFrom(...ROW_STATUSES, 'Done', 'in-progress', 'WIP', 'todo', 'Blocked', 'someday', ''), fc.string());
    fc.assert(fc.property(fc.array(status, { minLength: 1, maxLength: 6 }), (statuses) => {
      const rows = statuses.map((st, i) => ({ id: `r${i}`, label: `Row ${i} (PR ${i})`, status: st }));
      const r = view(doc({ progress_table: rows }));
      if (r === null) return statuses.every((st) => (ROW_STATUSES as readonly string[]).includes(st));
      expect(r.view.progress_table).toEqual(rows);
      const meant = r.meaning.progress_table!;
      statuses.forEach((st, i) => {
        const expected = (ROW_STATUSES as readonly string[]).includes(st) ? st : suggestEnum(st, ROW_STATUSES) ?? st;
        expect(meant[i]).toEqual({ ...rows[i], status: expected });
      });
      return true;
    }));
  });

  it('a log entry dated by its day reads as written, fixed to that day\'s start in UTC; a day that does not exist is no slip', () => {
    const d = doc({ status: 'In Progress', recently_done: [{ at: '2026-11-30T10:00:00Z', action: 'a' }, { at: '2026-08-30', action: 'Set up the repo' }], eval_scores: [{ rubric: 'audit', score: 8, max: 10, at: '2026-09-01' }] });
    const r = view(d)!;
    expect(r.view.recently_done).toEqual(d.recently_done);
    expect(r.notes.map((n) => [n.path, n.fix])).toEqual([
      ['status', '--status=in_progress'],
      ['recently_done[1].at', '--recently_done.1.at=2026-08-30T00:00:00Z'],
      ['eval_scores[0].at', '--eval_scores.0.at=2026-09-01T00:00:00Z'],
    ]);
    // The fix leaves a valid file.
    const fixed = structuredClone(d) as any;
    fixed.status = 'in_progress';
    fixed.recently_done[1].at = '2026-08-30T00:00:00Z';
    fixed.eval_scores[0].at = '2026-09-01T00:00:00Z';
    expect(validateCheckpoint(fixed).errors).toEqual([]);
    for (const at of ['2026-02-30', '30/08/2026', 'last week', '2026-8-30']) expect(view(doc({ recently_done: [{ at, action: 'a' }] })), at).toBeNull();
  });

  it('a time written without its zone or with a space for the T reads as its instant in UTC; updated_at is fixed by any write', () => {
    const d = doc({ created_at: '2026-06-01T10:00:00', updated_at: '2026-09-14 09:12', recently_done: [{ at: '2026-09-13 17:05:30.5', action: 'a' }, { at: '2026-09-14 08:00:00+02:00', action: 'b' }] });
    const r = view(d)!;
    expect(r.view).toEqual(d);
    expect(r.meaning).toMatchObject({ created_at: '2026-06-01T10:00:00Z', updated_at: '2026-09-14T09:12:00Z', recently_done: [{ at: '2026-09-13T17:05:30.5Z', action: 'a' }, { at: '2026-09-14T08:00:00+02:00', action: 'b' }] });
    expect(r.notes.map((n) => [n.path, n.fix, n.byHand])).toEqual([
      ['created_at', '--created_at=2026-06-01T10:00:00Z', undefined],
      ['updated_at', null, 'write updated_at as "2026-09-14T09:12:00Z" (any `checkpoint update` stamps it anew)'],
      ['recently_done[0].at', '--recently_done.0.at=2026-09-13T17:05:30.5Z', undefined],
      ['recently_done[1].at', '--recently_done.1.at=2026-09-14T08:00:00+02:00', undefined],
    ]);
    expect(r.notes[1]!.problem).toBe('updated_at "2026-09-14 09:12" has no time zone (read as UTC), and a space where ISO-8601 puts T');
    expect(r.notes[3]!.problem).toBe('recently_done[1].at "2026-09-14 08:00:00+02:00" has a space where ISO-8601 puts T');
    for (const at of ['2026-09-14 25:00', '2026-02-30 10:00', '2026-09-14Z', '2026-09-14 9:12', '14.09.2026 09:12', '2026-09-14T09:12Z junk']) expect(view(doc({ updated_at: at })), at).toBeNull();
  });

  it('a Unix time (time.time()\'s seconds, Date.now()\'s ms) reads as the instant it counts to; other numbers need repair (red team 62b, 08)', () => {
    const r = view(doc({ updated_at: 1795000000, recently_done: [{ at: 1795000000123, action: 'a' }] }))!;
    expect(r.meaning).toMatchObject({ updated_at: '2026-11-18T11:06:40Z', recently_done: [{ at: '2026-11-18T11:06:40.123Z', action: 'a' }] });
    expect(r.notes.map((n) => [n.path, n.problem, n.fix, n.byHand])).toEqual([
      ['updated_at', 'updated_at 1795000000 is a Unix time in seconds, not an instant (read as 2026-11-18T11:06:40Z)', null, 'write updated_at as "2026-11-18T11:06:40Z" (any `checkpoint update` stamps it anew)'],
      ['recently_done[0].at', 'recently_done[0].at 1795000000123 is a Unix time in milliseconds, not an instant (read as 2026-11-18T11:06:40.123Z)', '--recently_done.0.at=2026-11-18T11:06:40.123Z', undefined],
    ]);
    for (const at of [20261118, 1.5, -1795000000, 99999999999]) expect(view(doc({ updated_at: at })), String(at)).toBeNull();
  });

  it('reads every loosely written time as the instant its parts name, in UTC when no zone is given', () => {
    const two = (n: number) => String(n).padStart(2, '0');
    fc.assert(fc.property(
      fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2090-12-31T23:59:59Z'), noInvalidDate: true }),
      fc.constantFrom('T', ' ', 't'), fc.boolean(), fc.constantFrom('', 'Z', 'z', '+05:30', '-0800'),
      (at, sep, seconds, zone) => {
        const text = `${at.getUTCFullYear()}-${two(at.getUTCMonth() + 1)}-${two(at.getUTCDate())}${sep}${two(at.getUTCHours())}:${two(at.getUTCMinutes())}${seconds ? `:${two(at.getUTCSeconds())}` : ''}${zone}`;
        const r = view(doc({ created_at: '1980-01-01T00:00:00Z', updated_at: text }));
        if (sep === 'T' && zone !== '' && zone !== 'z') return r === null || !r.notes.some((n) => n.path === 'updated_at'); // already an instant
        const offset = zone === '' || zone === 'Z' || zone === 'z' ? 0 : (zone === '+05:30' ? 330 : -480) * 60_000;
        const whole = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate(), at.getUTCHours(), at.getUTCMinutes(), seconds ? at.getUTCSeconds() : 0);
        expect(Date.parse(r!.meaning.updated_at)).toBe(whole - offset);
        expect(validateCheckpoint({ ...r!.meaning }).errors.filter((e) => e.path === 'updated_at')).toEqual([]);
        return true;
      },
    ));
  });

  it('a lowercase t or z reads as the instant; the note names it and the fix writes T and Z', () => {
    const r = view(doc({ created_at: '2026-06-01t10:00:00z', recently_done: [{ at: '2026-09-13 17:05z', action: 'a' }] }))!;
    expect(r.meaning).toMatchObject({ created_at: '2026-06-01T10:00:00Z', recently_done: [{ at: '2026-09-13T17:05:00Z' }] });
    expect(r.notes.map((n) => [n.problem, n.fix])).toEqual([
      ['created_at "2026-06-01t10:00:00z" is written with a lowercase t and z (ISO-8601 as the protocol writes it: T and Z)', '--created_at=2026-06-01T10:00:00Z'],
      ['recently_done[0].at "2026-09-13 17:05z" has a space where ISO-8601 puts T, and a lowercase z', '--recently_done.0.at=2026-09-13T17:05:00Z'],
    ]);
  });

  it('a number where text belongs, protocol_version as a number, one string for a primer list and a row without an id read as meant', () => {
    const d = doc({ protocol_version: 1.1, step: 2, phase: true, context_primer: { key_decisions: 'Use JWT', generated_files: ['src/a.ts'] }, progress_table: [{ id: 'row-2', label: 'Spec', status: 'complete' }, { label: 'Build', status: 'in_progress' }] });
    const before = structuredClone(d);
    const r = view(d)!;
    expect(d).toEqual(before); // the document itself is never changed
    for (const read of [r.view, r.meaning]) {
      expect(read).toMatchObject({ protocol_version: '1.1', step: '2', phase: 'true', context_primer: { key_decisions: ['Use JWT'], generated_files: ['src/a.ts'] } });
      expect(read.progress_table).toEqual([{ id: 'row-2', label: 'Spec', status: 'complete' }, { id: 'row-3', label: 'Build', status: 'in_progress' }]); // row-2 is taken
    }
    expect(validateCheckpoint({ ...r.meaning }).errors).toEqual([]);
    expect(r.notes.map((n) => [n.path, n.fix])).toEqual([
      ['phase', "--phase='true'"],
      ['step', "--step='2'"],
      ['protocol_version', null],
      ['context_primer.key_decisions', `--context_primer.key_decisions:json='["Use JWT"]'`],
      ['progress_table[1].id', '--progress_table.1.id=row-3'],
    ]);
    expect(r.notes[2]).toMatchObject({ problem: 'protocol_version is the number 1.1, not the string "1.1"', anyWrite: true });
  });

  it('a number or true/false as a row id or label or as a context_primer entry reads as its text, as step does; the view keeps the rest (red team 62b 03)', () => {
    const rows = [{ id: 1, label: 'Plan', status: 'complete' }, { id: 2, status: 'in_progress' }, { id: 'ship', label: true, status: 'not_started' }];
    const text = JSON.stringify(doc({ progress_table: rows, context_primer: { key_decisions: ['Use JWT', 8], generated_files: ['src/a.ts (PR 12)'], user_preferences: [false] } }), null, 2).replace('"Use JWT",\n      8', '"Use JWT",\n      8.0');
    const parsed = parseJson(text);
    const r = readableView(parsed.value, validateCheckpoint(parsed.value).errors, () => parsed.texts)!;
    expect(r).not.toBeNull();
    for (const read of [r.view, r.meaning]) {
      expect(read.progress_table).toEqual([{ id: '1', label: 'Plan', status: 'complete' }, { id: '2', label: '2', status: 'in_progress' }, { id: 'ship', label: 'true', status: 'not_started' }]);
      expect(read.context_primer).toEqual({ key_decisions: ['Use JWT', '8.0'], generated_files: ['src/a.ts (PR 12)'], user_preferences: ['false'] });
    }
    expect(validateCheckpoint({ ...r.meaning }).errors).toEqual([]);
    expect(r.notes.map((n) => [n.path, n.problem, n.fix])).toEqual([
      ['context_primer.key_decisions[1]', 'context_primer.key_decisions[1] is the number 8.0, not text', "--context_primer.key_decisions.1='8.0'"],
      ['context_primer.user_preferences[0]', 'context_primer.user_preferences[0] is the boolean false, not text', "--context_primer.user_preferences.0='false'"],
      ['progress_table[0].id', 'progress_table[0].id is the number 1, not text', "--progress_table.0.id='1'"],
      ['progress_table[1].id', 'progress_table[1].id is the number 2, not text', "--progress_table.1.id='2'"],
      ['progress_table[2].label', 'progress_table[2].label is the boolean true, not text', "--progress_table.2.label='true'"],
      ['progress_table[1].label', 'progress_table[1] ("2") has no label (read as its id)', "--progress_table.1.label='2'"],
    ]);
  });

  it("a value written with its reason is fixed without losing the reason: a status's in a blocker or progress_summary, a row's in its label, a needs' in its description (red team 62b 06)", () => {
    const fixOf = (over: Record<string, unknown>) => view(doc(over))!.notes.map((n) => n.fix);
    expect(fixOf({ status: 'blocked - waiting on the API key from Dana' })).toEqual([`--status=blocked '--blockers+:json={"id":"b1","description":"waiting on the API key from Dana"}'`]);
    // The next id free among the blockers as read (b1 taken, b2 given to the one without an id).
    expect(fixOf({ status: 'Waiting for design sign-off', blockers: [{ id: 'b1', description: 'CI red' }, { description: 'Flaky test' }] })).toEqual([
      `--status=blocked '--blockers+:json={"id":"b3","description":"Waiting for design sign-off"}'`,
      '--blockers.1.id=b2',
    ]);
    // An open blocker saying it already: the bare value is the whole fix.
    expect(fixOf({ status: 'blocked: waiting on the API key', blockers: [{ id: 'k', description: 'Waiting on the API key (Dana)' }] })).toEqual(['--status=blocked']);
    // A blank summary: its own fix writes the reason (one flag for the field).
    expect(fixOf({ status: 'failed - tests red', progress_summary: '' })).toEqual(['--status=failed', "--progress_summary='tests red'"]);
    expect(fixOf({ status: 'blocked:' })).toEqual(['--status=blocked']);
    expect(fixOf({ progress_table: [{ id: 'auth', label: 'Auth', status: 'done (PR 12)' }], blockers: [{ id: 'db', description: 'Which DB?', needs: 'decision - Dana decides' }] })).toEqual([
      "--progress_table.0.status=complete --progress_table.0.label='Auth (PR 12)'",
      "--blockers.0.needs=user_decision --blockers.0.description='Which DB? (Dana decides)'",
    ]);
    // A row without a label, which another note labels by its id: the reason added by hand.
    const unlabelled = view(doc({ progress_table: [{ id: 'plan', status: 'done (PR 12)' }] }))!.notes;
    expect(unlabelled.map((n) => [n.fix, n.byHand])).toEqual([
      ['--progress_table.0.status=complete', 'before the fix, add the reason its row status gives ("PR 12") to progress_table.0.label'],
      ["--progress_table.0.label='plan'", undefined],
    ]);
    // Too long to spell out: copied by hand before the fix.
    const long = view(doc({ status: `blocked - ${'y'.repeat(600)}` }))!.notes[0]!;
    expect(long).toMatchObject({ fix: '--status=blocked', byHand: expect.stringMatching(/^before the fix, copy the reason its status gives \(600 characters, too long to spell out here\) into a new blocker$/) });
  });

  it('a row without a label reads labelled by its id, with the exact fix; a checkpoint with another error names that error first (red team, 12-04)', () => {
    const rows = [{ id: 'plan', status: 'complete' }, { id: 'build (PR 12)', label: 'Build', status: 'in_progress' }];
    const r = view(doc({ created_at: '2026-12-01 10:00', progress_table: rows }))!;
    expect(r.view.progress_table).toEqual([{ id: 'plan', label: 'plan', status: 'complete' }, rows[1]]);
    expect(r.notes.map((n) => [n.path, n.fix])).toEqual([
      ['created_at', '--created_at=2026-12-01T10:00:00Z'],
      ['progress_table[0].label', "--progress_table.0.label='plan'"],
    ]);
    // A missing status no slip covers: it keeps the file from being read, and is the one to name.
    const broken = doc({ created_at: '2026-12-01 10:00', progress_table: rows });
    delete (broken as Record<string, unknown>).status;
    const errors = validateCheckpoint(broken).errors;
    expect(errors.map((e) => e.path)).toEqual(expect.arrayContaining(['created_at', 'status', 'progress_table[0].label']));
    expect(view(broken)).toBeNull();
    expect(unreadableErrors(broken, errors).map((e) => e.path)).toEqual(['status']);
  });

  it('a descriptive field left out or blank is a slip read as blank (created_at as updated_at); skill, status and updated_at left out still need repair', () => {
    const lean = doc({ step: '' });
    for (const f of ['project', 'project_dir', 'phase', 'created_at']) delete (lean as Record<string, unknown>)[f];
    const r = view(lean)!;
    expect(r.notes.map((n) => [n.path, n.fix])).toEqual([
      ['project', "--project='<project>'"],
      ['project_dir', "--project_dir='<project_dir>'"],
      ['phase', "--phase='<phase>'"],
      ['step', "--step='<step>'"],
      ['created_at', "--created_at='<created_at>'"],
    ]);
    expect(r.view).toMatchObject({ project: '', project_dir: '', phase: '', step: '', created_at: lean.updated_at });
    // Read in a known project folder, project_dir's fix names it; a folder no fix can spell keeps the placeholder.
    const fixOf = (dir: string) => readableView(lean, validateCheckpoint(lean).errors, undefined, undefined, dir)!.notes.find((n) => n.path === 'project_dir')!.fix;
    expect(fixOf('/home/dev/api service')).toBe("--project_dir='/home/dev/api service'");
    expect(fixOf('/tmp/odd\n')).toBe("--project_dir='<project_dir>'");
    expect('project' in lean).toBe(false); // the document read is not changed
    for (const f of ['skill', 'status', 'updated_at']) {
      const gone = doc({});
      delete (gone as Record<string, unknown>)[f];
      expect(view(gone)).toBeNull();
    }
  });

  it('protocol_version left out or blank reads as the current version, fixed by any write; rows named by name, title, task, step or phase read labelled so, with ids', () => {
    for (const version of [undefined, '', ' ']) {
      const d = doc({ protocol_version: version });
      if (version === undefined) delete (d as Record<string, unknown>).protocol_version;
      const r = view(d)!;
      expect(r.meaning.protocol_version).toBe('1.1');
      expect(r.notes).toEqual([expect.objectContaining({ path: 'protocol_version', fix: null, anyWrite: true })]);
      expect(validateCheckpoint({ ...r.meaning }).errors).toEqual([]);
      // Any update stamps it: no hand edit is named beside a fix command.
      expect(repairPlan('api', [...r.notes, { path: 'step', problem: 'x', fix: '--step=2' }]).byHand).toEqual([]);
    }
    const rows = [
      { name: 'Auth', status: 'complete' },
      { id: 'row-2', label: 'Spec', status: 'complete' },
      { step: 3, title: 'CRUD (PR 12)', status: 'in_progress' },
      { task: 'UI', status: 'not_started', score: 8 },
      { phase: 'Ship', status: 'not_started' },
    ];
    const d = doc({ progress_table: rows });
    const r = view(d)!;
    expect(r.view.progress_table).toEqual([
      { id: 'row-1', label: 'Auth', ...rows[0] },
      rows[1],
      { id: 'row-3', label: 'CRUD (PR 12)', ...rows[2] },
      { id: 'row-4', label: 'UI', ...rows[3] },
      { id: 'row-5', label: 'Ship', ...rows[4] },
    ]);
    expect(validateCheckpoint({ ...r.meaning }).errors).toEqual([]);
    expect(r.notes.map((n) => [n.path, n.problem, n.fix])).toEqual([
      ['progress_table[0]', 'progress_table[0] has no id or label (read by its name, "Auth")', "--progress_table.0.id=row-1 --progress_table.0.label='Auth'"],
      ['progress_table[2]', 'progress_table[2] has no id or label (read by its title, "CRUD (PR 12)")', "--progress_table.2.id=row-3 --progress_table.2.label='CRUD (PR 12)'"],
      ['progress_table[3]', 'progress_table[3] has no id or label (read by its task, "UI")', "--progress_table.3.id=row-4 --progress_table.3.label='UI'"],
      ['progress_table[4]', 'progress_table[4] has no id or label (read by its phase, "Ship")', "--progress_table.4.id=row-5 --progress_table.4.label='Ship'"],
    ]);
    // A row that names itself nowhere (a number alone) is no slip: the file needs repair.
    expect(view(doc({ progress_table: [{ step: 1, status: 'complete' }] }))).toBeNull();
  });

  it('a context_primer written as prose or as a list of lines reads as its key decisions, fixed by making it that object; an empty or mixed one is no slip', () => {
    for (const [primer, problem] of [
      ['Stack: Hono + D1. Read src/auth.ts first.', 'context_primer is a string ("Stack: Hono + D1. Read src/auth.ts first."), not an object (read as its key_decisions)'],
      [['Stack: Hono', 'Read src/auth.ts first'], 'context_primer is a list, not an object (read as its key_decisions)'],
    ] as const) {
      const r = view(doc({ context_primer: primer }))!;
      const lines = typeof primer === 'string' ? [primer] : [...primer];
      expect(r.view.context_primer).toEqual({ key_decisions: lines });
      expect(validateCheckpoint({ ...r.meaning }).errors).toEqual([]);
      expect(r.notes.map((n) => [n.path, n.problem, n.fix])).toEqual([['context_primer', problem, `--context_primer:json='${JSON.stringify({ key_decisions: lines })}'`]]);
    }
    for (const primer of ['', [], ['a', 3], 7]) expect(view(doc({ context_primer: primer }))).toBeNull();
  });

  it("a number is read and fixed with the text the file wrote it with (8.0 stays '8.0'); an unknown version number is no slip", () => {
    const text = JSON.stringify(doc({ step: 1, protocol_version: 1.1 }), null, 2).replace('"step": 1', '"step": 8.0').replace('"protocol_version": 1.1', '"protocol_version": 1.0');
    const parsed = parseJson(text);
    const r = readableView(parsed.value, validateCheckpoint(parsed.value).errors, () => parsed.texts)!;
    expect(r.meaning).toMatchObject({ step: '8.0', protocol_version: '1.0' });
    expect(r.notes[0]).toMatchObject({ path: 'step', problem: 'step is the number 8.0, not text', fix: "--step='8.0'" });
    expect(view(doc({ protocol_version: 2 }))).toBeNull();
  });

  it('context_primer entries written as records read as their words, the rest in brackets, 8.0 as written; a record holding a list is no slip (red team, 12-04)', () => {
    const files = [{ path: 'src/auth.ts', description: 'passkey auth' }, 'src/b.ts', { file: 'src/c.ts' }];
    const decisions = [{ decision: 'Use Hono', why: 'edge runtime', score: 8 }];
    const text = JSON.stringify(doc({ context_primer: { generated_files: files, key_decisions: decisions } }), null, 2).replace('"score": 8', '"score": 8.0');
    const parsed = parseJson(text);
    const r = readableView(parsed.value, validateCheckpoint(parsed.value).errors, () => parsed.texts)!;
    expect(r.view.context_primer).toEqual({ generated_files: ['src/auth.ts (description: passkey auth)', 'src/b.ts', 'src/c.ts'], key_decisions: ['Use Hono (why: edge runtime; score: 8.0)'] });
    expect(validateCheckpoint({ ...r.meaning }).errors).toEqual([]);
    expect(r.notes.map((n) => [n.path, n.fix])).toEqual([
      ['context_primer.key_decisions[0]', "--context_primer.key_decisions.0='Use Hono (why: edge runtime; score: 8.0)'"],
      ['context_primer.generated_files[0]', "--context_primer.generated_files.0='src/auth.ts (description: passkey auth)'"],
      ['context_primer.generated_files[2]', "--context_primer.generated_files.2='src/c.ts'"],
    ]);
    expect(view(doc({ context_primer: { generated_files: [{ path: 'src/a.ts', tags: ['gen'] }], key_decisions: [] } }))).toBeNull();
    expect(view(doc({ context_primer: { generated_files: [{ description: 'no path' }], key_decisions: [] } }))).toBeNull();
  });

  it('a telemetry record that does not fit its shape is read past, noted once per record, kept as written (red team, 12-06)', () => {
    const scores = [{ score: 8 }, { rubric: 'audit', score: '9/10', max: 10 }, { rubric: 'ux', score: 7 }];
    const d = doc({ eval_scores: scores, cost: { total_usd: '$12' } });
    const r = view(d)!;
    expect(r.view.eval_scores).toEqual(scores);
    expect((r.view as unknown as { cost: unknown }).cost).toEqual({ total_usd: '$12' });
    expect(r.notes.map((n) => [n.path, n.fix])).toEqual([
      ['eval_scores[0]', "--eval_scores.0.rubric='<rubric>'"],
      ['eval_scores[1]', null],
      ['cost', null],
    ]);
    expect(r.notes[1]!.problem).toBe('needs a finite numeric score (eval_scores[1].score); telemetry, read past');
    expect(r.notes[2]!.byHand).toBe('correct cost as `checkpoint validate` lists, or remove it');
    expect(unreadableErrors(d, validateCheckpoint(d).errors)).toEqual([]);
    // A telemetry slip does not make another error readable: status left out still needs repair.
    const broken = doc({ eval_scores: [{ score: 8 }], status: undefined });
    expect(view(JSON.parse(JSON.stringify(broken)))).toBeNull();
    expect(unreadableErrors(JSON.parse(JSON.stringify(broken)), validateCheckpoint(JSON.parse(JSON.stringify(broken))).errors).map((e) => e.path)).toEqual(['status']);
  });

  it('is null for a valid file and for any error that is not a slip', () => {
    expect(view(doc({}))).toBeNull();
    expect(view(doc({ status: 'Done', updated_at: 'yesterday' }))).toBeNull();
    expect(view([])).toBeNull();
  });
});
