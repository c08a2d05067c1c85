// protocol_version as hand-written files have it: a number (1, 1.0, 1.1) or "1" is that version
// with advice, never a repair; a newer one (2, 1.10) is an error; read-only commands and the
// merge driver keep the text as written, and only a write stamps "1.1" (fixer f4 5).
import { afterAll, describe, expect, it } from 'vitest';
import { freshCheckpoint } from '../helpers/fixtures.js';
import { runCli } from '../helpers/in-process.js';
import { cleanup, commitAll, commitSides, git, initialized, makeRepo, read, write } from '../helpers/repo.js';

const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));

/** The checkpoint with protocol_version written as `version` (JSON text), committed. */
function project(version: string): string {
  const dir = makeRepo();
  dirs.push(dir);
  initialized(dir);
  const text = `${JSON.stringify(freshCheckpoint('api'), null, 2)}\n`.replace('"protocol_version": "1.1"', `"protocol_version": ${version}`);
  write(dir, FILE, text);
  commitAll(dir, 'checkpoint: api');
  return dir;
}

describe('protocol_version written as a number or "1"', () => {
  it.each([
    ['1', '1.0'],
    ['1.0', '1.0'],
    ['1.1', '1.1'],
    ['"1"', '1.0'],
  ])('%s is read as %s: valid with advice in validate and doctor, status and resume need no repair, the file untouched until a write stamps "1.1"', async (version, readAs) => {
    const dir = project(version);
    const before = read(dir, FILE);
    const validate = await runCli(dir, ['validate', '--json']);
    expect(validate.code, validate.stdout).toBe(0);
    const file = JSON.parse(validate.stdout).files[0] as { ok: boolean; errors: unknown[]; warnings: unknown[]; advice: { path: string; message: string }[] };
    expect(file).toMatchObject({ ok: true, errors: [], warnings: [] });
    expect(file.advice.filter((w) => w.path === 'protocol_version')).toEqual([expect.objectContaining({ message: expect.stringContaining(`read as "${readAs}"`) })]);
    expect((await runCli(dir, ['validate', '--strict'])).code).toBe(0);
    const doctor = await runCli(dir, ['doctor', '--fail-on-warnings']);
    expect(doctor.code, doctor.stdout).toBe(0);
    expect(doctor.stdout).toMatch(/advice {2}protocol_version: /);
    const status = await runCli(dir, ['status']);
    expect(status.stdout + status.stderr).not.toMatch(/needs repair/);
    expect((await runCli(dir, ['resume', 'api'])).stdout).toMatch(/^RESUMING: api/);
    expect(read(dir, FILE)).toBe(before);
    const update = await runCli(dir, ['update', 'api', '--step=next']);
    expect(update.code, update.stderr).toBe(0);
    expect(update.stderr).toMatch(/protocol_version was .*this write stamped "1\.1"/);
    expect(read(dir, FILE)).toMatch(/"protocol_version": "1\.1"/);
  });

  it.each(['2', '1.10', '"2"'])('%s is a version newer than 1.1: an error in validate, a repair in status, and update refuses it, the file byte-identical', async (version) => {
    const dir = project(version);
    const before = read(dir, FILE);
    expect((await runCli(dir, ['validate'])).code).toBe(1);
    expect((await runCli(dir, ['status'])).stdout).toMatch(/needs repair/);
    const update = await runCli(dir, ['update', 'api', '--step=next']);
    expect(update.code).toBe(2);
    expect(update.stderr).toMatch(/^checkpoint: refused: the checkpoint says protocol_version /);
    expect(read(dir, FILE)).toBe(before);
  });

  it('the merge driver keeps the number as written when neither side changed it', async () => {
    const dir = project('1');
    const base = read(dir, FILE);
    commitSides(dir, FILE, base.replace('"step": "', '"step": "ours '), base.replace('"phase": "', '"phase": "theirs '));
    git(dir, ['merge', '-q', '--no-edit', 'feat']);
    const merged = read(dir, FILE);
    expect(merged).toMatch(/"protocol_version": 1,/);
    expect(merged).toMatch(/"step": "ours /);
    expect(merged).toMatch(/"phase": "theirs /);
  });
});
