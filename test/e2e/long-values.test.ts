// Values a refusal quotes are cut (src/one-line.ts: shown, shownPath), however long they come:
// a typed argument of thousands of characters, a repository nested thousands of characters deep.
// Each refusal stays one bounded `checkpoint: ...; hint: ...` line, exit 2, never an internal
// error (a name too long for the file system names no file: it is missing), nothing written.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitAll, errorLine, git, makeRepo, read, tempDir, write } from '../helpers/repo.js';
import { displayWidth, MAX_CELL_WIDTH } from '../../src/cli/render/width.js';
import { runCli } from '../helpers/in-process.js';
import { freshCheckpoint } from '../helpers/fixtures.js';
import { snapshot } from '../reliability/helpers.js';

/** Room for the message's own words and a few cut values, far below any value quoted whole. */
const MAX_LINE = 1000;

function project(): string {
  const dir = makeRepo();
  write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(freshCheckpoint('api', { context_primer: { key_decisions: ['orders in 8.0 units'], generated_files: ['src/orders.ts (PR 12)'] } }), null, 2)}\n`);
  write(dir, 'src/orders.ts', 'export const orders = 8.0;\n');
  commitAll(dir, 'checkpoint: api', '2026-09-14T17:40:00Z');
  return dir;
}

function expectBoundedRefusal(r: { code: number; stdout: string; stderr: string }): void {
  expect(r.code, r.stderr).toBe(2);
  const line = errorLine(r.stderr);
  expect(line.lines, r.stderr).toBe(1);
  expect(line.hint, r.stderr).not.toBeNull();
  expect(r.stderr).not.toMatch(/internal error|ENAMETOOLONG|\n\s+at /);
  expect(r.stderr.length).toBeLessThan(MAX_LINE);
}

describe('a typed skill, archive or path argument of 300 or 5,000 characters', () => {
  const commands = [['validate'], ['restore'], ['show'], ['update', '--step=s2'], ['done'], ['reset'], ['history'], ['resolve']];
  const values = (n: number) => ['A'.repeat(n), `src/${'A'.repeat(n)}`, `.checkpoints/${'a'.repeat(n)}.checkpoint.json`, `/tmp/${'A'.repeat(n)}/b`];

  it.each([300, 5000])('every command refuses %i characters in one bounded line with a hint, exit 2, nothing written', async (n) => {
    const dir = project();
    const before = snapshot(dir);
    for (const [command, ...rest] of commands) {
      for (const value of values(n)) {
        const r = await runCli(dir, [command!, value, ...rest]);
        expectBoundedRefusal(r);
      }
    }
    expect(snapshot(dir)).toEqual(before);
  });
});

describe('a repository nested ~3,000 characters deep', () => {
  function deepProject(): string {
    let dir = tempDir();
    for (let i = 0; i < 14; i++) dir = join(dir, `${'d'.repeat(200)}`);
    mkdirSync(dir, { recursive: true });
    git(dir, ['init', '-q', '-b', 'main']);
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(freshCheckpoint('api', { context_primer: { key_decisions: ['orders in 8.0 units'], generated_files: ['src/orders.ts (PR 12)'] } }), null, 2)}\n`);
    write(dir, 'src/orders.ts', 'export const orders = 8.0;\n');
    commitAll(dir, 'checkpoint: api', '2026-09-14T17:40:00Z');
    expect(dir.length).toBeGreaterThan(2800);
    return dir;
  }

  it.each(['native', 'isomorphic'])('a broken current-branch ref: %s refuses in one bounded line that ends the paths as they end', async (engine) => {
    const dir = deepProject();
    git(dir, ['pack-refs', '--all']);
    write(dir, '.git/refs/heads/main', '');
    const r = await runCli(dir, ['doctor', '--engine', engine]);
    expectBoundedRefusal(r);
    expect(r.stderr).toMatch(/the current branch main is broken: …d+\/\.git\/refs\/heads\/main \(\d{4} characters\) is empty/);
  });

  it.each(['native', 'isomorphic'])('a damaged index: %s refuses in one bounded line', async (engine) => {
    const dir = deepProject();
    write(dir, '.git/index', 'not an index: 8f1c0a7e5b2d9e4431aa07c6e1f0b2d3c4e5f6');
    const r = await runCli(dir, ['doctor', '--engine', engine]);
    expectBoundedRefusal(r);
    expect(r.stderr).toMatch(/git cannot read the index …d+\/\.git\/index \(\d{4} characters\): index file corrupt/);
  });

  it.each(['native', 'isomorphic'])('a healthy run there (%s): every line of the report is bounded, the checkout named by its end', async (engine) => {
    const dir = deepProject();
    const r = await runCli(dir, ['doctor', '--engine', engine]);
    expect(r.code, r.stderr).toBe(0);
    for (const line of r.stdout.split('\n')) expect(line.length, line.slice(0, 200)).toBeLessThan(MAX_LINE);
    expect(r.stdout).toMatch(/this one is …d+ \(\d{4} characters\)\)/);
  });

  it('git failing there (a broken config): one bounded line that keeps git\'s own reason', async () => {
    const dir = deepProject();
    write(dir, '.git/config', `${read(dir, '.git/config')}[core\n`);
    const r = await runCli(dir, ['doctor', '--engine', 'native']);
    expectBoundedRefusal(r);
    expect(r.stderr).toMatch(/failed in …d+ \(\d{4} characters\): fatal: bad config line \d+ in file \.git\/config; hint: /);
  });
});

