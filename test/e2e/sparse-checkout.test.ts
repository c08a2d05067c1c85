// A sparse checkout that leaves .checkpoints/ out (`git sparse-checkout set pkg/app` in a
// monorepo, cone or not, with a sparse index or without): git holds the checkpoints, the work
// tree does not. The readers (status, next, list, resume, doctor, validate) say so in one line
// naming `git sparse-checkout add .checkpoints`, never "no checkpoints yet" or "start fresh";
// every write (update, a new skill's first update, done, pause, reset, rotate, restore, migrate,
// init) is refused in one line, exit 2, nothing written: a new file there would stand in for
// the committed one, and the next commit would drop its queue. Once the folder is brought in
// with that command, the write lands on the committed file.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanup, cli, commitAll, errorLine, git, makeRepo, read, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

const FILE = '.checkpoints/api.checkpoint.json';
const ROTATION = '.checkpoints/history/api.2026-05-01.json';
const BRING_IN = 'git sparse-checkout add .checkpoints';
const dirs: string[] = [];
beforeAll(assertBuilt);
afterEach(() => dirs.splice(0).forEach(cleanup));

// As a person leaves one: a note after a path, a score written 8.0, a queue of two.
const CHECKPOINT = `{
  "$schema": "./checkpoint.schema.json",
  "protocol_version": "1.1",
  "skill": "api",
  "project": "shop monorepo",
  "project_dir": "/work/shop",
  "created_at": "2026-05-01T09:00:00Z",
  "updated_at": "2026-05-02T17:30:00Z",
  "phase": "build",
  "step": "auth",
  "status": "in_progress",
  "progress_summary": "Login works (review 8.0/10); rate limits next.",
  "context_primer": { "generated_files": ["pkg/app/auth.ts (the middleware)"] },
  "next_actions": ["Write the auth middleware", "Add rate limiting"],
  "skill_state": { "rotated_to": [".checkpoints/history/api.2026-05-01.json"] }
}
`;
const ROTATED = `{ "skill": "api", "rotated_at": "2026-05-01T18:00:00Z", "entries": { "recently_done": [{ "at": "2026-04-30T10:00:00Z", "action": "Sketch the schema" }] } }\n`;

type Mode = 'cone' | 'no-cone' | 'sparse-index';

/** A committed monorepo with api's checkpoint, checked out sparse as `mode` says: pkg/app only. */
function sparse(mode: Mode): string {
  const dir = makeRepo();
  dirs.push(dir);
  write(dir, FILE, CHECKPOINT);
  write(dir, ROTATION, ROTATED);
  write(dir, 'pkg/app/auth.ts', 'export const auth = 1;\n');
  write(dir, 'pkg/web/index.ts', 'export {};\n');
  commitAll(dir, 'api checkpoint with two queued actions');
  if (mode === 'cone') git(dir, ['sparse-checkout', 'set', 'pkg/app']);
  else if (mode === 'no-cone') git(dir, ['sparse-checkout', 'set', '--no-cone', '/pkg/app/']);
  else git(dir, ['sparse-checkout', 'set', '--sparse-index', 'pkg/app']);
  expect(existsSync(join(dir, FILE))).toBe(false);
  return dir;
}

/** What git holds and shows: a refused write leaves all of it as it was. */
const gitView = (dir: string) => ({ index: git(dir, ['ls-files', '-s', '--sparse']), status: git(dir, ['status', '--porcelain', '--untracked-files=all']), tree: existsSync(join(dir, '.checkpoints')) });

