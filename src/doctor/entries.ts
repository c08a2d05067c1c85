// What a hand-written generated_files entry or verified_for_sha value points at. Real
// checkpoints annotate them ("src/x.ts (PR 1, 4cb0b09)", "site/x.md — draft"), use brace
// patterns and globs, or hold prose with no path at all. Pure: no fs, no git.

export type EntryTarget =
  /** One literal repo path (annotation stripped). */
  | { kind: 'path'; path: string }
  /** Brace-expanded alternatives, some with glob characters: missing only when none matches. */
  | { kind: 'pattern'; text: string; alternatives: string[] }
  /**
   * No path in it: a note, never drift. `name`: a bare name not in the work tree ("Makefile",
   * "LICENSE", "TBD"): a file only if git knows it (HEAD, the index, or a commit removed it).
   * `url`: the entry is a URL ("https://…", "file:///…"), kept as written. `struck`: the entry is
   * struck out as Markdown writes it ("~~src/old.ts~~ (replaced)"): crossed off the list, the text crossed.
   * `outside`: an absolute path outside this checkout ("/src/a.ts"), as written; `name` is the
   * same path from the repository's top, a file only if git knows it.
   */
  | { kind: 'note'; name?: string; url?: string; struck?: string; excluded?: true; outside?: string };

/**
 * Separators after which the rest of an entry is a note: " (", " [", " — ", " – ", " - ", " -- ",
 * " # ", ": ", an arrow (" → ", " -> ", " => "), a table's " | "; or a symbol or emoji a note
 * starts with (" ✅", " ⚠ generated"); or a place in the file written out (" lines 10-20",
 * " line 5", " L42").
 */
// `(?<!\s)`: a run of blanks is tried from its first only (a match inside one is a match from its
// start), not from each, which took minutes on a hostile megabyte of them.
const NOTE_START = /(?<!\s)\s+(?:\(|\u2014|\u2013|--?|#|:|->|=>|\u2192|\u21d2|\|)(?:\s|$)|(?<!\s)\s+[([]|:\s|(?<!\s)\s+(?=[\u2190-\u21ff\u2600-\u27bf\u2b00-\u2bff\ud83c-\ud83e])|(?<!\s)\s+(?=(?:[Ll][Ii][Nn][Ee][Ss]?|ll\.|[Ll](?=\d))\s*\d)/;
/**
 * A list's marker before an entry, as Markdown and agents write lists: "- ", "* ", "• ", "1. ",
 * "2) ", "a) ", a ticked box "[x] ", a table's leading "| ", a symbol or emoji ("✅ ", "📄 ").
 */
const LIST_MARKER = /^(?:\|\s*)?(?:[-*+\u2022]\s+|\d{1,3}[.)]\s+|[a-z]\)\s+)?(?:\[[xX]\]\s+)?(?:(?:[\u2190-\u21ff\u2600-\u27bf\u2b00-\u2bff]|[\ud83c-\ud83e][\udc00-\udfff])\ufe0f?\s+)?/;
/** A box not ticked: a file planned, not made ("- [ ] docs/guide.md"). */
const OPEN_BOX = /^(?:[-*+\u2022]\s+|\d{1,3}[.)]\s+)?\[ \]\s/;
/** A verb a log of work puts before the file it touched: "Updated src/a.ts", "New: src/b.ts", "Edited file src/c.ts". */
const DONE_TO = /^(?:updated|created|added|modified|changed|edited|wrote|written|generated|new|touched|refactored|rewrote|rewritten|fixed|patched)(?::\s+|\s+)(?:(?:the\s+)?files?:?\s+)?(?=\S)/i;
/** A note that starts with an arrow: the entry names a rename, its path is the target ("src/old.ts → src/new.ts"). */
const ARROW = /^\s+(?:->|=>|\u2192|\u21d2)\s/;
/**
 * The project's folder written as a placeholder before a path, as the protocol writes
 * `{project-dir}/.checkpoints/…` and people write `<project>/src/x.ts`, `$PROJECT_DIR/src/x.ts`.
 */
