// Values a refusal quotes are cut (src/one-line.ts: shown, shownPath), however long they come:
// a typed argument of thousands of characters, a repository nested thousands of characters deep.
// Each refusal stays one bounded `checkpoint: ...; hint: ...` line, exit 2, never an internal
// error (a name too long for the file system names no file: it is missing), nothing written.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitAll, errorLine, git, makeRepo, read, tempDir, write } from '../helpers/repo.js';
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
