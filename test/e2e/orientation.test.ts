// status, resume and doctor's non-history checks, the way a new session reads them.
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { spawn } from 'node:child_process';
import { assertBuilt, BIN, cleanup, commitAll, dateEnv, GIT_ENV, git, makeRepo, read, write, type RunResult, headSha, initialized } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';
import { paste } from '../helpers/paste.js';
import { existsSync, symlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString();

function cp(skill: string, over: Record<string, unknown> = {}) {
  return {
    protocol_version: '1.1', skill, project: 'demo', project_dir: '/nowhere/demo',
    created_at: daysAgo(30), updated_at: daysAgo(1),
    phase: 'build', step: 'auth', status: 'in_progress', progress_summary: `${skill} summary.`,
    progress_table: [{ id: 'auth', label: 'Auth', status: 'complete' }, { id: 'api', label: 'API', status: 'in_progress' }, { id: 'ui', label: 'UI', status: 'not_started' }],
    context_primer: { key_decisions: [`${skill} decision`], generated_files: ['docs/auth.md', 'docs/other.md'] },
    next_actions: [`${skill} first action`, `${skill} second action`],
    ...over,
  };
}

function repoWith(checkpoints: Record<string, unknown>[]): string {
  assertBuilt();
  const dir = makeRepo();
  dirs.push(dir);
  write(dir, 'docs/auth.md', 'a\n');
  write(dir, 'docs/other.md', 'b\n');
  for (const c of checkpoints) write(dir, `.checkpoints/${(c as { skill: string }).skill}.checkpoint.json`, JSON.stringify(c, null, 2));
  commitAll(dir, 'checkpoints', daysAgo(0.5));
  return dir;
}

describe('status', () => {
  const decision = { id: 'd1', description: 'Pick the database', needs: 'user_decision' };
  it('--brief names each checkpoint that needs repair, one line each, never a blank line', async () => {
    // Only a broken checkpoint: a row with neither id nor label, as a hand edit leaves it (a row
    // with one of them reads as a slip).
    const only = repoWith([cp('api', { progress_table: [{ status: 'complete' }] })]);
    const lone = await runCli(only, ['status', '--brief']);
    expect(lone.code).toBe(1);
    expect(lone.stdout.trimEnd().split('\n')).toEqual([expect.stringMatching(/^✗ api needs repair: progress_table\[0\]\S*: .*\(checkpoint validate \.checkpoints\/api\.checkpoint\.json\)$/)]);
    // A readable one beside a FIFO and a link out of the project.
    const dir = repoWith([cp('api')]);
    execFileSync('mkfifo', [join(dir, '.checkpoints/f.checkpoint.json')]);
    symlinkSync('/etc/passwd', join(dir, '.checkpoints/x.checkpoint.json'));
    const r = await runCli(dir, ['status', '--brief']);
    expect(r.code).toBe(1);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('api: api first action');
    expect(lines).toContain('  ✗ f needs repair: .checkpoints/f.checkpoint.json is a FIFO, not a plain file; refused (checkpoint validate .checkpoints/f.checkpoint.json)');
    expect(lines.filter((l) => /^ {2}✗ x needs repair: .*symlink to \/etc\/passwd/.test(l))).toHaveLength(1);
    expect(lines).not.toContain('');
  });

  it('shows the table, the decisions banner, PM lines and details; --brief and --since narrow it', async () => {
    const dir = repoWith([
      cp('api', { pm_refs: [{ provider: 'linear', id: 'PLAT-1', role: 'source' }, { provider: 'linear', id: 'PLAT-2', role: 'child' }] }),
      cp('web', { blockers: [decision], updated_at: daysAgo(9) }),
    ]);
    const full = await runCli(dir, ['status']);
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout).toContain('⛔ 1 decision waiting on you');
    expect(full.stdout).toContain('PM: PLAT-1 (source) + 1 child');
    expect(full.stdout).toMatch(/web .*⚠ stale \(9d\)/);
    expect(full.stdout).toContain('api summary.');
    const brief = (await runCli(dir, ['status', '--brief'])).stdout;
    expect(brief).toContain('Ask the user to decide: Pick the database');
    expect(brief).not.toContain('api summary.');
    const cut = daysAgo(3);
    const since = (await runCli(dir, ['status', `--since=${cut}`])).stdout;
    expect(since).toContain('api summary.');
    expect(since).not.toContain('web summary.');
    // The decision in web, whose details --since left out, is still named, not only counted.
    expect(since).toContain(`Decisions waiting in skills not updated since ${cut}:\n  ⛔ web d1: Pick the database`);
    expect(full.stdout).not.toContain('Decisions waiting in skills');
    const json = JSON.parse((await runCli(dir, ['status', '--json'])).stdout);
    expect(json.decisions_waiting).toEqual([{ skill: 'web', id: 'd1', description: 'Pick the database' }]);
    expect(json.skills.map((s: { skill: string }) => s.skill)).toEqual(['web', 'api']);
    expect((await runCli(dir, ['status', '--since=yesterday'])).code).toBe(2);
    const noDay = await runCli(dir, ['status', '--since=2026-11-31T00:00:00Z']);
    expect([noDay.code, noDay.stderr]).toEqual([2, 'checkpoint: --since=2026-11-31T00:00:00Z names a day the calendar lacks: November 2026 has 30 days; hint: e.g. --since=2026-11-01T00:00:00Z\n']);
  });
});

