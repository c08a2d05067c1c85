// `-C <dir>` runs a command as if started in <dir>, as `git -C` does: a relative file argument
// (pause --context-file, validate, restore, resolve) is read from <dir>, never from the project
// root above it or the folder the command was started in. Each test plants a decoy of the same
// name at the project root, where the old rule looked.
import { beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { assertBuilt, cli, commitAll, makeRepo, read, tempDir, write } from '../helpers/repo.js';
import { checkpointDoc } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

const FILE = '.checkpoints/api.checkpoint.json';
const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
const capsule = (goal: string) => JSON.stringify({ goal, acceptance: 'tests pass', constraints: [], decisions: [], evidence: [], pending: [], next: 'go on' });

function project(): string {
  const dir = makeRepo();
  write(dir, FILE, json(checkpointDoc()));
  write(dir, 'sub/.keep', '');
  commitAll(dir, 'api');
  return dir;
}

describe('-C <dir>: file arguments are relative to <dir>', () => {
  it('pause --context-file reads <dir>/capsule.json', () => {
    const dir = project();
    write(dir, 'sub/capsule.json', capsule('from sub'));
    write(dir, 'capsule.json', '{ not the capsule');
    const r = cli(dir, ['-C', 'sub', 'pause', 'api', '--context-file', 'capsule.json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(read(dir, FILE)).capsule.context.goal).toBe('from sub');
    // From elsewhere, -C named relative to where the command was started.
    write(dir, 'sub/capsule.json', capsule('again from sub'));
    const outer = cli(join(dir, '..'), ['-C', join(dir.split('/').pop()!, 'sub'), 'pause', 'api', '--context-file', 'capsule.json']);
    expect(outer.code, outer.stderr).toBe(0);
    expect(JSON.parse(read(dir, FILE)).capsule.context.goal).toBe('again from sub');
  });

  it('pause --context-file: a link out of the project is refused in one line, the checkpoint byte-identical', () => {
    const dir = project();
    const outside = join(tempDir('cp-outside-'), 'capsule.json');
    write(outside, '', capsule('outside'));
    symlinkSync(outside, join(dir, 'sub/capsule.json'));
    const before = readFileSync(join(dir, FILE));
    const r = cli(dir, ['-C', 'sub', 'pause', 'api', '--context-file', 'capsule.json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`checkpoint: sub/capsule.json is a symlink to ${outside}, outside the project; refused; hint: git tracks the link, not what it points at: replace it with a real file or folder\n`);
    expect(readFileSync(join(dir, FILE)).equals(before)).toBe(true);
  });

  it('validate <file> reads <dir>/<file>', () => {
    const dir = project();
    write(dir, 'sub/api.checkpoint.json', json(checkpointDoc()));
    write(dir, 'api.checkpoint.json', '{ broken');
    const r = cli(dir, ['-C', 'sub', 'validate', 'api.checkpoint.json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^✓ sub\/api\.checkpoint\.json/m);
  });

  it('restore <path> and resolve <path> take the path from <dir>', () => {
    const dir = project();
    expect(cli(dir, ['reset', 'api']).code).toBe(0);
    const [archive] = readdirSync(join(dir, '.checkpoints/history'));
    const back = cli(dir, ['-C', 'sub', 'restore', `../.checkpoints/history/${archive}`]);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toBe('✓ restored api to .checkpoints/api.checkpoint.json (the archive stays in history/)\n');
    const resolve = cli(dir, ['-C', 'sub', 'resolve', `../${FILE}`]);
    expect(resolve.code, resolve.stderr).toBe(0);
    expect(resolve.stdout).toBe(`${FILE}: · nothing to resolve\n`);
  });
});