const PROJECT_PLACEHOLDER = /^(?:\{([A-Za-z_-]+)\}|<([A-Za-z_-]+)>|\$\{([A-Za-z_]+)\}|\$([A-Za-z_]+))[\\/](?=\S)/;
const PROJECT_WORD = /project|repo|root|workspace|worktree|cwd|pwd/i;
const GLOB_CHARS = /[*?[]/;
const WILDCARDS = /[*?]/;
/**
 * A line (and column or range) after a path, as editors and GitHub write it: `:12`, `:12:5`, `:12-40`, `#L12`, `#L12-L40`, `:L12-L40`;
 * or, after a file's extension, a section's anchor as Markdown links write it (`docs/api.md#authentication`)
 * or a symbol in the file: a pytest node id or a Rust/C++ path (`tests/test_api.py::test_login[a-b]`,
 * `src/x.ts::Foo`), a name after one colon (`src/x.ts:main()`), a symbol anchor (`src/x.ts#Foo.bar`).
 */
/** How much of a path's end PLACE_IN_FILE reads: a line, an anchor or a test's id, with room to spare. */
const PLACE_CHARS = 1024;
const PLACE_IN_FILE = /(?::\d+(?:[:-]\d+)?|[:#]L\d+(?:C\d+)?(?:-L?\d+(?:C\d+)?)?|(?<=\.[A-Za-z0-9]{1,10})(?:::\S+|(?:#[\w$.~-]+|:[A-Za-z_$][\w$.~-]*)(?:\([^()]*\))?))$/;
/**
 * The rest of a relative path written from the folder above the project, the project's own
 * folder name first ("demo/src/a.ts", project demo): "src/a.ts" when the first name is one of
 * `names`; else null. Which reading holds is the tree's to say (inProjectFolder).
 */
export function underProjectName(path: string, names: readonly string[]): string | null {
  const text = path.startsWith('./') ? path.slice(2) : path;
  const slash = text.indexOf('/');
  if (slash <= 0 || slash === text.length - 1 || !names.includes(text.slice(0, slash))) return null;
  return text.slice(slash + 1);
}

/** Braces expand to at most this many paths: a hostile "{a,b}{a,b}..." must not explode. */
const MAX_EXPANSION = 256;

/**
 * Quote pairs people wrap paths in (Markdown backticks, straight and typographic quotes, a
 * Markdown autolink's angle brackets, parentheses).
 */
const QUOTES: readonly (readonly [string, string])[] = [['`', '`'], ['"', '"'], ["'", "'"], ['\u201c', '\u201d'], ['\u2018', '\u2019'], ['\u00ab', '\u00bb'], ['<', '>'], ['(', ')']];

/**
 * Markdown emphasis around a path ("**`src/x.ts`**", "_docs/a.md_", "*src/a.ts*"): one matching run of
 * `*` or `_` each side, the text inside neither starting nor ending with a space or a mark.
 */
const EMPHASIS = /^(\*{1,3}|_{1,3})(?![\s*_])([^]*[^\s*_])\1$/;
/**
 * What emphasis may hold: a backticked text, or a path ending in a file's extension (a place in
 * the file may follow), no pattern, not a bare extension. So a name of its own stays as written
 * ("_config.yml", "__init__.py", "__pycache__", "_a_"), and so does a glob ("*.test.*", "*.ts*",
 * "*src/*.ts*"); one `*` each side also needs a folder ("*src/x.ts*"): "*config.js*" reads as a glob.
 */
const MAX_EMPHASIZED = 4096;
const EMPHASIZED = /^`[^`]+`$|^(?!\.[^/\\]*$)[^*?[\]{}]*\.[A-Za-z0-9]{1,10}(?:[:#@][^\s/*]*)?$/;

/**
 * `text` without the matching quotes around it ("`src/x.ts`" -> "src/x.ts"), or Markdown emphasis
 * ("**`src/x.ts`**"), repeatedly ("\"`a`\"").
 */
export function unquote(text: string): string {
  let out = text.trim();
  for (;;) {
    const pair = QUOTES.find(([open, close]) => out.length >= 2 && out.startsWith(open) && out.endsWith(close));
    // Brackets only as one pair around the whole: "(a) and (b)" is not "a) and (b".
    if (pair && !((pair[0] === '(' || pair[0] === '<') && /[()<>]/.test(out.slice(1, -1)))) {
      out = out.slice(1, -1).trim();
      continue;
    }
    const [, marks, inner] = EMPHASIS.exec(out) ?? [];
    // Past a path's length, no path: EMPHASIZED retries from each "." of a hostile run, each to the end.
    if (inner === undefined || inner.length > MAX_EMPHASIZED || !EMPHASIZED.test(inner) || (marks === '*' && !/^`|[/\\]/.test(inner))) return out;
    out = inner;
  }
}

/** Markdown strikethrough over the entry's start, a note or nothing after it: "~~src/old.ts~~ (replaced by src/new.ts)". */
const STRUCK = /^~~(?!~)(\S(?:.*?\S)?)~~(?=\s|$)/;

/**
 * A revision after a path, as people pin the version they mean: "src/x.ts@4cb0b09",
 * "src/x.ts@HEAD~2" (a package's "lodash@4.17.21" is no path and no commit id).
 */
const AT_REVISION = /@(?:[0-9a-fA-F]{7,40}|HEAD(?:[~^]\d*)*)$/;

