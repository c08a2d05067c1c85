// Which merge attribute git gives checkpoint files: the driver install-driver registers runs only
// while the last line that sets `merge` for them says merge=checkpoint. Read from the files git
// reads, in its order; named by init, install-driver and doctor when another line wins.
import { basename, join } from 'node:path';
import { CheckpointError } from '../errors.js';
import { parseAttributes } from '../git/eol-attributes.js';
import { readGitFile } from '../git/git-file.js';
import { resolveGitDirsSync } from '../git/locate.js';
import { quoted, shownPath } from '../one-line.js';
import { linkAt, readProjectText } from '../store/safe-fs.js';

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
    [readQuietly(root, '.gitattributes'), '', '.gitattributes'],
    [readQuietly(root, '.checkpoints/.gitattributes'), '.checkpoints', '.checkpoints/.gitattributes'],
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

/** An attributes file's text, or null when absent, a link (git reads none) or not readable safely (a FIFO). */
function readQuietly(root: string, rel: string): string | null {
  try {
    return readAttributesFile(root, rel);
  } catch {
    return null;
  }
}

/** A checkpoint file's path, to ask which .gitattributes lines apply to them. */
const SAMPLE_CHECKPOINT = '.checkpoints/skill.checkpoint.json';

/** What a later .gitattributes line setting merge for checkpoint files does, and the way out. */
export function overriddenMessage(o: { line: string; merge: string; file: string }): string {
  const top = o.file === '.gitattributes';
  return `${o.file} line ${quoted(o.line)} ${top ? 'comes after the checkpoint line and ' : ''}decides how checkpoint files merge (${o.merge}): git never runs the checkpoint driver on them; remove it${top ? ', or move the checkpoint line below it' : ''}`;
}
