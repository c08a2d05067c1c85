// The attributes and config git's clean conversion reads for a path (eol-convert.ts), read from
// the repository the way the embedded engine reads everything else: plain files only, no link
// out, bounded. Anything read here that git could read differently (a quoted or class pattern,
// a user macro, an include, core.attributesFile, an unreadable file) makes the
// answer inexact rather than guessed: the caller never calls a file clean on a guess.
import { isAbsolute, join } from 'node:path';
import { asciiLower, globMatcher } from '../glob.js';
import { linkAt, readProjectText } from '../store/safe-fs.js';
import { configEntries } from './config-file.js';
import { currentConfigPlaces, repositoryConfigFiles } from './config-places.js';
import { readGitFile } from './git-file.js';
import type { AttrValue, AutoCrlf, EolAttributes } from './eol-convert.js';

const WANTED = new Set(['text', 'crlf', 'eol', 'filter', 'ident', 'working-tree-encoding']);

/** One `.gitattributes` line: its pattern as a test on a repo-relative path, and its assignments. */
interface AttrLine {
  matches: (path: string) => boolean;
  assigns: [string, AttrValue][];
  /** The line as written (without its line ending and leading blanks). */
  text: string;
  /** Its number in the file (from 1). */
  lineNo: number;
}

/** One attributes file, parsed; `inexact` names what this reader does not follow. */
interface AttrFile {
  lines: AttrLine[];
  macros: Set<string>;
  inexact?: string;
}

/** Attribute names as git accepts them (attr.c attr_name_valid). */
const NAME = /^[A-Za-z0-9_.][-A-Za-z0-9_.]*$/;

/**
 * Parses an attributes file found in folder `base` ('' for the root and the non-work-tree files).
 * `plainPaths`: the paths asked about hold no quote, bracket, blank or backslash (checkpoint
 * files), so a quoted pattern (C-unquoted, as attr.c does) and a bracket set are matched here
 * exactly; without it they make the file inexact.
 */
export function parseAttributes(text: string, base: string, allowMacros: boolean, ignoreCase = false, plainPaths = false): AttrFile {
  const file: AttrFile = { lines: [], macros: new Set() };
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.replace(/\r$/, '').replace(/^[ \t]+/, '');
    if (line === '' || line.startsWith('#')) continue;
    const quoted = line.startsWith('"') && plainPaths ? unquoteC(line) : null;
    if (line.startsWith('"') && !plainPaths) {
      file.inexact ??= 'a quoted pattern in .gitattributes';
      continue;
    }
    // attr.c takes a pattern it cannot unquote as written, up to the first blank.
    const [pattern, ...tokens] = quoted ? [quoted.pattern, ...quoted.rest.split(/[ \t]+/).filter(Boolean)] : line.split(/[ \t]+/).filter(Boolean);
    if (pattern === undefined) continue;
    if (pattern.startsWith('[attr]')) {
      // A macro: only honoured at the top level; its expansion is not followed here.
      if (allowMacros) file.macros.add(pattern.slice('[attr]'.length));
      continue;
    }
    if (pattern.startsWith('!')) continue; // git refuses negative patterns in attributes
    const assigns: [string, AttrValue][] = [];
    for (const token of tokens) {
      const eq = token.indexOf('=');
      const name = token.startsWith('-') || token.startsWith('!') ? token.slice(1) : eq < 0 ? token : token.slice(0, eq);
      if (!NAME.test(name)) continue;
      const value: AttrValue = token.startsWith('-') ? false : token.startsWith('!') ? undefined : eq < 0 ? true : token.slice(eq + 1);
      assigns.push([name, value]);
    }
    const matches = patternTest(pattern, base, ignoreCase, plainPaths);
    if (matches === null) {
      file.inexact ??= `the .gitattributes pattern ${JSON.stringify(pattern)}`;
      continue;
    }
    file.lines.push({ matches, assigns, text: line, lineNo: index + 1 });
  }
  return file;
}