describe('resume', () => {
  it('orients on an in-progress checkpoint and exits 0', async () => {
    const dir = repoWith([cp('api')]);
    const r = await runCli(dir, ['resume', 'api']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('RESUMING: api on demo');
    expect(lines[1]).toMatch(/^Last session: 1d ago/);
    expect(lines[2]).toBe('Status: in_progress');
    expect(lines[3]).toBe('Summary: api summary.');
    expect(lines[4]).toBe('Progress: 1/3 phases complete');
    expect(lines[5]).toBe('Next: api first action');
    expect(r.stdout).toContain('Key decisions:\n  - api decision');
    // The step is "auth": only the file about it is listed.
    expect(r.stdout).toContain('docs/auth.md');
    expect(r.stdout).not.toContain('docs/other.md');
  });

  it.each([
    ['blocked', { status: 'blocked', blockers: [{ id: 'b', description: 'waiting on infra', needs: 'external_dep' }] }],
    ['failed', { status: 'failed' }],
    ['stale', { updated_at: daysAgo(10) }],
  ])('asks the user (exit 3) when the checkpoint is %s', async (_, over) => {
    const dir = repoWith([cp('api', over)]);
    const r = await runCli(dir, ['resume', 'api']);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('ASK THE USER');
    expect(r.stdout).toContain('Continue from here, restart');
  });

  it('briefs an in-progress checkpoint waiting on a user_decision, and asks (exit 3) before any work', async () => {
    const dir = repoWith([cp('api', { blockers: [{ id: 'b1', description: 'Rate limits on auth? (PR 12)', needs: 'user_decision' }, { id: 'ci', description: 'flaky runner', needs: 'external_dep' }] })]);
    for (const args of [['resume', 'api'], ['resume']]) {
      const r = await runCli(dir, args);
      expect(r.code, args.join(' ')).toBe(3);
      expect(r.stdout.split('\n')[0]).toBe('RESUMING: api on demo');
      expect(r.stdout).toContain('ASK THE USER to decide before proceeding (decisions waiting on the user):\n  ⛔ b1: Rate limits on auth? (PR 12)');
      expect(r.stdout).not.toContain('Continue from here, restart');
    }
    const json = await runCli(dir, ['resume', '--json']);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, ask_user: true, skill: 'api' });
    // A blocker that is no decision of the user's does not ask.
    expect((await runCli(repoWith([cp('api', { blockers: [{ id: 'ci', description: 'flaky runner', needs: 'external_dep' }] })]), ['resume'])).code).toBe(0);
  });

  it('without a skill, resumes the top one, but lists and asks when it needs a decision', async () => {
    const ok = repoWith([cp('api'), cp('web', { status: 'complete', next_actions: [] })]);
    expect((await runCli(ok, ['resume'])).stdout.split('\n')[0]).toBe('RESUMING: api on demo');
    const asking = repoWith([cp('api'), cp('web', { status: 'failed' })]);
    const r = await runCli(asking, ['resume']);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('web  failed');
    expect(r.stdout).toContain('api  in_progress');
    expect(JSON.parse((await runCli(asking, ['resume', '--json'])).stdout)).toMatchObject({ ask_user: true });
    expect(r.stdout.split('\n')[0]).toBe('Several checkpoints need a decision before any is resumed automatically:');
    // The only checkpoint there is: its briefing, with the question in it, as `resume web` gives (red team, 12-04).
    const single = repoWith([cp('web', { status: 'failed' })]);
    const one = await runCli(single, ['resume']);
    expect(one.code).toBe(3);
    expect(one.stdout.split('\n')[0]).toBe('RESUMING: web on demo');
    expect(one.stdout).toMatch(/^ASK THE USER: this checkpoint (?:failed|is failed)/m);
    expect(one.stdout).toBe((await runCli(single, ['resume', 'web'])).stdout);
    expect(JSON.parse((await runCli(single, ['resume', '--json'])).stdout)).toMatchObject({ ask_user: true, skill: 'web' });
  });

  it('with nothing to resume, --json keeps to --max-bytes too: whole when it fits, else refused (exit 2) with the size that holds it (red team, 12-04)', async () => {
    const dir = repoWith([]);
    const whole = await runCli(dir, ['resume', '--json']);
    expect(whole.code).toBe(0);
    const compact = Buffer.byteLength(JSON.stringify(JSON.parse(whole.stdout))) + 1;
    const tight = await runCli(dir, ['resume', '--json', '--max-bytes', String(compact)]);
    expect(tight.code).toBe(0);
    expect(Buffer.byteLength(tight.stdout)).toBeLessThanOrEqual(compact);
    const small = await runCli(dir, ['resume', '--json', '--max-bytes', String(compact - 1)]);
    expect(small.code).toBe(2);
    expect(JSON.parse(small.stdout).error.message).toBe(`--max-bytes ${compact - 1} cannot hold the --json answer (${compact} bytes with its newline)`);
    for (const args of [['resume', '--context', '--json', '--max-bytes', '40']]) expect((await runCli(dir, args)).code).toBe(2);
  });

  it('stays within the byte limit and names what it left out', async () => {
    const many = Array.from({ length: 400 }, (_, i) => `decision ${i}: ${'x'.repeat(60)}`);
    const dir = repoWith([cp('api', { context_primer: { key_decisions: many } })]);
    const r = await runCli(dir, ['resume', 'api', '--max-bytes', '2048']);
    expect(Buffer.byteLength(r.stdout)).toBeLessThanOrEqual(2049);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/^… left out to fit the output budget: key decisions \(\d+ of 400\).*; everything: checkpoint show api$/);
    expect(Buffer.byteLength((await runCli(dir, ['resume', 'api'])).stdout)).toBeLessThanOrEqual(16 * 1024 + 1);
    expect((await runCli(dir, ['resume', 'api', '--max-bytes', '10'])).code).toBe(2);
  });

  it('never silently skips a broken checkpoint', async () => {
    const dir = repoWith([cp('api')]);
    write(dir, '.checkpoints/web.checkpoint.json', '{ "skill": "web", ');
    expect((await runCli(dir, ['resume'])).stderr).toContain('left out unreadable or invalid checkpoint: web');
    // next names it where the reader looks, before recommending another skill.
    const next = await runCli(dir, ['next']);
    expect(next.stdout).toMatch(/^needs repair: web: .*\(checkpoint validate \.checkpoints\/web\.checkpoint\.json\)\n[\s\S]*api/);
    // Still a finding, as in status and list: exit 1, and `ok: false` beside the recommendation.
    expect(next.code).toBe(1);
    const json = JSON.parse((await runCli(dir, ['next', '--json'])).stdout);
    expect([json.ok, json.next.skill, json.needs_repair.map((b: { skill: string }) => b.skill)]).toEqual([false, 'api', ['web']]);
    expect((await runCli(dir, ['next', '--json'])).code).toBe(1);
    expect((await runCli(dir, ['status'])).stdout).toMatch(/^web\s+needs repair\s+/m);
    const only = repoWith([]);
    write(only, '.checkpoints/web.checkpoint.json', '{}');
    expect((await runCli(only, ['resume'])).stderr).toContain('web');
  });

  it('with no checkpoint at all says so and exits 0', async () => {
    const dir = repoWith([]);
    const r = await runCli(dir, ['resume']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('no checkpoint to resume');
  });
});

