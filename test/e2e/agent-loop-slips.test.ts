// What an agent types in its loop and gets wrong, on a Python-written checkpoint (indent=4, 8.0):
// each slip is refused in one line with the file byte-identical, and next -> work -> done records
// the work next named (red team, 12-06).
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { commitAll, makeRepo, read, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

const FILE = '.checkpoints/api.checkpoint.json';

/** A checkpoint as a Python agent writes it: json.dumps(d, indent=4). */
function pythonWritten(over: Record<string, unknown> = {}): string {
  const doc = {
    protocol_version: '1.1', skill: 'api', project: 'shop', project_dir: '/home/dev/shop',
    created_at: '2026-11-20T09:00:00Z', updated_at: '2026-12-01T10:00:00Z',
    phase: 'build', step: 'migration', status: 'in_progress', progress_summary: 'Schema drafted \u2014 migration next.',
    progress_table: [{ id: 'schema', label: 'Schema', status: 'complete' }],
    context_primer: { key_decisions: ['Postgres'], generated_files: ['db/schema.sql (PR 12)'] },
    next_actions: ['Write the migration', 'Ship'],
    skill_state: { score: 0, tags: ['db'] },
    ...over,
  };
  return `${JSON.stringify(doc, null, 4).replace('"score": 0', '"score": 8.0')}\n`;
}

function repoWith(text: string): string {
  const dir = makeRepo();
  write(dir, FILE, text);
  return dir;
}

describe('slips refused in one line, the file byte-identical', () => {
  it.each([
    [['--next_actions-=Ship'], /there is no -= \(this would write a new field "next_actions-"\).*checkpoint done <skill>/],
    [['--skill_state.tags-=db'], /there is no -= \(this would write a new field "tags-"\)/],
    [['--stpe=deploy'], /stpe is not a protocol field; did you mean --step\?/],
    [['--stauts=Blocked'], /stauts is not a protocol field; did you mean --status\?/],
    [['--stauts=In Progress'], /did you mean --status\?/],
    [['--blockers+:json={"id":"b1","description":"pick a queue","neds":"User decision"}'], /neds is not a member of a blocker; did you mean needs\?/],
  ])('update api %j', async (flags, message) => {
    const text = pythonWritten();
    const dir = repoWith(text);
    const r = await runCli(dir, ['update', 'api', ...flags]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
    expect(read(dir, FILE)).toBe(text);
  });

  it('a member of the project\'s own that nearly names nothing is still written, every 8.0 kept', async () => {
    const dir = repoWith(pythonWritten());
    const r = await runCli(dir, ['update', 'api', '--skill_state.owner=ops']);
    expect(r.code, r.stderr).toBe(0);
    expect(read(dir, FILE)).toContain('"owner": "ops"');
    expect(read(dir, FILE)).toContain('"score": 8.0');
  });
});

describe('a Python agent\'s file (json.dump escapes every character past ASCII)', () => {
  const escaped = (text: string) => text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

  it('a write escapes what it adds the same way: the next Python save rewrites no line of it', async () => {
    const text = escaped(pythonWritten());
    expect(text).toContain('"progress_summary": "Schema drafted \\u2014 migration next."');
    const dir = repoWith(text);
    const r = await runCli(dir, ['update', 'api', '--progress_summary=Migration done — ✅ 🚀', '--next_actions+=Tell the café team']);
    expect(r.code, r.stderr).toBe(0);
    const after = read(dir, FILE);
    expect(after).not.toMatch(/[^\x00-\x7f]/);
    expect(after).toContain('"progress_summary": "Migration done \\u2014 \\u2705 \\ud83d\\ude80"');
    expect(after).toContain('"Tell the caf\\u00e9 team"');
    expect(after).toContain('"score": 8.0');
    const doc = JSON.parse(after);
    expect([doc.progress_summary, doc.next_actions.at(-1)]).toEqual(['Migration done — ✅ 🚀', 'Tell the café team']);
    // What json.dumps(doc, indent=4) would write, 8.0 apart: the same text.
    expect(after).toBe(escaped(`${JSON.stringify(doc, null, 4).replace('"score": 8', '"score": 8.0')}\n`));
  });

  it('a file that writes them raw gets them raw', async () => {
    const dir = repoWith(pythonWritten());
    expect((await runCli(dir, ['update', 'api', '--next_actions+=Tell the café team'])).code).toBe(0);
    expect(read(dir, FILE)).toContain('"Tell the café team"');
    expect(read(dir, FILE)).toContain('Schema drafted — migration next.');
  });
});

describe('next -> work -> done', () => {
  it('done records the action next named, taking the ones the checkpoint marked done before it along', async () => {
    const dir = repoWith(pythonWritten({ next_actions: ['[x] Write the migration', { text: 'Run the migration on staging', done: false }, 'Ship'], recently_done: [] }));
    const next = await runCli(dir, ['next']);
    expect(next.stdout).toContain('→ Run the migration on staging');
    const done = await runCli(dir, ['done', 'api', '--json']);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ done: 'Run the migration on staging', also_done: ['[x] Write the migration'], next: 'Ship' });
    const doc = JSON.parse(read(dir, FILE));
    expect(doc.next_actions).toEqual(['Ship']);
    // Newest first: the work just done in front, the ticked one behind it; nothing else lost.
    expect(doc.recently_done.map((e: { action: string }) => e.action)).toEqual(['Run the migration on staging', '[x] Write the migration']);
    expect(doc.recently_done[0]).toMatchObject({ done: false });
    expect(read(dir, FILE)).toContain('"score": 8.0');
    expect((await runCli(dir, ['next'])).stdout).toContain('→ Ship');
  });

  it('done records the action next named past one whose PR landed, which goes along; --landed records the landed one alone', async () => {
    const saved = new Date(Date.now() - 2 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const queue = ['Get PR #20 merged', 'Write the rate limiter', '[x] Tidy the imports', 'Ship'];
    const landedRepo = () => {
      const dir = repoWith(pythonWritten({ updated_at: saved, next_actions: queue, recently_done: [] }));
      commitAll(dir, 'checkpoint: api', new Date(Date.now() - 3 * 86_400_000).toISOString());
      write(dir, 'src/auth.ts', 'export const auth = 1;\n');
      commitAll(dir, 'Add auth middleware (#20)');
      return dir;
    };
    // The agent's loop: next names the rate limiter, the agent writes it, done records it.
    const dir = landedRepo();
    expect((await runCli(dir, ['next'])).stdout).toContain('→ Write the rate limiter');
    const done = await runCli(dir, ['done', 'api', '--json']);
    expect(done.code, done.stderr).toBe(0);
    // Its next is next's: past the ticked action, said with why (red team 12-07).
    expect(JSON.parse(done.stdout)).toMatchObject({ done: 'Write the rate limiter', also_done: ['Get PR #20 merged'], next: 'Ship', skipped_as_landed: [{ index: 0, text: '[x] Tidy the imports', evidence: 'marked done in the checkpoint' }] });
    const doc = JSON.parse(read(dir, FILE));
    expect(doc.next_actions).toEqual(['[x] Tidy the imports', 'Ship']);
    expect(doc.recently_done.map((e: { action: string }) => e.action)).toEqual(['Write the rate limiter', 'Get PR #20 merged']);
    expect(read(dir, FILE)).toContain('"score": 8.0');
    expect((await runCli(dir, ['next'])).stdout).toContain('→ Ship');
    const text = await runCli(landedRepo(), ['done', 'api']);
    expect(text.stdout).toMatch(/^✓ done: Write the rate limiter\n {2}also done: Get PR #20 merged \(landed: .*Add auth middleware \(#20\).*\)\n {2}next: Ship\n {2}skipped next_actions\[0\] "\[x\] Tidy the imports": marked done in the checkpoint\n$/);

    // Reconciling only (doctor's fix): the landed action and the ticked one go, the open ones stay.
    const other = landedRepo();
    const doctor = JSON.parse((await runCli(other, ['doctor', '--json'])).stdout);
    const fix = doctor.findings.find((f: { path: string }) => f.path === 'next_actions[0]');
    expect(fix).toMatchObject({ level: 'warning', fix: 'checkpoint done api --landed' });
    expect(fix.message).toContain('reconcile instead of redoing it (`checkpoint done api --landed`)');
    const reconciled = await runCli(other, ['done', 'api', '--landed', '--json']);
    expect(reconciled.code, reconciled.stderr).toBe(0);
    expect(JSON.parse(reconciled.stdout)).toMatchObject({ done: '[x] Tidy the imports', also_done: ['Get PR #20 merged'], next: 'Write the rate limiter' });
    expect(JSON.parse(read(other, FILE)).next_actions).toEqual(['Write the rate limiter', 'Ship']);
    expect((await runCli(other, ['next'])).stdout).toContain('→ Write the rate limiter');
    expect(JSON.parse((await runCli(other, ['doctor', '--json'])).stdout).findings.filter((f: { check: string }) => f.check === 'landed')).toEqual([]);

    // Nothing landed or marked: --landed refuses in one line, the file byte-identical.
    const before = read(other, FILE);
    const none = await runCli(other, ['done', 'api', '--landed']);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('checkpoint: no queued action of "api" names work git shows landed, and none is marked done; nothing was changed; hint: checkpoint next shows what is queued; checkpoint done api records the action it names\n');
    expect(read(other, FILE)).toBe(before);
    const both = await runCli(other, ['done', 'api', '--landed', '--verify']);
    expect(both.code).toBe(2);
    expect(read(other, FILE)).toBe(before);
  });

  it('an updated_at written as epoch seconds, which its save repairs: done judges landings as next does right after (red team rt61a 04)', async () => {
    const epochRepo = (queue: string[]) => {
      const dir = repoWith(pythonWritten({ updated_at: Math.floor((Date.now() - 3 * 86_400_000) / 1000), next_actions: queue, recently_done: [] }));
      commitAll(dir, 'checkpoint: api', new Date(Date.now() - 3 * 86_400_000).toISOString());
      write(dir, 'infra/vpc.tf', 'resource "aws_vpc" "main" {}\n');
      commitAll(dir, "Merge branch 'feature/PLAT-7-vpc'", new Date(Date.now() - 86_400_000).toISOString());
      return dir;
    };
    const dir = epochRepo(['Apply terraform once PLAT-7 lands', 'Land PLAT-7 (VPC)', 'Write runbook']);
    const done = await runCli(dir, ['done', 'api', '--json']);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ done: 'Apply terraform once PLAT-7 lands', next: 'Write runbook', skipped_as_landed: [{ index: 0, text: 'Land PLAT-7 (VPC)', evidence: expect.stringContaining('PLAT-7 landed') }] });
    expect(JSON.parse((await runCli(dir, ['next', '--json'])).stdout).next).toMatchObject({ text: 'Write runbook' });

    // --landed finds it, and the save leaves updated_at an ISO instant.
    const other = epochRepo(['Land PLAT-7 (VPC)', 'Write runbook']);
    const reconciled = await runCli(other, ['done', 'api', '--landed', '--json']);
    expect(reconciled.code, reconciled.stderr).toBe(0);
    expect(JSON.parse(reconciled.stdout)).toMatchObject({ done: 'Land PLAT-7 (VPC)', next: 'Write runbook' });
    expect(JSON.parse(read(other, FILE))).toMatchObject({ next_actions: ['Write runbook'], updated_at: expect.stringMatching(/Z$/) });
  });

  it('its next is an action object without text read by its words, as next reads it, not null ("none open") (red team rt60c 01)', async () => {
    const dir = repoWith(pythonWritten({ next_actions: ['Write the migration', { action: 'Run the migration on staging' }], recently_done: [] }));
    const done = await runCli(dir, ['done', 'api', '--json']);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ done: 'Write the migration', next: 'Run the migration on staging' });
  });

  it('with every action marked done, done takes the first, as before', async () => {
    const dir = repoWith(pythonWritten({ status: 'complete', next_actions: ['[x] Write the migration', '✅ Ship'] }));
    const done = await runCli(dir, ['done', 'api', '--json']);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ done: '[x] Write the migration', next: null, skipped_as_landed: [{ index: 0, text: '✅ Ship', evidence: 'marked done in the checkpoint' }] });
    expect(JSON.parse(done.stdout).also_done).toBeUndefined();
  });
});

