// A git config file's text read without git (doctor and the git-dir refusal run without a git
// binary): the last value of one key in one section, as git would take it; and where git looks
// for config files on each platform.
import { posix, win32 } from 'node:path';

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

/** Where git looks for its config and attributes outside the repository (lowest precedence first). */
export interface ConfigPlaces {
  /** System files: on Windows `%PROGRAMDATA%\Git\config` then the install's `etc\gitconfig`. */
  system: string[];
  /** Global files: the XDG one, then `~/.gitconfig` (or GIT_CONFIG_GLOBAL alone). */
  global: string[];
  /** The default global attributes file (core.attributesFile unset), null for none. */
  globalAttributes: string | null;
  /** The default global ignore file (core.excludesFile unset), null for none. */
  globalIgnore: string | null;
  /** The system attributes file, null for none (GIT_ATTR_NOSYSTEM). */
  systemAttributes: string | null;
}

/** What git's config lookup depends on: its environment, platform, and (Windows) its install folder. */
export interface ConfigLookup {
  env: Readonly<Record<string, string | undefined>>;
  platform: NodeJS.Platform;
  /** The user's home as the OS gives it (os.homedir()), for when HOME is unset. */
  homedir: string;
  /** Windows: the Git for Windows folder (holding etc\gitconfig), null when unknown. */
  gitInstall?: string | null;
}

/**
 * git's own lookup of the config files it reads before the repository's (config.c
 * git_system_config / git_global_config; Git for Windows adds %PROGRAMDATA%\Git\config below the
 * system file and takes HOME from HOMEDRIVE+HOMEPATH or USERPROFILE when unset). Pure: the
 * caller gives the environment, platform and install folder.
 */
export function configPlaces({ env, platform, homedir, gitInstall = null }: ConfigLookup): ConfigPlaces {
  const windows = platform === 'win32';
  const join = (...parts: string[]) => (windows ? win32 : posix).join(...parts);
  const system: string[] = [];
  if (!envBool(env.GIT_CONFIG_NOSYSTEM)) {
    if (windows && env.PROGRAMDATA) system.push(join(env.PROGRAMDATA, 'Git', 'config'));
    if (env.GIT_CONFIG_SYSTEM !== undefined) {
      if (env.GIT_CONFIG_SYSTEM !== '') system.push(env.GIT_CONFIG_SYSTEM);
    } else if (!windows) system.push('/etc/gitconfig');
    else if (gitInstall) system.push(join(gitInstall, 'etc', 'gitconfig'));
  }
  const home = env.HOME || (windows ? (env.HOMEDRIVE && env.HOMEPATH ? env.HOMEDRIVE + env.HOMEPATH : env.USERPROFILE) : undefined) || homedir;
  const xdg = env.XDG_CONFIG_HOME ? join(env.XDG_CONFIG_HOME, 'git') : home ? join(home, '.config', 'git') : null;
  const global = env.GIT_CONFIG_GLOBAL !== undefined ? (env.GIT_CONFIG_GLOBAL === '' ? [] : [env.GIT_CONFIG_GLOBAL]) : [...(xdg ? [join(xdg, 'config')] : []), ...(home ? [join(home, '.gitconfig')] : [])];
  const systemAttributes = envBool(env.GIT_ATTR_NOSYSTEM) ? null : !windows ? '/etc/gitattributes' : gitInstall ? join(gitInstall, 'etc', 'gitattributes') : null;
  return { system, global, globalAttributes: xdg ? join(xdg, 'attributes') : null, globalIgnore: xdg ? join(xdg, 'ignore') : null, systemAttributes };
}

/**
 * The Git for Windows folder a `git.exe` found in `dir` belongs to: `cmd`, `bin` and
 * `mingw64\bin` (and its 32-bit and ARM siblings) all sit under it. Null for another layout.
 */
export function windowsGitInstall(dir: string): string | null {
  const parts = dir.replace(/[\\/]+$/, '').split(/[\\/]/);
  const last = parts.at(-1)?.toLowerCase();
  if (last === 'cmd' || (last === 'bin' && !/^(?:mingw64|mingw32|clangarm64|usr)$/i.test(parts.at(-2) ?? ''))) return parts.length > 1 ? parts.slice(0, -1).join('\\') : null;
  if (last === 'bin') return parts.length > 2 ? parts.slice(0, -2).join('\\') : null;
  return null;
}

/** An environment boolean as git reads one (git_env_bool): unset or empty false, else git's boolean spellings. */
export function envBool(value: string | undefined): boolean {
  if (value === undefined || value === '') return false;
  const v = value.trim().toLowerCase();
  if (['false', 'no', 'off'].includes(v)) return false;
  if (['true', 'yes', 'on'].includes(v)) return true;
  // git takes an integer as a boolean (non-zero: true); it refuses other text, read here as set.
  return /^[-+]?\d+$/.test(v) ? Number(v) !== 0 : true;
}