describe('untrusted text on the terminal', () => {
  it('shows control characters from a checkpoint escaped, never interpreted', async () => {
    const dir = repoWith([cp('api', { phase: 'ph\u001b]52;c;cHduZWQ=\u0007ase\u001b[2J', next_actions: ['act\u001b[31mred\rX'] })]);
    for (const cmd of [['status'], ['next'], ['resume', 'api'], ['list']]) {
      const r = await runCli(dir, cmd);
      expect(r.stdout, cmd.join(' ')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    }
    expect((await runCli(dir, ['next'])).stdout).toContain('act\\x1b[31mred\\x0dX');
  });
});

describe('doctor without history', () => {
  it('reports staleness by status and a foreign project_dir as info only', async () => {
    const dir = repoWith([
      cp('a', { status: 'in_progress', updated_at: daysAgo(8) }),
      cp('b', { status: 'complete', next_actions: [], updated_at: daysAgo(13) }),
      cp('c', { status: 'blocked', blockers: [{ id: 'x', description: 'y' }], updated_at: daysAgo(4) }),
      cp('d', { status: 'failed', updated_at: daysAgo(400) }),
    ]);
    const findings = JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout).findings as { check: string; skill: string; level: string }[];
    expect(findings.filter((f) => f.check === 'stale').map((f) => f.skill).sort()).toEqual(['a', 'c']);
    expect(findings.filter((f) => f.check === 'project_dir').every((f) => f.level === 'info')).toBe(true);
  });
});

describe('doctor --online', () => {
  async function withServer(handler: (res: import('node:http').ServerResponse) => void, fn: (url: string) => Promise<void>) {
    const server: Server = createServer((_req, res) => handler(res));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    try {
      await fn(`http://127.0.0.1:${port}/api/health`);
    } finally {
      server.close();
    }
  }
  // The server runs in this process, so the CLI must run without blocking the event loop.
  function cliAsync(dir: string, args: string[]): Promise<RunResult> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: GIT_ENV });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    });
  }
  const online = (r: RunResult) => (JSON.parse(r.stdout).findings as { check: string; level: string; message: string }[]).filter((f) => f.check === 'online');

  it('compares the deployed version with HEAD; mismatch and unreachable are warnings', async () => {
    const dir = repoWith([cp('api', { updated_at: daysAgo(0.1) })]);
    const head = headSha(dir);
    await withServer((res) => res.end(JSON.stringify({ version: head.slice(0, 12) })), async (url) => {
      const f = online(await cliAsync(dir, ['doctor', '--json', `--online=${url}`]));
      expect(f).toEqual([expect.objectContaining({ level: 'info', message: expect.stringContaining('matches HEAD') })]);
    });
    await withServer((res) => res.end(JSON.stringify({ sha: 'abcdef1234567' })), async (url) => {
      write(dir, '.checkpoints/config.json', JSON.stringify({ health_url: url }));
      const r = await cliAsync(dir, ['doctor', '--json', '--online', '--fail-on-warnings']);
      expect(online(r)[0]).toMatchObject({ level: 'warning' });
      expect(r.code).toBe(1);
    });
    const closed = await cliAsync(dir, ['doctor', '--json', '--online=http://127.0.0.1:9/health']);
    expect(closed.code).toBe(0);
    expect(online(closed)[0]!.message).toContain('unreachable');
    expect((await cliAsync(dir, ['doctor', '--online=ftp://x'])).code).toBe(2);
  });
});

describe('editor support', () => {
  it('a checkpoint created after init points at the schema beside it', async () => {
    const dir = repoWith([]);
    initialized(dir);
    expect((await runCli(dir, ['update', 'api', '--next_actions+=go'])).code).toBe(0);
    const doc = JSON.parse(read(dir, '.checkpoints/api.checkpoint.json'));
    expect(doc.$schema).toBe('./checkpoint.schema.json');
    expect(existsSync(join(dir, '.checkpoints', doc.$schema))).toBe(true);
    // Without init there is no schema file to point at.
    const bare = repoWith([]);
    expect((await runCli(bare, ['update', 'api', '--next_actions+=go'])).code).toBe(0);
    expect(JSON.parse(read(bare, '.checkpoints/api.checkpoint.json')).$schema).toBeUndefined();
  });
});

