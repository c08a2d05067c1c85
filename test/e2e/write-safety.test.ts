// What a write leaves on disk beyond the checkpoint's text (red team, write commands): the
// file's permission bits.
import { chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, git, makeRepo, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';
import { freshCheckpoint } from '../helpers/fixtures.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

function repo(): string {
  const dir = makeRepo();
  dirs.push(dir);
  return dir;
}

const FILE = (skill: string) => `.checkpoints/${skill}.checkpoint.json`;
const mode = (dir: string, rel: string) => statSync(join(dir, rel)).mode & 0o7777;

/** A hand-kept checkpoint: CRLF, 4-space indent, a score written 8.0. */
function messy(dir: string, skill: string, over: Record<string, unknown> = {}): string {
  const doc = freshCheckpoint(skill, { eval_scores: [{ rubric: 'audit', score: 8, max: 10, at: '2026-06-01T00:00:00Z' }], ...over });
  const text = `${JSON.stringify(doc, null, 4).replace('"score": 8,', '"score": 8.0,').replace(/\n/g, '\r\n')}\r\n`;
  write(dir, FILE(skill), text);
  return text;
}

describe('a write keeps the file\'s permission bits', () => {
  it('a private (0600) checkpoint stays private through update, done, pause --auto, rotate and resolve-free writes', async () => {
    const dir = repo();
    messy(dir, 'api', { next_actions: ['one', 'two', 'three'], skill_state: { run_history: Array.from({ length: 8 }, (_, i) => ({ at: `2026-06-0${i + 1}T00:00:00Z`, ok: i })) } });
    chmodSync(join(dir, FILE('api')), 0o600);
    for (const args of [['update', 'api', '--step=two'], ['done', 'api'], ['pause', 'api', '--auto'], ['rotate', 'api', '--keep', '2']]) {
      const r = await runCli(dir, args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(mode(dir, FILE('api')), args.join(' ')).toBe(0o600);
    }
  });

  it('a checkpoint committed executable (100755) stays so: git shows no mode change after an update', async () => {
    const dir = repo();
    messy(dir, 'api');
    chmodSync(join(dir, FILE('api')), 0o755);
    git(dir, ['add', '-A']);
    git(dir, ['commit', '-qm', 'exec']);
    expect((await runCli(dir, ['update', 'api', '--step=next'])).code).toBe(0);
    expect(mode(dir, FILE('api'))).toBe(0o755);
    expect(git(dir, ['diff', '--summary'])).not.toMatch(/mode change/);
  });
});
