// A repository git itself refuses in part (a broken branch ref, a damaged index), on both engines:
// doctor refuses in one line (what, where, what to do) with exit 2; next and status still show
// the checkpoints and name the problem; nothing is changed. Commands run through the CLI's entry
// in this process, each as a new process would (runCliFresh: nothing in memory from an earlier
// run), which saves a node start-up each; nothing here is about the process itself.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpointDoc } from '../helpers/fixtures.js';
import { commitAll, errorLine, git, gitTry, makeRepo, write } from '../helpers/repo.js';
import { runCliFresh } from '../helpers/in-process.js';

const ENGINES = ['native', 'isomorphic'] as const;

/** A months-old checkpoint queueing PR #12, which landed after it; refs packed, as after a gc. */
function project(): { dir: string; tip: string } {
  const dir = makeRepo();
  const doc = checkpointDoc({
    skill: 'api',
    created_at: '2026-08-03T09:12:00Z',
    updated_at: '2026-09-14T17:40:00Z',
    progress_summary: 'Orders endpoint half done; see src/orders.ts (PR 12).',
    progress_table: [{ id: 'orders', label: 'Orders API', status: 'in_progress', pct: 50.0 }],
    context_primer: { key_decisions: ['cursor pagination'], generated_files: ['src/orders.ts (PR 12)', 'src/**/*.gen.ts'] },
    next_actions: ['Merge PR #12 (orders API)', 'Write the changelog for src/**/*.ts'],
  });
  write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(doc, null, 2)}\n`);
  commitAll(dir, 'checkpoint: api', '2026-09-14T17:41:00Z');
  write(dir, 'src/orders.ts', 'export const orders = 8.0;\n');
  const tip = commitAll(dir, 'Orders API (#12)', '2026-09-15T09:00:00Z');
  git(dir, ['pack-refs', '--all']);
  return { dir, tip };
}

describe.each(ENGINES)('%s engine: an empty loose ref for the current branch over a packed one', (engine) => {
  it('doctor refuses in one line naming the file and the fix; next and status still answer and name it', async () => {
    const { dir, tip } = project();
    const loose = join(dir, '.git/refs/heads/main');
    writeFileSync(loose, '');
    // git refuses HEAD here too: it never reads the packed value through a broken loose ref.
    expect(gitTry(dir, ['log', '-1']).stderr).toMatch(/your current branch appears to be broken/);

    const doctor = await runCliFresh(dir, ['doctor', '--engine', engine]);
    expect(doctor.code, doctor.stderr).toBe(2);
    expect(doctor.stdout).toBe('');
    const line = errorLine(doctor.stderr);
    expect(line.lines).toBe(1);
    expect(line.message).toBe(`the current branch main is broken: ${loose} is empty, so git cannot read HEAD ("your current branch appears to be broken")`);
    expect(line.hint).toContain(`\`rm ${loose}\` (packed-refs still has it at ${tip.slice(0, 12)})`);

    for (const command of ['next', 'status']) {
      const run = await runCliFresh(dir, [command, '--engine', engine]);
      expect(run.code, `${command}: ${run.stderr}`).toBe(0);
      // Neither treats the repository as empty (nothing landed) nor reads the packed commit through.
      expect(run.stdout).toContain('Merge PR #12 (orders API)');
      expect(run.stdout).not.toMatch(/#12 landed in|already landed:/);
      expect(run.stderr).toMatch(/^checkpoint: warning: git history could not be read.*: the current branch main is broken: .*refs\/heads\/main is empty/);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
    expect(readFileSync(loose, 'utf8')).toBe('');

    // The hint's repair: with the empty file gone, the packed commit shows #12 as landed.
    rmSync(loose);
    expect((await runCliFresh(dir, ['doctor', '--engine', engine])).code).toBe(0);
    expect((await runCliFresh(dir, ['next', '--engine', engine])).stdout).toMatch(/→ Write the changelog[\s\S]*#12 landed in/);
  });
});

describe('a broken current-branch ref in a repository whose path holds a newline', () => {
  it('next and status name the whole path, escaped on one line, not cut at the newline', async () => {
    const { dir } = project();
    // A clone under a folder named with a newline and a terminal escape.
    const odd = join(dir, 'we\x1b[2Jird\nname');
    git(dir, ['clone', '-q', dir, odd]);
    git(odd, ['pack-refs', '--all']);
    writeFileSync(join(odd, '.git/refs/heads/main'), '');
    for (const command of ['next', 'status']) {
      const run = await runCliFresh(odd, [command], { top: dir });
      expect(run.code, `${command}: ${run.stderr}`).toBe(0);
      const warning = run.stderr.split('\n').filter((l) => l.includes('git history could not be read'));
      expect(warning).toHaveLength(1);
      expect(warning[0]).toContain('we\\x1b[2Jird\\nname/.git/refs/heads/main is empty');
      expect(run.stderr).not.toContain('\x1b');
    }
  });
});

describe.each(ENGINES)('%s engine: a .git/index of random bytes', (engine) => {
  it('doctor refuses in one line with the repair, as git does; next and status, which need no index, answer; the file is untouched', async () => {
    const { dir } = project();
    const index = join(dir, '.git/index');
    const garbage = Buffer.from('c018bc7a5e0f3d21a9b47c6e88d1f2a03b5c7d9e1f20314253647586978a9bacbdcedfe0f1', 'hex');
    writeFileSync(index, garbage);
    expect(gitTry(dir, ['status']).stderr).toMatch(/fatal: index file corrupt/);

    const doctor = await runCliFresh(dir, ['doctor', '--engine', engine]);
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(2);
    const line = errorLine(doctor.stderr);
    expect(line.lines).toBe(1);
    expect(line.message).toBe(`git cannot read the index ${index}: index file corrupt (bad signature 0xc018bc7a)`);
    expect(line.hint).toBe(`rebuild it from HEAD: \`rm ${index} && git reset\` (the work tree is left as it is; stage again what was staged)`);

    for (const command of ['next', 'status']) {
      const run = await runCliFresh(dir, [command, '--engine', engine]);
      expect(run.code, `${command}: ${run.stderr}`).toBe(0);
      expect(run.stdout).toMatch(/Write the changelog/);
      expect(run.stdout).toMatch(/#12 landed in/);
    }
    expect(readFileSync(index).equals(garbage)).toBe(true);
  });
});
