// A project as users publish one: `checkpoint init`, its files, a hand-written checkpoint
// committed months ago, pushed to a local bare remote; the tests' own pushes go through the hook init installs.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { builtOnce } from './built-once.js';
import { commitAll, git, gitTry, makeRepo, tempDir, write, initialized } from './repo.js';

/** When published() commits the checkpoint. */
export const PUBLISHED_AT = '2026-03-14T08:02:11Z';

/**
 * A project with `checkpoint init`, `files` and a hand-written checkpoint, committed in March and
 * pushed (the hook skipped). A test file that asks for the same project again gets a copy of the
 * one built first, project and remote (builtOnce), not a second build: the same commits (their
 * dates are fixed), refs, index and files.
 */
export function published(skill: string, checkpoint: Record<string, unknown>, files: Record<string, string> = {}): string {
  return builtOnce(JSON.stringify([skill, checkpoint, files]), () => publish(skill, checkpoint, files)).dir;
}

function publish(skill: string, checkpoint: Record<string, unknown>, files: Record<string, string>): { dir: string; remote: string } {
  const dir = makeRepo();
  const remote = tempDir('cp-remote-');
  git(remote, ['init', '-q', '--bare']);
  // No `git gc --auto` after each push the tests make (a process each, not what they test).
  writeFileSync(join(remote, 'config'), `${readFileSync(join(remote, 'config'), 'utf8')}[receive]\n\tautogc = false\n`);
  git(dir, ['remote', 'add', 'origin', remote]);
  initialized(dir);
  for (const [rel, text] of Object.entries(files)) write(dir, rel, text);
  commitAll(dir, 'project files', '2026-03-13T17:40:00Z');
  write(dir, `.checkpoints/${skill}.checkpoint.json`, `${JSON.stringify(checkpoint, null, 2)}\n`);
  commitAll(dir, `checkpoint: ${skill}`, PUBLISHED_AT);
  // Published as set-up, past the hook: what a test pushes next goes through it.
  const r = gitTry(dir, ['push', '-q', '--no-verify', 'origin', 'main']);
  expect(r.status, r.stdout + r.stderr).toBe(0);
  return { dir, remote };
}

/** A checkpoint as a person keeps one by hand (saved in March, `8.0` in its state), listing `files` as generated_files. */
export function handKept(files: string[], over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    protocol_version: '1.1', skill: 'api', project: 'demo', project_dir: '/home/claude/demo',
    created_at: '2026-02-27T10:00:00Z', updated_at: '2026-03-14T08:01:59.412Z',
    phase: 'build', step: 'wire it up', status: 'in_progress', progress_summary: 'half way; see notes',
    progress_table: [{ id: 'p1', label: 'Phase 1', status: 'complete' }, { id: 'p2', label: 'Phase 2', status: 'in_progress' }],
    next_actions: ['Ship'],
    context_primer: { key_decisions: ['kept the v1 cache format (PR 12)'], generated_files: files },
    skill_state: { iteration: 1, pass_threshold: 8.0 },
    ...over,
  };
}
