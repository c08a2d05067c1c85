// Registers the semantic merge driver in a repository: the .gitattributes lines and the
// merge.checkpoint.* config. Idempotent; never overwrites a value it did not write (a driver the
// user set, such as the protocol's reference driver, is kept and named), nor shadows one set in
// the global or system config with a local copy unless asked (--local); uninstall removes exactly
// what install adds: our values only, the section only once empty, the marked .gitattributes lines.
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { addAttributeLines, removeAttributeLines } from './attributes.js';
import { DRIVER_NAME, driverCommand, driverInstall, isOurDriverCommand, shellQuote } from './driver-command.js';
import { installRuns, isLinkedWorktree, keptSharedLine, sharedSettingNote } from './worktrees.js';
import { assertGitRepo, gitOut, gitRun } from './git-config.js';
import { gitOutputSync, runGitSync } from '../git/git-process.js';
import { CheckpointError, isCheckpointError } from '../errors.js';
import { isNpxCachePath } from './package-paths.js';
import { applyPlans, type InstallPlan, type InstallResult } from './plan.js';
import { quoted, shown } from '../one-line.js';
import { writeFileAtomic } from '../store/atomic.js';
import { writablePath } from '../store/safe-fs.js';
import { readAttributesFile } from './merge-attribute.js';
import { outsideCheckoutText } from '../git/outside-checkout-text.js';

export { DRIVER_NAME, driverCommand, shellQuote } from './driver-command.js';

/** Our value for each key, and whether a value found there is one install writes. */
const KEYS: { key: string; ours: (v: string) => boolean }[] = [
  { key: 'merge.checkpoint.name', ours: (v) => v === DRIVER_NAME },
  { key: 'merge.checkpoint.driver', ours: isOurDriverCommand },
];

/**
 * What earlier versions also set: `recursive = binary` made git take the oldest common ancestor,
 * not a merge of the merge bases, as a criss-cross merge's base, so a record one branch had
 * removed came back. The driver merges the bases itself now (merge/virtual-base.ts): install
 * removes our old value, and uninstall still does.
 */
const RETIRED = { key: 'merge.checkpoint.recursive', ours: (v: string) => v === 'binary' };

type Scope = 'local' | 'global' | 'system';
/** The merge.checkpoint.* values of each config file, by scope then key, each key's values in order. */
type DriverConfig = Map<string, Map<string, string[]>>;

/**
 * Every merge.checkpoint.* value in the system, global and local config, in one git process (it
 * was one per key and scope). Without includes, as `git config --local --get-all` read each file:
 * what this clone's own .git/config says, not what a file it includes says.
 */
function readDriverConfig(root: string): DriverConfig {
  const config: DriverConfig = new Map();
  const out = gitOutputSync(root, ['config', '--no-includes', '--show-scope', '-z', '--get-regexp', '^merge\\.checkpoint\\.']) ?? '';
  // -z: "<scope>\0<key>\n<value>\0" per value ("<key>\0" for a key with no value).
  const fields = out.split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const entry = fields[i + 1]!;
    const nl = entry.indexOf('\n');
    const [key, value] = nl < 0 ? [entry, ''] : [entry.slice(0, nl), entry.slice(nl + 1)];
    const keys = config.get(fields[i]!) ?? new Map<string, string[]>();
    config.set(fields[i]!, keys.set(key, [...(keys.get(key) ?? []), value]));
  }
  return config;
}

/** Every value of `key` in one scope's config (a key may be set more than once), one per line, or null. */
function configValue(config: DriverConfig, key: string, scope: Scope = 'local'): string | null {
  const values = config.get(scope)?.get(key);
  return values ? values.join('\n').trim() : null;
}

/** Set when the driver is someone else's: then the whole section is theirs and left alone (the
 * .gitattributes lines are still added: they route checkpoints to the driver named `checkpoint`,
 * which is then theirs; without them it never runs). */
function foreignDriver(config: DriverConfig): string | null {
  const driver = configValue(config, 'merge.checkpoint.driver');
  return driver !== null && !isOurDriverCommand(driver) ? driver : null;
}

