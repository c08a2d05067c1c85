// Which merge attribute git gives checkpoint files: the driver install-driver registers runs only
// while the last line that sets `merge` for them says merge=checkpoint. Read from the files git
// reads, in its order; named by init, install-driver and doctor when another line wins.
import { basename, join } from 'node:path';
import { CheckpointError } from '../errors.js';
import { attributeFilesAbove, parseAttributes } from '../git/eol-attributes.js';
import { readGitFile } from '../git/git-file.js';
import { resolveGitDirsSync } from '../git/locate.js';
import { quoted, shownPath } from '../one-line.js';
import { HISTORY_ATTRIBUTES_LINE } from '../protocol/file-names.js';
import { linkAt, listProjectDir, readProjectText } from '../store/safe-fs.js';

/**
 * A work tree's attributes file (`rel`: .gitattributes, .checkpoints/.gitattributes) as git reads
 * it, or null when absent. git (2.32 on) opens it without following a link, so one committed as a
 * link sets no attribute, whatever the file it names holds: refused here too (E_PATH). Read
 * through, the target's lines would count as routing checkpoints (doctor), and install-driver
 * would copy them into a regular .gitattributes, where git would start applying them. A link out
 * of the project, a FIFO, a folder: refused by readProjectText, as every project file is.
 */
export function readAttributesFile(root: string, rel: string): string | null {
  const path = join(root, rel);
  const text = readProjectText(root, path);
  const link = linkAt(path);
  if (link !== null) {
    throw new CheckpointError('E_PATH', `${rel} is a symlink to ${shownPath(link)}: git reads no linked ${basename(rel)}, so it sets no attribute; refused`, {
      hint: 'replace the link with a regular file holding the lines git should apply',
    });
  }
  return text;
}

/** A line that gives checkpoint files another `merge` than checkpoint, and the files it takes. */
export interface MergeOverride {
  line: string;
  merge: string;
  /** The attributes file it is in, repo-relative (.git/info/attributes for the clone's own). */
  file: string;
  /** Its line number there. */
  lineNo: number;
  /** The checkpoint files present it takes from the driver (a line for every one: empty). */
  paths: string[];
  /** It decides for every checkpoint file / every history file, present or not. */
  all: boolean;
  history: boolean;
}

/**
 * The attributes lines that decide a checkpoint file's `merge` attribute when it is not
 * merge=checkpoint: git takes, for each path, the last line that sets it, reading the top
 * .gitattributes, then each folder's down to the file's, then .git/info/attributes
 * (`.checkpoints/** merge=union`, `*.json binary`, a macro holding `-merge`, after ours). Asked
 * for any checkpoint and history file (a name no project uses) and for each one present, so a
 * line naming one file (`api.checkpoint.json merge=union`) is found too. In-process: doctor
 * runs this on every push.
 */
