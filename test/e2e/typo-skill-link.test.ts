// history for a skill that never existed is refused (as show and reset refuse it); resolve --help
// says which source wins as README does; update on a checkpoint that is a link inside the project
// says, in one note line, that the write replaced the link with a regular file.
import { lstatSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanup, commitAll, errorLine, git, makeRepo, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

const dirs: string[] = [];
beforeAll(assertBuilt);
afterEach(() => dirs.splice(0).forEach(cleanup));

const TEXT = `{
  "protocol_version": "1.1", "skill": "api", "project": "demo", "project_dir": "/demo",
  "created_at": "2026-03-01T09:00:00Z", "updated_at": "2026-04-02T17:30:00Z",
  "phase": "build", "step": "auth", "status": "in_progress",
  "progress_summary": "Sprint 1 passed (8.0/10).",
  "context_primer": { "key_decisions": ["JWT in cookies"], "generated_files": ["src/auth.ts (PR 12)"] },
  "next_actions": ["Write the auth middleware"],
  "skill_state": { "pass_threshold": 6.0 }
}
`;

function repo(): string {
  const dir = makeRepo();
  dirs.push(dir);
  return dir;
}

describe('history <skill> for a skill that never had a checkpoint', () => {
  it('exit 2 naming the known skills, like show; a skill with a live checkpoint and no archive still lists nothing, exit 0', async () => {
    const dir = repo();
    write(dir, '.checkpoints/api.checkpoint.json', TEXT);
    commitAll(dir, 'cp');
    const r = await runCli(dir, ['history', 'nosuch']);
    expect(r.code).toBe(2);
    expect(errorLine(r.stderr)).toEqual({ lines: 1, message: 'no checkpoint or archive for skill "nosuch" in .checkpoints/', hint: 'known skills: api' });
    expect((await runCli(dir, ['history', 'nosuch', '--json'])).code).toBe(2);
    const live = await runCli(dir, ['history', 'api']);
    expect(live.code).toBe(0);
    expect(live.stdout).toBe('no archives in .checkpoints/history/\n');
    // Nothing at all here yet: still refused, with what to know.
    const empty = repo();
    const none = await runCli(empty, ['history', 'api']);
    expect(none.code).toBe(2);
    expect(errorLine(none.stderr).hint).toBe('no checkpoints or archives here yet');
  });
});

describe('resolve --help', () => {
  it('says our markers in the file win, as the merge-driver docs do', async () => {
    const r = await runCli(repo(), ['resolve', '--help']);
    expect(r.code).toBe(0);
    const help = r.stdout.replace(/\s+/g, ' ');
    expect(help).toContain('our markers in the file win; git\'s own line markers are merged from the index stages');
    expect(help).not.toContain('index stages, else conflict markers');
    const readme = readFileSync(join(__dirname, '../../docs/merge-driver.md'), 'utf8').replace(/\s+/g, ' ');
    expect(readme).toContain('Once the file holds our markers, `resolve` works from the file, never from git\'s index again');
  });
});

describe('update on a checkpoint that is a link inside the project', () => {
  it('writes a regular file in its place, says so in one note line, and leaves the target as it was', async () => {
    const dir = repo();
    write(dir, 'src/data.json', TEXT);
    mkdirSync(join(dir, '.checkpoints'));
    symlinkSync('../src/data.json', join(dir, '.checkpoints/api.checkpoint.json'));
    commitAll(dir, 'linked checkpoint');
    const r = await runCli(dir, ['update', 'api', '--phase=deploy']);
    expect(r.code).toBe(0);
    const notes = r.stderr.split('\n').filter((l) => l.startsWith('checkpoint: note:'));
    expect(notes).toEqual(['checkpoint: note: .checkpoints/api.checkpoint.json was a symlink to ../src/data.json; the write replaced the link with a regular file (../src/data.json is unchanged; git shows a type change)']);
    expect(lstatSync(join(dir, '.checkpoints/api.checkpoint.json')).isFile()).toBe(true);
    expect(readFileSync(join(dir, 'src/data.json'), 'utf8')).toBe(TEXT);
    expect(JSON.parse(readFileSync(join(dir, '.checkpoints/api.checkpoint.json'), 'utf8')).phase).toBe('deploy');
    expect(readFileSync(join(dir, '.checkpoints/api.checkpoint.json'), 'utf8')).toContain('"pass_threshold": 6.0');
    expect(git(dir, ['status', '--porcelain'])).toContain('T .checkpoints/api.checkpoint.json');
    // A regular file now: the next write says nothing more.
    const again = await runCli(dir, ['update', 'api', '--step=rate-limit', '--json']);
    expect(again.stderr).not.toContain('symlink');
    expect(JSON.parse(again.stdout).replaced_link).toBeUndefined();
  });
});