/**
 * A `merge.checkpoint.driver` set outside this clone, in the user's global or the machine's system
 * config (global wins, as in git), when this clone sets none: it already runs for checkpoints, and
 * a local one would shadow it. Null when there is none, or this clone has its own.
 */
function outerDriver(config: DriverConfig): { value: string; scope: 'global' | 'system' } | null {
  if (configValue(config, 'merge.checkpoint.driver') !== null) return null;
  for (const scope of ['global', 'system'] as const) {
    const all = configValue(config, 'merge.checkpoint.driver', scope);
    if (all !== null) return { value: all.split('\n').at(-1)!, scope };
  }
  return null;
}

const keepNote = (key: string, value: string, fix: string) =>
  `kept ${key} as this clone set it (${shown(value)}), not checkpoint's; ${fix}`;

/** The merge attribute .gitattributes gives a checkpoint file now (as written there), when it is not ours; else null. */
function projectMergeAttribute(root: string): string | null {
  const out = gitOut(root, ['check-attr', 'merge', '--', '.checkpoints/x.checkpoint.json']);
  const value = out === null ? null : /: merge: (.*)$/.exec(out)?.[1] ?? null;
  if (value === null || value === 'unspecified' || value === 'checkpoint') return null;
  // As it is written in .gitattributes.
  return value === 'unset' ? '-merge' : value === 'set' ? 'merge' : `merge=${value}`;
}

/** Decides what install will change; reads (and refuses) everything before anything is written. */
export interface DriverOptions {
  /** Register this clone's own driver even when the global or system config has one (which it then shadows). */
  local?: boolean;
}