/**
 * attr.c's path_matches: a pattern without a slash matches a name at any depth under `base`, one
 * with a slash matches the path relative to `base` (wildmatch with WM_PATHNAME); a pattern ending
 * in `/` matches folders only, never a file. Null for a bracket class (left to git). Under
 * core.ignorecase git compares both the folder and the pattern without case (ASCII).
 */
function patternTest(pattern: string, base: string, ignoreCase: boolean, plainPaths = false): ((path: string) => boolean) | null {
  if (pattern.endsWith('/')) return () => false;
  // globMatcher also matches a bracket as written (a pathspec's way, not attr.c's): no matter for a
  // path that holds none. A POSIX class ([[:alpha:]]) it does not read.
  if (pattern.includes('[') && (!plainPaths || pattern.includes('[:'))) return null;
  const prefix = base ? `${base}/` : '';
  const inBase = (path: string) => (ignoreCase ? asciiLower(path.slice(0, prefix.length)) === asciiLower(prefix) : path.startsWith(prefix));
  // Matched without a RegExp: a pattern in a clone's .gitattributes may be hostile (glob.ts).
  const opts = { escapes: true, ignoreCase };
  if (!pattern.includes('/')) {
    const name = globMatcher(pattern, opts);
    return (path) => inBase(path) && name.test(path.slice(path.lastIndexOf('/') + 1));
  }
  const rel = globMatcher(pattern.replace(/^\//, ''), opts);
  return (path) => inBase(path) && rel.test(path.slice(prefix.length));
}


/** A C-quoted pattern (`"a b" merge=union`) as unquote_c_style reads it, and the text after it; null when it is not one. */
function unquoteC(line: string): { pattern: string; rest: string } | null {
  const ESC: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92, '"': 34 };
  const bytes: number[] = [];
  for (let i = 1; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === '"') return { pattern: Buffer.from(bytes).toString('utf8'), rest: line.slice(i + 1) };
    if (ch !== '\\') {
      bytes.push(...Buffer.from(ch, 'utf8'));
      continue;
    }
    const next = line[++i];
    if (next !== undefined && next in ESC) bytes.push(ESC[next]!);
    else if (next !== undefined && /^[0-3][0-7]{2}$/.test(line.slice(i, i + 3))) {
      bytes.push(parseInt(line.slice(i, i + 3), 8));
      i += 2;
    } else return null;
  }
  return null;
}

/** The conversion attributes of `path`, or what this reader could not follow. */
/**
 * `staged(rel)` is the index's text of a work-tree attributes file the work tree lost: null when
 * the index does not hold it either, undefined when it cannot be read.
 */
export function eolAttributes(root: string, commonDir: string, path: string, config: EolConfig, staged: (rel: string) => string | null | undefined): EolAttributes | { inexact: string } {
  const files: AttrFile[] = [];
  const add = (text: string | null | undefined, base: string, top: boolean, where: string): string | null => {
    if (text === undefined) return `${where} (not a plain file)`;
    if (text !== null) files.push(parseAttributes(text, base, top, config.ignoreCase));
    return null;
  };
  // git's order, lowest precedence first: system, global, then the work tree from the root down, then info/attributes.
  const problem =
    (config.systemAttributes === null ? null : add(readGitFile(config.systemAttributes), '', true, config.systemAttributes)) ??
    add(config.globalAttributes === null ? null : readGitFile(config.globalAttributes), '', true, 'the global attributes file') ??
    workTreeFiles(root, path, add, staged) ??
    add(readGitFile(join(commonDir, 'info', 'attributes')), '', true, 'info/attributes');
  if (problem) return { inexact: problem };
  const macros = new Set(files.flatMap((f) => [...f.macros]));
  const attrs: EolAttributes = {};
  for (const file of files) {
    if (file.inexact) return { inexact: file.inexact };
    for (const line of file.lines) {
      if (!line.matches(path)) continue;
      for (const [name, value] of line.assigns) {
        if (name === 'binary') {
          if (value === true) attrs.text = false; // the built-in macro: -diff -merge -text
        } else if (macros.has(name)) return { inexact: `the attribute macro ${name}` };
        else if (WANTED.has(name)) attrs[name as keyof EolAttributes] = value;
      }
    }
  }
  return attrs;
}