describe('hand-written slips (a status outside its enum, an action object without text)', () => {
  // As a person leaves a checkpoint: "Done" on a row, "in-progress" on top, an {"action": …} item.
  const messy = () =>
    cp('api', {
      status: 'in-progress',
      progress_table: [{ id: 'auth', label: 'Auth (PR 12)', status: 'Done' }, { id: 'api', label: 'API', status: 'in_progress' }],
      next_actions: [{ action: 'Wire the token refresh' }, 'Ship it'],
    });

  it('next on a status it cannot read ("Paused") with actions queued says so, not "nothing queued"', async () => {
    const dir = repoWith([cp('api', { status: 'Paused', next_actions: [{ action: 'Wire the token refresh' }, 'Ship it'] })]);
    const next = await runCli(dir, ['next']);
    expect(next.stdout).toMatch(/^api \(queued, but not in progress\)\n→ Wire the token refresh\n/);
  });

  it('status, next and resume orient from the file as written, with one note naming the exact fix; the file is untouched', async () => {
    const dir = repoWith([messy()]);
    const before = read(dir, '.checkpoints/api.checkpoint.json');
    const fix = "fix: checkpoint update api --status=in_progress --progress_table.0.status=complete --next_actions.0.text='Wire the token refresh'";
    const status = await runCli(dir, ['status']);
    expect(status.code).toBe(1); // still a finding, as validate says
    expect(status.stdout).toMatch(/^api +in-progress +build \/ auth/m);
    expect(status.stdout).not.toContain('needs repair');
    const notes = status.stdout.split('\n').filter((l) => l.startsWith('note: api:'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain('status "in-progress" is not one of in_progress|blocked|complete|failed (did you mean in_progress?)');
    expect(notes[0]).toContain(fix);
    const next = await runCli(dir, ['next']);
    expect(next.stdout).toContain('api (in progress)');
    expect(next.stdout).toContain('→ Wire the token refresh');
    expect(next.stdout).toContain(fix);
    const resume = await runCli(dir, ['resume']);
    expect(resume.code, resume.stderr).toBe(0);
    expect(resume.stdout).toContain('Status: in-progress');
    // The row written "Done" counts as complete, as status reads "in-progress" as in progress.
    expect(resume.stdout).toContain('Progress: 1/2 phases complete');
    expect(resume.stdout).toContain('Next: Wire the token refresh');
    expect(resume.stdout).toContain(fix);
    const named = await runCli(dir, ['resume', 'api', '--json']);
    expect(named.code).toBe(0);
    const data = JSON.parse(named.stdout);
    expect(data.status).toBe('in-progress');
    expect(data.progress).toBe('1/2 phases complete');
    expect(data.repairs.map((r: { path: string }) => r.path)).toEqual(['status', 'progress_table[0].status', 'next_actions[0]']);
    for (const out of [status.stdout, next.stdout, resume.stdout, resume.stderr]) expect(out).not.toContain('reset');
    expect(read(dir, '.checkpoints/api.checkpoint.json')).toBe(before);
  });

  it('a recently_done entry dated by its day is a slip too: next still orients, and the fix makes the file valid', async () => {
    const dir = repoWith([cp('api', { status: 'In Progress', next_actions: ['Deploy to staging (PR 12)'], recently_done: [{ at: '2026-08-30', action: 'Set up the repo' }] })]);
    const next = await runCli(dir, ['next']);
    expect(next.stdout).toContain('→ Deploy to staging (PR 12)');
    expect(next.stdout).not.toContain('needs repair');
    const fix = 'checkpoint update api --status=in_progress --recently_done.0.at=2026-08-30T00:00:00Z';
    expect(next.stdout).toContain(`fix: ${fix}`);
    expect((await runCli(dir, fix.split(' ').slice(1))).code).toBe(0);
    expect((await runCli(dir, ['validate'])).code).toBe(0);
  });

  it('an updated_at written as people do ("2026-09-14 09:12", no zone) is a slip: read as UTC, stale by that instant, and any update fixes it', async () => {
    // A time written like this a day ago, as a hand edit would.
    const local = daysAgo(1).slice(0, 16).replace('T', ' ');
    const created = daysAgo(30).slice(0, 19);
    const dir = repoWith([cp('api', { updated_at: local, created_at: created, next_actions: ['Deploy to staging (PR 12)'] }), cp('web', { updated_at: '2026-01-05 09:00' })]);
    const before = read(dir, '.checkpoints/api.checkpoint.json');
    const status = await runCli(dir, ['status']);
    expect(status.stdout).not.toContain('needs repair');
    expect(status.stdout).toMatch(/^api +in_progress /m);
    expect(status.stdout).toContain(`note: api: created_at: created_at "${created}" has no time zone (read as UTC) (and 1 more: updated_at)`);
    // api's fix command re-stamps updated_at itself; web's slip is updated_at alone, said by hand.
    expect(status.stdout).toMatch(/^note: api: .*; fix: checkpoint update api --created_at=\S+$/m);
    expect(status.stdout).not.toContain('by hand in .checkpoints/api.checkpoint.json');
    expect(status.stdout).toContain('note: web: updated_at: updated_at "2026-01-05 09:00" has no time zone (read as UTC), and a space where ISO-8601 puts T; by hand in .checkpoints/web.checkpoint.json: write updated_at as "2026-01-05T09:00:00Z" (any `checkpoint update` stamps it anew)');
    // web's 2026-01-05 is months old: stale by the instant it names, so resume asks; api's is a day old.
    expect(status.stdout).toMatch(/^web .*stale/m);
    const next = await runCli(dir, ['next']);
    expect(next.stdout).toContain('→ Deploy to staging (PR 12)');
    const resume = await runCli(dir, ['resume', 'api']);
    expect(resume.code, resume.stdout).toBe(0);
    expect(resume.stdout).toContain(`Last session: 1d ago (${local})`);
    expect((await runCli(dir, ['resume', 'web'])).code).toBe(3);
    expect(read(dir, '.checkpoints/api.checkpoint.json')).toBe(before);
    // validate still fails it; the fix the note names (created_at's flag, which also stamps updated_at) makes it valid.
    expect((await runCli(dir, ['validate', '.checkpoints/api.checkpoint.json'])).code).toBe(1);
    const fix = /fix: (checkpoint update api [^\n;]*)/.exec(status.stdout)![1]!;
    expect((await runCli(dir, fix.split(' ').slice(1))).code).toBe(0);
    expect((await runCli(dir, ['validate', '.checkpoints/api.checkpoint.json'])).code).toBe(0);
  });

  it('validate still fails it and doctor reports it, each with the did-you-mean; the fix the note gives makes it valid', async () => {
    const dir = repoWith([messy()]);
    const v = await runCli(dir, ['validate']);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain('row status must be one of complete|in_progress|not_started|blocked|failed (did you mean complete?)');
    const d = await runCli(dir, ['doctor']);
    expect(d.stdout).toContain('status "in-progress" must be one of in_progress|blocked|complete|failed (did you mean in_progress?)');
    expect((await runCli(dir, ['update', 'api', '--status=in_progress', '--progress_table.0.status=complete', '--next_actions.0.text=Wire the token refresh'])).code).toBe(0);
    expect((await runCli(dir, ['validate'])).code).toBe(0);
  });

  it('the printed fix for a status written with its reason keeps the reason: a blocked one in a new blocker, another in progress_summary (red team 62b 06)', async () => {
    const cases: [Record<string, unknown>, string, (doc: Record<string, unknown>) => void][] = [
      [{ status: 'blocked - waiting on the API key from Dana' }, `--status=blocked '--blockers+:json={"id":"b1","description":"waiting on the API key from Dana"}'`, (doc) => {
        expect(doc.blockers).toEqual([{ id: 'b1', description: 'waiting on the API key from Dana' }]);
      }],
      // A blocker written as a string is read as b1: the reason's blocker takes the next id.
      [{ status: 'Blocked (vendor: Stripe)', blockers: ['CI is red on main'] }, `--status=blocked '--blockers+:json={"id":"b2","description":"vendor: Stripe"}' --blockers.0:json='{"id":"b1","description":"CI is red on main"}'`, (doc) => {
        expect(doc.blockers).toEqual([{ id: 'b1', description: 'CI is red on main' }, { id: 'b2', description: 'vendor: Stripe' }]);
      }],
      [{ status: 'failed - tests red', progress_summary: 'Orders API half done; see src/orders.ts (PR 12).' }, `--status=failed --progress_summary='Orders API half done; see src/orders.ts (PR 12). (tests red)'`, (doc) => {
        expect(doc.progress_summary).toBe('Orders API half done; see src/orders.ts (PR 12). (tests red)');
      }],
      [{ status: 'complete (shipped in PR 12)' }, `--status=complete --progress_summary='api summary. (shipped in PR 12)'`, (doc) => {
        expect(doc.progress_summary).toBe('api summary. (shipped in PR 12)');
      }],
      // The summary already says it: nothing to carry.
      [{ status: 'failed: tests red', progress_summary: 'Tests red since the merge.' }, '--status=failed', (doc) => {
        expect(doc.progress_summary).toBe('Tests red since the merge.');
      }],
    ];
    for (const [over, flags, check] of cases) {
      const dir = repoWith([cp('api', over)]);
      const before = read(dir, '.checkpoints/api.checkpoint.json');
      const line = /fix: (checkpoint update api .*)$/m.exec((await runCli(dir, ['next'])).stdout)?.[1];
      expect(line, String(over.status)).toBe(`checkpoint update api ${flags} --keep-updated-at`);
      expect(read(dir, '.checkpoints/api.checkpoint.json')).toBe(before);
      // Pasted into a shell as printed: the words update gets fix the file, the reason kept.
      const argv = paste([line!]).runs[0]!;
      const u = await runCli(dir, argv.slice(1));
      expect(u.code, u.stderr).toBe(0);
      expect(u.stdout + u.stderr).not.toContain('no blockers say why');
      const doc = JSON.parse(read(dir, '.checkpoints/api.checkpoint.json')) as Record<string, unknown>;
      check(doc);
      expect((await runCli(dir, ['validate', 'api'])).code, String(over.status)).toBe(0);
    }
  });

  it('a hand-written "Blocked" is a blocked checkpoint: resume asks the user (exit 3), showing the status as written', async () => {
    const dir = repoWith([cp('api', { status: 'Blocked', blockers: [{ id: 'creds', description: 'no staging creds (PR 12)' }] })]);
    const r = await runCli(dir, ['resume']);
    expect(r.code, r.stderr).toBe(3);
    // The only checkpoint: its briefing, the status as written in it.
    expect(r.stdout).toMatch(/^Status: Blocked$/m);
    expect(r.stdout).toContain('ASK THE USER');
  });

  it('a blocker whose needs is written "User Decision" is a decision waiting on the user: ranked first, asked by resume (exit 3), shown as written', async () => {
    const decide = { id: 'db', description: 'Pick the database', needs: 'User Decision' };
    const dir = repoWith([cp('api', { blockers: [decide, { id: 'ci', description: 'CI is red', needs: 'code_fix' }] }), cp('web', { updated_at: daysAgo(0.7) })]);
    const fix = 'fix: checkpoint update api --blockers.0.needs=user_decision';
    const status = await runCli(dir, ['status']);
    expect(status.stdout).toMatch(/^⛔ 1 decision waiting on you$/m);
    expect(status.stdout).toContain('⛔ db: Pick the database [User Decision]');
    expect(status.stdout).toContain(fix);
    expect(JSON.parse((await runCli(dir, ['status', '--json'])).stdout).decisions_waiting).toEqual([{ skill: 'api', id: 'db', description: 'Pick the database' }]);
    const next = await runCli(dir, ['next']);
    expect(next.stdout).toMatch(/^api \(decision waiting on the user\)\n→ Ask the user to decide: Pick the database \(blocker db\)$/m);
    const resume = await runCli(dir, ['resume']);
    expect(resume.code, resume.stdout).toBe(3);
    expect(resume.stdout).toContain('RESUMING: api on demo');
    expect(resume.stdout).toContain('⛔ db: Pick the database');
    expect(resume.stdout).toMatch(/^Open blockers:\n {2}■ ci: CI is red \[code_fix\]$/m);
    expect(resume.stdout).not.toContain('■ db');
    const json = JSON.parse((await runCli(dir, ['resume', 'api', '--json'])).stdout);
    expect(json.ask_user).toBe(true);
    expect(json.user_decisions).toEqual([decide]);
    const capsule = { goal: 'g', acceptance: 'a', constraints: [], decisions: [], evidence: [], pending: [], next: 'n' };
    expect((await runCli(dir, ['pause', 'api', '--context', JSON.stringify(capsule)])).code).toBe(0);
    expect((await runCli(dir, ['resume', 'api', '--context'])).stdout).toMatch(/^ {2}⛔ db: Pick the database\n {2}■ ci: CI is red$/m);
  });

  it('a blocker needs written "decision", "approval" or "user input" is a decision waiting on the user; an unclear one ranks above plain work and makes resume ask (red team 62b 05)', async () => {
    for (const needs of ['decision', 'approval', 'user input', 'Needs user', 'decision: Postgres or SQLite']) {
      const dir = repoWith([cp('api', { blockers: [{ id: 'db', description: 'Postgres or SQLite? Ask Dana', needs }] }), cp('web', { updated_at: daysAgo(0.7) })]);
      const next = await runCli(dir, ['next']);
      expect(next.stdout, needs).toMatch(/^api \(decision waiting on the user\)\n→ Ask the user to decide: Postgres or SQLite\? Ask Dana \(blocker db\)$/m);
      expect(next.stdout).toContain('fix: checkpoint update api --blockers.0.needs=user_decision');
      const resume = await runCli(dir, ['resume', 'api']);
      expect(resume.code, needs).toBe(3);
      expect(resume.stdout).toContain('⛔ db: Postgres or SQLite? Ask Dana');
    }
    // Other kinds by their words: not the user's, plain work as before.
    for (const [needs, meant] of [['bug fix', 'code_fix'], ['Vendor', 'external_dep'], ['external dependency', 'external_dep']]) {
      const dir = repoWith([cp('api', { blockers: [{ id: 'k', description: 'Stripe key', needs }] })]);
      expect((await runCli(dir, ['next'])).stdout).toMatch(new RegExp(`^api \\(in progress\\)[\\s\\S]*--blockers\\.0\\.needs=${meant} --keep-updated-at$`, 'm'));
      expect((await runCli(dir, ['resume', 'api'])).code, needs).toBe(0);
    }
    // Written so no reader can tell whether it waits on the user: asked, not worked past.
    const dir = repoWith([cp('api', { blockers: [{ id: 'db', description: 'Postgres or SQLite?', needs: 'Dana' }] }), cp('web', { updated_at: daysAgo(0.7) })]);
    const before = read(dir, '.checkpoints/api.checkpoint.json');
    const next = JSON.parse((await runCli(dir, ['next', '--json'])).stdout).next;
    expect(next).toMatchObject({ skill: 'api', rank: 2, reason: "a blocker's needs is unclear: it may wait on the user" });
    const one = await runCli(dir, ['resume', 'api']);
    expect(one.code).toBe(3);
    expect(one.stdout).toContain('ASK THE USER: blocker db needs "Dana", outside user_decision|code_fix|external_dep, so whether it waits on the user is unclear.');
    expect(one.stdout).toContain("fix: checkpoint update api --blockers.0.needs='<user_decision|code_fix|external_dep>'");
    expect(JSON.parse((await runCli(dir, ['resume', 'api', '--json'])).stdout).ask_user).toBe(true);
    const any = await runCli(dir, ['resume']);
    expect(any.code).toBe(3);
    expect(any.stdout).toMatch(/^ {2}api .*— a blocker's needs is unclear: it may wait on the user$/m);
    expect(read(dir, '.checkpoints/api.checkpoint.json')).toBe(before);
  });

  it('a blocker written as a string, or without an id, is a slip: the checkpoint is read, the blocker shown, and the note\'s fix makes the file valid', async () => {
    const dir = repoWith([cp('api', { blockers: ["Waiting on the ops team's API key", { description: 'CI is red', needs: 'code_fix' }, { id: 'b2', description: 'Pick a DB', needs: 'external_dep' }] })]);
    const before = read(dir, '.checkpoints/api.checkpoint.json');
    const status = await runCli(dir, ['status']);
    expect(status.stdout).not.toContain('needs repair');
    expect(status.stdout).toMatch(/^api +in_progress +build \/ auth/m);
    expect(status.stdout).toContain("■ b1: Waiting on the ops team's API key");
    expect(status.stdout).toContain('■ b3: CI is red [code_fix]');
    const fix = /fix: (checkpoint update api .*)$/m.exec(status.stdout)![1]!;
    expect(fix).toBe(`checkpoint update api --blockers.0:json='{"id":"b1","description":"Waiting on the ops team'\\''s API key"}' --blockers.1.id=b3 --keep-updated-at`);
    const resume = await runCli(dir, ['resume', 'api']);
    expect(resume.code, resume.stderr).toBe(0);
    expect(resume.stdout).toContain('Next: api first action');
    expect(resume.stdout).toMatch(/^Open blockers:\n {2}■ b1: Waiting on the ops team's API key\n {2}■ b3: CI is red \[code_fix\]\n {2}■ b2: Pick a DB \[external_dep\]$/m);
    expect((await runCli(dir, ['validate'])).code).toBe(1);
    expect(read(dir, '.checkpoints/api.checkpoint.json')).toBe(before);
    // The fix as printed, pasted into bash.
    expect(execFileSync('bash', ['-c', fix.replace(/^checkpoint /, `node ${JSON.stringify(BIN)} `)], { cwd: dir, env: GIT_ENV, encoding: 'utf8' })).toContain('✓ updated');
    expect((await runCli(dir, ['validate'])).code).toBe(0);
    expect(JSON.parse(read(dir, '.checkpoints/api.checkpoint.json')).blockers.map((b: { id: string }) => b.id)).toEqual(['b1', 'b3', 'b2']);
  });

  it('numbers where text belongs, one string for a list, a row without an id, a lowercase t/z: read as meant; pasting the fixes makes the file valid', async () => {
    const dir = repoWith([]);
    const c = cp('api', { protocol_version: 1.1, step: 2, context_primer: { key_decisions: 'Use JWT', generated_files: 'docs/auth.md' }, updated_at: daysAgo(1).replace('T', 't').replace('Z', 'z') });
    (c.progress_table as Record<string, unknown>[])[1] = { label: 'API', status: 'in_progress' };
    // Written as a person does: 8.0 for the step, which the fix keeps as written.
    write(dir, '.checkpoints/api.checkpoint.json', JSON.stringify(c, null, 4).replace('"step": 2', '"step": 8.0'));
    const before = read(dir, '.checkpoints/api.checkpoint.json');
    const status = await runCli(dir, ['status']);
    expect(status.stdout).not.toContain('needs repair');
    expect(status.stdout).toMatch(/^api +in_progress +build \/ 8\.0 +1d ago/m);
    // list shows the step as status does, not left out (red team rt60c 09).
    expect((await runCli(dir, ['list'])).stdout).toMatch(/^api {2}in_progress {2}build\/8\.0 {2}/m);
    expect((await runCli(dir, ['resume', 'api'])).stdout).toContain('Next: api first action');
    expect(read(dir, '.checkpoints/api.checkpoint.json')).toBe(before);
    // Each fix as printed, pasted into bash, until status has none left (a note names at most five flags).
    for (let round = 0; round < 3; round++) {
      const fix = /fix: (checkpoint update api .*)$/m.exec((await runCli(dir, ['status'])).stdout)?.[1];
      if (!fix) break;
      expect(execFileSync('bash', ['-c', fix.replace(/^checkpoint /, `node ${JSON.stringify(BIN)} `)], { cwd: dir, env: GIT_ENV, encoding: 'utf8' })).toContain('✓ updated');
    }
    const v = await runCli(dir, ['validate']);
    expect(v.code, v.stdout).toBe(0);
    const after = JSON.parse(read(dir, '.checkpoints/api.checkpoint.json'));
    expect(after).toMatchObject({ protocol_version: '1.1', step: '8.0', context_primer: { key_decisions: ['Use JWT'], generated_files: ['docs/auth.md'] } });
    expect(after.progress_table[1]).toEqual({ label: 'API', status: 'in_progress', id: 'row-2' });
  });

  it('a skill field written in another case or with other separators than its file name ("API", "oc_api") is a slip; a different name still needs repair', async () => {
    const dir = repoWith([]);
    for (const [file, skill] of [['api', 'API'], ['oc-web', 'oc_web'], ['ops', 'other']]) write(dir, `.checkpoints/${file}.checkpoint.json`, JSON.stringify(cp(skill!), null, 2));
    const status = await runCli(dir, ['status']);
    expect(status.stdout).toMatch(/^api +in_progress/m);
    expect(status.stdout).toMatch(/^oc-web +in_progress/m);
    expect(status.stdout).toMatch(/^ops +needs repair/m);
    expect(status.stdout).toContain('note: api: skill: skill "API" does not match the file name api.checkpoint.json; fix: checkpoint update api --skill=api');
    expect(status.stdout).toContain('fix: checkpoint update oc-web --skill=oc-web');
    expect((await runCli(dir, ['resume', 'api'])).code).toBe(0);
    expect((await runCli(dir, ['update', 'api', '--skill=api'])).code).toBe(0);
    expect((await runCli(dir, ['validate', 'api'])).code).toBe(0);
  });

  it('a value with no clear meaning gets no guess; an unreadable file and any other error still need repair, never with reset advised for a field', async () => {
    const dir = repoWith([cp('api', { status: 'wip-ish' }), cp('web', { progress_table: [{ status: 'complete' }] })]);
    write(dir, '.checkpoints/bad.checkpoint.json', '{ "skill": "bad", ');
    const s = await runCli(dir, ['status']);
    expect(s.stdout).toContain("note: api: status: status \"wip-ish\" is not one of in_progress|blocked|complete|failed; fix: checkpoint update api --status='<in_progress|blocked|complete|failed>'");
    expect(s.stdout).toMatch(/^web +needs repair/m);
    expect(s.stdout).toMatch(/^bad +needs repair/m);
    const web = await runCli(dir, ['resume', 'web']);
    expect(web.code).toBe(2);
    expect(web.stderr).toContain('cannot resume web');
    expect(web.stderr).not.toContain('reset');
    const bad = await runCli(dir, ['resume', 'bad']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('cannot resume bad');
  });
});

describe('resume --context and landed work', () => {
  it('says when next_actions[0] already landed, and names the first action that has not, as resume does', async () => {
    const dir = repoWith([cp('api', { updated_at: daysAgo(2), next_actions: ['Merge PR #12 (auth)', 'Write the docs'] })]);
    const capsule = { goal: 'g', acceptance: 'a', constraints: [], decisions: [], evidence: [], pending: [], next: 'n' };
    expect((await runCli(dir, ['pause', 'api', '--context', JSON.stringify(capsule)])).code).toBe(0);
    commitAll(dir, 'capsule', daysAgo(0.4));
    git(dir, ['checkout', '-q', '-b', 'feat']);
    write(dir, 'src/auth.ts', 'x\n');
    commitAll(dir, 'auth', daysAgo(0.3));
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--no-ff', 'feat', '-m', 'Merge pull request #12 from x/feat'], dateEnv(daysAgo(0.2)));
    expect((await runCli(dir, ['resume', 'api'])).stdout).toContain('Next: Write the docs');
    const r = await runCli(dir, ['resume', 'api', '--context']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^next_actions\[0\] now: Merge PR #12 \(auth\)\n {2}\(already landed: #12 landed in [0-9a-f]+ "Merge pull request #12 from x\/feat"; the first action not landed: Write the docs\)$/m);
    // The JSON a host reads says the same.
    const json = JSON.parse((await runCli(dir, ['resume', 'api', '--context', '--json'])).stdout);
    expect(json.next_action_landed).toEqual({ evidence: expect.stringMatching(/^#12 landed in [0-9a-f]+ "Merge pull request #12 from x\/feat"$/), first_not_landed: 'Write the docs' });
  });
});

describe('resume keeps what matters most', () => {
  it('a next action longer than the budget is cut with a marker, never dropped, while the summary gives way', async () => {
    const next = `Run the migration: ${'step '.repeat(1900)}then STOP before prod`;
    const dir = repoWith([cp('api', { progress_summary: 'context '.repeat(900), next_actions: [next, 'Ship'] })]);
    const r = await runCli(dir, ['resume', 'api']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().length).toBeLessThanOrEqual(9000);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.find((l) => l.startsWith('Next: Run the migration: step step'))).toMatch(/… \[cut\]$/);
    expect(lines.at(-1)).toMatch(/^… left out to fit the output budget: summary, .*next action \(cut to \d+ of \d+ characters\).*; everything: checkpoint show api$/);
    expect(r.stdout).not.toContain('Summary:');
  });

  it('without a skill, names the other skills in progress (bounded); with one, does not', async () => {
    const skills = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8'];
    const dir = repoWith(skills.map((s, k) => cp(s, { updated_at: daysAgo(1 + k / 10) })));
    const r = await runCli(dir, ['resume']);
    expect(r.stdout).toContain('RESUMING: a1 ');
    expect(r.stdout).toContain('Also in progress: a2, a3, a4, a5, a6 and 2 more (e.g. checkpoint resume a2)');
    expect(JSON.parse((await runCli(dir, ['resume', '--json'])).stdout).others_in_progress).toEqual(skills.slice(1));
    expect((await runCli(dir, ['resume', 'a1'])).stdout).not.toContain('Also in progress');
  });
});

describe('next: the highest-priority non-stale action (red team 64 r4, 2)', () => {
  it('recommends fresh work over a stale checkpoint at a gate; with only stale work left, names it stale and says to ask', async () => {
    const dir = repoWith([cp('old', { step: 'approval-gate', created_at: daysAgo(90), updated_at: daysAgo(60), next_actions: ['Ship the old prototype'] }), cp('fresh', { next_actions: ['Write the auth middleware'] })]);
    const r = await runCli(dir, ['next']);
    expect(r.stdout).toBe('fresh (in progress)\n→ Write the auth middleware\n');
    expect(JSON.parse((await runCli(dir, ['next', '--json'])).stdout).next).toMatchObject({ skill: 'fresh', stale: false });
    expect((await runCli(dir, ['reset', 'fresh'])).code).toBe(0);
    const only = await runCli(dir, ['next']);
    expect(only.stdout).toBe("old (in progress at a gate, stale)\n→ Ship the old prototype\n  stale: nothing fresh is queued; ask the user before resuming old (`checkpoint resume old` asks too)\n");
  });
});

describe('an updated_at far in the future (red team 64 r4, 5)', () => {
  it('ranks as undated in next and resume, with one note saying so; fresh work wins', async () => {
    const dir = repoWith([cp('old', { updated_at: '2062-10-08T00:00:00Z', next_actions: ['Rewrite everything in Rust'] }), cp('web', { next_actions: ['Write the auth middleware'] })]);
    const note = 'checkpoint: note: the updated_at of old (2062-10-08T00:00:00Z) is more than a day ahead of this clock, so it ranks as undated (the next save from a correct clock stamps it)\n';
    const next = await runCli(dir, ['next']);
    expect([next.stdout, next.stderr]).toEqual(['web (in progress)\n→ Write the auth middleware\n', note]);
    const resume = await runCli(dir, ['resume']);
    expect(resume.stdout.split('\n')[0]).toBe('RESUMING: web on demo');
    expect(resume.stderr).toBe(note);
  });
});