export function overridingMergeLines(root: string): MergeOverride[] {
  let infoAttributes: string | null = null;
  try {
    infoAttributes = join(resolveGitDirsSync(root).commonDir, 'info', 'attributes');
  } catch {
    // no git dir: the work tree's files alone
  }
  const info = infoAttributes === null ? null : readGitFile(infoAttributes) ?? null;
  const parsed = new Map<string, ReturnType<typeof parseAttributes> | null>();
  const fileAt = (rel: string) => {
    if (!parsed.has(rel)) {
      const text = rel === INFO ? info : readQuietly(root, rel);
      const base = rel === INFO || rel === '.gitattributes' ? '' : rel.slice(0, -'/.gitattributes'.length);
      parsed.set(rel, text ? parseAttributes(text, base, base === '', false, true) : null);
    }
    return parsed.get(rel)!;
  };
  // Macros are defined at the top level only ([attr]nomerge -merge), and in info/attributes.
  const macros = new Map<string, string>();
  for (const text of [readQuietly(root, '.gitattributes'), info]) {
    for (const raw of (text ?? '').split('\n')) {
      const [head, ...tokens] = raw.trim().split(/\s+/);
      if (!head?.startsWith('[attr]')) continue;
      for (const t of tokens) {
        const effect = mergeEffect(t);
        if (effect !== null) macros.set(head.slice('[attr]'.length), effect);
      }
    }
  }
  /** The line that decides `path`'s merge attribute, when it is not ours. */
  const winner = (path: string): Omit<MergeOverride, 'paths' | 'all' | 'history'> | null => {
    let last: Omit<MergeOverride, 'paths' | 'all' | 'history'> | null = null;
    for (const rel of [...attributeFilesAbove(path), INFO]) {
      const lines = fileAt(rel)?.lines ?? [];
      for (const l of lines) {
        if (!l.matches(path)) continue;
        for (const [name, value] of l.assigns) {
          const effect = name === 'merge' ? mergeValue(value) : name === 'binary' && value === true ? 'binary' : value === true ? macros.get(name) ?? null : null;
          if (effect !== null) last = { line: l.text, merge: effect, file: rel, lineNo: l.lineNo };
        }
      }
    }
    return last === null || last.merge === 'checkpoint' ? null : last;
  };
  const found = new Map<string, MergeOverride>();
  const record = (w: Omit<MergeOverride, 'paths' | 'all' | 'history'>): MergeOverride => {
    const key = `${w.file}\0${w.lineNo}`;
    const o = found.get(key) ?? { ...w, paths: [], all: false, history: false };
    found.set(key, o);
    return o;
  };
  // Every checkpoint file, present or not: one line wins for names of every shape (a line such as
  // `.checkpoints/[!w]*.checkpoint.json` takes only some, judged by the files present below).
  const samples = SAMPLE_CHECKPOINTS.map(winner);
  const first = samples[0];
  if (first && samples.every((w) => w !== null && w.file === first.file && w.lineNo === first.lineNo)) record(first).all = true;
  const history = winner(SAMPLE_HISTORY);
  if (history) record(history).history = true;
  for (const path of presentCheckpointFiles(root)) {
    const w = winner(path);
    if (w) record(w).paths.push(path);
  }
  return [...found.values()];
}

/** The files our lines route to the driver that are in the work tree: .checkpoints/*.checkpoint.json, history/*.json. */
function presentCheckpointFiles(root: string): string[] {
  const list = (rel: string, suffix: string) => {
    try {
      return listProjectDir(root, join(root, rel)).filter((f) => f.endsWith(suffix) && !/[\s"\\[]/.test(f)).map((f) => `${rel}/${f}`);
    } catch {
      return []; // a file or link where the folder should be: no checkpoint files in it
    }
  };
  return [...list('.checkpoints', '.checkpoint.json'), ...list('.checkpoints/history', '.json')];
}

const INFO = '.git/info/attributes';

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

/** An attributes file's text, or null when absent, a link (git reads none) or not readable safely (a FIFO). */
function readQuietly(root: string, rel: string): string | null {
  try {
    return readAttributesFile(root, rel);
  } catch {
    return null;
  }
}

/** Checkpoint files of names no project uses, and a history file's path, to ask which .gitattributes lines apply to every one. */
const SAMPLE_CHECKPOINTS = ['skill', 'a', 'w', 'z9_x-1.y'].map((name) => `.checkpoints/${name}.checkpoint.json`);
const SAMPLE_HISTORY = '.checkpoints/history/skill.2000-01-01.json';

/** What a line that gives checkpoint files another merge attribute does, and the way out. */
export function overriddenMessage(o: MergeOverride): string {
  const histories = o.history || o.paths.some((p) => p.startsWith('.checkpoints/history/'));
  const checkpoints = o.all || o.paths.some((p) => !p.startsWith('.checkpoints/history/'));
  const rest = o.paths.length - 1;
  const [what, them] =
    o.all || o.history ? [`${o.all ? 'checkpoint' : 'checkpoint history'} files merge`, 'them']
    : rest === 0 ? [`${o.paths[0]} merges`, 'it']
    : [`${o.paths[0]} and ${rest} other checkpoint file${rest === 1 ? '' : 's'} merge`, 'them'];
  // Later lines win within a file, and a deeper folder's file or info/attributes over the top
  // one: our lines (in the top .gitattributes) can only be moved below one written there.
  const top = o.file === '.gitattributes';
  const ours = checkpoints && histories ? 'the checkpoint lines' : checkpoints ? 'the checkpoint line' : quoted(HISTORY_ATTRIBUTES_LINE);
  return `${o.file} line ${o.lineNo} ${quoted(o.line)} ${top ? `comes after ${ours} and ` : ''}decides how ${what} (${o.merge}): git never runs the checkpoint driver on ${them}; remove it${top ? `, or move ${ours} below it` : ''}`;
}
