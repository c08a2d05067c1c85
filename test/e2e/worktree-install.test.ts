// init and install-driver in a linked worktree (git worktree add, one per agent): git config and
// the hooks folder are shared by every worktree, so a merge driver and pre-push hook of ours that
// still run are kept, never pointed at the worktree's own node_modules, which its removal takes
// with it (red team 61h-02); one set anew there says it is shared.
import { describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, renameSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { cli, git, installedProject, ROOT, tempDir } from '../helpers/repo.js';

const BIN = 'node_modules/checkpoint-protocol/bin/checkpoint.js';

/** The package as npm links it into a work tree's node_modules. */
function withPackage(dir: string): void {
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules/checkpoint-protocol'));
}

const driver = (dir: string) => git(dir, ['config', '--get', 'merge.checkpoint.driver']);
const hook = (main: string) => readFileSync(join(main, '.git/hooks/pre-push'), 'utf8');

/** A project set up by init in its main worktree, and a linked worktree of it with its own install. */
function mainAndAgent(): { main: string; agent: string } {
  const main = installedProject();
  withPackage(main);
  expect(cli(main, ['init']).code).toBe(0);
  const agent = join(tempDir('cp-wt-'), 'agent (task 8)');
  git(main, ['worktree', 'add', '-q', '-b', 'agent', agent]);
  withPackage(agent);
  return { main, agent };
}

describe('install in a linked worktree', () => {
  it("keeps the shared driver and hook that run the main worktree's install, and says so", () => {
    const { main, agent } = mainAndAgent();
    const before = { driver: driver(main), hook: hook(main) };
    expect(before.driver).toContain(join(main, BIN));

    const prepare = cli(agent, ['install-driver', '--optional']);
    expect(prepare.code).toBe(0);
    expect(prepare.stdout).toContain(`✓ kept merge.checkpoint.driver: it runs the install at ${join(main, BIN)}, shared by every worktree of this repository`);
    const init = cli(agent, ['init']);
    expect(init.code).toBe(0);
    expect(init.stdout).toContain(`✓ kept the pre-push hook in ${join(main, '.git/hooks/pre-push')}: it runs the install at ${join(main, BIN)}`);
    expect(init.stdout).not.toContain(agent);
    expect(driver(main)).toBe(before.driver);
    expect(hook(main)).toBe(before.hook);

    // Once the agent's worktree is gone, the main clone's driver still runs: a merge of its branch works.
    git(main, ['worktree', 'remove', '--force', agent]);
    expect(cli(main, ['install-driver']).stdout).toBe('✓ merge driver already installed\n');
  });

  it("sets them to the worktree's install when what is set no longer runs, and says they are shared", () => {
    const { main, agent } = mainAndAgent();
    // The main worktree's install is gone (node_modules moved away).
    renameSync(join(main, 'node_modules'), join(main, 'node_modules.old'));
    const init = cli(agent, ['init']);
    expect(init.code).toBe(0);
    expect(driver(main)).toContain(join(agent, BIN));
    expect(hook(main)).toContain(join(agent, BIN));
    expect(init.stdout).toContain(`! merge.checkpoint.driver is shared by every worktree of this repository and now runs this worktree's install (${join(agent, BIN)}): it breaks once this worktree is removed; to avoid that, run checkpoint init in the main worktree (${main})`);
    expect(init.stdout).toContain(`! the pre-push hook in ${join(main, '.git/hooks/pre-push')} is shared by every worktree of this repository`);

    // The fix the note gives: init in the main worktree points both back at its install.
    renameSync(join(main, 'node_modules.old'), join(main, 'node_modules'));
    const back = cli(main, ['init']);
    expect(back.stdout).not.toContain('shared by every worktree');
    expect(driver(main)).toContain(join(main, BIN));
    expect(hook(main)).toContain(join(main, BIN));
  });
});