/** The work tree's .gitattributes files above `path`, root first; a message when one cannot be read. */
function workTreeFiles(
  root: string,
  path: string,
  add: (text: string | null | undefined, base: string, top: boolean, where: string) => string | null,
  staged: (rel: string) => string | null | undefined,
): string | null {
  for (const rel of attributeFilesAbove(path)) {
    const dir = rel === '.gitattributes' ? '' : rel.slice(0, -'/.gitattributes'.length);
    // git (2.32 on) reads no .gitattributes that is a link, nor the index's copy in its place: none.
    if (linkAt(join(root, rel)) !== null) continue;
    let text: string | null | undefined;
    try {
      text = readProjectText(root, rel);
    } catch {
      text = undefined; // a link, a FIFO, too large, not UTF-8: not followed
    }
    // Missing from the work tree, git reads the index's copy.
    if (text === null) {
      text = staged(rel);
      if (text === undefined) return `the staged ${rel} (deleted from the work tree)`;
    }
    const problem = add(text, dir, dir === '', rel);
    if (problem) return problem;
  }
  return null;
}

/** The .gitattributes files that apply to `path`, root first (repo-relative). */
export function attributeFilesAbove(path: string): string[] {
  const files = ['.gitattributes'];
  for (let cut = path.indexOf('/'); cut >= 0; cut = path.indexOf('/', cut + 1)) files.push(`${path.slice(0, cut)}/.gitattributes`);
  return files;
}

/** The config the conversion reads; `inexact` when a setting changes what this reader would find. */
export interface EolConfig {
  autocrlf: AutoCrlf;
  /** The global attributes file git reads (XDG's), null for none. */
  globalAttributes: string | null;
  /** The system attributes file (/etc/gitattributes; the install's on Windows), null for none. */
  systemAttributes: string | null;
  /** core.ignorecase: attribute patterns match without case. */
  ignoreCase: boolean;
  inexact?: string;
}

/**
 * core.autocrlf (last one wins, system to worktree as git reads them), and the global attributes
 * file's place, and core.ignorecase. An include or core.attributesFile make the answer inexact.
 */
export function readEolConfig(gitdir: string, commonDir: string): EolConfig {
  const env = process.env;
  const places = currentConfigPlaces();
  // config.worktree is read only under extensions.worktreeConfig, as git reads it.
  const files = repositoryConfigFiles(gitdir, commonDir, places);
  const config: EolConfig = { autocrlf: 'false', globalAttributes: places.globalAttributes, systemAttributes: places.systemAttributes, ignoreCase: false };
  if (env.GIT_CONFIG_PARAMETERS || Number(env.GIT_CONFIG_COUNT) > 0) config.inexact = 'git config given in the environment';
  for (const file of files) {
    if (!isAbsolute(file) || file === '/dev/null') continue;
    const text = readGitFile(file);
    if (text === undefined) config.inexact ??= `${file} (not a plain file)`;
    if (!text) continue;
    for (const { section, subsection, key, value: written } of configEntries(text)) {
      if (section === 'include' || section === 'includeif') config.inexact ??= `an include in ${file}`;
      // `[core "x"]` is another section than core.
      if (section !== 'core' || subsection !== null || key === '') continue;
      const value = written === null ? 'true' : written.trim();
      if (key === 'autocrlf') {
        const v = value.toLowerCase();
        if (v === 'input') config.autocrlf = 'input';
        else if (['true', 'yes', 'on'].includes(v) || /^-?0*[1-9]\d*$/.test(v)) config.autocrlf = 'true';
        else if (['false', 'no', 'off', ''].includes(v) || /^-?0+$/.test(v)) config.autocrlf = 'false';
        else config.inexact ??= `core.autocrlf=${value}`;
      } else if (key === 'attributesfile') config.inexact ??= 'core.attributesFile';
      else if (key === 'ignorecase') config.ignoreCase = !['false', 'no', 'off', '0', ''].includes(value.toLowerCase());
    }
  }
  return config;
}