/** A Markdown link, "[text](target)" or "[text](target "title")": it names its target. */
const MARKDOWN_LINK = /^\[[^\]\n]*\]\(\s*<?([^()<>\s]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)$/;

/** A URL ("https://…", "file:///…"): a scheme of two or more letters (one is a Windows drive) and "//". */
const URL_START = /^[A-Za-z][A-Za-z0-9+.-]+:\/\//;

export function isUrl(text: string): boolean {
  return URL_START.test(text);
}

/**
 * The sentence's mark after a path: one of ",;.:", or an ellipsis after a name ("src/a.ts...",
 * "src/b.ts…"), as a list trails off (red team, 12-06). Not dots after a slash: "src/..." stays.
 */
const TRAILING_PUNCTUATION = /(?<=[^\s./\\])(?:\.{3}|\u2026)$|[,;.:]$/;

/**
 * The path part of an annotated entry: the text before the first note separator, unquoted,
 * without a list's marker, a verb of work before it or a placeholder for the project's folder;
 * a Markdown link's target.
 */
export function entryPathText(entry: string): string {
  // Asked of one entry several times per run (its parts, its prose, its target): a pure function
  // of the text, so each is worked out once; the memo is emptied at a bound (the MCP server lives long).
  let path = pathTexts.get(entry);
  if (path === undefined) {
    if (pathTexts.size >= MAX_PATH_TEXTS) pathTexts.clear();
    pathTexts.set(entry, (path = pathTextOf(entry)));
  }
  return path;
}
const pathTexts = new Map<string, string>();
const MAX_PATH_TEXTS = 4096;

function pathTextOf(entry: string): string {
  const text = entryText(entry);
  const cut = NOTE_START.exec(text);
  if (cut && ARROW.test(cut[0])) {
    const target = entryPathText(text.slice(cut.index + cut[0].length));
    if (looksLikePath(target)) return target;
  }
  let path = unquote((cut ? text.slice(0, cut.index) : text).trim().replace(TRAILING_PUNCTUATION, ''));
  path = MARKDOWN_LINK.exec(path)?.[1] ?? path;
  const folder = PROJECT_PLACEHOLDER.exec(path);
  return folder && PROJECT_WORD.test(folder.slice(1).join('')) ? path.slice(folder[0].length) : path;
}

/** An entry unquoted, without a list's marker and a verb of work before its path ("- Updated `src/a.ts`"). */
function entryText(entry: string): string {
  const text = unquote(unquote(entry).replace(LIST_MARKER, ''));
  return unquote(text.replace(DONE_TO, ''));
}

/** The note after an entry's path ("deleted" of "src/a.ts (deleted)"), without its separator and brackets; '' when none. */
export function entryNote(entry: string): string {
  const text = entryText(entry);
  const cut = NOTE_START.exec(text);
  if (!cut) return '';
  // The closing bracket by hand: /\s*[)\]]$/ retried from each blank of a long run; trim() takes the blanks.
  const note = text.slice(cut.index + cut[0].length).trim().replace(/^[([]\s*/, '');
  return (note.endsWith(')') || note.endsWith(']') ? note.slice(0, -1) : note).trim();
}

/**
 * A note saying what happened to the file itself, that it is gone: "deleted", "removed in PR 40",
 * "deleted on purpose", "renamed to src/b.ts"; never one about its content ("removed the v1
 * handler") or a plan ("to be deleted"), nor where the file came from ("renamed from src/old.ts",
 * "moved here from lib/": it is the file now, and its deletion is drift; red team, 12-06).
 */
const GONE = /^(?:(?:file|now|was|has\s+been|been|since|intentionally|deliberately)\s+)*(?:deleted|removed|dropped|gone|retired|(?:renamed|moved)(?!\s+(?:(?:here|over|in|back)\s+)?from\b))(?=\s*$|\s*[,;.)\]\u2014\u2013\u2192\u21d2-]|\s*=>|\s+(?:in|by|on|at|from|to|into|as|with|via|after|since|during|for|intentionally|deliberately|upstream|already|earlier|today|yesterday|here|too|also|this\s+(?:session|run|week|sprint|PR|branch|commit|time))\b)/i;
/**
 * The other ways people say a file is gone: "no longer needed", "replaced by src/new.ts",
 * "merged into src/b.ts", "now src/new.ts", "deprecated, removed" (red team, 12-05). Read only
 * for a file that is missing. Not a word on its content's worth ("superseded by the guides",
 * "obsolete"): the file was there when that was written, and its removal since is drift.
 */
const GONE_OTHERWISE = /^(?:(?:now|since|was|is|been|has\s+been)\s+)?(?:no\s+longer\s+(?:needed|used|exists?|there|present)|not\s+needed(?:\s+any\s*more)?|replaced\s+(?:by|with)|(?:merged|folded|split)\s+into|now\s+(?:at\s+|in\s+)?[\w.@-]*\/[\w./@-]*|deprecated\s*(?:,|and)\s*(?:deleted|removed|dropped))(?=\s*$|[\s,;.)\]\u2014\u2013-])/i;