export function planDriver(root: string, nodePath: string, binPath: string, opts: DriverOptions = {}): InstallPlan {
  assertGitRepo(root);
  const changes: string[] = [];
  const notes: string[] = [];
  const sets: [string, string][] = [];
  const wanted: Record<string, string> = {
    'merge.checkpoint.name': DRIVER_NAME,
    'merge.checkpoint.driver': driverCommand(nodePath, binPath),
  };
  const unsets: string[] = [];
  const config = readDriverConfig(root);
  const theirs = foreignDriver(config);
  const outer = opts.local ? null : outerDriver(config);
  if (outer !== null) {
    const kind = isOurDriverCommand(outer.value) ? "checkpoint's" : 'not checkpoint\'s';
    notes.push(`found merge.checkpoint.driver in your ${outer.scope} git config (${shown(outer.value)}, ${kind}): git uses it here, so none was added to this clone's config (it would shadow it); to give this clone its own: checkpoint install-driver --local`);
  } else if (theirs !== null) {
    notes.push(keepNote('merge.checkpoint.driver', theirs, 'to use checkpoint\'s driver instead: git config --unset-all merge.checkpoint.driver, then checkpoint install-driver'));
  } else {
    // In a linked worktree, a driver of ours that still runs is the repository's (git config is
    // shared by every worktree): kept, never pointed at this worktree's install, gone with it.
    const current = configValue(config, 'merge.checkpoint.driver');
    const running = current === null || current === wanted['merge.checkpoint.driver'] ? null : driverInstall(current);
    if (running !== null && installRuns(running.bin, running.node) && isLinkedWorktree(root)) {
      wanted['merge.checkpoint.driver'] = current!;
      changes.push(keptSharedLine('merge.checkpoint.driver', running.bin));
    }
    for (const { key, ours } of KEYS) {
      const current = configValue(config, key);
      if (current === wanted[key]) continue;
      if (current !== null && !ours(current)) {
        notes.push(keepNote(key, current, `to use checkpoint's: git config --unset-all ${key}, then checkpoint install-driver`));
        continue;
      }
      sets.push([key, wanted[key]!]);
      // A driver in npx's cache breaks silently when npm clears it: say so while it is fixable.
      const transient = key === 'merge.checkpoint.driver' && isNpxCachePath(binPath);
      changes.push(transient ? `set ${key} to a copy in npx's cache, which npm may clear (add checkpoint-protocol as a dev dependency and run init again)` : `set ${key}`);
      const shared = key === 'merge.checkpoint.driver' ? sharedSettingNote(root, key, binPath) : null;
      if (shared !== null) notes.push(shared);
    }
    const retired = configValue(config, RETIRED.key);
    if (retired !== null && RETIRED.ours(retired)) {
      unsets.push(RETIRED.key);
      changes.push(`removed ${RETIRED.key}=binary, which an earlier version set (it brought back, in a criss-cross merge, what one branch had removed)`);
    } else if (retired !== null) {
      notes.push(keepNote(RETIRED.key, retired, `git merges a criss-cross merge's bases with it instead of checkpoint's driver; to let the driver: git config --unset-all ${RETIRED.key}`));
    }
  }
  const path = join(root, '.gitattributes');
  // A committed .gitattributes may be a link (git follows none) or a FIFO: never followed or read.
  const text = readAttributesFile(root, '.gitattributes');
  // Kept out of a sparse checkout, it is still the project's file, and git applies it from the
  // index: a file written here would hold only our lines and drop every rule the project committed.
  const staged = text === null ? outsideCheckoutText(root, '.gitattributes') : { outside: false as const };
  const attributes = staged.outside ? { text: '', added: 0 } : addAttributeLines(text);
  if (staged.outside && (staged.text === null || addAttributeLines(staged.text).added)) {
    notes.push(`.gitattributes is outside this sparse checkout and ${staged.text === null ? 'could not be read from the index' : 'does not route checkpoints to the driver'}; nothing was written there. Bring it in (git sparse-checkout add /.gitattributes), then run install-driver again`);
  }
  if (attributes.added) {
    const lines = attributes.added === 1 ? 'a line' : `${attributes.added} lines`;
    const routed = outer !== null ? ` (routing checkpoints to the merge.checkpoint.driver in your ${outer.scope} git config)` : theirs !== null ? " (routing checkpoints to this clone's own merge.checkpoint.driver)" : '';
    changes.push(`added ${lines} to .gitattributes${routed}`);
    // Later lines win in .gitattributes: a merge attribute the project set for checkpoints (a
    // merge=union, a -merge) is overridden by ours, which is said, never done silently.
    const before = text === null ? null : projectMergeAttribute(root);
    if (before !== null) notes.push(`.gitattributes already gave checkpoint files ${shown(before)}; the lines added after it take precedence (uninstall-driver gives the file back as it was)`);
  }
  return {
    changes,
    notes,
    apply() {
      // All or nothing: a write git or the system turns down half way (a second value of a key git
      // will not overwrite, a .gitattributes it cannot write) takes back the settings made before it.
      const undo: { key: string; args: string[] }[] = [];
      const before = (key: string) => config.get('local')?.get(key);
      try {
        for (const [key, value] of sets) {
          gitRun(root, ['config', '--local', key, value]);
          undo.push({ key, args: restoreArgs(key, before(key)) });
        }
        for (const key of unsets) {
          gitRun(root, ['config', '--local', '--unset-all', key]);
          undo.push({ key, args: restoreArgs(key, before(key)) });
        }
        if (attributes.added) writeFileAtomic(writablePath(root, path, { atomic: true }), attributes.text);
      } catch (e) {
        throw undone(root, e, undo.reverse(), !config.get('local')?.size);
      }
    },
  };
}

/** The git config arguments that put `key` back as this clone had it: its one value, or none. */
function restoreArgs(key: string, values: string[] | undefined): string[] {
  return values?.length === 1 ? ['config', '--local', key, values[0]!] : ['config', '--local', '--unset-all', key];
}

/**
 * The error of a failed install step once the settings made before it are taken back (`undo`,
 * newest first; `newSection`: merge.checkpoint was not in this clone's config before): saying
 * nothing was changed, or naming each setting left and the command that takes it back.
 */