describe.each<Mode>(['cone', 'no-cone', 'sparse-index'])('a %s sparse checkout that leaves .checkpoints/ out', (mode) => {
  it('status, next, list, resume, doctor and validate say the checkpoints are in git, outside this checkout', async () => {
    const dir = sparse(mode);
    for (const args of [['status'], ['next'], ['list'], ['validate']]) {
      const r = await runCli(dir, args);
      expect(r.stdout, args.join(' ')).toContain('in git but outside this sparse checkout');
      expect(r.stdout, args.join(' ')).toContain(BRING_IN);
      expect(r.stdout, args.join(' ')).not.toMatch(/no checkpoints/);
      expect(r.code, args.join(' ')).toBe(1);
    }
    const resume = await runCli(dir, ['resume']);
    expect(resume.stdout).toContain(BRING_IN);
    expect(resume.stdout).not.toMatch(/start fresh/);
    expect(resume.code).toBe(3);
    // After compaction too, in place of "no capsule saved"; exit 0, as the compaction hooks run it unwrapped (red team 62e 02).
    const context = await runCli(dir, ['resume', '--context']);
    expect(context.stdout).toContain(BRING_IN);
    expect(context.code).toBe(0);
    expect(JSON.parse((await runCli(dir, ['resume', '--context', '--json'])).stdout)).toMatchObject({ ok: false, ask_user: true, capsule: null });
    const status = JSON.parse((await runCli(dir, ['status', '--json'])).stdout);
    expect(status.ok).toBe(false);
    expect(status.outside_sparse_checkout).toContain(BRING_IN);
    // A note, as a listed file a sparse checkout leaves out is: never "0 checkpoints … no drift".
    const doctor = await runCli(dir, ['doctor']);
    expect(doctor.stdout).toContain(BRING_IN);
    expect(doctor.stdout).not.toMatch(/no drift/);
    expect(doctor.code).toBe(0);
  });

  it('every write is refused in one line, exit 2, and nothing is written', async () => {
    const dir = sparse(mode);
    const before = gitView(dir);
    const writes = [
      ['update', 'api', '--step=tests', "--next_actions+=Write tests"],
      ['update', 'web', '--phase=build', '--step=cart', '--status=in_progress', '--progress_summary=Cart page', '--next_actions+=Draw the cart'],
      ['done', 'api'],
      ['pause', 'api', '--auto'],
      ['reset', 'api'],
      ['rotate', 'api'],
      ['restore', 'api.2026-05-01.json'],
    ];
    for (const args of writes) {
      const r = await runCli(dir, args);
      expect(r.code, args.join(' ')).toBe(2);
      const line = errorLine(r.stderr);
      expect(line.lines, args.join(' ')).toBe(1);
      expect(line.message, args.join(' ')).toMatch(/^refused to .*outside this sparse checkout/);
      expect(line.hint, args.join(' ')).toContain(BRING_IN);
      expect(gitView(dir), args.join(' ')).toEqual(before);
    }
    const migrate = await runCli(dir, ['migrate']);
    expect(migrate.stdout).toContain(BRING_IN);
    expect(migrate.code).toBe(1);
    const init = cli(dir, ['init']);
    expect(init.code).toBe(2);
    expect(errorLine(init.stderr).hint).toContain(BRING_IN);
    expect(gitView(dir)).toEqual(before);
  });

  it(`once \`${BRING_IN}\` brings it in, update writes on top of the committed file`, async () => {
    const dir = sparse(mode);
    git(dir, ['sparse-checkout', 'add', '.checkpoints']);
    expect(read(dir, FILE)).toBe(CHECKPOINT);
    const r = await runCli(dir, ['update', 'api', '--step=tests', '--next_actions+=Write tests']);
    expect(r.code).toBe(0);
    const after = JSON.parse(read(dir, FILE));
    expect(after.next_actions).toEqual(['Write the auth middleware', 'Add rate limiting', 'Write tests']);
    expect(after.created_at).toBe('2026-05-01T09:00:00Z');
    expect(after.$schema).toBe('./checkpoint.schema.json');
  });
});

describe('a checkpoint marked skip-worktree by hand', () => {
  it('is not written (git would not see the write), with the command that unmarks it', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, FILE, CHECKPOINT);
    commitAll(dir, 'api');
    git(dir, ['update-index', '--skip-worktree', FILE]);
    const r = await runCli(dir, ['update', 'api', '--step=tests']);
    expect(r.code).toBe(2);
    expect(errorLine(r.stderr).hint).toBe(`git update-index --no-skip-worktree ${FILE}, then run the command again`);
    expect(read(dir, FILE)).toBe(CHECKPOINT);
    // Read as it is: the file is here.
    expect((await runCli(dir, ['status'])).stdout).toContain('Write the auth middleware');
  });
});
