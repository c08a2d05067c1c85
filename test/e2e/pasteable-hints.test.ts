// Slip notes and hints print commands people paste into a shell. From hand-kept checkpoints as
// they are found (a status "Paused", a row "DONE!", next_actions written as one string, an
// action of 300 characters or two lines), every command any read command prints must run only
// `checkpoint`/`git` when pasted into bash, redirect nothing, and the fixes must repair.
import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { assertBuilt, BIN, cleanup, commitAll, makeRepo, read, write, GIT_ENV } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';
import { paste } from '../helpers/paste.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

const daysAgo = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString();

function cp(skill: string, over: Record<string, unknown> = {}) {
  return {
    protocol_version: '1.0', skill, project: 'shop', project_dir: '/home/dev/shop',
    created_at: daysAgo(120), updated_at: daysAgo(1),
    phase: 'build', step: 'checkout (PR 12)', status: 'in_progress', progress_summary: 'Checkout half done; see src/checkout/*.ts.',
    progress_table: [{ id: 'cart', label: 'Cart', status: 'complete' }, { id: 'pay', label: 'Payments (PR 12)', status: 'in_progress' }],
    next_actions: ['Wire the refund webhook'],
    ...over,
  };
}

function repoWith(checkpoints: Record<string, unknown>[]): string {
  assertBuilt();
  const dir = makeRepo();
  dirs.push(dir);
  for (const c of checkpoints) write(dir, `.checkpoints/${(c as { skill: string }).skill}.checkpoint.json`, `${JSON.stringify(c, null, 4)}\n`);
  commitAll(dir, 'checkpoints', daysAgo(2));
  return dir;
}

