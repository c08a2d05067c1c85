// Repository health: is the merge driver wired up where .gitattributes asks for it, and does it
// run (no later line decides checkpoint merges)? Is the pre-push hook ours as this install ships it?
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { configEntries } from '../git/config-file.js';
import { readGitFile } from '../git/git-file.js';
import { resolveGitDirsSync } from '../git/locate.js';
import { HOOK_TEMPLATE_PATH } from '../install/package-paths.js';
import { HOOK_MARKER, isCurrentHook, isShippedHook } from '../install/shipped-hooks.js';
import { readDriverSetting } from '../git/driver-config.js';
import { isOurDriverCommand } from '../install/driver-command.js';
import { quoted, shown, shownPath } from '../one-line.js';
import { parseAttributes } from '../git/eol-attributes.js';
import type { Finding } from './types.js';
import { ATTRIBUTES_LINE } from '../protocol/file-names.js';
import { isCheckpointError } from '../errors.js';
import { listProjectDir, readProjectText } from '../store/safe-fs.js';


/**
 * Whether .gitattributes routes checkpoints to merge=checkpoint (a history/ line alone or a
 * commented-out line does not: install-driver would add the checkpoints line), or why it cannot be read (then install-driver
 * refuses it too).
 */
export function attributesDeclareDriver(root: string): { declared: boolean; refused: string | null } {
  let text: string | null;
  try {
    text = readProjectText(root, join(root, '.gitattributes'));
  } catch (e) {
    if (isCheckpointError(e)) return { declared: false, refused: e.hint ? `${e.message}; ${e.hint}` : e.message }; // a link out, a FIFO, a folder: declares nothing we read
    throw e;
  }
  return { declared: text !== null && text.split(/\r?\n/).map((l) => l.trim()).some((l) => !l.startsWith('#') && /^\S*\.checkpoints\/(?!history\/)\S*\s.*\bmerge=checkpoint\b/.test(l)), refused: null };
}

/**
 * The attributes line that decides a checkpoint file's `merge` attribute when it is not
 * merge=checkpoint, else null: git takes the last line that sets it, reading the top
 * .gitattributes, then .checkpoints/.gitattributes, then .git/info/attributes
 * (`.checkpoints/** merge=union`, `*.json binary`, a macro holding `-merge`, after ours).
 */
export function overridingMergeLine(root: string): { line: string; merge: string; file: string } | null {
  let infoAttributes: string | null = null;
  try {
    infoAttributes = join(resolveGitDirsSync(root).commonDir, 'info', 'attributes');
  } catch {
    // no git dir: the work tree's files alone
  }
  const files: [text: string | null | undefined, base: string, file: string][] = [
    [readQuietly(root, join(root, '.gitattributes')), '', '.gitattributes'],
    [readQuietly(root, join(root, '.checkpoints', '.gitattributes')), '.checkpoints', '.checkpoints/.gitattributes'],
    [infoAttributes === null ? null : readGitFile(infoAttributes), '', '.git/info/attributes'],
  ];
  // Macros are defined at the top level only ([attr]nomerge -merge).
  const macros = new Map<string, string>();
  for (const raw of (files[0]![0] ?? '').split('\n')) {
    const [head, ...tokens] = raw.trim().split(/\s+/);
    if (!head?.startsWith('[attr]')) continue;
    for (const t of tokens) {
      const effect = mergeEffect(t);
      if (effect !== null) macros.set(head.slice('[attr]'.length), effect);
    }
  }
  let last: { line: string; merge: string; file: string } | null = null;
  for (const [text, base, file] of files) {
    if (!text) continue;
    for (const l of parseAttributes(text, base, base === '').lines) {
      if (!l.matches(SAMPLE_CHECKPOINT)) continue;
      for (const [name, value] of l.assigns) {
        const effect = name === 'merge' ? mergeValue(value) : name === 'binary' && value === true ? 'binary' : value === true ? macros.get(name) ?? null : null;
        if (effect !== null) last = { line: l.text, merge: effect, file };
      }
    }
  }
  return last && last.merge !== 'checkpoint' ? last : null;
}

/** What an attribute token does to `merge` ("merge=union", "-merge", "binary"), or null. */
function mergeEffect(token: string): string | null {
  if (token === 'binary' || token === '-merge') return 'binary';
  if (token === '!merge') return 'unset';
  if (token === 'merge') return 'text';
  return token.startsWith('merge=') ? token.slice('merge='.length) : null;
}

