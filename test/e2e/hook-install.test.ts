// How init installs the pre-push hook beside other tools' hooks: a foreign hook (husky, a hook
// manager, the user's own) is never moved or overwritten, and init prints the line that runs our
// check from it; a hook an earlier init installed (with pre-push.chained) keeps working.
import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cli, cliGuarded, commitAll, errorLine, git, gitTry, installedProject, makeRepo, read, ROOT, tempDir, write } from '../helpers/repo.js';
import { renderHook } from '../../src/install/hook.js';

const LINE = '. node_modules/checkpoint-protocol/hooks/pre-push-chain';
/** The pre-push hook an earlier checkpoint (8d74bca) installed, node and launcher baked in. */
const EARLIER_HOOK = join(ROOT, 'test/fixtures/hooks/pre-push.8d74bca');

function withRemote(dir: string): void {
  const remote = tempDir('cp-remote-');
  git(remote, ['init', '-q', '--bare']);
  git(dir, ['remote', 'add', 'origin', remote]);
}

/** husky 8's husky.sh, as `husky install` writes it: it runs the hook again with `sh -e "$0"` and exits with its code. */
const HUSKY_8_SH = '#!/usr/bin/env sh\nif [ -z "$husky_skip_init" ]; then\n  readonly hook_name="$(basename -- "$0")"\n  if [ "$HUSKY" = "0" ]; then\n    exit 0\n  fi\n  readonly husky_skip_init=1\n  export husky_skip_init\n  sh -e "$0" "$@"\n  exitCode="$?"\n  if [ $exitCode != 0 ]; then\n    echo "husky - $hook_name hook exited with code $exitCode (error)"\n  fi\n  exit $exitCode\nfi\n';
const HUSKY_8_LINE = '. "$(dirname -- "$0")/_/husky.sh"';

/** A project that depends on the package and uses husky 8: core.hooksPath is .husky, whose hooks source .husky/_/husky.sh. */
function husky8Project(userHook: string): string {
  const dir = installedProject();
  symlinkSync(ROOT, join(dir, 'node_modules/checkpoint-protocol'));
  withRemote(dir);
  git(dir, ['config', 'core.hooksPath', '.husky']);
  write(dir, '.husky/_/husky.sh', HUSKY_8_SH);
  write(dir, '.husky/_/.gitignore', '*\n');
  write(dir, '.husky/pre-push', userHook);
  chmodSync(join(dir, '.husky/pre-push'), 0o755);
  commitAll(dir, 'husky');
  return dir;
}

/** How many times a push ran our check: the hook names its doctor command once per run. */
const checksRun = (stderr: string) => stderr.match(/checkpoint doctor --fail-on-warnings --pushed=/g)?.length ?? 0;

/** A project that depends on the package (node_modules as npm lays it out) and uses husky 9. */
function huskyProject(userHook: string): string {
  const dir = installedProject();
  symlinkSync(ROOT, join(dir, 'node_modules/checkpoint-protocol'));
  git(dir, ['config', 'core.hooksPath', '.husky/_']);
  // husky 9's wrapper and runner: the wrapper runs .husky/<the name it was run as>.
  write(dir, '.husky/_/pre-push', '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n');
  write(dir, '.husky/_/h', '#!/usr/bin/env sh\nn=$(basename "$0")\ns=$(dirname "$(dirname "$0")")/$n\n[ ! -f "$s" ] && exit 0\nexport PATH="node_modules/.bin:$PATH"\nsh -e "$s" "$@"\nc=$?\n[ $c != 0 ] && echo "husky - $n script failed (code $c)"\nexit $c\n');
  chmodSync(join(dir, '.husky/_/pre-push'), 0o755);
  chmodSync(join(dir, '.husky/_/h'), 0o755);
  write(dir, '.husky/pre-push', userHook);
  commitAll(dir, 'husky');
  withRemote(dir);
  return dir;
}

/** A PATH folder holding only what the hook needs besides node (git, sh and a few tools), as a git GUI may give hooks. */
function pathWithoutNode(): string {
  const bin = tempDir('cp-bin-');
  for (const tool of ['git', 'sh', 'cat', 'dirname', 'printf']) {
    symlinkSync(execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(), join(bin, tool));
  }
  return bin;
}

const invalidCheckpoint = (dir: string) => {
  write(dir, '.checkpoints/api.checkpoint.json', '{ "skill": "api", "status": "half done (see PR 12)", "progress": 8.0 }\n');
  commitAll(dir, 'checkpoint: api, half written');
};

/** An invalid checkpoint committed and pushed: the push is refused by the check. Its stderr, for what else it holds. */
function pushRefused(dir: string, ref = 'main', env?: Record<string, string>): string {
  invalidCheckpoint(dir);
  const refused = gitTry(dir, ['push', '-q', 'origin', ref], env);
  expect(refused.status).not.toBe(0);
  expect(refused.stderr).toContain('push refused');
  return refused.stderr;
}

/** A push our check runs in (its command line on stderr) and passes, with the user's own gate run too (its `mark`). */
function pushPassesThrough(dir: string, mark: string): void {
  const ok = gitTry(dir, ['push', '-q', 'origin', 'main']);
  expect(ok.status, ok.stderr).toBe(0);
  expect(ok.stderr).toContain('checkpoint doctor --fail-on-warnings --pushed=');
  expect(ok.stderr).toContain(mark);
}

/** An invalid checkpoint pushed through a hook that is reached by a link: refused by the check, never by a hook that failed to start. */
function refusedByTheCheck(dir: string): void {
  invalidCheckpoint(dir);
  const push = gitTry(dir, ['push', '-q', 'origin', 'main']);
  expect(push.status, push.stderr).toBe(1);
  expect(push.stderr).toContain('checkpoint pre-push: push refused');
  expect(push.stderr).not.toMatch(/not found|Cannot find module/);
}


/** A repository with a remote whose pre-push hook is the user's node script (it prints the first pushed ref). */
function nodeHookRepo(): { dir: string; own: string; hook: string } {
  const dir = makeRepo();
  withRemote(dir);
  const own = '#!/usr/bin/env node\nconst refs = require("fs").readFileSync(0, "utf8");\nconsole.error(`node gate saw ${refs.split(" ")[0]}`);\n';
  const hook = join(dir, '.git/hooks/pre-push');
  write(dir, '.git/hooks/pre-push', own);
  chmodSync(hook, 0o755);
  return { dir, own, hook };
}

