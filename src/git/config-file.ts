// A git config file's text read without git (doctor and the git-dir refusal run without a git
// binary): the last value of one key in one section, as git would take it.

/** One `key = value` of a config file, under its section (lower-cased) and subsection (null: none). */
export interface ConfigEntry {
  section: string;
  subsection: string | null;
  /** Lower-cased. */
  key: string;
  /** As git reads it (decodeConfigValue); null for a key written without `=` (git's boolean true). */
  value: string | null;
}

/**
 * Every entry of a config file's text, in order, as git parses them: a header may carry an entry
 * on its own line (`[core] autocrlf = true`), and git's older `[section.subsection]` form names the
 * subsection lower-cased (missing it, doctor would ask for install-driver, which finds the driver
 * set: a loop). Headers alone are entries too (key ''), so a caller can see an include section.
 */
export function configEntries(text: string): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  let section = '';
  let subsection: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    const header = /^\[\s*([^\]\s"]+)(?:\s+"([^"]*)")?\s*\]\s*/.exec(line);
    if (header) {
      const name = header[1]!;
      [section, subsection] = header[2] !== undefined ? [name.toLowerCase(), header[2]] : [name.replace(/\..*$/, '').toLowerCase(), /\.(.*)$/.exec(name)?.[1]?.toLowerCase() ?? null];
      out.push({ section, subsection, key: '', value: null });
      line = line.slice(header[0].length);
    }
    const kv = /^([A-Za-z][-A-Za-z0-9]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (kv) out.push({ section, subsection, key: kv[1]!.toLowerCase(), value: kv[2] === undefined ? null : decodeConfigValue(kv[2]) });
  }
  return out;
}

/** `key` under `[section "subsection"]` (subsection null: plain `[section]`), last one wins; null when unset. */
export function configValue(text: string, section: string, subsection: string | null, key: string): string | null {
  let value: string | null = null;
  for (const e of configEntries(text)) if (e.section === section && e.subsection === subsection && e.key === key && e.value !== null) value = e.value;
  return value;
}

/** A git config value as git reads it: quotes dropped, escapes decoded, comments cut. */
export function decodeConfigValue(raw: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '"') quoted = !quoted;
    else if (c === '\\' && i + 1 < raw.length) {
      const e = raw[++i]!;
      out += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'b' ? '\b' : e;
    } else if (!quoted && (c === ';' || c === '#')) break;
    else out += c;
  }
  return out.trimEnd();
}
