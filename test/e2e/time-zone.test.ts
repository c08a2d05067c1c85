// A time written without its zone ("2026-09-14 09:12") reads as UTC in every command, so two
// machines in different zones agree on staleness, order and drift. Date.parse alone would read it
// in the machine's own zone.
import { afterEach, describe, expect, it } from 'vitest';
import { assertBuilt, cleanup, cli, commitAll, headSha, makeRepo, write } from '../helpers/repo.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

const ZONES = ['UTC', 'America/Los_Angeles', 'Asia/Kolkata', 'Pacific/Kiritimati'];
/** An instant `hours` ago, written as a person does: no zone, a space for the T, to the minute. */
const zonelessHoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString().slice(0, 16).replace('T', ' ');
const isoHoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

describe('a time written without its zone', () => {
  it('gives the same status, next and doctor in every time zone: read as UTC', () => {
    assertBuilt();
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, 'src/gen.ts', 'one\n');
    commitAll(dir, 'gen', isoHoursAgo(30));
    const cp = (skill: string, updated: string) => ({
      protocol_version: '1.1', skill, project: 'demo', project_dir: dir, created_at: isoHoursAgo(48), updated_at: updated,
      phase: 'build', step: 'gen', status: 'in_progress', progress_summary: 'Generating.',
      context_primer: { generated_files: ['src/gen.ts'] }, next_actions: [`${skill} next`],
    });
    // Saved 6 hours ago by the UTC clock; the generated file changed 3 hours ago: drift.
    write(dir, '.checkpoints/api.checkpoint.json', JSON.stringify(cp('api', zonelessHoursAgo(6)), null, 2));
    // Saved 4 hours ago with a zone: newer than api by UTC, older in any zone east of it.
    write(dir, '.checkpoints/web.checkpoint.json', JSON.stringify(cp('web', isoHoursAgo(4)), null, 2));
    commitAll(dir, 'checkpoints', isoHoursAgo(5));
    write(dir, 'src/gen.ts', 'two\n');
    commitAll(dir, 'regenerate', isoHoursAgo(3));
    const answers = ZONES.map((TZ) => {
      const env = { TZ };
      const status = cli(dir, ['status'], { env });
      const next = cli(dir, ['next', '--json'], { env });
      const doctor = cli(dir, ['doctor', '--json'], { env });
      const findings = (JSON.parse(doctor.stdout).findings as { check: string; skill: string | null; message: string }[]).map((f) => `${f.skill} ${f.check}: ${f.message}`).sort();
      return { status: status.stdout, next: JSON.parse(next.stdout).next.skill, findings };
    });
    expect(answers[0]!.status).toMatch(/^api +in_progress +build \/ gen +6h ago/m);
    expect(answers[0]!.next).toBe('web'); // the newer save first
    expect(answers[0]!.findings.some((f) => /^api .*src\/gen\.ts changed after/.test(f))).toBe(true);
    for (const [i, a] of answers.entries()) expect(a, ZONES[i]).toEqual(answers[0]);
  });

  it("a change dated within the twelve hours a zone-less save may stand for is advice saying why, not drift that blocks; one dated later is drift (red team, 12-05)", () => {
    assertBuilt();
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, 'src/near.ts', 'one\n');
    write(dir, 'src/far.ts', 'one\n');
    commitAll(dir, 'gen', isoHoursAgo(40));
    // Python's datetime.now().isoformat() in New York: local time, microseconds, no zone.
    const saved = new Date(Date.now() - 30 * 3_600_000).toISOString().slice(0, 26).replace('Z', '') + '456';
    // Near's edit is committed before the save is, so the graph leaves its order to the dates (one
    // committed on top of the save's commit is after it: the next test).
    write(dir, 'src/near.ts', 'two\n');
    commitAll(dir, 'edit near', isoHoursAgo(27));
    write(dir, '.checkpoints/api.checkpoint.json', JSON.stringify({
      protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: dir, created_at: saved, updated_at: saved,
      phase: 'build', step: 'gen', status: 'in_progress', progress_summary: 'Generating.',
      context_primer: { generated_files: ['src/near.ts', 'src/far.ts'] }, next_actions: ['Write tests'],
    }, null, 4));
    commitAll(dir, 'checkpoint', isoHoursAgo(25));
    write(dir, 'src/far.ts', 'two\n');
    commitAll(dir, 'edit far', isoHoursAgo(10));
    const findings = (JSON.parse(cli(dir, ['doctor', '--json']).stdout).findings as { level: string; path: string; message: string }[]).filter((f) => f.path.startsWith('context_primer.generated_files'));
    expect(findings).toEqual([
      expect.objectContaining({ level: 'advice', path: 'context_primer.generated_files[0]', message: expect.stringMatching(/^src\/near\.ts changed after the checkpoint was written .*; re-read it; updated_at has no time zone, so this may have come before the save \(write updated_at with its zone\)$/) }),
      expect.objectContaining({ level: 'warning', path: 'context_primer.generated_files[1]', message: expect.not.stringContaining('time zone') }),
    ]);
  });

  it('an edit committed on top of the commit that recorded a zone-less save is after it, whatever the hours: drift that blocks the push (red team 62d, 04)', () => {
    assertBuilt();
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, 'src/api.py', 'one\n');
    write(dir, 'src/web.py', 'one\n');
    commitAll(dir, 'init', isoHoursAgo(12));
    const base = headSha(dir);
    // Python's datetime.now().isoformat() west of UTC: read as UTC, eight hours before it was committed.
    // web's next action names a PR, so its file's revisions are read (its save's commit known exactly).
    const saved = new Date(Date.now() - 8 * 3_600_000).toISOString().slice(0, 26).replace('Z', '') + '317';
    for (const [skill, next] of [['api', 't'], ['web', 'Land PR #4 (web handlers)']] as const) {
      write(dir, `.checkpoints/${skill}.checkpoint.json`, JSON.stringify({
        protocol_version: '1.1', skill, project: 'w', project_dir: '.', created_at: `${saved}Z`, updated_at: saved,
        phase: 'b', step: 's', status: 'in_progress', progress_summary: 'Serving 8.0 req/s.',
        progress_table: [{ id: 'p', label: 'P', status: 'in-progress' }],
        context_primer: { generated_files: [`src/${skill}.py (handlers)`] }, next_actions: [next],
      }, null, 2));
    }
    commitAll(dir, 'save', isoHoursAgo(0.01));
    write(dir, 'src/api.py', 'two\n');
    write(dir, 'src/web.py', 'two\n');
    commitAll(dir, 'edit after save');
    type Doctor = { findings: { level: string; path: string; message: string; blocks?: boolean }[] };
    const changed = (d: Doctor, only: (f: Doctor['findings'][number]) => boolean = () => true) => d.findings.filter((f) => f.path.startsWith('context_primer.generated_files') && only(f)).map((f) => [f.level, f.message.replace(/ \(.*$/, ''), f.blocks ?? false]);
    const drift = [['warning', 'src/api.py changed after the checkpoint was written'], ['warning', 'src/web.py changed after the checkpoint was written']];
    expect(changed(JSON.parse(cli(dir, ['doctor', '--json']).stdout) as Doctor)).toEqual(drift.map((d) => [...d, true]));
    const pushed = JSON.parse(cli(dir, ['doctor', '--json', '--fail-on-warnings', '--pushed', `${base}..HEAD`]).stdout) as Doctor;
    expect(changed(pushed)).toEqual(drift.map((d) => [...d, true]));
    // The edit pushed alone, on top of a save the remote has: what blocks.
    const alone = JSON.parse(cli(dir, ['doctor', '--json', '--fail-on-warnings', '--pushed', 'HEAD~1..HEAD']).stdout) as Doctor;
    expect(changed(alone, (f) => f.blocks === true)).toEqual(drift.map((d) => [...d, true]));
  });

  it("a day alone (\"2026-12-05\"): a change committed that day may be in the save, advice that blocks no push; one on a later day is drift; the fix by hand is not the day's start (red team 61a, 03)", () => {
    assertBuilt();
    const dir = makeRepo();
    dirs.push(dir);
    const day = new Date(Date.now() - 4 * 86_400_000).toISOString().slice(0, 10);
    const next = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
    write(dir, 'src/near.ts', 'one\n');
    write(dir, 'src/far.ts', 'one\n');
    write(dir, 'src/evening.ts', 'one\n');
    commitAll(dir, 'gen', `${day}T06:00:00Z`);
    const base = headSha(dir);
    write(dir, 'src/near.ts', 'two\n');
    commitAll(dir, 'edit near in the morning', `${day}T09:00:00Z`);
    // That day's evening in California (17:00 -08:00), already the next day in UTC.
    write(dir, 'src/evening.ts', 'two\n');
    commitAll(dir, 'edit evening in California', `${next}T01:00:00Z`);
    // Dated by hand, as a day; saved and committed that evening, the morning's edit in its history.
    write(dir, '.checkpoints/api.checkpoint.json', JSON.stringify({
      protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: dir, created_at: `${day}T08:30:00Z`, updated_at: day,
      phase: 'build', step: 'gen', status: 'in_progress', progress_summary: 'Generating (~8.0 min a run).',
      context_primer: { generated_files: ['src/near.ts', 'src/far.ts — regenerated nightly', 'src/evening.ts (PR 12)'] }, next_actions: ['Write tests'],
    }, null, 2));
    commitAll(dir, 'checkpoint: gen half done', `${next}T03:00:00Z`);
    // Past that day everywhere (its end at UTC-12 is 12:00Z the next day).
    write(dir, 'src/far.ts', 'two\n');
    commitAll(dir, 'edit far next day', `${next}T13:00:00Z`);
    const doctor = JSON.parse(cli(dir, ['doctor', '--json', '--fail-on-warnings', '--pushed', `${base}..HEAD`]).stdout) as { findings: { check: string; level: string; path: string; message: string; blocks?: boolean }[] };
    const files = doctor.findings.filter((f) => f.path.startsWith('context_primer.generated_files'));
    expect(files.map((f) => [f.path, f.level, Boolean(f.blocks)])).toEqual([
      ['context_primer.generated_files[0]', 'advice', false],
      ['context_primer.generated_files[1]', 'warning', true],
      ['context_primer.generated_files[2]', 'advice', false],
    ]);
    expect(files[0]!.message).toMatch(/; updated_at is a day, not an instant, so this change that day may have come before the save \(write updated_at as the instant of the save, with its zone\)$/);
    const byHand = doctor.findings.find((f) => f.check === 'schema' && /by hand/.test(f.message))!.message;
    expect(byHand).toContain(`write updated_at as the instant of the save on ${day}, with its zone (e.g. "${day}T19:00:00-08:00"; no one instant of the day stands for it;`);
    expect(byHand).not.toContain(`"${day}T00:00:00Z"`);
    expect(byHand).not.toContain(`"${day}T23:59:59Z"`);
  });
});