describe('a telemetry record written loosely (red team, 12-06)', () => {
  it('an eval score without a rubric is a note: status, next and resume still orient, done still records, the record kept as written', async () => {
    const text = pythonWritten({ eval_scores: [{ score: 0 }] }).replace('"score": 0\n', '"score": 8.0\n');
    expect(text).toContain('"score": 8.0\n');
    const dir = repoWith(text);
    commitAll(dir, 'hand-written checkpoint');
    const status = await runCli(dir, ['status']);
    expect(status.stdout).not.toMatch(/needs repair/);
    expect(status.stdout).toMatch(/note: api: eval_scores\[0\]: needs a string rubric .*fix: checkpoint update api --eval_scores\.0\.rubric='<rubric>'/);
    const next = await runCli(dir, ['next', '--json']);
    expect(JSON.parse(next.stdout).next.text).toBe('Write the migration');
    const resume = await runCli(dir, ['resume']);
    expect(resume.stdout).toMatch(/^Next: Write the migration$/m);
    expect(read(dir, FILE)).toBe(text);
    const done = await runCli(dir, ['done', 'api']);
    expect(done.code).toBe(0);
    expect(read(dir, FILE)).toMatch(/"eval_scores": \[\n\s+\{\n\s+"score": 8.0\n\s+\}\n\s+\]/);
    // The note's fix, with a real rubric, clears it.
    expect((await runCli(dir, ['update', 'api', '--eval_scores.0.rubric=audit'])).code).toBe(0);
    expect((await runCli(dir, ['status'])).stdout).not.toMatch(/eval_scores/);
  });
});

