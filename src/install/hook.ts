// Installs hooks/pre-push into this clone's own hooks folder, and only where no other tool's
// pre-push hook is. Like git-lfs, a foreign hook is never moved or overwritten: hook managers
// (husky, lefthook, pre-commit) regenerate their files and find the user's hook by the name they
// run under ($0), so a moved hook silently stops gating. Nor is a hook written into a folder
// core.hooksPath names or a linked hooks folder (committed, or shared by other repositories):
// init prints the one line to add to the user's hook instead; in such a folder outside the work
// tree (a global ~/.githooks) not even our own hook is updated. Our own hook (and the
// pre-push.legacy pre-commit's hook runs it as) is replaced only when it is byte for byte one
// checkpoint shipped (shipped-hooks.ts): one the user edited is kept, and init says how to chain
// our check from it. Idempotent.
import { chmodSync, existsSync, lstatSync, realpathSync, renameSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { assertGitRepo, gitOut } from './git-config.js';
import { shellQuote } from './driver.js';
import type { InstallPlan } from './plan.js';
import { shownPath } from '../one-line.js';
import { writeFileAtomic } from '../store/atomic.js';
import { readProjectText, writablePath } from '../store/safe-fs.js';
import { HOOK_MARKER, isShippedHook } from './shipped-hooks.js';
import { bakedBin, hookLauncher, preCommitLegacy } from './hook-launcher.js';
import { readGitFile } from '../git/git-file.js';
import { hookShape, sourcesHuskySh } from './hook-shape.js';
import { skippedByGit } from './hook-mode.js';
import { chainLine, createHook, createHookAdvice, fromRoot, LOCAL_TEMPLATE, shown } from './chain-line.js';
import { lefthookConfigs, lefthookEntry } from './lefthook-config.js';
import { lefthookState } from './lefthook-runs.js';
import { installRuns, isLinkedWorktree, keptSharedLine, sharedSettingNote } from './worktrees.js';

/** The clone's own hooks folder, the one git uses when core.hooksPath is unset. */
function ownHooksDir(root: string): string {
  return join(resolve(root, gitOut(root, ['rev-parse', '--git-common-dir'])!), 'hooks');
}

function hooksDir(root: string): string {
  // --path: git expands a leading ~ in core.hooksPath, as it does when it runs hooks.
  const configured = gitOut(root, ['config', '--path', '--get', 'core.hooksPath']);
  if (configured) return isAbsolute(configured) ? configured : resolve(root, configured);
  return ownHooksDir(root);
}

/**
 * The shipped template with this installation's node and launcher baked in. Function
 * replacers: a string replacement would expand `$&`, `$'` and `$$` found in install paths.
 */
export function renderHook(template: string, nodePath: string, binPath: string): string {
  return template
    .replace(/^CHECKPOINT_NODE=""$/m, () => `CHECKPOINT_NODE=${shellQuote(nodePath)}`)
    .replace(/^CHECKPOINT_BIN=""$/m, () => `CHECKPOINT_BIN=${shellQuote(binPath)}`);
}

/** The user's hook a sh hook runs, when theirs is in a language our line is not (python, node). */
const WRAPPED_HOOK = 'pre-push.user';

/**
 * Where in `dir` the advice moves the user's hook to: pre-push.user, else pre-push.user.2, .3…,
 * the first name nothing is at (a link, even a dangling one, counts), so the `mv` it prints never
 * replaces a file (an earlier pre-push.user is the user's too), nor moves the hook into a folder.
 */
function wrappedHookName(dir: string): string {
  const taken = (name: string) => isLink(join(dir, name)) || existsSync(join(dir, name));
  let n = 1;
  while (taken(n === 1 ? WRAPPED_HOOK : `${WRAPPED_HOOK}.${n}`)) n++;
  return n === 1 ? WRAPPED_HOOK : `${WRAPPED_HOOK}.${n}`;
}

/**
 * What to do with the user's hook `file` (`text` null: not read, a link say) so that it runs our
 * check: nothing when its first command is our line, else where to put the line. `runByGit`: git
 * runs this file itself, so its `#!` line picks the interpreter (husky runs its user's file with
 * sh). Never "already" for a hook our line stops: one in python, or in bash run as sh since the
 * line was put above its `#!` line.
 */
function lineAdvice(root: string, file: string, text: string | null, runByGit: boolean, templatePath: string): string {
  const line = chainLine(root, templatePath);
  const named = shown(root, file);
  if (text === null) return `to check pushes, put this line first in ${named} (after its #! line, if it has one): ${line}`;
  const hook = hookShape(text);
  if (runByGit && hook.foreign !== null) {
    const wrapped = wrappedHookName(dirname(file));
    const takeOut = hook.ours === null ? '' : `take checkpoint's line out of it (${hook.foreign} cannot run it, so every push fails), `;
    return `${named} is a ${hook.foreign} script, and checkpoint's line is sh: to check pushes, ${takeOut}rename it (mv ${shellQuote(file)} ${shellQuote(join(dirname(file), wrapped))}), then ${createHook(root, file, `${line}; exec "$(dirname "$0")/${wrapped}" "$@"`)}`;
  }
  if (runByGit && hook.demoted !== null) {
    return `checkpoint's line is above the #! line of ${named}, so git runs it with sh, not ${hook.demoted} (its ${hook.demoted} lines may fail every push): to check pushes, move this line to just after the #! line: ${line}`;
  }
  // Not executable: git skips the file, our line with it.
  const chmod = runByGit && skippedByGit(file) ? `chmod +x ${shellQuote(file)}` : null;
  if (hook.ours === 'first') {
    return chmod === null ? `${named} runs checkpoint's check already` : `${named} starts with checkpoint's line, but it is not executable, so git skips it and no push is checked; to check pushes, run: ${chmod}`;
  }
  const first = chmod === null ? '' : `run ${chmod} (it is not executable, so git skips it now) and `;
  if (sourcesHuskySh(text)) {
    const where = hook.ours === 'above-husky' ? ' (it is there, but above that line, which runs the hook again: the check runs twice on every push)' : hook.ours === 'later' ? ' (it is there, but not right after it: what runs before it may read the pushed refs it needs, or end the hook)' : '';
    return `to check pushes, ${first}put this line in ${named} right after its husky.sh line${where}: ${line}`;
  }
  const where = hook.ours === 'later' ? ' (it is there, but not first: what runs before it may read the pushed refs it needs, or end the hook)' : '';
  return `to check pushes, ${first}put this line first in ${named}${hook.shebang ? ', after its #! line' : ''}${where}: ${line}`;
}

/** A user's hook file as text, if it is a plain file we may read (outside the project, a link, a FIFO: null). */
function peek(root: string, file: string): string | null {
  try {
    return isLink(file) ? null : readProjectText(root, file, { maxBytes: 1024 * 1024 });
  } catch {
    return null;
  }
}

/** husky 9: core.hooksPath is .husky/_, whose wrappers run the user's .husky/<name>. */
function isHuskyWrapper(dir: string, hook: string): boolean {
  return basename(dir) === '_' && /\/h"|husky/.test(hook);
}

/** Whether `dir` (as its links lead, when it exists) is outside the work tree at `root`. */
function outsideWorkTree(root: string, dir: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  const rel = relative(real(root), real(dir));
  return rel.startsWith('..') || isAbsolute(rel);
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * A pre-push hook a hook framework generates (lefthook, pre-commit) is rewritten by its next
 * `lefthook install` / `pre-commit install`: a line put in it is lost, and the check with it. The
 * note says where the check goes instead (docs/doctor.md), or that it is there already.
 */
async function generatedHookNote(root: string, path: string, hook: string, templatePath: string): Promise<string | null> {
  const left = `left ${shown(root, path)} as it is`;
  // What lefthook writes into every hook it installs (a hook of the user's that mentions lefthook is theirs).
  if (/call_lefthook|"\$LEFTHOOK"|\blefthook run\b/.test(hook)) {
    const configs = lefthookConfigs(root);
    const hookPath = existsSync(join(root, LOCAL_TEMPLATE)) ? LOCAL_TEMPLATE : fromRoot(root, templatePath);
    // Only a pre-push command with use_stdin runs it: not one in a comment, under another hook, or given no refs.
    const states = await Promise.all(configs.map(async (f) => ({ f, state: await lefthookState(f, peek(root, f) ?? '', hookPath) })));
    const running = states.find((s) => s.state === 'runs');
    if (running !== undefined) return `${shown(root, running.f)} runs checkpoint's check already`;
    const wrong = states.find((s) => s.state !== null);
    const why = wrong === undefined ? '' : `${shown(root, wrong.f)} names checkpoint's hook, but lefthook does not run it on push (${wrong.state === 'no-stdin' ? 'its pre-push command lacks use_stdin: true, so it gets no pushed refs and checks nothing' : 'it is not under pre-push:'}); `;
    const run = `sh ${/^[\w./-]+$/.test(hookPath) ? hookPath : shellQuote(hookPath)} {1} {2}`;
    const config = configs[0] ?? join(root, 'lefthook.yml');
    return `${why}${left} (lefthook's: lefthook install rewrites it, and a line added there would be lost); to check pushes, add to ${shown(root, config)}: ${lefthookEntry(config, run, peek(root, config) ?? '')}`;
  }
  const legacy = preCommitLegacy(path, hook);
  if (legacy !== null) {
    if ((peek(root, legacy) ?? '').includes(HOOK_MARKER)) return `${shown(root, path)} (pre-commit's) runs checkpoint's hook, kept as ${shown(root, legacy)}, already`;
    return `${left} (pre-commit's: pre-commit install rewrites it, and a line added there would be lost); to check pushes, run: pre-commit uninstall -t pre-push && checkpoint init && pre-commit install -t pre-push (pre-commit keeps checkpoint's hook as pre-push.legacy and runs it first, with the pushed refs)`;
  }
  return null;
}

/**
 * pre-commit's hook in this clone's own hooks folder runs ours as pre-push.legacy: kept current
 * as our own hook is (replaced only when it is byte for byte one checkpoint shipped), or its
 * baked CLI, once gone, would let every push through while init said "already". Null: not
 * that case, or nothing to do (generatedHookNote says so).
 */
function legacyHookPlan(root: string, path: string, hook: string, content: string): InstallPlan | null {
  const legacy = preCommitLegacy(path, hook);
  if (legacy === null || isLink(legacy)) return null;
  const text = readProjectText(root, legacy, { maxBytes: 1024 * 1024 });
  if (text === null || text === content || !text.includes(HOOK_MARKER) || !isShippedHook(text)) return null;
  const kept = keptSharedHook(root, legacy, text);
  if (kept !== null) return kept;
  const shared = sharedSettingNote(root, `checkpoint's pre-push hook in ${legacy}`, bakedBin(content) ?? '');
  return {
    changes: [`updated checkpoint's pre-push hook in ${legacy}, which pre-commit's ${shown(root, path)} runs`],
    notes: shared === null ? [] : [shared],
    apply() {
      const target = writablePath(root, legacy, { atomic: true });
      writeFileAtomic(target, content);
      chmodSync(target, 0o755);
    },
  };
}

/**
 * In a linked worktree, our hook in the common git dir's hooks folder is every worktree's: while
 * the install it runs is there it is kept, not pointed at this worktree's, which goes with it.
 */
function keptSharedHook(root: string, path: string, hook: string): InstallPlan | null {
  const bin = bakedBin(hook);
  if (bin === null || !installRuns(bin, null) || !isLinkedWorktree(root)) return null;
  return { changes: [keptSharedLine(`the pre-push hook in ${path}`, bin)], notes: [], apply() {} };
}

/**
 * A hooks/pre-push link to a hook of ours (the package's own, as people link a package's hook):
 * it runs our check, through the launcher beside its target. Never the chain line added to it:
 * written through the link into our own hook, that line would make the hook run itself.
 */
function linkedHookNote(root: string, path: string, templatePath: string): string | null {
  let text: string | null | undefined;
  let target: string;
  try {
    text = readGitFile(path);
    target = realpathSync(path);
  } catch {
    return null;
  }
  if (!text?.includes(HOOK_MARKER)) return null;
  const runs = hookLauncher(path, text);
  if (runs !== null) return `${shown(root, path)} runs checkpoint's check already (a link to ${shownPath(target)}, run with ${shownPath(runs.bin)})`;
  return `left ${shown(root, path)} as it is (a link to checkpoint's hook at ${shownPath(target)}, which finds no checkpoint CLI, so pushes are not checked); to check pushes, remove the link (rm ${shellQuote(path)}) and run checkpoint init again, or link ${shownPath(fromRoot(root, templatePath))} instead`;
}

/**
 * Our hook as shipped, nothing baked in, in a folder core.hooksPath names (the package's own
 * hooks/, or a clone of checkpoint's repository with core.hooksPath=hooks): init never wrote it,
 * so it is the package's file or the project's, not init's to bake this machine's paths into.
 * Like a link to it, it runs our check through the launcher beside it.
 */
function shippedFileNote(root: string, path: string, text: string, templatePath: string): string {
  const runs = hookLauncher(path, text);
  if (runs !== null) return `${shown(root, path)} runs checkpoint's check already (checkpoint's hook as shipped, run with ${shownPath(runs.bin)})`;
  return `left ${shown(root, path)} as it is (checkpoint's hook as shipped, which finds no checkpoint CLI, so pushes are not checked); to check pushes, replace its text with #!/bin/sh, then this line: ${chainLine(root, templatePath)}`;
}

/**
 * For uninstall-driver, which takes back only the merge driver: the pre-push hook init installed
 * (checkpoint's own file, or the one pre-commit keeps as pre-push.legacy), named with how to
 * remove it, so pushes are not left checked (or, once the package is gone, warning on every push)
 * without a word. Null when there is none, or a link (never ours).
 */
export function installedHookNote(root: string): string | null {
  if (gitOut(root, ['rev-parse', '--git-common-dir']) === null) return null;
  const dir = hooksDir(root);
  for (const name of ['pre-push', 'pre-push.legacy']) {
    const path = join(dir, name);
    if (isLink(path) || !existsSync(path)) continue;
    let text: string | null = null;
    try {
      text = peek(root, path);
    } catch {
      // a hooks folder outside the project (core.hooksPath): not read, not named
    }
    if (!(text ?? '').includes(HOOK_MARKER)) continue;
    return `the pre-push hook init installed stays (${shown(root, path)}: it checks every push); to stop that, delete it: rm ${shellQuote(path)}`;
  }
  return null;
}

/** Decides what to do with the pre-push hook; refuses (throws) before anything is written. */
export async function planPrePushHook(root: string, template: string, nodePath: string, binPath: string, templatePath: string): Promise<InstallPlan> {
  assertGitRepo(root);
  const own = ownHooksDir(root);
  const dir = hooksDir(root);
  const path = join(dir, 'pre-push');
  const nothing = (note: string): InstallPlan => ({ changes: [], notes: [note], apply() {} });
  // What to do with the user's own hook file (`text` when known, else read here): nothing when it
  // runs our check already; the line to put in it; or, for none yet, a file to make. One outside
  // the project or reached by a link (a global ~/.githooks) is read too, never blocking on a FIFO:
  // only to word the advice.
  const addLine = (file: string, text = existsSync(file) ? (peek(root, file) ?? readGitFile(file) ?? null) : undefined) =>
    text === undefined ? createHookAdvice(root, file, templatePath) : lineAdvice(root, file, text, resolve(file) === resolve(path), templatePath);
  // core.hooksPath=/dev/null (or any file) is how hooks are turned off: there is no folder to name.
  if (dir !== own && existsSync(dir) && !statSync(dir).isDirectory()) {
    return nothing(`no pre-push hook written: core.hooksPath is ${shownPath(dir)}, not a folder, so git runs no hooks in this clone; to check pushes, point core.hooksPath at a folder (or unset it: git config --unset core.hooksPath) and run checkpoint init again`);
  }
  // A linked hooks folder may be shared with other repositories: never read or written through.
  // One linked to the package's own hooks/ runs our check already: never the line to add to it.
  if (isLink(dir)) {
    const ours = linkedHookNote(root, path, templatePath);
    if (ours !== null) return nothing(ours);
    let target = '(unreadable)';
    try {
      target = realpathSync(dir);
    } catch {
      // dangling: named as unreadable
    }
    return nothing(`no pre-push hook written: ${shown(root, dir)} is a link to ${shownPath(target)} (other repositories may share it); ${addLine(path)}`);
  }
  // We never write a link: one here is the user's (to a shared hook, say), left as it is.
  if (isLink(path)) return nothing(linkedHookNote(root, path, templatePath) ?? `left ${shown(root, path)} as it is (a link, not checkpoint's hook); ${addLine(path)}`);
  const content = renderHook(template, nodePath, binPath);
  // A FIFO, device or oversized file here is refused (exit 2) before anything is written.
  const current = readProjectText(root, path, { maxBytes: 1024 * 1024 });
  const userFile = (hook: string) => (isHuskyWrapper(dir, hook) ? join(dirname(dir), 'pre-push') : path);
  if (current !== null && !current.includes(HOOK_MARKER)) {
    const legacy = resolve(dir) === resolve(own) ? legacyHookPlan(root, path, current, content) : null;
    if (legacy !== null) return legacy;
    const generated = await generatedHookNote(root, path, current, templatePath);
    if (generated !== null) return nothing(generated);
    const chained = existsSync(join(dir, 'pre-push.chained')) ? ' (pre-push.chained beside it, kept by an earlier checkpoint init, no longer runs)' : '';
    return nothing(`left ${shown(root, path)} as it is (not checkpoint's hook)${chained}; ${addLine(userFile(current))}`);
  }
  // Ours, but not byte for byte a hook checkpoint shipped: the user edited it (a lint step, say).
  // Never replaced, nor put back over by pre-push.chained: their lines are theirs.
  if (current !== null && current !== content && !isShippedHook(current)) {
    return nothing(`left ${shown(root, path)} as it is (checkpoint's hook, edited since it was installed; never replaced); to keep your lines and run the current check, make it your own hook: #!/bin/sh, then this line, then your lines: ${chainLine(root, templatePath)}`);
  }
  if (current !== null && resolve(dir) !== resolve(own) && bakedBin(current) === null) return nothing(shippedFileNote(root, path, current, templatePath));
  // A core.hooksPath folder outside the work tree (a global ~/.githooks, another repository's) is
  // shared with whatever else uses it: checkpoint writes nothing there, not even an update of its
  // own hook; the one line says what to do by hand.
  const outside = resolve(dir) !== resolve(own) && outsideWorkTree(root, dir);
  const chainedPath = join(dir, 'pre-push.chained');
  const aside = current !== null && (isLink(chainedPath) || existsSync(chainedPath));
  if (outside && current !== null && (aside || current !== content)) {
    const what = aside
      ? `an earlier checkpoint init moved your hook aside to ${shown(root, chainedPath)}: put it back by hand (mv ${shellQuote(chainedPath)} ${shellQuote(path)}), then put this line first in it, after its #! line if it has one`
      : 'to update it by hand, replace its text with #!/bin/sh, then this line';
    const version = current === content ? '' : ' from an earlier version';
    return nothing(`left ${shown(root, path)} as it is (checkpoint's hook${version}, outside this project, where checkpoint writes nothing); ${what}: ${chainLine(root, templatePath)}`);
  }
  // An earlier init moved the hook here to pre-push.chained. A hook manager's file run under that
  // name ($0) looks for the wrong work and passes; in a core.hooksPath folder we write no hook any
  // more. Either way it goes back (replacing only our hook) and the line to add is printed.
  const chained = current !== null && !isLink(chainedPath) ? readProjectText(root, chainedPath, { maxBytes: 1024 * 1024 }) : null;
  if (chained !== null && (resolve(dir) !== resolve(own) || /\$(?:0|\{0\})/.test(chained))) {
    return {
      changes: [`put ${shown(root, chainedPath)} back as ${shown(root, path)}, which an earlier checkpoint init had moved aside (it ran, but under another name)`],
      notes: [userFile(chained) === path ? addLine(path, chained) : addLine(userFile(chained))],
      apply: () => renameSync(chainedPath, path),
    };
  }
  if (current === null && resolve(dir) !== resolve(own)) {
    return nothing(`no pre-push hook written: core.hooksPath points at ${shown(root, dir)}, not this clone's own hooks folder; ${addLine(path)}`);
  }
  // Ours as shipped (an earlier install's too, pre-push.chained beside it still run): kept current.
  if (current === content) {
    if (!skippedByGit(path)) return { changes: [], notes: [], apply() {} };
    return { changes: [`made the pre-push hook in ${path} executable again (git skipped it, so pushes were not checked)`], notes: [], apply: () => chmodSync(path, 0o755) };
  }
  const kept = current !== null && resolve(dir) === resolve(own) ? keptSharedHook(root, path, current) : null;
  if (kept !== null) return kept;
  const shared = resolve(dir) === resolve(own) ? sharedSettingNote(root, `the pre-push hook in ${path}`, binPath) : null;
  return {
    changes: [`${current === null ? 'installed' : 'updated'} the pre-push hook in ${path}`],
    notes: shared === null ? [] : [shared],
    apply() {
      const target = writablePath(root, path, { atomic: true });
      writeFileAtomic(target, content);
      chmodSync(target, 0o755);
    },
  };
}
