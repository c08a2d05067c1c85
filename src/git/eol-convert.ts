// git's clean conversion of line endings (convert.c: convert_attrs, crlf_to_git), pure: what a
// work-tree file's bytes become in git's object store, so the embedded engine hashes what git
// hashes. Only the end-of-line part: a `filter=` driver, `ident` or `working-tree-encoding` is
// not reproduced, and `cleanRule` says so (the caller must not call such a file clean).

/** An attribute's state for one path: set, unset (`-attr`), a value, or absent (unspecified). */
export type AttrValue = true | false | string | undefined;

/** The attributes git's clean conversion reads. */
export interface EolAttributes {
  text?: AttrValue;
  crlf?: AttrValue;
  eol?: AttrValue;
  filter?: AttrValue;
  ident?: AttrValue;
  'working-tree-encoding'?: AttrValue;
}

/** core.autocrlf as git reads it. */
export type AutoCrlf = 'true' | 'false' | 'input';

/**
 * In the to-git direction git's eight crlf actions collapse to three: no conversion, every CRLF
 * to LF (`text`, whatever eol), or the guessed kind (`auto`: text files only, the "safe" rule).
 */
export type CleanAction = 'binary' | 'text' | 'auto';

/** The conversion for a path, or why it cannot be reproduced here. */
export type CleanRule = { action: CleanAction } | { inexact: string };

/** git_path_check_crlf: `text` (or the older `crlf`) as a crlf action; null for unspecified. */
function checkCrlf(value: AttrValue): 'text' | 'binary' | 'input' | 'auto' | null {
  if (value === true) return 'text';
  if (value === false) return 'binary';
  if (value === 'input') return 'input';
  if (value === 'auto') return 'auto';
  return null;
}

/** convert_attrs' decision, for the clean direction. */
export function cleanRule(attrs: EolAttributes, autocrlf: AutoCrlf): CleanRule {
  if (typeof attrs.filter === 'string') return { inexact: `filter=${attrs.filter}` };
  if (attrs.ident === true) return { inexact: 'ident' };
  const encoding = attrs['working-tree-encoding'];
  if (typeof encoding === 'string' && encoding !== '' && encoding.toUpperCase() !== 'UTF-8') return { inexact: `working-tree-encoding=${encoding}` };
  let action = checkCrlf(attrs.text) ?? checkCrlf(attrs.crlf);
  if (action !== 'binary') {
    // Only the values `lf` and `crlf` count; with `auto` they keep the guess, otherwise they mean text.
    const eol = attrs.eol === 'lf' || attrs.eol === 'crlf' ? attrs.eol : null;
    if (eol !== null) action = action === 'auto' ? 'auto' : 'text';
  }
  if (action === null) return { action: autocrlf === 'false' ? 'binary' : 'auto' };
  return { action: action === 'input' ? 'text' : action };
}

/** gather_stats' counts. */
export interface TextStats {
  nul: number;
  lonecr: number;
  lonelf: number;
  crlf: number;
  printable: number;
  nonprintable: number;
}

export function textStats(buf: Uint8Array): TextStats {
  const s: TextStats = { nul: 0, lonecr: 0, lonelf: 0, crlf: 0, printable: 0, nonprintable: 0 };
  const size = buf.length;
  for (let i = 0; i < size; i++) {
    const c = buf[i]!;
    if (c === 0x0d) {
      if (i + 1 < size && buf[i + 1] === 0x0a) {
        s.crlf++;
        i++;
      } else s.lonecr++;
      continue;
    }
    if (c === 0x0a) {
      s.lonelf++;
      continue;
    }
    if (c === 0x7f) s.nonprintable++;
    else if (c < 32) {
      // BS, HT, ESC and FF count as printable.
      if (c === 0x08 || c === 0x09 || c === 0x1b || c === 0x0c) s.printable++;
      else {
        if (c === 0) s.nul++;
        s.nonprintable++;
      }
    } else s.printable++;
  }
  // A final ^Z (DOS end of file) is not counted as non-printable.
  if (size >= 1 && buf[size - 1] === 0x1a) s.nonprintable--;
  return s;
}

/** convert_is_binary: a lone CR, a NUL, or more than one non-printable byte per 128 printable ones. */
export function looksBinary(s: TextStats): boolean {
  return s.lonecr > 0 || s.nul > 0 || s.printable >> 7 < s.nonprintable;
}

/** has_crlf_in_index's test on the staged blob: a text file holding a CRLF. */
export function holdsTextCrlf(blob: Uint8Array): boolean {
  if (!blob.includes(0x0d)) return false;
  const s = textStats(blob);
  return !looksBinary(s) && s.crlf > 0;
}

/**
 * crlf_to_git: the bytes git stores for `content` under `action`, where `staged` is the
 * blob git holds for the path (null when none): with a guessed action git leaves a file alone
 * when that blob already holds CRLF (its "safe" autocrlf rule). Returns `content` itself when
 * nothing changes.
 */
export function toGit(content: Uint8Array, action: CleanAction, staged: Uint8Array | null): Uint8Array {
  if (action === 'binary' || content.length === 0) return content;
  const s = textStats(content);
  if (s.crlf === 0) return content;
  if (action === 'auto') {
    if (looksBinary(s) || (staged !== null && holdsTextCrlf(staged))) return content;
    // No lone CR in a guessed text file: every CR ends a CRLF.
    return content.filter((c) => c !== 0x0d);
  }
  const out = new Uint8Array(content.length - s.crlf);
  let n = 0;
  for (let i = 0; i < content.length; i++) {
    const c = content[i]!;
    if (!(c === 0x0d && i + 1 < content.length && content[i + 1] === 0x0a)) out[n++] = c;
  }
  return out;
}