describe('restore and resume', () => {
  it('restore puts entries back into an oldest-first log where they came from, oldest first', async () => {
    const log = Array.from({ length: 14 }, (_, i) => ({ at: `2026-11-${String(i + 1).padStart(2, '0')}T10:00:00Z`, action: `old ${i}` }));
    const dir = repoWith(pythonWritten({ recently_done: log }));
    expect((await runCli(dir, ['done', 'api'])).code).toBe(0);
    const [file, ...more] = readdirSync(join(dir, '.checkpoints/history'));
    expect(more).toEqual([]);
    const restored = await runCli(dir, ['restore', file!]);
    expect(restored.code, restored.stderr).toBe(0);
    const actions = JSON.parse(read(dir, FILE)).recently_done.map((e: { action: string }) => e.action);
    expect(actions).toEqual([...log.map((e) => e.action), 'Write the migration']);
  });

  it('resume <skill> names the error that keeps the file unread, not a slip beside it', async () => {
    const dir = repoWith(pythonWritten({ next_actions: ['Write the migration', { action: 'Ship' }], recently_done: [{ action: 'Schema', at: 'last week' }] }));
    const status = await runCli(dir, ['status']);
    expect(status.stdout).toContain('recently_done[0].at');
    const r = await runCli(dir, ['resume', 'api']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^checkpoint: cannot resume api: recently_done\[0\]\.at: /);
  });
});
