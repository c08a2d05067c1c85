// A git config file's text read without git (doctor and the git-dir refusal run without a git
// binary): the last value of one key in one section, as git would take it.

/** `key` under `[section "subsection"]` (subsection null: plain `[section]`), last one wins; null when unset. */
export function configValue(text: string, section: string, subsection: string | null, key: string): string | null {
  let inSection = false;
  let value: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const header = /^\[\s*([^\]\s"]+)(?:\s+"([^"]*)")?\s*\]/.exec(line);
    if (header) {
      // git's older [section.subsection] form names the same section, its subsection lowercased:
      // missing it, doctor would ask for install-driver, which finds the driver set (a loop).
      const [name, sub] = header[2] !== undefined ? [header[1]!, header[2]] : [header[1]!.replace(/\..*$/, ''), /\.(.*)$/.exec(header[1]!)?.[1]?.toLowerCase() ?? null];
      inSection = name.toLowerCase() === section && sub === subsection;
      continue;
    }
    const kv = /^([A-Za-z][\w-]*)\s*=\s*(.*)$/.exec(line);
    if (inSection && kv && kv[1]!.toLowerCase() === key) value = decodeConfigValue(kv[2]!);
  }
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
