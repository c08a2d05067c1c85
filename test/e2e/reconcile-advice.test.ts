// When every queued action already landed, `next` says how to clear the checkpoint; the advice
// must work when followed literally (red team s12 #3: it named a `done` that refuses the last
// action of an in_progress skill). A real repo, real merges, and each suggested command pasted
// into bash with `checkpoint` on PATH.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { BIN, GIT_ENV, cli, commitAll, git, makeRepo, read, tempDir, write, initialized } from '../helpers/repo.js';

/** A bin folder whose `checkpoint` is the built CLI. */
function pathWithCheckpoint(): string {
  const bin = tempDir('cp-bin-');
  writeFileSync(join(bin, 'checkpoint'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'checkpoint'), 0o755);
  return `${bin}:${process.env.PATH}`;
}

/** A skill with `actions` queued (each naming a PR), committed, then each PR merged as GitHub merges it. */
function landedRepo(status: string, prs: number[]): string {
  const dir = makeRepo();
  initialized(dir);
  const u = cli(dir, ['update', 'api', '--phase=build', '--step=s1', `--status=${status}`, '--progress_summary=orders API', ...prs.map((n) => `--next_actions+=Merge PR #${n} (orders ${n})`), ...(status === 'blocked' ? ['--blockers+:json={"id":"b1","description":"waiting on review","type":"external"}'] : [])]);
  expect(u.code, u.stderr).toBe(0);
  commitAll(dir, 'base');
  for (const n of prs) {
    git(dir, ['checkout', '-q', '-b', `pr${n}`]);
    write(dir, `f${n}.ts`, 'f\n');
    commitAll(dir, `feature ${n}`);
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--no-ff', `pr${n}`, '-m', `Merge pull request #${n} from o/pr${n}`]);
  }
  return dir;
}

/** The commands a part of the advice names, in order, each as often as it says ("once", "2 times"). */
function commands(part: string): string[] {
  return [...part.matchAll(/`([^`]+)`(?: (once|(\d+) times))?/g)].flatMap((m) => Array<string>(m[3] ? Number(m[3]) : 1).fill(m[1]!));
}

/** A copy of the repository `dir` (made before anything runs in it), to follow one way of the advice in. */
function copyOf(dir: string): string {
  const copy = tempDir();
  cpSync(dir, copy, { recursive: true });
  return copy;
}

/** Runs `cmds` in bash in `dir`, the '...' placeholder filled in; each must succeed. */
function follow(dir: string, cmds: readonly string[], path: string): void {
  for (const cmd of cmds) {
    const r = spawnSync('bash', ['-c', cmd.replace(`'...'`, `'Write the orders docs'`)], { cwd: dir, env: { ...GIT_ENV, PATH: path }, encoding: 'utf8' });
    expect(r.status, `${cmd}\n${r.stdout}${r.stderr}`).toBe(0);
  }
}

// `next` itself runs in-process: the commands its advice names run as the built binary, from bash.
const nextOf = async (dir: string) => JSON.parse((await runCli(dir, ['next', '--json'])).stdout) as { reconcile: boolean; next: { text: string; kind: string } | null };
const fileOf = (dir: string) => JSON.parse(read(dir, '.checkpoints/api.checkpoint.json')) as { status: string; next_actions: unknown[] };

describe('the reconcile advice works as written (red team s12 #3)', () => {
  const path = pathWithCheckpoint();

  it.each([[1], [3]])('in_progress, %i landed action(s): both ways the advice names succeed', async (count) => {
    const prs = Array.from({ length: count }, (_, i) => 12 + i);
    // One history built, each way followed in a copy of it.
    const landed = landedRepo('in_progress', prs);
    const [a, b] = [copyOf(landed), copyOf(landed)];
    const advice = await nextOf(landed);
    expect(advice.reconcile).toBe(true);
    const [finished, otherwise] = advice.next!.text.split('; else ');
    expect(otherwise).toBeDefined();

    // Finished: the skill completes with nothing left queued.
    follow(a, commands(finished!), path);
    expect(fileOf(a)).toMatchObject({ status: 'complete', next_actions: [] });
    // Not finished: the next action is queued and the landed ones are gone.
    follow(b, commands(otherwise!), path);
    expect(fileOf(b)).toMatchObject({ status: 'in_progress', next_actions: ['Write the orders docs'] });
    expect(await nextOf(b)).toMatchObject({ reconcile: false, next: { kind: 'action', text: 'Write the orders docs' } });
  });

  it('a hand-written "In Progress" gets the in_progress advice, which works as written', async () => {
    const dir = landedRepo('in_progress', [12]);
    write(dir, '.checkpoints/api.checkpoint.json', read(dir, '.checkpoints/api.checkpoint.json').replace('"status": "in_progress"', '"status": "In Progress"'));
    commitAll(dir, 'status by hand');
    const advice = (await nextOf(dir)).next!.text;
    expect(advice).toContain('--complete');
    follow(dir, commands(advice.split('; else ')[0]!), path);
    expect(fileOf(dir)).toMatchObject({ status: 'complete', next_actions: [] });
  });

  it('a blocked skill: done for each, as the advice says', async () => {
    const dir = landedRepo('blocked', [12, 13]);
    const advice = (await nextOf(dir)).next!.text;
    expect(advice).not.toContain('--complete');
    follow(dir, commands(advice), path);
    expect(fileOf(dir)).toMatchObject({ status: 'blocked', next_actions: [] });
  });
});
