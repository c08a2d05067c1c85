// Repository health: is the merge driver wired up where .gitattributes asks for it, and does it
// run (merge-attribute.ts)? Is the pre-push hook ours as this install ships it?
import { existsSync, lstatSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { configEntries, configValue } from '../git/config-file.js';
import { readGitFile } from '../git/git-file.js';
import { resolveGitDirsSync } from '../git/locate.js';
import { currentConfigPlaces } from '../git/config-places.js';
import { HOOK_TEMPLATE_PATH } from '../install/package-paths.js';
import { HOOK_MARKER, isCurrentHook, isShippedHook } from '../install/shipped-hooks.js';
import { bakedBin, hookLauncher, preCommitLegacy } from '../install/hook-launcher.js';
import { createHookAdvice, shown as shownInRoot } from '../install/chain-line.js';
import { skippedByGit } from '../install/hook-mode.js';
import { hookShape } from '../install/hook-shape.js';
import { overriddenMessage, overridingMergeLines, readAttributesFile } from '../install/merge-attribute.js';
import { readDriverSetting } from '../git/driver-config.js';
import { isOurDriverCommand } from '../install/driver-command.js';
import { shown, shownPath } from '../one-line.js';
import { shellQuote } from '../shell-words.js';
import type { Finding } from './types.js';
import { ATTRIBUTES_LINE } from '../protocol/file-names.js';
import { CHECKPOINTS_DIR } from '../store/root.js';
import { isCheckpointError } from '../errors.js';
import { listProjectDir } from '../store/safe-fs.js';
import { outsideCheckoutText } from '../git/outside-checkout-text.js';


/**
 * Whether .gitattributes routes checkpoints to merge=checkpoint (a history/ line alone or a
 * commented-out line does not: install-driver would add the checkpoints line), or why it cannot be read (then install-driver
 * refuses it too).
 */
export function attributesDeclareDriver(root: string): { declared: boolean; refused: string | null; outside?: true } {
  let text: string | null;
  let outside = false;
  try {
    text = readAttributesFile(root, '.gitattributes');
    // Kept out of a sparse checkout: git reads it from the index, and so does this check.
    if (text === null) {
      const staged = outsideCheckoutText(root, '.gitattributes');
      if (staged.outside) [text, outside] = [staged.text, true];
    }
  } catch (e) {
    if (isCheckpointError(e)) return { declared: false, refused: e.hint ? `${e.message}; ${e.hint}` : e.message }; // a link out, a FIFO, a folder: declares nothing we read
    throw e;
  }
  return { declared: text !== null && text.split(/\r?\n/).map((l) => l.trim()).some((l) => !l.startsWith('#') && routesCheckpoints(l)), refused: null, ...(outside ? { outside: true as const } : {}) };
}

/**
 * Whether an attributes line routes checkpoints to the driver, as
 * /^\S*\.checkpoints\/(?!history\/)\S*\s.*\bmerge=checkpoint\b/ reads it: its pattern holds a
 * ".checkpoints/" not before "history/", and "merge=checkpoint" follows on the line. By hand: the
 * regex retried from each ".checkpoints/" of a hostile pattern, each to the end of the line.
 */
function routesCheckpoints(line: string): boolean {
  const blank = line.search(/\s/);
  if (blank < 0) return false;
  const pattern = line.slice(0, blank);
  let at = pattern.indexOf('.checkpoints/');
  while (at >= 0 && pattern.startsWith('history/', at + '.checkpoints/'.length)) at = pattern.indexOf('.checkpoints/', at + 1);
  if (at < 0) return false;
  const rest = line.slice(blank + 1);
  const end = rest.search(/[\n\r\u2028\u2029]/);
  return /\bmerge=checkpoint\b/.test(end < 0 ? rest : rest.slice(0, end));
}

/** Temp files left by writes that were killed mid-way: harmless (never read), but clutter. */
export function checkLeftovers(root: string): Finding[] {
  // In .checkpoints/ and history/; a rotation's journal (.<skill>.rotation.tmp) is read by the next
  // rotate or done, which finish the rotation a kill interrupted: not a leftover to delete.
  const leftIn = (rel: string) => {
    try {
      return listProjectDir(root, join(root, rel)).filter((f) => f.startsWith('.') && /\.(tmp|stale)$/.test(f) && !f.endsWith('.rotation.tmp')).map((f) => `${rel}/${f}`);
    } catch {
      return [];
    }
  };
  const left = [...leftIn('.checkpoints'), ...leftIn('.checkpoints/history')];
  if (!left.length) return [];
  return [{ level: 'info', check: 'leftovers', skill: null, path: '', message: `${left.length} temp file${left.length === 1 ? '' : 's'} left by interrupted writes (e.g. ${shown(left[0]!)}); never read, safe to delete` }];
}

const isLink = (p: string) => {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
};

const realTarget = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/**
 * This clone's own pre-push hook when it is one checkpoint shipped before the current template:
 * `init` replaces it. Earlier ones, their CLI gone, ran a node_modules/.bin/checkpoint-protocol
 * the repository being pushed holds. A current one that finds no CLI (its baked launcher gone,
 * or the template copied or linked in by hand) skips every push: said so. A hook the user edited
 * is theirs and not named.
 */
export function checkHookCurrent(root: string): Finding[] {
  let hook: string | null | undefined;
  let path: string;
  let template: string;
  let legacy: string | null = null;
  try {
    path = join(hooksDirOf(root), 'pre-push');
    hook = readGitFile(path);
    // pre-commit's hook runs ours, kept as pre-push.legacy (as init advises): that one is judged.
    legacy = hook ? preCommitLegacy(path, hook) : null;
    if (legacy !== null) [path, hook] = [legacy, readGitFile(legacy)];
    // No hook at all where the driver was set up (an npm prepare script's install-driver): this
    // clone looks set up, yet nothing checks its pushes. A note: CI clones have no hook either.
    if (hook === null && legacy === null && ourDriverSet(root)) return [{ level: 'info', check: 'hook', skill: null, path: '', message: `this clone has the merge driver but no pre-push hook, so pushes are not checked; ${noHookAdvice(root, dirname(path))}` }];
    if (!hook?.includes(HOOK_MARKER)) return hook ? skippedHook(root, path, hook) : [];
    template = readFileSync(HOOK_TEMPLATE_PATH, 'utf8');
  } catch {
    return [];
  }
  const base = { level: 'warning', check: 'hook', skill: null, path: '' } as const;
  const current = isCurrentHook(hook, template);
  if (!current && !isShippedHook(hook)) return skippedHook(root, path, hook); // edited by the user: theirs
  const kept = legacy === null ? '' : ` (kept as ${shownPath(legacy)}, which pre-commit's hook runs)`;
  if (!current) return [{ ...base, message: `this clone's pre-push hook${kept} is an older checkpoint hook: once the CLI it names is gone it runs a node_modules/.bin/checkpoint-protocol the repository holds; run \`checkpoint init\` to update it` }];
  if (hookLauncher(path, hook) !== null) return skippedHook(root, path, hook);
  // The install it was made from is gone (npx cache cleared, package removed): it skips every push.
  const bin = bakedBin(hook);
  if (bin !== null) return [{ ...base, message: `the pre-push hook${kept} runs ${shownPath(bin)}, which is gone, so pushes are not checked; run \`checkpoint init\` from the install you use` }];
  // The template copied or linked in by hand: no launcher baked in, none beside it, none on PATH.
  const how = isLink(path) ? `a link to checkpoint's template (${shownPath(realTarget(path))})` : "checkpoint's template copied in";
  const fix = isLink(path) ? `remove the link (rm ${shownPath(path)}) and run \`checkpoint init\`` : 'run `checkpoint init` to replace it with one that names this install';
  return [{ ...base, message: `the pre-push hook${kept} is ${how} without \`checkpoint init\`: it finds no checkpoint CLI (none baked in, none beside it, no checkpoint-protocol on PATH), so pushes are not checked; ${fix}` }];
}

/**
 * A hook that runs our check (ours, or the user's with our line) but is not executable: git skips
 * it, so no push is checked, whatever it holds. The other findings above end with `checkpoint
 * init`, which writes our hook executable: this one is for a hook that is otherwise fine.
 */
function skippedHook(root: string, path: string, hook: string): Finding[] {
  if (!(hook.includes(HOOK_MARKER) || hookShape(hook).ours !== null) || !skippedByGit(path)) return [];
  return [{ level: 'warning', check: 'hook', skill: null, path: '', message: `the pre-push hook ${shownInRoot(root, path)} is not executable, so git skips it and pushes are not checked; run: chmod +x ${shellQuote(path)}` }];
}

/**
 * What ends "no pre-push hook": `checkpoint init`, unless git runs hooks from a folder init writes
 * none into (one core.hooksPath names, or a linked .git/hooks that other repositories may share):
 * then the file to create, as init says.
 */
function noHookAdvice(root: string, dir: string): string {
  const own = join(resolveGitDirsSync(root).commonDir, 'hooks');
  const why = resolve(dir) !== resolve(own) ? `core.hooksPath points at ${shownInRoot(root, dir)}` : isLink(own) ? `${shownInRoot(root, own)} is a link (other repositories may share it)` : null;
  if (why === null) return '`checkpoint init` installs one';
  return `${why}, where \`checkpoint init\` writes none; ${createHookAdvice(root, join(dir, 'pre-push'), HOOK_TEMPLATE_PATH)}`;
}

/** Whether this clone's own config sets our merge driver (as install-driver writes it). */
function ourDriverSet(root: string): boolean {
  const driver = configValue(readGitFile(join(resolveGitDirsSync(root).commonDir, 'config')) ?? '', 'merge', 'checkpoint', 'driver');
  return driver !== null && isOurDriverCommand(driver);
}

/** core.hooksPath as the config file at `file` sets it, or null. */
function hooksPathIn(file: string): string | null {
  // git reads only absolute paths here; a relative one would name a file in the work tree.
  if (!isAbsolute(file) || file === '/dev/null') return null;
  const text = readGitFile(file);
  return (text ? configEntries(text).filter((e) => e.section === 'core' && e.key === 'hookspath' && e.value).at(-1)?.value : null) ?? null;
}

/**
 * The hooks folder git runs: core.hooksPath (this clone's config, else the user's, as a global
 * ~/.githooks is set, else the machine's), else the git dir's hooks/.
 */
function hooksDirOf(root: string): string {
  const { commonDir } = resolveGitDirsSync(root);
  // Last one set wins in git: so the file git reads last is asked first.
  const places = currentConfigPlaces();
  const files = [join(commonDir, 'config'), ...[...places.global].reverse(), ...[...places.system].reverse()];
  let set: string | null = null;
  for (const file of files) {
    set = hooksPathIn(file);
    if (set !== null) break;
  }
  if (!set) return join(commonDir, 'hooks');
  const home = process.env.HOME ?? '';
  const path = set.startsWith('~/') && home ? join(home, set.slice(2)) : set;
  return isAbsolute(path) ? path : join(root, path);
}

export async function checkRepoHealth(root: string, inGitRepo: boolean): Promise<Finding[]> {
  if (!inGitRepo) return [];
  const { declared, refused, outside } = attributesDeclareDriver(root);
  // This clone's, else the user's global or the machine's system config: the one git runs.
  const setting = await readDriverSetting(root);
  const driver = setting?.value ?? null;
  const local = setting?.scope === 'local';
  const whose = local ? "this clone's own" : `set in your ${setting?.scope} git config (${shown(setting?.file ?? '')})`;
  const base = { check: 'merge_driver', skill: null, path: '' } as const;
  if (refused) {
    return [{ ...base, level: driver ? 'warning' : 'info', message: `checkpoint cannot read .gitattributes, and install-driver refuses it too: ${refused}; then run \`checkpoint install-driver\`` }];
  }
  if (declared && !driver) {
    return [{ ...base, level: 'warning', message: '.gitattributes routes checkpoints to merge=checkpoint but this clone has no merge.checkpoint.driver; run `checkpoint install-driver`' }];
  }
  // A driver the user set is one install-driver keeps: advice that only re-runs it would loop, so
  // each message below names it as theirs and says what install-driver does about it, if anything.
  const theirs = driver !== null && !isOurDriverCommand(driver);
  const switchToOurs = local
    ? 'to use checkpoint\'s instead: git config --unset-all merge.checkpoint.driver, then `checkpoint install-driver`'
    : "to use checkpoint's in this clone instead: `checkpoint install-driver --local` (this clone's own then takes precedence)";
  if (!declared && driver) {
    // install-driver writes nothing into a sparse checkout's missing .gitattributes: bring it in first.
    const lacks = `.gitattributes lacks "${ATTRIBUTES_LINE}"${outside ? ' (it is outside this sparse checkout: git sparse-checkout add /.gitattributes first)' : ''}`;
    // A branch with no checkpoints (gh-pages, an old release) has nothing to route: a note, not a
    // warning on every push from it, and no advice to commit a .gitattributes line there.
    if (!lstatSync(join(root, CHECKPOINTS_DIR), { throwIfNoEntry: false })) {
      return [{ ...base, level: 'info', message: `merge.checkpoint.driver is set, but this branch has no ${CHECKPOINTS_DIR}/ folder, so nothing is routed to it here` }];
    }
    return [{ ...base, level: 'warning', message: theirs
      ? `merge.checkpoint.driver is ${whose} (${shown(driver)}), not checkpoint's, and never runs for checkpoints: ${lacks}; run \`checkpoint install-driver\` to add it (it keeps that driver), or, ${switchToOurs}`
      : `merge.checkpoint.driver is configured but ${lacks}; run \`checkpoint install-driver\`` }];
  }
  if (!declared) return [{ ...base, level: 'info', message: 'the checkpoint merge driver is not installed (`checkpoint install-driver`)' }];
  const overriding = overridingMergeLines(root);
  if (overriding.length) return overriding.map((o) => ({ ...base, level: 'warning' as const, message: overriddenMessage(o) }));
  // install-driver writes absolute, single-quoted paths; a moved or removed install breaks every merge.
  const missing = [...driver!.matchAll(/'((?:[^']|'\\'')+)'/g)].map((m) => m[1]!.replace(/'\\''/g, "'")).filter((p) => p.startsWith('/') && !existsSync(p));
  if (missing.length) {
    return [{ ...base, level: 'warning', message: theirs
      ? `merge.checkpoint.driver is ${whose} (${shown(driver!)}), not checkpoint's, and points at ${missing[0]}, which no longer exists; fix that driver, or, ${switchToOurs}`
      : local
      ? `merge.checkpoint.driver points at ${missing[0]}, which no longer exists; run \`checkpoint install-driver\``
      : `merge.checkpoint.driver, ${whose}, points at ${missing[0]}, which no longer exists; fix it there (git config --${setting!.scope} --unset-all merge.checkpoint.driver, then \`checkpoint install-driver\`), or give this clone its own: \`checkpoint install-driver --local\`` }];
  }
  return [];
}