function undone(root: string, e: unknown, undo: { key: string; args: string[] }[], newSection: boolean): CheckpointError {
  const left = undo.filter(({ args }) => runGitSync(root, args).code !== 0);
  // Some git versions keep an emptied section's header (as uninstall finds): dropped when it is install's.
  if (newSection && !left.length && gitOut(root, ['config', '--local', '--get-regexp', '^merge\\.checkpoint\\.']) === null) {
    gitOut(root, ['config', '--local', '--remove-section', 'merge.checkpoint']);
  }
  const message = e instanceof Error ? e.message : String(e);
  const [code, hint] = isCheckpointError(e) ? [e.code, e.hint] : ['E_PATH' as const, undefined];
  if (!undo.length) return isCheckpointError(e) ? e : new CheckpointError(code, message, { cause: e });
  const keys = (some: typeof undo) => some.map(({ key }) => key).join(', ');
  if (!left.length) return new CheckpointError(code, `${message}; none of the merge driver's install was kept (${keys(undo)} put back as it was)`, { hint, cause: e });
  const fix = left.map(({ args }) => `git ${args.map(shellQuote).join(' ')}`).join(' && ');
  return new CheckpointError(code, `${message}; left half installed: ${keys(left)} set in this clone's git config, which git would not put back (to take it back: ${fix})`, { hint, cause: e });
}

export function installDriver(root: string, nodePath: string, binPath: string, opts: DriverOptions = {}): InstallResult {
  return applyPlans([planDriver(root, nodePath, binPath, opts)]);
}

/** Decides what uninstall removes: only values install writes, and the lines it marked. */
export function planUninstallDriver(root: string): InstallPlan {
  assertGitRepo(root);
  const changes: string[] = [];
  const notes: string[] = [];
  const config = readDriverConfig(root);
  const theirs = foreignDriver(config);
  const unset = theirs !== null ? [] : [...KEYS, RETIRED].filter(({ key, ours }) => {
    const v = configValue(config, key);
    return v !== null && ours(v);
  }).map(({ key }) => key);
  if (theirs !== null) notes.push(`left merge.checkpoint as this clone set it: its driver (${shown(theirs)}) is not checkpoint's`);
  if (unset.length) changes.push(`removed ${unset.join(', ')} from git config`);
  const path = join(root, '.gitattributes');
  const text = readAttributesFile(root, '.gitattributes');
  const attributes = text === null ? null : removeAttributeLines(text);
  if (attributes?.removed) changes.push('removed the lines install-driver added to .gitattributes');
  if (attributes?.edited.length) {
    const n = attributes.edited.length;
    notes.push(`left ${n === 1 ? 'a line' : `${n} lines`} in .gitattributes that install-driver added and the project since edited (${quoted(attributes.edited[0]!)}${n > 1 ? ', …' : ''}); remove by hand if the project no longer uses the driver`);
  }
  if (attributes?.unmarked) {
    notes.push(`left ${attributes.unmarked === 1 ? 'a checkpoint line' : `${attributes.unmarked} checkpoint lines`} in .gitattributes that install-driver did not add (not under its marker); remove by hand if the project no longer uses the driver`);
  }
  return {
    changes,
    notes,
    apply() {
      for (const key of unset) gitRun(root, ['config', '--local', '--unset-all', key]);
      // Some git versions keep an emptied section's header: drop it when nothing of the user's is
      // left in it (gitOut, not gitRun: where git already dropped it, "no such section" is fine).
      if (unset.length && gitOut(root, ['config', '--local', '--get-regexp', '^merge\\.checkpoint\\.']) === null) {
        gitOut(root, ['config', '--local', '--remove-section', 'merge.checkpoint']);
      }
      if (attributes?.removed) {
        if (attributes.text === null) unlinkSync(path);
        else writeFileAtomic(writablePath(root, path, { atomic: true }), attributes.text);
      }
    },
  };
}

export function uninstallDriver(root: string): InstallResult {
  return applyPlans([planUninstallDriver(root)]);
}
