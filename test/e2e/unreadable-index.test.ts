// An index git cannot read (a FIFO, socket or device planted at .git/index, or garbage bytes):
// commands whose git reads the index refuse in indexRefusal's one line instead of waiting on it
// forever or reading git's failure as "nothing there"; pause saves what it can and says what not.
// Where a read could block (a FIFO, device or socket planted), the commands run as processes of
// the built binary under the hang guard; elsewhere (a healthy index, garbage bytes, which git
// refuses at once) through the CLI's entry in this process, each as a new process would
// (runCliFresh), which saves a node start-up each.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanup, cliGuarded, commitAll, git, makeRepo, write, type RunResult } from '../helpers/repo.js';
import { runCliFresh } from '../helpers/in-process.js';
import { checkpointDoc } from '../helpers/fixtures.js';

const dirs: string[] = [];
const servers: Server[] = [];
beforeAll(() => assertBuilt());
afterEach(() => dirs.splice(0).forEach(cleanup));
afterAll(() => servers.forEach((s) => s.close()));


type Run = (dir: string, args: string[]) => Promise<RunResult & { signal: NodeJS.Signals | null }>;
/** The built binary under the hang guard. */
const guarded: Run = async (dir, args) => cliGuarded(dir, args);
/** In this process: no signal can end it. */
const here: Run = async (dir, args) => ({ ...(await runCliFresh(dir, args)), signal: null });

/** A messy checkpoint with a saved capsule, committed, and a tracked file edited since. */
async function repo(): Promise<string> {
  const dir = makeRepo();
  dirs.push(dir);
  write(dir, 'src/orders.ts', 'export const orders = 8.0;\n');
  write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(checkpointDoc({ skill: 'api', updated_at: '2026-07-01T10:00:00Z', next_actions: ['Merge PR #12 (orders API)', 'docs/**/*.md: tidy'] }), null, 2)}\n`);
  commitAll(dir, 'checkpoint: api', '2026-07-01T10:01:00Z');
  const saved = await here(dir, ['pause', 'api', '--context', JSON.stringify({ goal: 'orders API', acceptance: 'tests pass', constraints: [], decisions: ['8.0 units'], evidence: [], pending: ['src/x.ts (PR 12)'], next: 'merge PR #12' })]);
  expect(saved.code, saved.stderr).toBe(0);
  commitAll(dir, 'capsule', '2026-07-01T10:02:00Z');
  write(dir, 'src/orders.ts', 'export const orders = 9.0;\n');
  return dir;
}

/** What is planted, how, git's reason, and how the commands run beside it (`guarded`: a read of it could block). */
const PLANTS: [string, (index: string) => Promise<void> | void, string, Run][] = [
  ['a FIFO', (index) => void spawnSync('mkfifo', [index]), 'it is a FIFO, not a file', guarded],
  ['a link to /dev/zero', (index) => symlinkSync('/dev/zero', index), 'it is a device, not a file', guarded],
  ['a socket', (index) => new Promise<void>((done) => { const s = createServer(); servers.push(s); s.listen(index, () => done()); }), 'it is a socket, not a file', guarded],
  ['4 KB of random bytes', (index) => writeFileSync(index, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) % 251))), 'index file corrupt (bad signature', here],
];

describe.each(PLANTS)('.git/index is %s', (_what, plant, reason, run) => {
  it('resolve, resolve --check (--json) and resolve --add refuse in one line with the repair, exit 2, files unchanged', async () => {
    const dir = await repo();
    const index = join(dir, '.git/index');
    rmSync(index);
    await plant(index);
    const before = readFileSync(join(dir, '.checkpoints/api.checkpoint.json'));
    for (const args of [['resolve'], ['resolve', '--check'], ['resolve', '--add']]) {
      const r = await run(dir, args);
      expect(r.signal, args.join(' ')).toBeNull();
      expect(r.code, args.join(' ') + r.stdout + r.stderr).toBe(2);
      expect(r.stdout).not.toMatch(/no conflicted|no checkpoint file holds/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(`checkpoint: git cannot read the index ${index}: ${reason}`);
      expect(r.stderr).toContain(`hint: rebuild it from HEAD: \`rm ${index} && git reset\``);
    }
    const json = await run(dir, ['resolve', '--check', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, error: { code: 'E_GIT' } });
    expect(readFileSync(join(dir, '.checkpoints/api.checkpoint.json'))).toEqual(before);
  });

  it('pause --auto saves HEAD and branch but no uncommitted paths it could not read, and warns in one line', async () => {
    const dir = await repo();
    const index = join(dir, '.git/index');
    rmSync(index);
    await plant(index);
    const r = await run(dir, ['pause', 'api', '--auto']);
    expect(r.signal).toBeNull();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`^checkpoint: warning: saved without the uncommitted paths: git cannot read the index .*: ${reason.replace(/[()]/g, '\\$&')}.*; hint: rebuild it from HEAD`));
    expect(r.stdout).toContain('branch main, uncommitted paths unknown');
    const mechanical = JSON.parse(readFileSync(join(dir, '.checkpoints/api.checkpoint.json'), 'utf8')).capsule.mechanical;
    expect(mechanical.branch).toBe('main');
    expect(mechanical.head).toBe(git(dir, ['rev-parse', '--short', 'HEAD']).trim());
    expect(mechanical).not.toHaveProperty('uncommitted');
    expect(mechanical).not.toHaveProperty('uncommitted_count');
    const context = await run(dir, ['resume', 'api', '--context']);
    expect(context.stdout).toContain('branch main, uncommitted paths not recorded');
  });
});

it('with a healthy index, pause --auto records the edit and resolve --check passes', async () => {
  const dir = await repo();
  expect((await here(dir, ['resolve', '--check'])).code).toBe(0);
  const r = await here(dir, ['pause', 'api', '--auto']);
  expect(r.stderr).toBe('');
  const mechanical = JSON.parse(readFileSync(join(dir, '.checkpoints/api.checkpoint.json'), 'utf8')).capsule.mechanical;
  expect(mechanical).toMatchObject({ branch: 'main', uncommitted: ['src/orders.ts'], uncommitted_count: 1 });
});
