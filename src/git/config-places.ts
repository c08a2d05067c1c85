// The config and attributes files git reads outside the repository, for this process: its
// environment and platform, and on Windows the Git for Windows folder (found from git.exe on
// PATH, else the usual Program Files one; looked up once per process).
import { existsSync } from 'node:fs';
import { win32 } from 'node:path';
import { configPlaces, windowsGitInstall, type ConfigPlaces } from './config-file.js';

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