/** init's advice for that hook: the mv to make, and the line of the sh hook to create. */
const NODE_HOOK_ADVICE = /^! left \.git\/hooks\/pre-push as it is \(not checkpoint's hook\); \.git\/hooks\/pre-push is a node script, and checkpoint's line is sh: to check pushes, rename it \((mv .+)\), then create \.git\/hooks\/pre-push \(#!\/bin\/sh, then this line; chmod \+x\) with: (.+)$/m;

describe('init beside another pre-push hook', () => {
  it("husky 9: leaves husky's wrapper alone, so the user's gate still runs, and the printed line adds our check", () => {
    const dir = huskyProject('echo user-gate-ran >&2\nexit 1\n');
    const wrapper = read(dir, '.husky/_/pre-push');
    const init = cli(dir, ['init']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain(`! left .husky/_/pre-push as it is (not checkpoint's hook); to check pushes, put this line first in .husky/pre-push: ${LINE}\n`);
    expect(read(dir, '.husky/_/pre-push')).toBe(wrapper);
    expect(readdirSync(join(dir, '.husky/_')).sort()).toEqual(['h', 'pre-push']);
    expect(existsSync(join(dir, '.git/hooks/pre-push'))).toBe(false);
    // The rest of init was done.
    expect(git(dir, ['config', 'merge.checkpoint.driver'])).toContain('merge-driver');
    expect(existsSync(join(dir, '.checkpoints/README.md'))).toBe(true);
    commitAll(dir, 'checkpoint init');
    const gated = gitTry(dir, ['push', '-q', 'origin', 'main']);
    expect(gated.status).not.toBe(0);
    expect(gated.stderr).toContain('user-gate-ran');
    // The user adds the printed line to their hook: our check now runs, with git's stdin.
    write(dir, '.husky/pre-push', `${LINE}\necho user-gate-ran >&2\n`);
    commitAll(dir, 'husky: check checkpoints on push');
    pushPassesThrough(dir, 'user-gate-ran');
    pushRefused(dir);
    // Idempotent, and it sees the line is there: no second request to add it.
    const again = cli(dir, ['init']);
    expect(again.stdout).toBe("! left .husky/_/pre-push as it is (not checkpoint's hook); .husky/pre-push runs checkpoint's check already\n");
  });

  it('the printed line gives the rest of the hook git\'s stdin, and stops the push under a plain sh (no -e) too', () => {
    // The user's own gate reads the pushed refs after our line: it must still see them.
    const dir = huskyProject('while read l s r x; do [ "$r" = refs/heads/protected ] && { echo user-gate-refused >&2; exit 1; }; done\nexit 0\n');
    cli(dir, ['init']);
    write(dir, '.husky/pre-push', `${LINE}\n${read(dir, '.husky/pre-push')}`);
    commitAll(dir, 'husky: check checkpoints on push');
    expect(gitTry(dir, ['push', '-q', 'origin', 'HEAD:refs/heads/main']).status).toBe(0);
    const gate = gitTry(dir, ['push', '-q', 'origin', 'HEAD:refs/heads/protected']);
    expect(gate.status).not.toBe(0);
    expect(gate.stderr).toContain('user-gate-refused');
    // A plain hook in .git/hooks (run without -e) that ends in `exit 0`: our refusal still ends it.
    git(dir, ['config', '--unset', 'core.hooksPath']);
    write(dir, '.git/hooks/pre-push', `#!/bin/sh\n${LINE}\necho user-hook-ran >&2\nexit 0\n`);
    chmodSync(join(dir, '.git/hooks/pre-push'), 0o755);
    const refused = pushRefused(dir, 'HEAD:refs/heads/main');
    expect(refused).not.toContain('user-hook-ran');
  });

  it('without the package in node_modules, the printed line names the installed copy, whose hook finds its own CLI', () => {
    const dir = makeRepo();
    withRemote(dir);
    write(dir, '.git/hooks/pre-push', '#!/bin/sh\nexit 0\n');
    chmodSync(join(dir, '.git/hooks/pre-push'), 0o755);
    const line = cli(dir, ['init']).stdout.match(/put this line first in \.git\/hooks\/pre-push, after its #! line: (.+)$/m)?.[1];
    expect(line).toBe(`CHECKPOINT_HOOK=${join(ROOT, 'hooks/pre-push')} . ${join(ROOT, 'hooks/pre-push-chain')}`);
    write(dir, '.git/hooks/pre-push', `#!/bin/sh\n${line}\nexit 0\n`);
    commitAll(dir, 'checkpoint init');
    // No checkpoint-protocol on PATH and no node_modules: the hook runs the package's own launcher.
    const path = `${dirname(process.execPath)}:/usr/bin:/bin`;
    expect(pushRefused(dir, 'HEAD:refs/heads/main', { PATH: path })).not.toContain('not found');
  });

  it('"runs the check already" only when our line comes first: after a stdin reader, an exit or in a comment it asks again', () => {
    const dir = huskyProject('exit 0\n');
    for (const hook of [`while read l s r x; do :; done\n${LINE}\n`, `exit 0\n${LINE}\n`, `# ${LINE}\nexit 0\n`]) {
      write(dir, '.husky/pre-push', hook);
      const out = cli(dir, ['init']).stdout;
      expect(out, hook).not.toContain('already');
      expect(out, hook).toContain(`put this line first in .husky/pre-push`);
    }
    write(dir, '.husky/pre-push', `# checks\n\n${LINE}\nexit 0\n`);
    expect(cli(dir, ['init']).stdout).toContain('.husky/pre-push runs checkpoint\'s check already');
  });

  it("husky 8: the line goes right after the hook's husky.sh line, where the check runs once per push and refuses drift; above it (husky.sh runs the hook again) init says it runs twice (red team 64 r3 8)", () => {
    const own = (middle: string, husky = HUSKY_8_LINE) => `#!/usr/bin/env sh\n${husky}\n${middle}\necho user-gate-ran >&2\n`;
    const dir = husky8Project(own(''));
    expect(cli(dir, ['init']).stdout).toContain(`! left .husky/pre-push as it is (not checkpoint's hook); to check pushes, put this line in .husky/pre-push right after its husky.sh line: ${LINE}\n`);
    commitAll(dir, 'checkpoint init');
    // Where init says: in place, run once by husky.sh's second run, with git's stdin.
    write(dir, '.husky/pre-push', own(LINE));
    commitAll(dir, 'husky: check checkpoints on push');
    expect(cli(dir, ['init']).stdout).toBe("! left .husky/pre-push as it is (not checkpoint's hook); .husky/pre-push runs checkpoint's check already\n");
    const ok = gitTry(dir, ['push', '-q', 'origin', 'main']);
    expect(ok.status, ok.stderr).toBe(0);
    expect(checksRun(ok.stderr)).toBe(1);
    expect(ok.stderr).toContain('user-gate-ran');
    expect(pushRefused(dir)).not.toContain('user-gate-ran');
    // husky 5-7's line, without `--`: the same.
    write(dir, '.husky/pre-push', own(LINE, '. "$(dirname "$0")/_/husky.sh"'));
    expect(cli(dir, ['init']).stdout).toContain('.husky/pre-push runs checkpoint\'s check already');
    // Above husky.sh's line (first, as for any other hook): the check runs in both runs of the hook.
    write(dir, '.husky/pre-push', `#!/usr/bin/env sh\n${LINE}\n${HUSKY_8_LINE}\necho user-gate-ran >&2\n`);
    const above = cli(dir, ['init']).stdout;
    expect(above).not.toContain('already');
    expect(above).toContain(`put this line in .husky/pre-push right after its husky.sh line (it is there, but above that line, which runs the hook again: the check runs twice on every push): ${LINE}\n`);
    git(dir, ['reset', '-q', '--hard', 'origin/main']);
    write(dir, '.husky/pre-push', `#!/usr/bin/env sh\n${LINE}\n${HUSKY_8_LINE}\necho user-gate-ran >&2\n`);
    write(dir, 'b.txt', 'b\n');
    commitAll(dir, 'above');
    expect(checksRun(gitTry(dir, ['push', '-q', 'origin', 'main']).stderr)).toBe(2);
    // After a command of the user's: not in place either.
    write(dir, '.husky/pre-push', own(`echo lint\n${LINE}`));
    expect(cli(dir, ['init']).stdout).toContain('right after its husky.sh line (it is there, but not right after it:');
  });

  it('a bash hook (set -euo pipefail): the line goes after its #! line, as printed, and works there; above it (git then runs sh) init asks to move it, never "already" (red team 62d 01)', () => {
    const dir = makeRepo();
    withRemote(dir);
    const own = '#!/usr/bin/env bash\nset -euo pipefail\nrefs=($(cat))\necho "lint ok: ${refs[0]}" >&2\n';
    write(dir, '.git/hooks/pre-push', own);
    chmodSync(join(dir, '.git/hooks/pre-push'), 0o755);
    const line = cli(dir, ['init']).stdout.match(/^! left \.git\/hooks\/pre-push as it is \(not checkpoint's hook\); to check pushes, put this line first in \.git\/hooks\/pre-push, after its #! line: (.+)$/m)?.[1];
    expect(line).toBeDefined();
    // The old advice followed literally: the line above the #! line, which git then runs with sh.
    write(dir, '.git/hooks/pre-push', `${line}\n${own}`);
    const above = cli(dir, ['init']).stdout;
    expect(above).not.toContain('already');
    expect(above).toContain(`! left .git/hooks/pre-push as it is (not checkpoint's hook); checkpoint's line is above the #! line of .git/hooks/pre-push, so git runs it with sh, not bash (its bash lines may fail every push): to check pushes, move this line to just after the #! line: ${line}\n`);
    commitAll(dir, 'checkpoint init');
    expect(gitTry(dir, ['push', '-q', 'origin', 'main']).status, 'the defect the advice prevents').not.toBe(0);
    // Moved as printed: the check and the user's bash lines (with the pushed refs) both run.
    write(dir, '.git/hooks/pre-push', own.replace('\n', `\n${line}\n`));
    expect(cli(dir, ['init']).stdout).toContain("! left .git/hooks/pre-push as it is (not checkpoint's hook); .git/hooks/pre-push runs checkpoint's check already\n");
    pushPassesThrough(dir, 'lint ok: refs/heads/main');
    const refused = pushRefused(dir);
    expect(refused).not.toContain('lint ok');
  });

  it('a pre-push hook that is not executable (git skips it): init fixes the mode of its own and names chmod +x for the user\'s, never "already"; doctor says pushes are not checked (red team 64 r3 r7)', () => {
    const dir = makeRepo();
    withRemote(dir);
    const hook = join(dir, '.git/hooks/pre-push');
    const hookFindings = () => (JSON.parse(cli(dir, ['doctor', '--json']).stdout).findings as { check: string; message: string }[]).filter((f) => f.check === 'hook');
    // The user's hook, mode 644, with our line first as init asks.
    write(dir, '.git/hooks/pre-push', '#!/bin/sh\necho mine\n');
    chmodSync(hook, 0o644);
    const advice = cli(dir, ['init']).stdout;
    expect(advice).toContain(`to check pushes, run chmod +x '${hook}' (it is not executable, so git skips it now) and put this line first in .git/hooks/pre-push, after its #! line: `);
    const line = advice.match(/after its #! line: (.+)$/m)![1]!;
    write(dir, '.git/hooks/pre-push', `#!/bin/sh\n${line}\necho mine\n`);
    chmodSync(hook, 0o644);
    const again = cli(dir, ['init']).stdout;
    expect(again).not.toContain('already');
    expect(again).toContain(`.git/hooks/pre-push starts with checkpoint's line, but it is not executable, so git skips it and no push is checked; to check pushes, run: chmod +x '${hook}'`);
    expect(hookFindings()).toEqual([expect.objectContaining({ message: `the pre-push hook .git/hooks/pre-push is not executable, so git skips it and pushes are not checked; run: chmod +x '${hook}'` })]);
    chmodSync(hook, 0o755);
    expect(cli(dir, ['init']).stdout).toContain("runs checkpoint's check already");
    expect(hookFindings()).toEqual([]);
    // checkpoint's own hook that lost its x bit: init makes it executable again, and pushes are judged.
    rmSync(hook);
    expect(cli(dir, ['init']).code).toBe(0);
    chmodSync(hook, 0o644);
    expect(hookFindings()).toHaveLength(1);
    const fixed = cli(dir, ['init']).stdout;
    expect(fixed).not.toContain('already set up');
    expect(fixed).toContain(`made the pre-push hook in ${hook} executable again`);
    expect(lstatSync(hook).mode & 0o111).not.toBe(0);
    expect(hookFindings()).toEqual([]);
    pushRefused(dir);
  });

  it('a hook in another language (node, python): init says to run it from a sh hook; followed as printed, both run, with the pushed refs; the sh line inside it is never "already" (red team 62d 01)', () => {
    const { dir, own, hook } = nodeHookRepo();
    const out = cli(dir, ['init']).stdout;
    const advice = out.match(NODE_HOOK_ADVICE);
    expect(advice, out).not.toBeNull();
    const [, mv, line] = advice!;
    expect(line).toBe(`CHECKPOINT_HOOK=${join(ROOT, 'hooks/pre-push')} . ${join(ROOT, 'hooks/pre-push-chain')}; exec "$(dirname "$0")/pre-push.user" "$@"`);
    // Followed literally, from elsewhere than the project.
    execFileSync('sh', ['-c', mv!], { cwd: tempDir('cp-elsewhere-') });
    write(dir, '.git/hooks/pre-push', `#!/bin/sh\n${line}\n`);
    chmodSync(hook, 0o755);
    expect(read(dir, '.git/hooks/pre-push.user')).toBe(own);
    expect(cli(dir, ['init']).stdout).toContain("! left .git/hooks/pre-push as it is (not checkpoint's hook); .git/hooks/pre-push runs checkpoint's check already\n");
    commitAll(dir, 'checkpoint init');
    pushPassesThrough(dir, 'node gate saw refs/heads/main');
    pushRefused(dir);
    // The sh line put after a python hook's #! line (python stops at it): take it out, never "already".
    write(dir, '.git/hooks/pre-push', `#!/usr/bin/env python3\n${line!.replace(/;.*/, '')}\nimport sys\n`);
    const python = cli(dir, ['init']).stdout;
    expect(python).not.toContain('already');
    expect(python).toContain("; .git/hooks/pre-push is a python3 script, and checkpoint's line is sh: to check pushes, take checkpoint's line out of it (python3 cannot run it, so every push fails), rename it (mv ");
  });

  it('a hook in another language with pre-push.user taken: the advice moves it to a free name, and followed as printed loses no file (stop 62 known limit)', () => {
    const { dir, own, hook } = nodeHookRepo();
    // An earlier wrapped hook of the user's, and a folder where the next name would go: both kept.
    const earlier = '#!/usr/bin/env python3\n# the lint gate from last year (kept on purpose)\nimport sys\n';
    write(dir, '.git/hooks/pre-push.user', earlier);
    mkdirSync(join(dir, '.git/hooks/pre-push.user.2'));
    const out = cli(dir, ['init']).stdout;
    const advice = out.match(NODE_HOOK_ADVICE);
    expect(advice, out).not.toBeNull();
    const [, mv, line] = advice!;
    expect(mv).toBe(`mv '${hook}' '${hook}.user.3'`);
    expect(line).toMatch(/; exec "\$\(dirname "\$0"\)\/pre-push\.user\.3" "\$@"$/);
    execFileSync('sh', ['-c', mv!], { cwd: tempDir('cp-elsewhere-') });
    write(dir, '.git/hooks/pre-push', `#!/bin/sh\n${line}\n`);
    chmodSync(hook, 0o755);
    expect(read(dir, '.git/hooks/pre-push.user')).toBe(earlier);
    expect(readdirSync(join(dir, '.git/hooks/pre-push.user.2'))).toEqual([]);
    expect(read(dir, '.git/hooks/pre-push.user.3')).toBe(own);
    commitAll(dir, 'checkpoint init');
    pushPassesThrough(dir, 'node gate saw refs/heads/main');
    pushRefused(dir);
  });

  it('pre-push-chain gives the rest of the hook the bytes git gave: none for a push with nothing to send', () => {
    const dir = huskyProject(`${LINE}\nod -c >&2\n`);
    cli(dir, ['init']);
    commitAll(dir, 'checkpoint init');
    expect(gitTry(dir, ['push', '-q', 'origin', 'main']).status).toBe(0);
    // Everything up to date: git gives the hook an empty stdin, and so does our line.
    const again = gitTry(dir, ['push', 'origin', 'main']);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/^0000000$/m);
  });

  it('a hook run where node is not on PATH says so and lets the push through, never "push refused"', () => {
    const dir = makeRepo();
    withRemote(dir);
    const bin = pathWithoutNode();
    write(dir, '.git/hooks/pre-push', `#!/bin/sh\nCHECKPOINT_HOOK=${join(ROOT, 'hooks/pre-push')} . ${join(ROOT, 'hooks/pre-push-chain')}\n`);
    chmodSync(join(dir, '.git/hooks/pre-push'), 0o755);
    write(dir, 'a.txt', 'a\n');
    commitAll(dir, 'a');
    const r = gitTry(dir, ['push', '-q', 'origin', 'HEAD:refs/heads/main'], { PATH: bin });
    expect(r.stderr).toContain('node was not found');
    expect(r.stderr).not.toContain('push refused');
    expect(r.status, r.stderr).toBe(0);
  });

  it('a doctor that could not run (exit 2: a FIFO at .git/index) refuses the push saying what failed, never "reconcile the checkpoints above" (red team 62d 3)', () => {
    const dir = makeRepo();
    withRemote(dir);
    expect(cli(dir, ['init']).code).toBe(0);
    commitAll(dir, 'checkpoint init');
    rmSync(join(dir, '.git/index'));
    execFileSync('mkfifo', [join(dir, '.git/index')]);
    const push = gitTry(dir, ['push', '-q', 'origin', 'main']);
    expect(push.status).not.toBe(0);
    expect(push.stderr).toMatch(/^checkpoint: git cannot read the index .*: it is a FIFO, not a file/m);
    expect(push.stderr).toContain('checkpoint pre-push: push refused: checkpoint doctor could not run (exit 2), so the push was not judged; the line above says what failed: fix that and push again (or git push --no-verify)\n');
    expect(push.stderr).not.toContain('reconcile the checkpoints above');
  });

  it('a node init baked in that is gone since (nvm or Homebrew removed that version): the hook runs the node on PATH, and the push is still judged', () => {
    const dir = makeRepo();
    withRemote(dir);
    expect(cli(dir, ['init']).code).toBe(0);
    const hook = join(dir, '.git/hooks/pre-push');
    const baked = read(dir, '.git/hooks/pre-push');
    expect(baked).toMatch(/^CHECKPOINT_NODE='.+'$/m);
    write(dir, '.git/hooks/pre-push', baked.replace(/^CHECKPOINT_NODE='.+'$/m, "CHECKPOINT_NODE='/opt/removed-node-v18/bin/node'"));
    chmodSync(hook, 0o755);
    invalidCheckpoint(dir);
    const push = gitTry(dir, ['push', '-q', 'origin', 'main']);
    expect(push.stderr).not.toContain('node was not found');
    expect(push.stderr).toContain('push refused');
    expect(push.status).not.toBe(0);
  });

  it('doctor names an earlier hook of ours (it ran the clone\'s node_modules/.bin once its CLI was gone) until init updates it; not the current one, not one the user edited', () => {
    const dir = makeRepo();
    mkdirSync(join(dir, '.git/hooks'), { recursive: true });
    const earlier = readFileSync(EARLIER_HOOK, 'utf8');
    const hookFindings = () => (JSON.parse(cli(dir, ['doctor', '--json']).stdout).findings as { check: string; level: string; message: string }[]).filter((f) => f.check === 'hook');
    write(dir, '.git/hooks/pre-push', earlier);
    chmodSync(join(dir, '.git/hooks/pre-push'), 0o755); // as init wrote it: git runs it
    expect(hookFindings()).toEqual([expect.objectContaining({ level: 'warning', message: expect.stringMatching(/older checkpoint hook: .*run `checkpoint init` to update it$/) })]);
    write(dir, '.git/hooks/pre-push', `${earlier}\necho my own line\n`);
    expect(hookFindings()).toEqual([]);
    write(dir, '.git/hooks/pre-push', earlier);
    // A hook git does not run (core.hooksPath points elsewhere, as husky sets it) is no matter (red team, 12-04).
    git(dir, ['config', 'core.hooksPath', '.husky']);
    expect(hookFindings()).toEqual([]);
    git(dir, ['config', '--unset', 'core.hooksPath']);
    expect(cli(dir, ['init']).code).toBe(0);
    expect(hookFindings()).toEqual([]);
    // The install the hook runs gone (npx cache cleared): every push goes unchecked, and doctor says so.
    const gone = '/root/.npm/_npx/0123/node_modules/checkpoint-protocol/bin/checkpoint.js';
    write(dir, '.git/hooks/pre-push', read(dir, '.git/hooks/pre-push').replace(/^CHECKPOINT_BIN='.+'$/m, `CHECKPOINT_BIN='${gone}'`));
    expect(hookFindings()).toEqual([expect.objectContaining({ level: 'warning', message: `the pre-push hook runs ${gone}, which is gone, so pushes are not checked; run \`checkpoint init\` from the install you use` })]);
  });

  it('a launcher init baked in that is gone since (npx cache cleared, package removed): the hook says what to do, and never runs a copy the clone holds (red team, 12-04)', () => {
    const dir = makeRepo();
    withRemote(dir);
    expect(cli(dir, ['init']).code).toBe(0);
    const hook = join(dir, '.git/hooks/pre-push');
    const gone = '/root/.npm/_npx/0123/node_modules/checkpoint-protocol/bin/checkpoint.js';
    write(dir, '.git/hooks/pre-push', read(dir, '.git/hooks/pre-push').replace(/^CHECKPOINT_BIN='.+'$/m, `CHECKPOINT_BIN='${gone}'`));
    chmodSync(hook, 0o755);
    // A hostile clone commits a bin of that name: a fallback to it would run the clone's code on push.
    const planted = join(dir, 'node_modules/.bin/checkpoint-protocol');
    write(dir, 'node_modules/.bin/checkpoint-protocol', `#!/bin/sh\ntouch "${join(dir, 'PWNED')}"\n`);
    chmodSync(planted, 0o755);
    const push = gitTry(dir, ['push', '-q', 'origin', 'main']);
    expect(push.status, push.stderr).toBe(0);
    expect(push.stderr).toContain(`checkpoint pre-push: the checkpoint CLI this hook was installed with is gone (${gone}); doctor skipped: run checkpoint init again from the install you use\n`);
    expect(existsSync(join(dir, 'PWNED'))).toBe(false);
  });

  it('pnpm: the hook and the driver name the project\'s node_modules/checkpoint-protocol, not the versioned path it leads to, so an upgrade keeps them working (red team 60e-05)', () => {
    const dir = realpathSync(makeRepo());
    // pnpm's layout: the package under .pnpm/<name>@<version>/, linked from node_modules/<name>.
    const pnpm = (version: string) => {
      const at = join(dir, `node_modules/.pnpm/checkpoint-protocol@${version}/node_modules`);
      mkdirSync(at, { recursive: true });
      symlinkSync(ROOT, join(at, 'checkpoint-protocol'));
      rmSync(join(dir, 'node_modules/checkpoint-protocol'), { force: true });
      symlinkSync(`.pnpm/checkpoint-protocol@${version}/node_modules/checkpoint-protocol`, join(dir, 'node_modules/checkpoint-protocol'));
    };
    pnpm('0.1.0');
    const r = spawnSync(process.execPath, [join(dir, 'node_modules/.pnpm/checkpoint-protocol@0.1.0/node_modules/checkpoint-protocol/bin/checkpoint.js'), 'init'], { cwd: dir, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const stable = join(dir, 'node_modules/checkpoint-protocol/bin/checkpoint.js');
    expect(read(dir, '.git/hooks/pre-push')).toContain(`CHECKPOINT_BIN='${stable}'\n`);
    expect(git(dir, ['config', 'merge.checkpoint.driver'])).toContain(`[ -f '${stable}' ] && [ -x `);
    rmSync(join(dir, 'node_modules/.pnpm'), { recursive: true });
    pnpm('0.1.1');
    expect(existsSync(stable)).toBe(true);
  });

  it("a .git/hooks/pre-push linked to the package's own hook runs the check with the launcher beside the link's target; init says so and adds no line to it (red team 12-07)", () => {
    const dir = makeRepo();
    withRemote(dir);
    const shipped = join(ROOT, 'hooks/pre-push');
    const template = readFileSync(shipped, 'utf8');
    mkdirSync(join(dir, '.git/hooks'), { recursive: true });
    symlinkSync(shipped, join(dir, '.git/hooks/pre-push'));
    refusedByTheCheck(dir);
    const init = cli(dir, ['init']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain(`! .git/hooks/pre-push runs checkpoint's check already (a link to ${realpathSync(shipped)}, run with ${join(realpathSync(ROOT), 'bin/checkpoint.js')})\n`);
    // Never the chain line: written through the link into the shipped hook, it would run itself.
    expect(init.stdout).not.toContain('pre-push-chain');
    expect(lstatSync(join(dir, '.git/hooks/pre-push')).isSymbolicLink()).toBe(true);
    expect(readFileSync(shipped, 'utf8')).toBe(template);
    const hooks = (JSON.parse(cli(dir, ['doctor', '--json']).stdout).findings as { check: string }[]).filter((f) => f.check === 'hook');
    expect(hooks).toEqual([]);
  });

  it("core.hooksPath set to a link to the package's hooks folder: the check runs (its folder resolved as the file system has it), and init says so, adding no line to the shipped hook (red team 12-07)", () => {
    const dir = makeRepo();
    withRemote(dir);
    const template = readFileSync(join(ROOT, 'hooks/pre-push'), 'utf8');
    symlinkSync(join(ROOT, 'hooks'), join(dir, '.githooks'));
    git(dir, ['config', 'core.hooksPath', '.githooks']);
    refusedByTheCheck(dir);
    const init = cli(dir, ['init']);
    expect(init.stdout).toContain("! .githooks/pre-push runs checkpoint's check already (a link to");
    expect(init.stdout).not.toContain('pre-push-chain');
    expect(readFileSync(join(ROOT, 'hooks/pre-push'), 'utf8')).toBe(template);
  });

  it("core.hooksPath naming a folder that holds the shipped hook itself (checkpoint's own repository, hooks/; the package's hooks/): init writes nothing there and says it runs the check (red team 60e-06)", () => {
    const dir = makeRepo();
    const template = readFileSync(join(ROOT, 'hooks/pre-push'), 'utf8');
    write(dir, 'hooks/pre-push', template);
    write(dir, 'hooks/pre-push-chain', readFileSync(join(ROOT, 'hooks/pre-push-chain'), 'utf8'));
    write(dir, 'bin/checkpoint.js', '');
    commitAll(dir, 'a clone of checkpoint itself');
    git(dir, ['config', 'core.hooksPath', 'hooks']);
    const init = cli(dir, ['init']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain(`! hooks/pre-push runs checkpoint's check already (checkpoint's hook as shipped, run with ${join(realpathSync(dir), 'bin/checkpoint.js')})\n`);
    expect(init.stdout).not.toContain('pre-push hook in');
    expect(read(dir, 'hooks/pre-push')).toBe(template);
  });

  it('the template copied or linked in by hand, finding no CLI: doctor says pushes are not checked; init replaces the copy, and for the link says to remove it, never to add a line to it', () => {
    const dir = makeRepo();
    const template = readFileSync(join(ROOT, 'hooks/pre-push'), 'utf8');
    const hook = join(dir, '.git/hooks/pre-push');
    write(dir, '.git/hooks/pre-push', template);
    // No checkpoint-protocol on PATH, as on most machines: the hook would find nothing to run.
    const env = { PATH: pathWithoutNode() };
    const hookFindings = () => (JSON.parse(cli(dir, ['doctor', '--json'], { env }).stdout).findings as { check: string; message: string }[]).filter((f) => f.check === 'hook').map((f) => f.message);
    expect(hookFindings()).toEqual([expect.stringMatching(/^the pre-push hook is checkpoint's template copied in without `checkpoint init`: it finds no checkpoint CLI .*, so pushes are not checked; run `checkpoint init` to replace it with one that names this install$/)]);
    expect(cli(dir, ['init']).code).toBe(0);
    expect(hookFindings()).toEqual([]);
    const elsewhere = tempDir('cp-hooks-');
    write(elsewhere, 'pre-push', template);
    rmSync(hook);
    symlinkSync(join(elsewhere, 'pre-push'), hook);
    expect(hookFindings()).toEqual([expect.stringMatching(/^the pre-push hook is a link to checkpoint's template \(.+\) without `checkpoint init`: .*so pushes are not checked; remove the link \(rm .+\) and run `checkpoint init`$/)]);
    const init = cli(dir, ['init']);
    expect(init.stdout).toMatch(/! left \.git\/hooks\/pre-push as it is \(a link to checkpoint's hook at .+, which finds no checkpoint CLI, so pushes are not checked\); to check pushes, remove the link/);
    expect(init.stdout).not.toContain('pre-push-chain');
    expect(read(elsewhere, 'pre-push')).toBe(template);
  });

  it('where node is not on PATH, CHECKPOINT_NODE in the environment (as the hook advises) runs the check', () => {
    const dir = makeRepo();
    withRemote(dir);
    const bin = pathWithoutNode();
    write(dir, '.git/hooks/pre-push', `#!/bin/sh\nCHECKPOINT_HOOK=${join(ROOT, 'hooks/pre-push')} . ${join(ROOT, 'hooks/pre-push-chain')}\n`);
    chmodSync(join(dir, '.git/hooks/pre-push'), 0o755);
    invalidCheckpoint(dir);
    const push = gitTry(dir, ['push', '-q', 'origin', 'HEAD:refs/heads/main'], { PATH: bin, CHECKPOINT_NODE: process.execPath });
    expect(push.stderr).not.toContain('node was not found');
    expect(push.stderr).toContain('push refused');
    expect(push.status).not.toBe(0);
  });

  it("lefthook's generated hook: left as it is, and the note says what to add to lefthook.yml, not to edit a file lefthook install rewrites", () => {
    const dir = installedProject();
    symlinkSync(ROOT, join(dir, 'node_modules/checkpoint-protocol'));
    const hook = '#!/bin/sh\n\nif [ "$LEFTHOOK" = "0" ]; then\n  exit 0\nfi\n\ncall_lefthook()\n{\n  lefthook "$@"\n}\n\ncall_lefthook run "pre-push" "$@"\n';
    write(dir, '.git/hooks/pre-push', hook);
    write(dir, 'lefthook.yml', 'pre-commit:\n  commands:\n    lint:\n      run: npm run lint\n');
    const r = cli(dir, ['init']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`! left .git/hooks/pre-push as it is (lefthook's: lefthook install rewrites it, and a line added there would be lost); to check pushes, add to lefthook.yml: pre-push: { commands: { checkpoint: { run: "sh node_modules/checkpoint-protocol/hooks/pre-push {1} {2}", use_stdin: true } } }\n`);
    expect(r.stdout).not.toContain('put this line first');
    expect(read(dir, '.git/hooks/pre-push')).toBe(hook);
    // A config with a pre-push key already: the entry goes inside it, never a second pre-push: lefthook refuses (red team 61h, 03).
    write(dir, 'lefthook.yml', 'pre-push:\n  commands:\n    test:\n      run: npm test\n');
    expect(cli(dir, ['init']).stdout).toContain('to check pushes, add to lefthook.yml: under its pre-push: key, to commands: checkpoint: { run: "sh node_modules/checkpoint-protocol/hooks/pre-push {1} {2}", use_stdin: true } (or, where it lists jobs:, a job - { name: checkpoint, run: "sh node_modules/checkpoint-protocol/hooks/pre-push {1} {2}", use_stdin: true })\n');
    write(dir, 'lefthook.yml', 'pre-push:\n  commands:\n    checkpoint:\n      run: sh node_modules/checkpoint-protocol/hooks/pre-push {1} {2}\n      use_stdin: true\n');
    expect(cli(dir, ['init']).stdout).toContain("! lefthook.yml runs checkpoint's check already");
    // Named, and still not run on push (red team 61h-04): in a comment, under another hook, or
    // without use_stdin (lefthook then gives it no pushed refs): never "already".
    const RUN = 'run: sh node_modules/checkpoint-protocol/hooks/pre-push {1} {2}';
    const notRun: [string, string][] = [
      [`pre-push:\n  jobs:\n    - run: echo audit\n# checkpoint: { ${RUN}, use_stdin: true }\n`, '! left .git/hooks/pre-push as it is'],
      [`pre-push:\n  jobs:\n    - run: echo audit\npre-commit:\n  commands:\n    checkpoint:\n      ${RUN}\n      use_stdin: true\n`, "! lefthook.yml names checkpoint's hook, but lefthook does not run it on push (it is not under pre-push:); left"],
      [`pre-push:\n  jobs:\n    - run: echo audit\n    - name: checkpoint\n      ${RUN}\n`, "! lefthook.yml names checkpoint's hook, but lefthook does not run it on push (its pre-push command lacks use_stdin: true, so it gets no pushed refs and checks nothing); left"],
    ];
    for (const [config, says] of notRun) {
      write(dir, 'lefthook.yml', config);
      const out = cli(dir, ['init']).stdout;
      expect(out).toContain(says);
      expect(out).not.toContain('already');
    }
    write(dir, 'lefthook.yml', `pre-push:\n  jobs:\n    - name: checkpoint\n      use_stdin: true\n      ${RUN}\n`);
    expect(cli(dir, ['init']).stdout).toContain("! lefthook.yml runs checkpoint's check already");
    // Any config lefthook reads (red team 60e-04): found where it is, never a lefthook.yml that
    // would be read instead of it; the advice written as that file's format writes it.
    mkdirSync(join(dir, '.config'));
    execFileSync('mv', [join(dir, 'lefthook.yml'), join(dir, '.config/lefthook.yml')]);
    expect(cli(dir, ['init']).stdout).toContain("! .config/lefthook.yml runs checkpoint's check already");
    // Read as lefthook reads it, by the readers dist/lefthook-read.cjs loads (stop 62 known limit:
    // lefthook hand parser): a merge key and a block scalar, a TOML list of jobs.
    write(dir, '.config/lefthook.yml', `.push: &push\n  use_stdin: true # the pushed refs\n\npre-push:\n  jobs:\n    - run: |\n        ${RUN.slice(5)}\n      <<: *push\n`);
    expect(cli(dir, ['init']).stdout).toContain("! .config/lefthook.yml runs checkpoint's check already");
    rmSync(join(dir, '.config'), { recursive: true });
    write(dir, 'lefthook.toml', `[pre-push]\njobs = [\n  { name = "audit", run = "npm audit" },\n  { name = "checkpoint", ${RUN.replace(': ', ' = "')}", use_stdin = true },\n]\n`);
    expect(cli(dir, ['init']).stdout).toContain("! lefthook.toml runs checkpoint's check already");
    rmSync(join(dir, 'lefthook.toml'));
    write(dir, 'lefthook.json', '{ "pre-commit": { "commands": { "lint": { "run": "npm run lint" } } } }\n');
    expect(cli(dir, ['init']).stdout).toContain('to check pushes, add to lefthook.json: "pre-push": { "commands": { "checkpoint": { "run": "sh node_modules/checkpoint-protocol/hooks/pre-push {1} {2}", "use_stdin": true } } }\n');
    expect(existsSync(join(dir, 'lefthook.yml'))).toBe(false);
    // A hook of the user's that only mentions lefthook is theirs: the chain line goes in it.
    write(dir, '.git/hooks/pre-push', '#!/bin/sh\n# moved off lefthook\nnpm test\n');
    expect(cli(dir, ['init']).stdout).toContain(`put this line first in .git/hooks/pre-push, after its #! line: ${LINE}`);
  });

  it("pre-commit's generated hook: the note says how pre-commit runs ours (as pre-push.legacy), and once it does, says so", () => {
    const dir = makeRepo();
    const hook = '#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n# ID: 138fd403232d2ddd5efb44317e38bf03\nexec pre-commit hook-impl --hook-type=pre-push\n';
    write(dir, '.git/hooks/pre-push', hook);
    const r = cli(dir, ['init']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("! left .git/hooks/pre-push as it is (pre-commit's: pre-commit install rewrites it, and a line added there would be lost); to check pushes, run: pre-commit uninstall -t pre-push && checkpoint init && pre-commit install -t pre-push");
    expect(read(dir, '.git/hooks/pre-push')).toBe(hook);
    // What `pre-commit install -t pre-push` leaves after checkpoint init: ours kept as pre-push.legacy.
    rmSync(join(dir, '.git/hooks/pre-push'));
    expect(cli(dir, ['init']).code).toBe(0);
    execFileSync('mv', [join(dir, '.git/hooks/pre-push'), join(dir, '.git/hooks/pre-push.legacy')]);
    write(dir, '.git/hooks/pre-push', hook);
    expect(cli(dir, ['init']).stdout).toContain("! .git/hooks/pre-push (pre-commit's) runs checkpoint's hook, kept as .git/hooks/pre-push.legacy, already");
    // The install it names gone (red team 60e-01): doctor says pushes are not checked, and init
    // refreshes it as it does its own hook.
    const legacy = join(dir, '.git/hooks/pre-push.legacy');
    const fresh = read(dir, '.git/hooks/pre-push.legacy');
    write(dir, '.git/hooks/pre-push.legacy', fresh.replace(/^CHECKPOINT_BIN='.+'$/m, "CHECKPOINT_BIN='/gone/bin/checkpoint.js'"));
    const hookFindings = () => (JSON.parse(cli(dir, ['doctor', '--json']).stdout).findings as { check: string; message: string }[]).filter((f) => f.check === 'hook').map((f) => f.message);
    expect(hookFindings()).toEqual([`the pre-push hook (kept as ${legacy}, which pre-commit's hook runs) runs /gone/bin/checkpoint.js, which is gone, so pushes are not checked; run \`checkpoint init\` from the install you use`]);
    expect(cli(dir, ['init']).stdout).toContain(`✓ updated checkpoint's pre-push hook in ${legacy}, which pre-commit's .git/hooks/pre-push runs\n`);
    expect(read(dir, '.git/hooks/pre-push.legacy')).toBe(fresh);
    expect(lstatSync(legacy).mode & 0o111).toBeTruthy();
    expect(read(dir, '.git/hooks/pre-push')).toBe(hook);
    expect(hookFindings()).toEqual([]);
  });

  it('core.hooksPath=/dev/null (hooks turned off): the note says so, never "create /dev/null/pre-push"', () => {
    const dir = makeRepo();
    git(dir, ['config', 'core.hooksPath', '/dev/null']);
    const r = cli(dir, ['init']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("! no pre-push hook written: core.hooksPath is /dev/null, not a folder, so git runs no hooks in this clone; to check pushes, point core.hooksPath at a folder (or unset it: git config --unset core.hooksPath) and run checkpoint init again\n");
    expect(r.stdout).not.toContain('/dev/null/pre-push');
  });

  it('a core.hooksPath folder with no pre-push yet: the note says to create an executable file with the line', () => {
    const dir = makeRepo();
    git(dir, ['config', 'core.hooksPath', '.githooks']);
    expect(cli(dir, ['init']).stdout).toMatch(/create \.githooks\/pre-push \(#!\/bin\/sh, then this line; chmod \+x\) with: /);
  });

  it("a hook in .git/hooks that finds its work by its own name ($0, husky 4) stays where it is, byte for byte", () => {
    const dir = makeRepo();
    const hook = '#!/bin/sh\n# husky\nhookName=`basename "$0"`\necho "ran as $hookName" >&2\n[ "$hookName" = pre-push ] || exit 0\nexit 1\n';
    write(dir, '.git/hooks/pre-push', hook);
    chmodSync(join(dir, '.git/hooks/pre-push'), 0o755);
    const init = cli(dir, ['init', '--json']);
    expect(init.code, init.stderr).toBe(0);
    const out = JSON.parse(init.stdout);
    expect(out.notes).toEqual([expect.stringMatching(/^left \.git\/hooks\/pre-push as it is \(not checkpoint's hook\); to check pushes, put this line first in \.git\/hooks\/pre-push, after its #! line: CHECKPOINT_HOOK=\S+hooks\/pre-push \. \S+hooks\/pre-push-chain$/)]);
    expect(out.changes.some((c: string) => c.includes('pre-push'))).toBe(false);
    expect(read(dir, '.git/hooks/pre-push')).toBe(hook);
    expect(existsSync(join(dir, '.git/hooks/pre-push.chained'))).toBe(false);
    withRemote(dir);
    const push = gitTry(dir, ['push', '-q', 'origin', 'main']);
    expect(push.status).not.toBe(0);
    expect(push.stderr).toContain('ran as pre-push');
  });

  it('core.hooksPath: writes no hook into that folder, with or without a hook there, and names it', () => {
    const dir = makeRepo();
    git(dir, ['config', 'core.hooksPath', '.githooks']);
    const none = cli(dir, ['init']);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toMatch(/^! no pre-push hook written: core\.hooksPath points at \.githooks, not this clone's own hooks folder; to check pushes, create \.githooks\/pre-push \(#!\/bin\/sh, then this line; chmod \+x\) with: CHECKPOINT_HOOK=.+ \. .+pre-push-chain$/m);
    expect(existsSync(join(dir, '.githooks'))).toBe(false);
    expect(existsSync(join(dir, '.git/hooks/pre-push'))).toBe(false);
    write(dir, '.githooks/pre-push', '#!/bin/sh\necho team-hook >&2\n');
    chmodSync(join(dir, '.githooks/pre-push'), 0o755);
    const left = cli(dir, ['init']);
    expect(left.stdout).toMatch(/^! left \.githooks\/pre-push as it is \(not checkpoint's hook\); to check pushes, put this line first in \.githooks\/pre-push, after its #! line: /m);
    expect(readdirSync(join(dir, '.githooks'))).toEqual(['pre-push']);
  });

  it('the line init gives a global core.hooksPath: a bare mirror and a repository without checkpoints push untouched, with no doctor output; a project is still judged (red team 64 r3 r2)', () => {
    const hooks = tempDir('cp-githooks-');
    const project = makeRepo();
    git(project, ['config', 'core.hooksPath', hooks]);
    const line = cli(project, ['init']).stdout.match(/create .+\/pre-push \(#!\/bin\/sh, then this line; chmod \+x\) with: (.+)$/m)?.[1];
    expect(line).toBeDefined();
    write(hooks, 'pre-push', `#!/bin/sh\n${line}\n`);
    chmodSync(join(hooks, 'pre-push'), 0o755);
    const viaHooks = ['-c', `core.hooksPath=${hooks}`];
    // A mirror (bare) synced to another remote.
    const source = makeRepo();
    write(source, 'a.ts', 'a\n');
    commitAll(source, 'a');
    const mirror = join(tempDir('cp-mirror-'), 'mirror.git');
    git(source, ['clone', '-q', '--mirror', source, mirror]);
    const dest = tempDir('cp-dest-');
    git(dest, ['init', '-q', '--bare']);
    const mirrored = gitTry(mirror, [...viaHooks, 'push', dest, 'main']);
    expect(mirrored.status, mirrored.stderr).toBe(0);
    expect(mirrored.stderr).not.toMatch(/checkpoint|doctor/);
    // An unrelated repository: no banner, no "merge driver not installed" on every push.
    withRemote(source);
    const unrelated = gitTry(source, [...viaHooks, 'push', 'origin', 'main']);
    expect(unrelated.status, unrelated.stderr).toBe(0);
    expect(unrelated.stderr).not.toMatch(/doctor:|merge driver|refused/);
    // A project with checkpoints is judged by the same hook.
    withRemote(project);
    invalidCheckpoint(project);
    const refused = gitTry(project, [...viaHooks, 'push', '-q', 'origin', 'main']);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('checkpoint pre-push: push refused');
  });

  it('a push of thousands of refs hands doctor each range once, on stdin: one short line, never an argument list that grows with the refs (red team 64 r3 r8)', () => {
    const dir = makeRepo();
    withRemote(dir);
    expect(cli(dir, ['init']).code).toBe(0);
    commitAll(dir, 'checkpoint init');
    const head = git(dir, ['rev-parse', 'HEAD']).trim();
    const tags = Array.from({ length: 2000 }, (_, i) => `create refs/tags/t${i} ${head}\n`).join('');
    execFileSync('git', ['update-ref', '--stdin'], { cwd: dir, input: tags });
    const pushed = gitTry(dir, ['push', '-q', 'origin', 'main', 'refs/tags/*']);
    expect(pushed.status, pushed.stderr.slice(0, 500)).toBe(0);
    const said = pushed.stderr.split('\n').filter((l) => l.startsWith('checkpoint pre-push:'));
    expect(said).toEqual([`checkpoint pre-push: checkpoint doctor --fail-on-warnings --pushed=${head}`]);
    // 45,000 refs as git would give them (a mirror push of a large repository): judged, not refused by the shell.
    const lines = Array.from({ length: 45000 }, (_, i) => `refs/tags/y${i} ${head} refs/tags/y${i} ${'0'.repeat(40)}\n`).join('');
    const many = spawnSync('sh', ['.git/hooks/pre-push', 'origin', 'url'], { cwd: dir, input: lines, encoding: 'utf8' });
    expect(many.status, many.stderr.slice(0, 500)).toBe(0);
    expect(many.stderr).not.toContain('Argument list too long');
    // Still judged: drift on the branch pushed with the tags is refused.
    expect(pushRefused(dir)).toContain('checkpoint pre-push: checkpoint doctor --fail-on-warnings --pushed=');
  });

  it('a push made with --git-dir/--work-tree or GIT_DIR/GIT_WORK_TREE from another folder is judged at the work tree; from inside .git one line says it was not judged (red team 64 r3 r3)', () => {
    const dir = makeRepo();
    withRemote(dir);
    expect(cli(dir, ['init']).code).toBe(0);
    commitAll(dir, 'checkpoint init');
    const elsewhere = tempDir('cp-elsewhere-');
    const viaFlags = gitTry(elsewhere, [`--git-dir=${dir}/.git`, `--work-tree=${dir}`, 'push', '-q', 'origin', 'main']);
    expect(viaFlags.status, viaFlags.stderr).toBe(0);
    expect(viaFlags.stderr).toContain('checkpoint pre-push: checkpoint doctor --fail-on-warnings --pushed=');
    expect(viaFlags.stderr).not.toContain('could not run');
    const inside = gitTry(join(dir, '.git'), ['push', '-q', 'origin', 'main:refs/heads/x']);
    expect(inside.status, inside.stderr).toBe(0);
    expect(inside.stderr).toBe('checkpoint pre-push: pushed with no work tree (from inside the git dir?), so the push was not judged; push from the work tree to check it\n');
    // Drift pushed through the variables, from elsewhere, is refused by the check itself.
    invalidCheckpoint(dir);
    const refused = gitTry(elsewhere, ['push', '-q', 'origin', 'main'], { GIT_DIR: `${dir}/.git`, GIT_WORK_TREE: dir });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('checkpoint pre-push: push refused; reconcile the checkpoints above');
  });

  it('a global core.hooksPath under ~ is read as git reads it (expanded), never created as a "~" folder in the project', () => {
    const dir = makeRepo();
    const home = tempDir('cp-home-');
    mkdirSync(join(home, '.githooks'));
    git(dir, ['config', 'core.hooksPath', '~/.githooks']);
    const r = cli(dir, ['init'], { env: { HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`! no pre-push hook written: core.hooksPath points at ${home}/.githooks, not this clone's own hooks folder; to check pushes, create ${home}/.githooks/pre-push (#!/bin/sh, then this line; chmod +x) with: `);
    expect(readdirSync(join(home, '.githooks'))).toEqual([]);
    expect(existsSync(join(dir, '~'))).toBe(false);
  });

  it('a hook an earlier init installed, with the user hook it kept as pre-push.chained: updated in place, the chained hook still runs', () => {
    const dir = makeRepo();
    // As 8d74bca's init installed it: a hook checkpoint shipped, so it may be replaced.
    const earlier = readFileSync(EARLIER_HOOK, 'utf8');
    mkdirSync(join(dir, '.git/hooks'), { recursive: true });
    write(dir, '.git/hooks/pre-push', earlier);
    write(dir, '.git/hooks/pre-push.chained', '#!/bin/sh\necho chained-ran >&2\n');
    chmodSync(join(dir, '.git/hooks/pre-push'), 0o755);
    chmodSync(join(dir, '.git/hooks/pre-push.chained'), 0o755);
    const init = cli(dir, ['init']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('✓ updated the pre-push hook in');
    expect(init.stdout).not.toContain('!');
    expect(read(dir, '.git/hooks/pre-push')).not.toBe(earlier);
    expect(cli(dir, ['init']).stdout).toBe(`✓ ${dir} is already set up\n`);
    commitAll(dir, 'init');
    withRemote(dir);
    const push = gitTry(dir, ['push', '-q', 'origin', 'main']);
    expect(push.status, push.stderr).toBe(0);
    expect(push.stderr).toContain('chained-ran');
    expect(push.stderr).toContain('checkpoint doctor --fail-on-warnings');
  });
});

describe("init keeps a pre-push hook of ours the user edited", () => {
  const current = () => renderHook(readFileSync(join(ROOT, 'hooks/pre-push'), 'utf8'), process.execPath, join(ROOT, 'bin/checkpoint.js'));
  const hookAt = (dir: string, text: string) => {
    mkdirSync(join(dir, '.git/hooks'), { recursive: true });
    write(dir, '.git/hooks/pre-push', text);
    chmodSync(join(dir, '.git/hooks/pre-push'), 0o755);
  };

  it('a re-run leaves the hook init wrote and the user then edited byte for byte, and says in one line how to chain our check', () => {
    const dir = makeRepo();
    expect(cli(dir, ['init']).stdout).toContain('✓ installed the pre-push hook in');
    const edited = `${read(dir, '.git/hooks/pre-push')}npm run lint\n`;
    write(dir, '.git/hooks/pre-push', edited);
    const again = cli(dir, ['init']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toBe('');
    expect(read(dir, '.git/hooks/pre-push')).toBe(edited);
    expect(readdirSync(join(dir, '.git/hooks')).filter((f) => f.startsWith('pre-push') && !f.endsWith('.sample'))).toEqual(['pre-push']);
    const notes = again.stdout.split('\n').filter((l) => l.startsWith('! '));
    expect(notes).toEqual([expect.stringMatching(/^! left \.git\/hooks\/pre-push as it is \(checkpoint's hook, edited since it was installed; never replaced\); to keep your lines and run the current check, make it your own hook: #!\/bin\/sh, then this line, then your lines: CHECKPOINT_HOOK=\S+hooks\/pre-push \. \S+hooks\/pre-push-chain$/)]);
    expect(again.stdout).not.toContain('updated the pre-push hook');
  });

  it('a hook an earlier checkpoint shipped (fixture) is upgraded to the current one; the same hook edited is kept', () => {
    const dir = makeRepo();
    const earlier = readFileSync(EARLIER_HOOK, 'utf8');
    hookAt(dir, earlier);
    const up = cli(dir, ['init']);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toContain('✓ updated the pre-push hook in');
    expect(up.stdout).not.toContain('!');
    expect(read(dir, '.git/hooks/pre-push')).toBe(current());
    expect(cli(dir, ['init']).stdout).toBe(`✓ ${dir} is already set up\n`);

    const other = makeRepo();
    const edited = earlier.replace(/^hook_dir=/m, 'npm test || exit 1\nhook_dir=');
    hookAt(other, edited);
    const kept = cli(other, ['init']);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toContain("! left .git/hooks/pre-push as it is (checkpoint's hook, edited since it was installed; never replaced)");
    expect(read(other, '.git/hooks/pre-push')).toBe(edited);
  });

  it('an edited hook of ours is not put back over by a pre-push.chained an earlier init left beside it', () => {
    const dir = makeRepo();
    git(dir, ['config', 'core.hooksPath', '.githooks']);
    const edited = `${current()}echo mine\n`;
    write(dir, '.githooks/pre-push', edited);
    write(dir, '.githooks/pre-push.chained', '#!/bin/sh\necho chained\n');
    const r = cli(dir, ['init']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("! left .githooks/pre-push as it is (checkpoint's hook, edited since it was installed; never replaced)");
    expect(read(dir, '.githooks/pre-push')).toBe(edited);
    expect(read(dir, '.githooks/pre-push.chained')).toBe('#!/bin/sh\necho chained\n');
  });
});

describe('core.hooksPath: a folder another tool or other repositories share', () => {
  const current = () => renderHook(readFileSync(join(ROOT, 'hooks/pre-push'), 'utf8'), process.execPath, join(ROOT, 'bin/checkpoint.js'));
  /** A machine-wide hooks folder outside the project, named in a global config of the test's own (never the machine's). */
  const globalHooks = (dir: string) => {
    const home = tempDir('cp-home-');
    const hooks = join(home, 'githooks');
    mkdirSync(hooks);
    const config = join(home, 'gitconfig');
    git(dir, ['config', '--file', config, 'core.hooksPath', hooks]);
    return { hooks, env: { HOME: home, GIT_CONFIG_GLOBAL: config, GIT_CONFIG_NOSYSTEM: '1' } };
  };

  it('outside the work tree: even a hook checkpoint shipped is not updated there; one line says what to do by hand', () => {
    const dir = makeRepo();
    const { hooks, env } = globalHooks(dir);
    const earlier = readFileSync(EARLIER_HOOK, 'utf8');
    write(hooks, 'pre-push', earlier);
    const r = cli(dir, ['init'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const notes = r.stdout.split('\n').filter((l) => l.startsWith('! '));
    expect(notes).toEqual([`! left ${hooks}/pre-push as it is (checkpoint's hook from an earlier version, outside this project, where checkpoint writes nothing); to update it by hand, replace its text with #!/bin/sh, then this line: CHECKPOINT_HOOK=${join(ROOT, 'hooks/pre-push')} . ${join(ROOT, 'hooks/pre-push-chain')}`]);
    expect(read(hooks, 'pre-push')).toBe(earlier);
    expect(readdirSync(hooks)).toEqual(['pre-push']);
    expect(existsSync(join(dir, '.git/hooks/pre-push'))).toBe(false);
    // The rest of init was done.
    expect(read(dir, '.gitattributes')).toContain('merge=checkpoint');
  });

  it('outside the work tree: a pre-push.chained an earlier init left there is not moved back by init; the line says how', () => {
    const dir = makeRepo();
    const { hooks, env } = globalHooks(dir);
    write(hooks, 'pre-push', current());
    write(hooks, 'pre-push.chained', '#!/bin/sh\necho team-hook\n');
    const r = cli(dir, ['init'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`! left ${hooks}/pre-push as it is (checkpoint's hook, outside this project, where checkpoint writes nothing); an earlier checkpoint init moved your hook aside to ${hooks}/pre-push.chained: put it back by hand (mv '${hooks}/pre-push.chained' '${hooks}/pre-push'), then put this line first in it, after its #! line if it has one: `);
    expect(read(hooks, 'pre-push')).toBe(current());
    expect(read(hooks, 'pre-push.chained')).toBe('#!/bin/sh\necho team-hook\n');
  });

  it("inside the project (husky's .husky/_): a hook checkpoint shipped is updated, the same hook edited is kept", () => {
    const dir = makeRepo();
    git(dir, ['config', 'core.hooksPath', '.husky/_']);
    const earlier = readFileSync(EARLIER_HOOK, 'utf8');
    write(dir, '.husky/_/pre-push', earlier);
    const up = cli(dir, ['init']);
    expect(up.code, up.stderr).toBe(0);
    expect(up.stdout).toContain(`✓ updated the pre-push hook in ${dir}/.husky/_/pre-push`);
    expect(read(dir, '.husky/_/pre-push')).toBe(current());
    const edited = `${earlier}npx lint-staged\n`;
    write(dir, '.husky/_/pre-push', edited);
    const kept = cli(dir, ['init']);
    expect(kept.code, kept.stderr).toBe(0);
    expect(kept.stdout).toContain("! left .husky/_/pre-push as it is (checkpoint's hook, edited since it was installed; never replaced)");
    expect(read(dir, '.husky/_/pre-push')).toBe(edited);
  });
});

describe('init repairs what an earlier init did to a hook manager', () => {
  it("husky's wrapper moved to pre-push.chained (the user's gate silently off) is put back, byte for byte, and the gate works again", () => {
    const dir = huskyProject('echo user-gate-ran >&2\nexit 1\n');
    const wrapper = read(dir, '.husky/_/pre-push');
    // What the earlier init left: its hook at .husky/_/pre-push, husky's wrapper beside it.
    const earlier = renderHook(readFileSync(join(ROOT, 'hooks/pre-push'), 'utf8'), process.execPath, join(ROOT, 'bin/checkpoint.js'));
    write(dir, '.husky/_/pre-push.chained', wrapper);
    write(dir, '.husky/_/pre-push', earlier);
    chmodSync(join(dir, '.husky/_/pre-push.chained'), 0o755);
    chmodSync(join(dir, '.husky/_/pre-push'), 0o755);
    const silenced = gitTry(dir, ['push', '-q', 'origin', 'main']);
    expect(silenced.status, 'the defect this repairs: the gate is off').toBe(0);
    git(dir, ['commit', '-q', '--allow-empty', '-m', 'more']);
    const init = cli(dir, ['init']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('✓ put .husky/_/pre-push.chained back as .husky/_/pre-push, which an earlier checkpoint init had moved aside (it ran, but under another name)\n');
    expect(init.stdout).toContain(`! to check pushes, put this line first in .husky/pre-push: ${LINE}\n`);
    expect(read(dir, '.husky/_/pre-push')).toBe(wrapper);
    expect(readdirSync(join(dir, '.husky/_')).sort()).toEqual(['h', 'pre-push']);
    const gated = gitTry(dir, ['push', '-q', 'origin', 'main']);
    expect(gated.status).not.toBe(0);
    expect(gated.stderr).toContain('user-gate-ran');
    expect(cli(dir, ['init']).stdout).toContain("! left .husky/_/pre-push as it is (not checkpoint's hook); to check pushes, put this line first in .husky/pre-push: ");
  });
});

describe('init in a project that ignores its checkpoints', () => {
  it(".checkpoints/ in .gitignore (the protocol's 1.0 layout): init names the rule, since no checkpoint would ever be committed; a rule that un-ignores them is not named", () => {
    const dir = makeRepo();
    write(dir, '.gitignore', 'node_modules/\n.checkpoints/\n');
    const r = cli(dir, ['init']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('! .gitignore:2 ignores checkpoint files (".checkpoints/"): git would never commit them, so other sessions and clones would not see them; remove that rule (checkpoints are tracked in git since protocol 1.1)\n');
    write(dir, '.gitignore', 'node_modules/\n.checkpoints/*\n!.checkpoints/*.checkpoint.json\n');
    expect(cli(dir, ['init']).stdout).not.toContain('ignores checkpoint files');
  });
});

describe('init decides before it writes', () => {
  /** Everything init could have written, to compare before and after a refusal. */
  const snapshot = (dir: string) => ({
    config: read(dir, '.git/config'),
    top: readdirSync(dir).sort(),
    hooks: existsSync(join(dir, '.git/hooks')) ? readdirSync(join(dir, '.git/hooks')).sort() : [],
    checkpoints: existsSync(join(dir, '.checkpoints')) ? readdirSync(join(dir, '.checkpoints')).sort() : null,
  });

  it('.git/hooks linked to a shared folder: nothing written into it, one line says what to add, the rest is done (exit 0)', () => {
    const dir = makeRepo();
    const shared = tempDir('cp-shared-hooks-');
    rmSync(join(dir, '.git/hooks'), { recursive: true, force: true });
    symlinkSync(shared, join(dir, '.git/hooks'));
    const r = cli(dir, ['init']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(`! no pre-push hook written: .git/hooks is a link to ${shared} (other repositories may share it); to check pushes, create .git/hooks/pre-push (#!/bin/sh, then this line; chmod +x) with: CHECKPOINT_HOOK=`);
    expect(r.stdout).not.toContain('git tracks');
    expect(readdirSync(shared)).toEqual([]);
    expect(read(dir, '.gitattributes')).toContain('merge=checkpoint');
    expect(existsSync(join(dir, '.checkpoints/README.md'))).toBe(true);
  });

  it('a refusal found late (.gitattributes a link out of the project) leaves everything as it was, exit 2', () => {
    const dir = makeRepo();
    const outside = join(tempDir('cp-outside-'), 'attrs');
    execFileSync('sh', ['-c', `printf '*.png binary\\n' > "${outside}"`]);
    symlinkSync(outside, join(dir, '.gitattributes'));
    const before = snapshot(dir);
    const r = cli(dir, ['init']);
    expect(r.code).toBe(2);
    expect(errorLine(r.stderr)).toMatchObject({ lines: 1, message: expect.stringContaining('.gitattributes is a symlink to') });
    expect(r.stdout).toBe('');
    expect(snapshot(dir)).toEqual(before);
    expect(readFileSync(outside, 'utf8')).toBe('*.png binary\n');
  });

  it('a write that fails part way (a stale .git/config.lock) says what was already done, never "nothing was changed"; init again finishes', () => {
    const dir = makeRepo();
    write(dir, '.git/config.lock', '');
    const r = cli(dir, ['init']);
    expect(r.code).toBe(2);
    const line = errorLine(r.stderr);
    expect(line.lines).toBe(1);
    expect(line.message).toContain('could not lock config file');
    expect(line.message).toContain('already done: created .checkpoints/');
    expect(line.hint).not.toContain('nothing was changed');
    expect(line.hint).toContain('run it again');
    rmSync(join(dir, '.git/config.lock'));
    const again = cli(dir, ['init']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('✓ set merge.checkpoint.driver');
    expect(again.stdout).toContain('✓ installed the pre-push hook');
  });

  it.each([
    ['.checkpoints/.gitignore', '.checkpoints/.gitignore is a FIFO'],
    ['.git/hooks/pre-push', '.git/hooks/pre-push is a FIFO'],
  ])('a FIFO at %s: refused before README, schema, config or .gitattributes are written', (fifo, message) => {
    const dir = makeRepo();
    mkdirSync(join(dir, fifo, '..'), { recursive: true });
    execFileSync('mkfifo', [join(dir, fifo)]);
    const before = snapshot(dir);
    const r = cliGuarded(dir, ['init']);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(2);
    expect(errorLine(r.stderr)).toMatchObject({ lines: 1, message: expect.stringContaining(message) });
    expect(snapshot(dir)).toEqual(before);
  });
});

describe('uninstall-driver beside the hook init installed (red team, 12-07)', () => {
  it('names the hook it leaves, with how to remove it; none once it is gone', () => {
    const dir = makeRepo();
    expect(cli(dir, ['init']).code).toBe(0);
    const hook = join(dir, '.git/hooks/pre-push');
    const before = read(dir, '.git/hooks/pre-push');
    const r = cli(dir, ['uninstall-driver']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`! the pre-push hook init installed stays (.git/hooks/pre-push: it checks every push); to stop that, delete it: rm '${hook}'\n`);
    expect(read(dir, '.git/hooks/pre-push')).toBe(before);
    rmSync(hook);
    expect(cli(dir, ['uninstall-driver']).stdout).not.toContain('pre-push');
  });
});