/** Every command a line of output offers to paste: after "fix: " or "done again: ", in backticks, in parentheses, after "fix the field with ". */
function commandsIn(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:fix|done again): ((?:checkpoint|git) .*)$/gm)) found.push(m[1]!);
  for (const m of text.matchAll(/`((?:checkpoint|git|rm) [^`]*)`/g)) found.push(m[1]!);
  for (const m of text.matchAll(/\((?:e\.g\. )?((?:checkpoint|git) [^()]*)\)/g)) found.push(m[1]!);
  for (const m of text.matchAll(/fix the field with (checkpoint update \S+ \S+)/g)) found.push(m[1]!);
  return found;
}

const long = `Migrate the orders table to the new schema, ${'then backfill the ledger rows for each region '.repeat(12)}and only then flip the flag`;

describe('printed commands are safe to paste', () => {
  it('every fix, hint and suggestion that status, next, resume and done print runs nothing but checkpoint/git, and creates no file', async () => {
    const dir = repoWith([
      cp('api', {
        status: 'Paused',
        progress_table: [{ id: 'cart', label: 'Cart', status: 'DONE!' }, { id: 'pay', label: 'Payments (PR 12)', status: '✅ done' }],
        blockers: [{ id: 'creds', description: 'staging creds $(whoami)', needs: 'ask <ops>' }],
        next_actions: [{ action: long }, { title: 'Check the ledger\nthen the refunds > out.txt' }, { action: '\u202egnirts' }, { action: 'ok', done_when: 5 }],
      }),
      cp('web', { next_actions: 'Merge PR #12 then deploy' }),
      cp('bad', { next_actions: [{ text: '' }] }),
    ]);
    const outputs: string[] = [];
    for (const args of [['status'], ['status', '--brief'], ['next'], ['resume'], ['resume', 'api'], ['resume', 'web'], ['resume', 'bad'], ['resume', 'nope'], ['done', 'web'], ['status', '--json'], ['next', '--json'], ['resume', 'api', '--json']]) {
      const r = await runCli(dir, args);
      outputs.push(r.stdout, r.stderr);
      if (args.includes('--json') && r.stdout) for (const e of JSON.parse(r.stdout).repairs ?? []) if (e.fix) outputs.push(`fix: ${e.fix}`);
    }
    const empty = repoWith([]);
    outputs.push((await runCli(empty, ['status'])).stdout, (await runCli(empty, ['list'])).stdout, (await runCli(empty, ['show', 'api'])).stderr);
    const commands = [...new Set(outputs.flatMap(commandsIn))];
    // The fixes for each kind of slip are among them.
    expect(commands).toContain("checkpoint update web --next_actions:json='[\"Merge PR #12 then deploy\"]'");
    expect(commands.some((c) => c.includes("--status='<in_progress|blocked|complete|failed>'"))).toBe(true);
    expect(commands.some((c) => c.includes(`--next_actions.1.text="$(printf -- 'Check the ledger\\012then the refunds > out.txt')"`))).toBe(true);
    expect(commands.some((c) => c.includes('--next_actions.0.text'))).toBe(false); // over 500 characters: said by hand
    // Resume names a real skill, never a template that only fails as pasted (red team 64 r4).
    expect(commands.filter((c) => c.startsWith('checkpoint resume '))).toContain('checkpoint resume api');
    expect(commands.filter((c) => c.includes("'<skill>'") && c.startsWith('checkpoint resume'))).toEqual([]);
    expect(commands).toContain("checkpoint update '<skill>' ...");
    expect(commands.length).toBeGreaterThan(8);
    // sh (dash) as much as bash: a pasted fix runs the same in either (red team, 12-04).
    for (const shell of ['/bin/bash', '/bin/sh']) {
      const r = paste(commands, shell);
      expect(r.stderr, shell).toBe('');
      expect(r.created, shell).toEqual([]);
      expect(r.runs.map((run) => run[0]), shell).toEqual(commands.map((c) => c.split(' ')[0]));
    }
    // The long action is named, with what to do by hand, on the same note.
    expect(outputs.join('\n')).toContain('by hand in .checkpoints/api.checkpoint.json: copy its words (');
  });

  it('pasted with the real checkpoint on PATH, the fixes make the files valid; a placeholder is refused with the file unchanged', async () => {
    const dir = repoWith([
      cp('web', { next_actions: 'Merge PR #12 then deploy' }),
      cp('ops', { next_actions: [{ action: 'Rotate keys\u202e for eu', done_when: 5 }, { title: 'two\nlines' }] }),
      cp('api', { status: 'Paused' }),
    ]);
    const bin = join(dir, '..', `bin-${dirs.length}`);
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'checkpoint'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, 'checkpoint'), 0o755);
    const shell = (line: string) => spawnSync('/bin/bash', ['-c', line], { cwd: dir, env: { ...GIT_ENV, PATH: `${bin}:${process.env.PATH}` }, encoding: 'utf8' });
    const status = (await runCli(dir, ['status'])).stdout;
    const fixes = commandsIn(status).filter((c) => c.startsWith('checkpoint update'));
    expect(fixes).toHaveLength(3);
    const apiBefore = read(dir, '.checkpoints/api.checkpoint.json');
    for (const fix of fixes) {
      const r = shell(fix);
      if (fix.startsWith('checkpoint update api')) {
        expect(r.status, r.stderr).toBe(2);
        expect(read(dir, '.checkpoints/api.checkpoint.json')).toBe(apiBefore);
      } else expect(r.status, r.stderr).toBe(0);
    }
    const v = await runCli(dir, ['validate', '.checkpoints/web.checkpoint.json', '.checkpoints/ops.checkpoint.json']);
    expect(v.code, v.stdout).toBe(0);
    const ops = JSON.parse(read(dir, '.checkpoints/ops.checkpoint.json'));
    expect(ops.next_actions).toEqual([{ action: 'Rotate keys\u202e for eu', done_when: '5', text: 'Rotate keys\u202e for eu' }, { title: 'two\nlines', text: 'two\nlines' }]);
    expect(JSON.parse(read(dir, '.checkpoints/web.checkpoint.json')).next_actions).toEqual(['Merge PR #12 then deploy']);
  });
});

describe('statuses resume cannot read, and next_actions written as a string', () => {
  it('resume asks the user (exit 3) for a status outside the enum with no clear meaning, saying why', async () => {
    for (const status of ['paused', '🚧 maybe', 'Paused']) {
      const dir = repoWith([cp('api', { status })]);
      const r = await runCli(dir, ['resume']);
      expect(r.code, `${status}: ${r.stdout}`).toBe(3);
      // The only checkpoint: plain resume gives its briefing, as resume api does.
      const named = await runCli(dir, ['resume', 'api']);
      expect(named.code).toBe(3);
      expect(named.stdout).toContain(`ASK THE USER: its status "${status}" is outside in_progress|blocked|complete|failed, so whether work goes on is unclear.`);
      expect(r.stdout).toBe(named.stdout);
      expect(JSON.parse((await runCli(dir, ['resume', 'api', '--json'])).stdout).ask_user).toBe(true);
    }
    // Beside another checkpoint, the list that asks which to resume says why.
    const two = await runCli(repoWith([cp('api', { status: 'paused' }), cp('web', { status: 'failed' })]), ['resume']);
    expect(two.code).toBe(3);
    expect(two.stdout).toContain('a status outside in_progress|blocked|complete|failed: whether work goes on is unclear');
    // A slip with a clear meaning still reads as that status.
    expect((await runCli(repoWith([cp('api', { status: 'In Progress' })]), ['resume'])).code).toBe(0);
  });

  it('status and next read the string as the next action, and next skips it once git shows it landed; done says how to make it a list', async () => {
    const dir = repoWith([cp('web', { next_actions: 'Merge PR #12 then deploy' })]);
    const before = read(dir, '.checkpoints/web.checkpoint.json');
    const next = await runCli(dir, ['next']);
    expect(next.stdout).toContain('→ Merge PR #12 then deploy');
    expect((await runCli(dir, ['status'])).stdout).toContain('  1. Merge PR #12 then deploy');
    const done = await runCli(dir, ['done', 'web']);
    expect(done.code).toBe(2);
    expect(done.stderr).toBe(`checkpoint: next_actions of "web" is a string, not a list of actions; nothing was changed; hint: make it a list, then run done again: checkpoint update web --next_actions:json='["Merge PR #12 then deploy"]'\n`);
    expect(read(dir, '.checkpoints/web.checkpoint.json')).toBe(before);
    write(dir, 'src/deploy.ts', 'export {};\n');
    commitAll(dir, 'Merge pull request #12 from team/deploy', daysAgo(0.5));
    const landed = JSON.parse((await runCli(dir, ['next', '--json'])).stdout);
    expect(landed.next.kind).toBe('reconcile');
    expect(landed.next.skipped_as_landed).toMatchObject([{ index: 0, text: 'Merge PR #12 then deploy' }]);
  });
});