/** What may follow a note's word of the file not made: its end, a clause's break, a word placing it ("to write in phase 3", "N/A for this repo"). */
const NOT_MADE_END = String.raw`(?=\s*$|\s*[,;.)\]\u2014\u2013-]|\s+(?:in|by|on|at|for|after|once|when|next|later)\b)`;
/**
 * A note saying the file is not made yet: "to write", "to be created in phase 3", "planned",
 * "not yet written", "TODO", "pending", "next", "deferred"; never one about work on a file that
 * exists ("pending review", "TODO: add tests").
 */
const PLANNED = new RegExp(String.raw`^(?:(?:still|yet)\s+)?(?:to\s+(?:be\s+)?(?:written|write|created|create|added|add|made|make|generated|generate)|todo|to-do|to\s+do|planned|not\s+(?:yet\s+)?(?:written|created|made|started|added|generated)(?:\s+yet)?|will\s+be\s+(?:written|created|added|generated)|coming(?:\s+soon)?|upcoming|(?:up\s+)?next|pending|tbd|deferred|postponed|on\s+hold)` + NOT_MADE_END, 'i');
/**
 * A note saying the file is not to be made at all: "N/A", "not applicable", "skipped", "won't do",
 * "cancelled", "out of scope", "optional", "never created" (red team 64: these were missing files
 * while "(not needed)" and "(TBD)" were notes). Read as a plan is: a note while no commit made the
 * file, its deletion drift once one did.
 */
const NOT_MEANT = new RegExp(String.raw`^(?:(?:intentionally|deliberately)\s+)?(?:n\/a|not\s+(?:applicable|relevant|required|necessary|wanted|doing)|unnecessary|unneeded|optional|skip(?:ped)?|won['\u2019]?t\s+(?:do|fix|make|create|add|write|need)|will\s+not\s+(?:do|make|create|add|write|be\s+(?:done|made|created|added|written|needed))|cancell?ed|out[\s-]+of[\s-]+scope|de-?scoped|abandoned|never\s+(?:created|made|written|added|generated|needed|built))` + NOT_MADE_END, 'i');

/**
 * The clauses of a note, for a word on the file's fate after others: "obsolete, removed", "dead
 * code; deleted", "legacy — removed this session", "consolidated into src/b.ts and removed".
 */
// The leading blanks from a run's first only (see NOTE_START); a split never resumes inside a run.
const CLAUSE_BREAK = /(?:(?<!\s)\s+)?(?:[,;:]|[\u2014\u2013]|\s-\s|\s(?:and|&|then)\s)\s*/i;

/** What an entry's note says happened to its file when it says the file is gone ("removed in PR 40"), else null. */
export function goneNote(entry: string): string | null {
  const note = entryNote(entry);
  return note.split(CLAUSE_BREAK).some((clause) => GONE.test(clause) || GONE_OTHERWISE.test(clause)) ? note : null;
}

/** An entry's note when it says the file is not made, yet ("to write") or at all ("N/A"), else null. */
export function plannedNote(entry: string): string | null {
  const note = entryNote(entry);
  return PLANNED.test(note) || NOT_MEANT.test(note) ? note : null;
}

/** Whether a note plannedNote read says the file is still to be made ("to write"), not that it never will be ("N/A"). */
export function madeLater(note: string): boolean {
  return PLANNED.test(note);
}

/**
 * A URL query after a path: as GitHub links to a file's source ("docs/x.md?plain=1": a glob has no
 * "="), or a bundler's import suffix right after a file's extension ("src/a.svg?raw", Vite's
 * `?url`, `?inline`: a glob's `?` stands for one character inside a name, not after its extension).
 */
// One `[^\s/?]*` for all pairs ("&" and "=" are in it): a repeated `(?:&k=v)*` after it backtracked
// exponentially ("x.md?a=&0=&0=…/" of 40 pairs took hours).
const URL_QUERY = /\?[\w.-]+=[^\s/?]*$|(?<=\.[A-Za-z0-9]{1,10})\?[a-z]+(?:&[a-z]+)*$/;

/**
 * A name with no folder, extension or pattern ("Makefile", "HEAD", "tests", "TBD"), or "n/a":
 * text alone cannot tell a file from a word; git can.
 */
function isBareName(text: string): boolean {
  return NOT_APPLICABLE.test(text) || (/^[^\s/\\*?[\]{}]+$/.test(text) && text !== '.' && text !== '..');
}
const NOT_APPLICABLE = /^n\/a$/i;

/**
 * A relative path with spaces in its names and a file extension, no pattern, no `..`
 * ("docs/my notes.md", "My Notes.md"); prose ending in a file name passes too, and stays a note
 * unless git knows a file by that whole text.
 */
const SPACED_PATH = /^(?!\/|\.\.\/)(?!.*\/\.\.(?:\/|$))[^\s*?[\]{}\\](?:[^*?[\]{}\\\n\r]*[^\s*?[\]{}\\])?\.[A-Za-z0-9]{1,10}$/;