describe('a 2 MB phase, a long wide step, a long PM id: the status and list tables', () => {
  // Written by hand or through MCP: nothing bounds a value's length on disk.
  const phase = `review ${'x'.repeat(2_000_000)}`;
  const step = `${'写'.repeat(300)}\n(PR 12, src/x.ts)`;
  const status = `blocked-on-review ${'y'.repeat(5000)}`;
  function tables(): string {
    const dir = makeRepo();
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(freshCheckpoint('api', { phase }), null, 2)}\n`);
    write(dir, '.checkpoints/web.checkpoint.json', `${JSON.stringify(freshCheckpoint('web', { step, pm_refs: [{ provider: 'jira', id: `PLAT-${'9'.repeat(500)}`, role: 'source' }] }), null, 2)}\n`);
    write(dir, '.checkpoints/ops.checkpoint.json', `${JSON.stringify(freshCheckpoint('ops', { status }), null, 2)}\n`);
    return dir;
  }
  /** The widest row a table may print: skill, three cut cells and the words around them. */
  const MAX_ROW = 4 * MAX_CELL_WIDTH + 60;

  it('status: every table row is bounded, a long cell cut with "…"; --json and show still give the whole value', async () => {
    const dir = tables();
    const r = await runCli(dir, ['status']);
    expect(r.code, r.stderr).toBe(1); // ops: its status is outside the enum
    const table = r.stdout.split('\n\n')[0]!.split('\n');
    // The rows of the table (header, skills, the PM line); the repair line quotes validate's own cut message.
    for (const row of table.filter((l) => !l.startsWith('ops'))) expect(displayWidth(row), row.slice(0, 200)).toBeLessThanOrEqual(MAX_ROW);
    expect(table.find((l) => l.startsWith('api'))).toMatch(/^api +in_progress +review x+… \/ auth +\S/);
    expect(table.find((l) => l.startsWith('web'))).toMatch(/^web +in_progress +build \/ 写+… +\S/);
    expect(table.find((l) => l.includes('PM:'))).toMatch(/PM: PLAT-9+…$/);
    expect(r.stdout.length).toBeLessThan(10_000);
    const json = JSON.parse((await runCli(dir, ['status', '--json'])).stdout) as { skills: { skill: string; phase: string; step: string }[] };
    expect(json.skills.find((s) => s.skill === 'api')!.phase).toBe(phase);
    expect(json.skills.find((s) => s.skill === 'web')!.step).toBe(step);
    expect((JSON.parse((await runCli(dir, ['show', 'api'])).stdout) as { phase: string }).phase).toBe(phase);
  });

  it('list: the status, phase and step cells are cut the same way', async () => {
    const dir = tables();
    const r = await runCli(dir, ['list']);
    expect(r.code, r.stderr).toBe(1);
    const rows = r.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^api {2}in_progress {2}review x+…\/auth {2}\S/);
    // A hand-written slip: read as status reads it, with the same fix line.
    expect(rows[1]).toMatch(/^ops {2}blocked-on-review y+… {2}build\/auth {2}.*! slip: status: status "blocked-on-review y+…" \(\d+ characters\) is not one of in_progress\|blocked\|complete\|failed \(did you mean blocked\?\); by hand in \.checkpoints\/ops\.checkpoint\.json: before the fix, copy the reason its status gives \(5018 characters, too long to spell out here\) into a new blocker; fix: checkpoint update ops --status=blocked --keep-updated-at$/);
    expect(rows[2]).toMatch(/^web {2}in_progress {2}build\/写+… {2}\S/);
    for (const row of rows) expect(displayWidth(row.replace(/ {2}(✗ needs repair|! slip): .*/, '')), row.slice(0, 200)).toBeLessThanOrEqual(MAX_ROW);
  });
});