function mergeValue(value: string | boolean | undefined): string {
  return value === true ? 'text' : value === false ? 'binary' : value === undefined ? 'unset' : value;
}

/** A work-tree file's text, or null when absent or not readable safely (a link out, a FIFO). */
function readQuietly(root: string, path: string): string | null {
  try {
    return readProjectText(root, path);
  } catch {
    return null;
  }
}

/** A checkpoint file's path, to ask which .gitattributes lines apply to them. */
const SAMPLE_CHECKPOINT = '.checkpoints/skill.checkpoint.json';

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

/**
 * This clone's own pre-push hook when it is one checkpoint shipped before the current template:
 * `init` replaces it. Earlier ones, their CLI gone, ran a node_modules/.bin/checkpoint-protocol
 * the repository being pushed holds. A hook the user edited is theirs and not named.
 */
export function checkHookCurrent(root: string): Finding[] {
  let hook: string | null | undefined;
  let template: string;
  try {
    hook = readGitFile(join(hooksDirOf(root), 'pre-push'));
    if (!hook?.includes(HOOK_MARKER)) return [];
    template = readFileSync(HOOK_TEMPLATE_PATH, 'utf8');
  } catch {
    return [];
  }
  const base = { level: 'warning', check: 'hook', skill: null, path: '' } as const;
  const current = isCurrentHook(hook, template);
  if (!current && !isShippedHook(hook)) return []; // edited by the user: theirs
  if (!current) return [{ ...base, message: "this clone's pre-push hook is an older checkpoint hook: once the CLI it names is gone it runs a node_modules/.bin/checkpoint-protocol the repository holds; run `checkpoint init` to update it" }];
  // The install it was made from is gone (npx cache cleared, package removed): it skips every push.
  const bin = bakedBin(hook);
  return bin !== null && !existsSync(bin) ? [{ ...base, message: `the pre-push hook runs ${shownPath(bin)}, which is gone, so pushes are not checked; run \`checkpoint init\` from the install you use` }] : [];
}

/** The hooks folder git runs: this clone's core.hooksPath (its own config), else the git dir's hooks/. */
function hooksDirOf(root: string): string {
  const { commonDir } = resolveGitDirsSync(root);
  const text = readGitFile(join(commonDir, 'config'));
  const set = text ? configEntries(text).filter((e) => e.section === 'core' && e.key === 'hookspath' && e.value).at(-1)?.value : undefined;
  if (!set) return join(commonDir, 'hooks');
  const home = process.env.HOME ?? '';
  const path = set.startsWith('~/') && home ? join(home, set.slice(2)) : set;
  return isAbsolute(path) ? path : join(root, path);
}

/** The launcher init baked into a hook of ours (CHECKPOINT_BIN='…'), or null. */
function bakedBin(hook: string): string | null {
  const m = /^CHECKPOINT_BIN='((?:[^']|'\\'')*)'$/m.exec(hook);
  return m && m[1] ? m[1].replace(/'\\''/g, "'") : null;
}

/** What a later .gitattributes line setting merge for checkpoint files does, and the way out. */
export function overriddenMessage(o: { line: string; merge: string; file: string }): string {
  const top = o.file === '.gitattributes';
  return `${o.file} line ${quoted(o.line)} ${top ? 'comes after the checkpoint line and ' : ''}decides how checkpoint files merge (${o.merge}): git never runs the checkpoint driver on them; remove it${top ? ', or move the checkpoint line below it' : ''}`;
}

export async function checkRepoHealth(root: string, inGitRepo: boolean): Promise<Finding[]> {
  if (!inGitRepo) return [];
  const { declared, refused } = attributesDeclareDriver(root);
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
    const lacks = `.gitattributes lacks "${ATTRIBUTES_LINE}"`;
    return [{ ...base, level: 'warning', message: theirs
      ? `merge.checkpoint.driver is ${whose} (${shown(driver)}), not checkpoint's, and never runs for checkpoints: ${lacks}; run \`checkpoint install-driver\` to add it (it keeps that driver), or, ${switchToOurs}`
      : `merge.checkpoint.driver is configured but ${lacks}; run \`checkpoint install-driver\`` }];
  }
  if (!declared) return [{ ...base, level: 'info', message: 'the checkpoint merge driver is not installed (`checkpoint install-driver`)' }];
  const overriding = overridingMergeLine(root);
  if (overriding) return [{ ...base, level: 'warning', message: overriddenMessage(overriding) }];
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
