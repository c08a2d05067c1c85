// JSON paths as messages show them.

/**
 * The key a bracketed path segment's quoted text (`"a.b"`, as JSON or as a message printed it)
 * names: JSON's escapes, plus the \xNN text output shows a control character with (U+009B as
 * \x9b, where JSON leaves it raw). Throws SyntaxError for text that is neither.
 */
export function printedKey(quotedText: string): string {
  // Escape by escape, so an escaped backslash before an x (`\\x41`) stays two characters.
  const json = quotedText.replace(/\\(?:x([0-9a-fA-F]{2})|[\s\S])/g, (escape, hex: string | undefined) => (hex === undefined ? escape : `\\u00${hex}`));
  const key: unknown = JSON.parse(json);
  if (typeof key !== 'string') throw new SyntaxError('not a quoted key');
  return key;
}

/** `a.b[2].c`-style display path; keys that are not identifiers are quoted. */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  const seg = /^[A-Za-z_$][\w$-]*$/.test(key) ? key : JSON.stringify(key);
  return base ? `${base}.${seg}` : seg;
}

const INDEX = /^\[(\d+)\]/;
const QUOTED = /^"(?:[^"\\]|\\.)*"/;
const IDENTIFIER = /^[A-Za-z_$][\w$-]*/;

/** The keys and indexes of a path joinPath made (`(root)`: none), or null for a text it could not have made. */
export function pathKeys(path: string): (string | number)[] | null {
  if (path === '(root)') return [];
  const keys: (string | number)[] = [];
  for (let rest = path; rest; ) {
    const index = INDEX.exec(rest);
    if (index) {
      keys.push(Number(index[1]));
      rest = rest.slice(index[0].length);
      continue;
    }
    if (keys.length) {
      if (rest[0] !== '.') return null;
      rest = rest.slice(1);
    }
    const quoted = QUOTED.exec(rest);
    const name = quoted ?? IDENTIFIER.exec(rest);
    if (!name) return null;
    keys.push(quoted ? (JSON.parse(quoted[0]) as string) : name[0]);
    rest = rest.slice(name[0].length);
  }
  return keys;
}

// A dotted segment: letters and digits of any script (`café`, `größe`, `進捗`; combining marks after
// the first), `_`, `$`, and `-` after the first, so it never reads as an option. Anything else
// (spaces, quotes, shell syntax, format characters) is written in brackets: a["key"].
export const DOTTED_SEGMENT = /^[\p{L}\p{N}_$][\p{L}\p{N}\p{M}_$-]*$/u;

// One segment of a path as conflict messages print it: `[2]`, or `["a.b"]` (a JSON string).
const BRACKET = /^\[(?:(\d+)|("(?:[^"\\]|\\.)*"))\]/;

/**
 * The segments of a path as update takes it and conflicts print it: `a.b.1.c`, `skill_state.café`,
 * or `x_obj["a.b"]`, `progress_table[1].status` (a key holding a dot or a space), indices as their
 * digits, so every spelling of one path gives the same segments. `bad`: the text it stops at, the
 * segments before it given.
 */
export function splitPath(raw: string): { segments: string[]; bad?: string } {
  const segments: string[] = [];
  let rest = raw;
  while (true) {
    const b = BRACKET.exec(rest);
    if (b) {
      try {
        segments.push(b[1] ?? printedKey(b[2]!)); // as JSON writes it, or as a message printed it (\x9b)
      } catch {
        return { segments, bad: b[0] }; // a bad escape inside the quotes
      }
      rest = rest.slice(b[0].length);
    } else {
      const end = rest.search(/[.[]/);
      const seg = end === -1 ? rest : rest.slice(0, end);
      if (!DOTTED_SEGMENT.test(seg)) return { segments, bad: seg };
      segments.push(seg);
      rest = end === -1 ? '' : rest.slice(end);
    }
    if (!rest) return { segments };
    // A bracket follows a segment directly; a dot must lead to another segment.
    if (rest.startsWith('.')) {
      rest = rest.slice(1);
      if (!rest || rest.startsWith('[')) return { segments, bad: rest };
    } else if (!rest.startsWith('[')) return { segments, bad: rest };
  }
}