/**
 * An absolute path with spaces in its names and a file extension, no pattern, no `..`
 * ("/Users/me/My Project/docs/a.md", "C:\\Users\\me\\My Project\\src\\x.ts"): a checkout or a
 * project_dir in a folder named with a space. Each name starts and ends with a non-space and a
 * POSIX path's first has none ("/home", "/Users", "/Volumes"), so prose after a slash ("/ see the
 * notes", "/cc see docs/auth.md") is none, nor is a drive in words ("C: drive cleanup").
 */
const SPACED_ABSOLUTE = /^(?!.*(?:^|[\\/])\.\.(?:[\\/]|$))(?:\/[^\s\\/*?[\]{}]+\/|[A-Za-z]:[\\/]|\\\\)(?:[^\s\\/*?[\]{}](?:[^\\/*?[\]{}\n\r]*[^\s\\/*?[\]{}])?[\\/])*[^\s\\/*?[\]{}][^\\/*?[\]{}\n\r]*\.[A-Za-z0-9]{1,10}$/;

/** A Windows absolute path: a drive ("C:\\x", "c:/x") or a UNC share ("\\\\host\\share"). */
export const WINDOWS_ABSOLUTE = /^(?:[A-Za-z]:[\\/]|\\\\[^\\])/;

/**
 * A path from a home folder, however a shell writes it: "~/x", "$HOME/x", "${HOME}/x", Windows'
 * "%USERPROFILE%\\x" (or %HOME%, PowerShell's $env:USERPROFILE). Whose home? None in this checkout.
 */
export const HOME_PATH = /^(?:~|\$HOME|\$\{HOME\}|%(?:USERPROFILE|HOME)%|\$env:(?:USERPROFILE|HOME))(?:[\\/]|$)/i;

/** How a path that may lie outside a checkout starts: a home, the root, a drive or share, a file:// URL, a climb. */
const OUTSIDE_START = /^(?:\/[^\s/]|[A-Za-z]:[\\/]|\\\\|file:|\.\.[\\/])/i;

/**
 * The words of an entry written as paths that may lie outside the checkout ("~/.ssh/id_rsa and
 * src/b.ts", "src/a.ts; $HOME/.aws/credentials"), quotes and the sentence's punctuation taken
 * off; whether each does, the caller judges. Entries people write as prose join them any way.
 */
export function outsideMentions(entry: string): string[] {
  if (!/\s/.test(entry.trim())) return [];
  const words = entry.trim().split(/\s+/).map((w) => unquote(stripAround(w)));
  return [...new Set(words.filter((w) => HOME_PATH.test(w) || OUTSIDE_START.test(w)))];
}

/** Whether `text` (already stripped of notes) reads as a file path rather than prose. */
function looksLikePath(text: string): boolean {
  if (!text || /\s/.test(text)) return false;
  return text.includes('/') || WINDOWS_ABSOLUTE.test(text) || /\.[A-Za-z0-9]{1,10}$/.test(text) || GLOB_CHARS.test(text) || bracedList(text);
}

/**
 * Whether `text` holds a brace list, a "{" then a "," before the next "}" ("src/{a,b}.ts"). By hand:
 * /\{[^}]*,[^}]*\}/ retried from each "{" and each "," (cubic on a hostile run of them).
 */
function bracedList(text: string): boolean {
  let open = false;
  let comma = false;
  for (const ch of text) {
    if (ch === '}') {
      if (open && comma) return true;
      open = comma = false;
    } else if (ch === '{') open = true;
    else if (ch === ',' && open) comma = true;
  }
  return false;
}

/**
 * The entries one generated_files string holds: itself, or, when no file is named by it as
 * written (nor by its path text) and it splits on ", " into parts that each read as a path
 * ("src/a.ts, src/b.ts (PR 4)"), each part, so every listed file is checked; a part that is
 * paths joined by a bare comma ("src/x.ts,src/a.ts") is split too (commaSplit says when).
 */
export function entryParts(entry: string, exists: (path: string) => boolean): string[] {
  if (!LIST_JOINER.test(entry) && !entry.includes(',')) return [entry];
  const whole = entry.trim();
  return exists(whole) || exists(entryPathText(whole)) ? [entry] : listParts(entry).flatMap((part) => commaSplit(part, exists));
}

/**
 * `part` split at its bare commas ("src/x.ts,src/a.ts", red team rtB 06) when no file has its
 * whole path (a name holding a comma is itself), a file has one piece's, and each other piece
 * names a file: one that exists, or a path ending in a file's extension, a folder's slash, or
 * holding a pattern (a listed file deleted since is then named missing on its own). Else `part`:
 * with no piece on disk, "a.ts,b.ts" may as well be one file's name.
 */
function commaSplit(part: string, exists: (path: string) => boolean): string[] {
  const pieces = commaPieces(part);
  if (pieces.length < 2 || exists(entryPathText(part))) return [part];
  const found = pieces.map((p) => exists(entryPathText(p)));
  return found.some(Boolean) && pieces.every((p, i) => found[i] || namedFile(entryPathText(p))) ? pieces : [part];
}

/**
 * `text` cut at each comma with no space after it, outside brackets (a brace's "{a,b}" stays
 * whole), before any note: each piece but the last is one word, a list's marker aside ("src/a.ts
 * (PR 1,2)" is one path and its note). [text] when there is no such comma, or `text` is a URL.
 */
function commaPieces(text: string): string[] {
  const t = text.trim();
  if (!t.includes(',') || isUrl(t)) return [text];
  const { pieces } = cutOutsideBrackets(t, (i) => (t[i] === ',' && i + 1 < t.length && !/\s/.test(t[i + 1]!) ? ',' : undefined));
  if (pieces.length < 2) return [text];
  const words = pieces.slice(0, -1).every((piece, k) => piece !== '' && !/\s/.test(k === 0 ? piece.replace(LIST_MARKER, '') : piece));
  return words ? pieces : [text];
}

/**
 * `text` cut at each separator `at` finds (its text at index i, or undefined) outside brackets:
 * "(PR 1, 4cb0b09)", "{a,b}" and "[x]" stay whole. The pieces, and the separators cut at.
 */
function cutOutsideBrackets(text: string, at: (i: number) => string | undefined): { pieces: string[]; cuts: string[] } {
  const pieces: string[] = [];
  const cuts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if ((ch === ')' || ch === ']' || ch === '}') && depth > 0) depth--;
    else if (depth === 0) {
      const cut = at(i);
      if (cut === undefined) continue;
      pieces.push(text.slice(start, i));
      cuts.push(cut);
      start = i + cut.length;
      i = start - 1;
    }
  }
  pieces.push(text.slice(start));
  return { pieces, cuts };
}

/** Every part entryParts may read `entry` as, whatever exists: where a lookup of a tip's files must look. */
export function entryPartCandidates(entry: string): string[] {
  return [...new Set([entry, ...listParts(entry)].flatMap((part) => [part, ...commaPieces(part)]))];
}

/**
 * The files prose names where a path should stand ("see docs/auth.md for details", "Refactored
 * the auth flow in src/x.ts", red team D1): each one a file has now, worth a re-read when it
 * changed; null when the entry is no such prose. A path the prose names that no file has stays
 * unchecked, never "missing": prose tells of files gone or still to write ("src/old.ts was
 * folded into src/new.ts"), and a plan ("- [ ] write docs/guide.md") names nothing made yet.
 */
export function proseParts(entry: string, exists: (path: string) => boolean): string[] | null {
  const mentions = proseMentions(entry);
  if (!mentions.length) return null;
  const target = parseEntry(entry, exists);
  // Prose is what reads as a note: no path of its own, no URL, not struck off the list, no plan.
  if (target.kind !== 'note' || target.url !== undefined || target.struck !== undefined) return null;
  if (OPEN_BOX.test(unquote(entry.trim()))) return null;
  const named = mentions.flatMap((m) => {
    const t = parseEntry(m, exists);
    return t.kind === 'path' && exists(t.path) ? [t.path] : [];
  });
  return named.length ? [...new Set(named)] : null;
}

const OPENING = new Set(['(', '[', '{', '"', "'", '`', '\u201c', '\u2018']);
const CLOSING = new Set([')', ']', '}', '"', "'", '`', '\u201d', '\u2019', '.', ',', ';', ':', '!', '?']);

/**
 * `word` without the brackets and quotes before it and the closing ones and punctuation after it.
 * By hand: a regex anchored at the end retries from each character of a long run of them.
 */
function stripAround(word: string): string {
  let from = 0;
  let to = word.length;
  while (from < to && OPENING.has(word[from]!)) from++;
  while (to > from && CLOSING.has(word[to - 1]!)) to--;
  return word.slice(from, to);
}

/**
 * The words of an entry that read as a path in a folder with a file's extension ("docs/auth.md",
 * "`src/x.ts`,", "(src/y.ts:12)"), quotes and the sentence's punctuation around them taken off:
 * what prose may name. Not URLs. Whether a file has the path, the caller's `exists` says.
 */
export function proseMentions(entry: string): string[] {
  if (!/\s/.test(entry.trim())) return [];
  const words = entry.trim().split(/\s+/).map((w) => unquote(stripAround(w)));
  return [...new Set(words.filter((w) => /[/\\]/.test(w) && /\.[A-Za-z][A-Za-z0-9]{0,9}(?:[:#@][\w~^:#-]*)?$/.test(w) && !isUrl(w) && !GLOB_CHARS.test(w)))];
}

/** The parts of `entry` read as a list of paths ("src/a.ts, src/b.ts"), else `entry` alone. */
export function listParts(entry: string): string[] {
  if (!LIST_JOINER.test(entry)) return [entry];
  // "a.ts, b.ts etc": the files before a list's tail are listed all the same (one alone stays prose).
  const { parts, worded } = splitTopLevel(entry.trim().replace(LIST_TAIL, ''));
  // Joined by a word ("Q and A.md", "Tips & Tricks.md"), each part must name a file by its extension.
  const fits = (p: string) => (worded ? namedFile(entryPathText(p)) : looksLikePath(entryPathText(p)));
  return parts.length > 1 && parts.every(fits) ? parts : [entry];
}

/** A path ending in a file's extension, a folder's slash, or holding a pattern. */
const NAMED_FILE = /^\S+(?:\.[A-Za-z][A-Za-z0-9]{0,9}|\/|[*?[\]{}]\S*)$/;
// A blank first: NAMED_FILE matches none, but retried from each "*" before it, each to the end.
const namedFile = (text: string): boolean => !/\s/.test(text) && NAMED_FILE.test(text);

/** What joins the paths of a list written in one entry: "a.ts, b.ts", "a.ts and b.ts", "a.ts & b.ts", "a.ts; b.ts", "a.ts + a.test.ts". */
const LIST_JOINER = /, |; | and | & | \+ /;
/** How a list trails off, said of the files before it (red team, 12-06): "etc", "etc.", "and more", "…". */
// `(?<!\s)`: a run of blanks tried from its first only (see NOTE_START).
const LIST_TAIL = /(?:,\s*|(?<!\s)\s+)(?:etc\.?|and\s+(?:more|others|so\s+on)|\.{3}|\u2026)$/i;
const JOINER_AT = new RegExp(`^(?:${LIST_JOINER.source})`);

/**
 * `text` split at each list joiner outside brackets: a note's "(PR 1, 4cb0b09)" and a brace's
 * "{a, b}" stay whole; `worded`: a joiner other than ", " split it (" + " too: "C + C++.md" is one name).
 */
function splitTopLevel(text: string): { parts: string[]; worded: boolean } {
  const { pieces, cuts } = cutOutsideBrackets(text, (i) => JOINER_AT.exec(text.slice(i, i + 5))?.[0]);
  return { parts: pieces.map((p) => p.trim()), worded: cuts.some((c) => c !== ', ') };
}

/**
 * The target of one generated_files entry. `exists` answers for the whole entry first, so
 * a real file whose name has spaces or dashes is taken literally.
 */
const EXCLUSION = /^!(?=[\w.*/[{-])/;

export function parseEntry(entry: string, exists: (path: string) => boolean): EntryTarget {
  const whole = entry.trim();
  if (whole && exists(whole)) return { kind: 'path', path: whole };
  const struck = STRUCK.exec(unquote(whole));
  if (struck) return { kind: 'note', struck: struck[1]! };
  if (OPEN_BOX.test(unquote(whole))) return { kind: 'note' };
  // "!src/gen/*.snap": a gitignore-style exclusion from the list's patterns, not a file to expect.
  if (EXCLUSION.test(unquote(whole))) return { kind: 'note', excluded: true };
  let text = entryPathText(whole);
  // Behind a list's marker or a verb of work ("- v1.2", "Added Node.js"), a name with no folder is
  // as likely a word as a file: one only if git knows it, as a bare name is.
  const listed = entryText(whole) !== unquote(whole);
  // A URL names no file here, whatever its path says; kept as written (a path's "//" would fold).
  if (isUrl(text)) return { kind: 'note', url: text };
  if (text && text !== whole && exists(text)) return { kind: 'path', path: text };
  // "docs/x.md?plain=1": the file a GitHub link shows as source.
  const query = URL_QUERY.exec(text);
  if (query && query.index > 0) {
    text = text.slice(0, query.index);
    if (exists(text)) return { kind: 'path', path: text };
  }
  // "src/x.ts:12-40", "src/x.ts#L12-L40": a place in the file (a file named so was taken above).
  // Its end only: the regex, anchored there, retried from each "::" or ":" of a hostile run.
  const placeFrom = Math.max(0, text.length - PLACE_CHARS);
  const place = PLACE_IN_FILE.exec(text.slice(placeFrom));
  const file = place ? text.slice(0, placeFrom + place.index) : '';
  if (place && /[^:#\s]$/.test(file)) {
    text = file;
    if (exists(text)) return { kind: 'path', path: text };
  }
  // "src/x.ts@4cb0b09": the file, at the version the entry pins (a file named so was taken above).
  const pinned = AT_REVISION.exec(text);
  if (pinned && looksLikePath(text.slice(0, pinned.index))) {
    text = text.slice(0, pinned.index);
    if (exists(text)) return { kind: 'path', path: text };
  }
  // "src\\x.ts" written on Windows: backslashes are separators when no file has the name as
  // written, whether or not one has it slashed (a deleted ".\\src\\a.ts" is looked up as src/a.ts).
  if (text.includes('\\') && !WINDOWS_ABSOLUTE.test(text) && !exists(text)) {
    text = text.replace(/\\/g, '/');
    if (exists(text)) return { kind: 'path', path: text };
  }
  // No file has a NUL in its name (git cannot hold one): text with one names none.
  if (text.includes('\0')) return { kind: 'note' };
  if (listed && !/[/\\]/.test(text) && !GLOB_CHARS.test(text)) return isBareName(text) ? { kind: 'note', name: text } : { kind: 'note' };
  if (!looksLikePath(text) || NOT_APPLICABLE.test(text)) {
    if (isBareName(text)) return { kind: 'note', name: text };
    // "/home/me/My Project/docs/a.md": a path (mapped from project_dir, or outside the repository), as one without spaces is.
    if (SPACED_ABSOLUTE.test(text)) return { kind: 'path', path: text };
    // "docs/my notes.md" no file has now: a file if git knows it (renamed, deleted), as a bare name.
    return SPACED_PATH.test(text) ? { kind: 'note', name: text.replace(/^\.\//, '') } : { kind: 'note' };
  }
  const alternatives = expandBraces(text);
  if (alternatives.length === 1 && !GLOB_CHARS.test(text)) return { kind: 'path', path: alternatives[0]! };
  // A pattern ending in "/" names folders ("docs/*/"): it matches the files under them.
  return { kind: 'pattern', text, alternatives: alternatives.map((a) => (a.endsWith('/') && GLOB_CHARS.test(a) ? `${a}**` : a)) };
}

/**
 * Every path parseEntry may ask `exists` about for `entry` (all of them, as when none exists),
 * and its target's paths: where a listing of a commit's tree must look to answer it.
 */
export function entryLookups(entry: string): string[] {
  const asked: string[] = [];
  const target = parseEntry(entry, (path) => {
    asked.push(path);
    return false;
  });
  if (target.kind === 'path') asked.push(target.path);
  else if (target.kind === 'pattern') asked.push(...target.alternatives);
  return asked;
}

/** "a/{b,c}/d.{ts,js}" -> four paths; nested braces expand too; unbalanced braces stay literal. */
export function expandBraces(text: string): string[] {
  const open = text.indexOf('{');
  if (open < 0) return [text];
  let depth = 0;
  const commas: number[] = [];
  for (let i = open; i < text.length; i++) {
    const ch = text[i];
    if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) {
      if (!commas.length) return expandBraces(text.slice(i + 1)).map((rest) => text.slice(0, i + 1) + rest);
      const head = text.slice(0, open);
      const bounds = [open, ...commas, i];
      const parts = bounds.slice(0, -1).map((b, k) => text.slice(b + 1, bounds[k + 1]));
      const tails = expandBraces(text.slice(i + 1));
      const out: string[] = [];
      for (const part of parts) {
        for (const mid of expandBraces(part)) {
          for (const tail of tails) {
            if (out.length >= MAX_EXPANSION) return out;
            out.push(head + mid + tail);
          }
        }
      }
      return out;
    } else if (ch === ',' && depth === 1) commas.push(i);
  }
  return [text];
}

/**
 * A pattern whose only glob characters are brackets: matching nothing, it is most likely a path
 * with brackets in its name that is gone (a Next.js route, `app/[id]/page.tsx`).
 */
export function bracketsOnly(text: string): boolean {
  return !WILDCARDS.test(text);
}

export function hasGlob(text: string): boolean {
  return GLOB_CHARS.test(text);
}

/** The directory a glob's matches must be under: its segments before the first wildcard. */
export function globBase(glob: string): string {
  const segments = glob.split('/');
  const first = segments.findIndex((s) => GLOB_CHARS.test(s));
  return segments.slice(0, first < 0 ? segments.length - 1 : first).join('/');
}

/** The commit-like token in a verified_for_sha value ("branch (pre-commit; base e5ea561)" -> e5ea561). */
export function commitToken(value: string): string | null {
  const trimmed = value.trim();
  // Both cases spelt out rather than the i flag: the same matches (it folds ASCII letters only),
  // and V8 compiles an i-flag class by closing it over Unicode case, about 1M instructions here.
  if (/^[0-9a-fA-F]{4,40}$/.test(trimmed)) return trimmed;
  const tokens = [...trimmed.matchAll(/(?:^|[^0-9A-Za-z])([0-9a-fA-F]{7,40})(?![0-9A-Za-z])/g)].map((m) => m[1]!);
  // Prefer a token with a digit and a letter: "decade" or "1234567" alone are rarely shas.
  return tokens.find(looksLikeSha) ?? tokens[0] ?? null;
}

const looksLikeSha = (t: string) => /\d/.test(t) && /[a-fA-F]/.test(t);

/**
 * Whether commitToken's answer for `value` is only a guess: a token of digits alone or letters
 * alone inside prose ("CI build 20261201 green", "defaced"), which is rarely a commit id. One
 * that names no commit is then prose, not drift.
 */
export function isGuessedCommitToken(value: string, token: string): boolean {
  return value.trim() !== token && !looksLikeSha(token);
}
