// Run from a folder below the repository's top (pkg/web), every command a conflict's repair or
// hint prints names the checkpoint from that folder, as git does (`git add
// ../../.checkpoints/api.checkpoint.json`): pasted there through a real shell, with the real
// `checkpoint` and `git`, each line works and ends what it says (red team 62a 5). Real `git
// merge`s, no driver installed: git's own markers.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, commitAll, git, GIT_ENV, gitTry, makeRepo, tempDir, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

const FILE = '.checkpoints/api.checkpoint.json';
const FROM_WEB = `../../${FILE}`;
beforeAll(assertBuilt);

// As people leave them: a note after a path, a score written 8.0, a row status off the enum.
const cp = (over: Record<string, unknown>) => ({
  protocol_version: '1.1', skill: 'api', project: 'shop', project_dir: '/home/dev/shop',
  created_at: '2026-06-01T00:00:00Z', updated_at: new Date(Date.now() - 3_600_000).toISOString(),
  phase: 'build', step: 'auth', status: 'in_progress', progress_summary: 'Sprint 1 passed (8.0/10).',
  progress_table: [{ id: 'auth', label: 'Auth', status: 'DONE!' }],
  context_primer: { generated_files: ['src/x.ts (PR 12)'] },
  next_actions: ['Write the auth middleware'],
  skill_state: { pass_threshold: 8.0 },
  ...over,
});
const save = (dir: string, doc: unknown) => write(dir, FILE, `${JSON.stringify(doc, null, 2).replace('"pass_threshold": 8', '"pass_threshold": 8.0')}\n`);

/** A repository stopped in `git merge other`: both sides changed the checkpoint (UU), or ours deleted it (DU). */
function stopped(kind: 'UU' | 'DU'): { dir: string; web: string } {
  const dir = makeRepo();
  write(dir, 'pkg/web/index.ts', 'export {};\n');
  save(dir, cp({}));
  commitAll(dir, 'base');
  git(dir, ['checkout', '-q', '-b', 'other']);
  save(dir, cp({ phase: 'test', step: 'their step' }));
  commitAll(dir, 'their session');
  git(dir, ['checkout', '-q', 'main']);
  if (kind === 'DU') git(dir, ['rm', '-q', FILE]);
  else save(dir, cp({ phase: 'review', step: 'our step' }));
  commitAll(dir, 'our session');
  expect(gitTry(dir, ['merge', '-q', 'other']).status).not.toBe(0);
  return { dir, web: join(dir, 'pkg/web') };
}

/** Runs `line` as pasted into bash in `cwd`, with the built `checkpoint` and the real git on PATH. */
function pasted(cwd: string, line: string) {
  const bin = tempDir('cp-bin-');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'checkpoint'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(join(bin, 'checkpoint'), 0o755);
  const r = spawnSync('/bin/bash', ['-c', line], { cwd, env: { ...GIT_ENV, PATH: `${bin}:${process.env.PATH}` }, encoding: 'utf8' });
  return { code: r.status, out: r.stdout + r.stderr };
}

/** The one command in `text` that starts with `start` and names the checkpoint, up to the punctuation around it. */
function command(text: string, start: string): string {
  const found = [...text.matchAll(new RegExp(`${start.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\S*\\.checkpoints/api\\.checkpoint\\.json`, 'g'))].map((m) => m[0]);
  expect(found.length, `${start} in:\n${text}`).toBeGreaterThan(0);
  expect(new Set(found).size, text).toBe(1);
  return found[0]!;
}

const unmerged = (dir: string) => git(dir, ['ls-files', '-u']);

describe('commands printed from a subfolder work when pasted there', () => {
  it('status names `checkpoint resolve` with the path from the folder, and the line pasted there merges the file (red team 62a 5)', async () => {
    const { dir, web } = stopped('UU');
    const status = await runCli(web, ['status']);
    expect(status.code).toBe(1);
    const resolve = command(status.stdout, 'checkpoint resolve');
    expect(resolve).toBe(`checkpoint resolve ${FROM_WEB}`);
    const r = pasted(web, `${resolve} --ours phase --ours step`);
    expect(r.out).not.toContain('not a file under .checkpoints/');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`${FILE}: ✓ resolved from stages`);
    expect(JSON.parse(git(dir, ['show', `:2:${FILE}`])).phase).toBe('review');
    // From the top the same repair names it from there, as before.
    expect(command((await runCli(stopped('UU').dir, ['status'])).stdout, 'checkpoint resolve')).toBe(`checkpoint resolve ${FILE}`);
  });

  it('resolve --check names `git add` with the path from the folder; pasted there, git stages it and the check passes (red team 62a 5)', async () => {
    const { dir, web } = stopped('UU');
    git(web, ['checkout', '--ours', '--', FROM_WEB]); // settled by taking ours, not staged
    const check = await runCli(web, ['resolve', '--check']);
    expect(check.code).toBe(1);
    const add = command(check.stdout, 'git add');
    expect(add).toBe(`git add ${FROM_WEB}`);
    // status offers resolve --add for the same file, from the same folder.
    expect(command((await runCli(web, ['status'])).stdout, 'checkpoint resolve --add')).toBe(`checkpoint resolve --add ${FROM_WEB}`);
    const r = pasted(web, add);
    expect(r.code, r.out).toBe(0);
    expect(unmerged(dir)).toBe('');
    expect((await runCli(web, ['resolve', '--check'])).code).toBe(0);
  });

  it('a modify/delete conflict: the --accept-deletion status offers, pasted in the folder, archives the change and stages the deletion (red team 62a 5)', async () => {
    const { dir, web } = stopped('DU');
    const status = await runCli(web, ['status']);
    expect(command(status.stdout, 'checkpoint resolve --add')).toBe(`checkpoint resolve --add ${FROM_WEB}`);
    const accept = command(status.stdout, 'checkpoint resolve --accept-deletion');
    const r = pasted(web, `${accept} --add`);
    expect(r.code, r.out).toBe(0);
    expect(unmerged(dir)).toBe('');
    expect(git(dir, ['ls-files', '--', FILE])).toBe(''); // the deletion kept, as ours made it
    expect(git(dir, ['status', '--porcelain'])).toMatch(/^A {2}\.checkpoints\/history\/api\.[^/]+\.checkpoint\.json$/m);
  });
});
