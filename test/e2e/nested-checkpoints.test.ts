// A package of a monorepo keeping its own .checkpoints/ (the protocol's project-dir may be any
// folder with a package.json): checkpoint keeps a repository's checkpoints at its top, so from
// inside such a folder every command refuses in one line naming both places and the move, rather
// than say "start fresh" over them or write a second file for the same skill (red team, 12-04).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { commitAll, errorLine, git, makeRepo, write } from '../helpers/repo.js';
import { checkpointDoc } from '../helpers/fixtures.js';

const NESTED = 'packages/app/.checkpoints/api.checkpoint.json';

describe('checkpoints kept in a folder below the repository top', () => {
  it('every command run in or below that folder refuses (exit 2), nothing written; moved to the top as told, they read', async () => {
    const dir = makeRepo();
    write(dir, 'packages/app/package.json', '{"name":"app"}\n');
    write(dir, NESTED, `${JSON.stringify(checkpointDoc({ skill: 'api', next_actions: ['Finish the auth middleware'] }), null, 2)}\n`);
    commitAll(dir, 'app with its checkpoint');
    const before = readFileSync(join(dir, NESTED));
    for (const cwd of [join(dir, 'packages/app'), join(dir, 'packages/app/.checkpoints')]) {
      for (const args of [['resume'], ['status'], ['list'], ['update', 'api', '--step=x'], ['doctor']]) {
        const r = await runCli(cwd, args);
        expect(r.code, args.join(' ')).toBe(2);
        expect(errorLine(r.stderr)).toEqual({
          lines: 1,
          message: `packages/app/.checkpoints/ holds a checkpoint, but checkpoint keeps this repository's at its top (${join(dir, '.checkpoints')}/); nothing was read or written`,
          hint: 'from the top, move it there (git mv packages/app/.checkpoints/*.checkpoint.json .checkpoints/), then run checkpoint anywhere in the repository',
        });
      }
    }
    expect(readFileSync(join(dir, NESTED)).equals(before)).toBe(true);
    expect(readdirSync(dir)).not.toContain('.checkpoints');
    // At the top the nested folder is not in the way; the move as told makes the checkpoint read from anywhere.
    write(dir, '.checkpoints/.keep', ''); // the folder git mv moves into
    git(dir, ['mv', NESTED, '.checkpoints/']);
    const resumed = await runCli(join(dir, 'packages/app'), ['resume', 'api']);
    expect(resumed.stderr).toBe('');
    expect(resumed.stdout.split('\n')[0]).toMatch(/^RESUMING: api on /);
    expect(resumed.stdout).toContain('Next: Finish the auth middleware');
  });

  it('a folder named .checkpoints holding no checkpoint file (another tool\'s) is not in the way', async () => {
    const dir = makeRepo();
    write(dir, 'models/.checkpoints/epoch-3.pt', 'weights\n');
    const r = await runCli(join(dir, 'models'), ['status']);
    expect(r.code, r.stderr).toBe(0);
  });
});
