// The config, ignore and attributes files git reads outside the repository, for this process:
// its environment and platform, and on Windows the Git for Windows folder (found from git.exe on
// PATH, else the usual Program Files one; looked up once per process).
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve, win32 } from 'node:path';
import { configEntries, configPlaces, envBool, windowsGitInstall, type ConfigPlaces } from './config-file.js';
import { readGitFile } from './git-file.js';

let windowsInstall: string | null | undefined;
/** node:os loads only when asked: status bundles this file (through index-status.ts) yet never asks. */
const homedir = (): string => process.getBuiltinModule('node:os').homedir();

export function currentConfigPlaces(): ConfigPlaces {
  const env = process.env;
  const windows = process.platform === 'win32';
  if (windows) windowsInstall ??= findWindowsInstall(env);
  return configPlaces({ env, platform: process.platform, homedir: homedir(), gitInstall: windows ? windowsInstall : null });
}

function findWindowsInstall(env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? env.Path ?? '').split(';')) {
    if (dir && existsSync(win32.join(dir, 'git.exe'))) {
      const install = windowsGitInstall(dir);
      if (install) return install;
    }
  }
  const usual = env.ProgramFiles ? win32.join(env.ProgramFiles, 'Git') : null;
  return usual && existsSync(win32.join(usual, 'etc', 'gitconfig')) ? usual : null;
}

/** The config files git reads for a repository, lowest precedence first: system, global, the repository's, config.worktree when on. */
export function repositoryConfigFiles(gitdir: string, commonDir: string, places: ConfigPlaces = currentConfigPlaces()): string[] {
  const files = [...places.system, ...places.global, join(commonDir, 'config')];
  if (worktreeConfigOn(commonDir)) files.push(join(gitdir, 'config.worktree'));
  return files;
}

/** Whether the repository config turns on extensions.worktreeConfig (git then reads config.worktree). */
export function worktreeConfigOn(commonDir: string): boolean {
  let on = false;
  for (const e of configEntries(readGitFile(join(commonDir, 'config')) ?? '')) if (e.section === 'extensions' && e.subsection === null && e.key === 'worktreeconfig') on = e.value === null || envBool(e.value);
  return on;
}

/** The rule files git reads outside the work tree (null: none). */
export interface OutsideRuleFiles {
  excludes: string | null;
  attributes: string | null;
  systemAttributes: string | null;
}

/**
 * Those files for a git run at `root`: core.excludesFile and core.attributesFile as the config
 * files set them (the last one wins; `~/` is HOME, a relative path is taken from `root` as git,
 * run there, takes it), else git's XDG defaults; and the system attributes file. Includes are
 * not followed.
 */
export function outsideRuleFiles(root: string, gitdir: string, commonDir: string): OutsideRuleFiles {
  const places = currentConfigPlaces();
  let excludes: string | null | undefined;
  let attributes: string | null | undefined;
  for (const file of repositoryConfigFiles(gitdir, commonDir, places)) {
    // git reads only absolute paths here (as index-status.ts oddConfig): a relative one names no config.
    if (!isAbsolute(file) || file === '/dev/null') continue;
    for (const e of configEntries(readGitFile(file) ?? '')) {
      if (e.section !== 'core' || e.subsection !== null || e.value === null) continue;
      if (e.key === 'excludesfile') excludes = e.value;
      else if (e.key === 'attributesfile') attributes = e.value;
    }
  }
  const home = process.env.HOME || homedir();
  const place = (value: string | null | undefined, fallback: string | null): string | null => {
    if (value === undefined) return fallback;
    if (!value) return null;
    const expanded = value === '~' ? home : value.startsWith('~/') ? join(home, value.slice(2)) : value;
    return resolve(root, expanded);
  };
  return { excludes: place(excludes, places.globalIgnore), attributes: place(attributes, places.globalAttributes), systemAttributes: places.systemAttributes };
}
