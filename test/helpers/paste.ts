// Pastes printed command lines into a real shell whose PATH holds only stubs for `checkpoint`
// and `git` (each records its arguments), in an empty folder: what the shell ran, what it said,
// and what it left behind show whether a line can run anything else or redirect anything.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, GIT_ENV, tempDir } from './repo.js';

export interface Pasted {
  /** Each stub run, in order: the command's name, then its arguments exactly as the shell passed them. */
  runs: string[][];
  stderr: string;
  status: number | null;
  /** What the lines left in the (empty) folder they ran in, beyond the stubs' record. */
  created: string[];
}

const STUB = '#!/bin/sh\n{ printf \'%s\\0\' "${0##*/}"; for a in "$@"; do printf \'%s\\0\' "$a"; done; printf \'\\001\'; } >> "$PASTE_LOG"\n';

/** Runs `lines` (one command each) as one script through `shell` (/bin/bash or /bin/sh). */
export function paste(lines: readonly string[], shell = '/bin/bash'): Pasted {
  const root = tempDir('cp-paste-');
  const bin = join(root, 'bin');
  const cwd = join(root, 'cwd');
  mkdirSync(bin);
  mkdirSync(cwd);
  for (const name of ['checkpoint', 'git']) {
    writeFileSync(join(bin, name), STUB);
    chmodSync(join(bin, name), 0o755);
  }
  const log = join(root, 'log');
  writeFileSync(log, '');
  const r = spawnSync(shell, ['-c', lines.join('\n')], { cwd, env: { PATH: bin, PASTE_LOG: log, HOME: cwd, LC_ALL: 'C.UTF-8' }, encoding: 'utf8' });
  const runs = readFileSync(log, 'utf8').split('\x01').slice(0, -1).map((rec) => rec.split('\0').slice(0, -1));
  return { runs, stderr: r.stderr, status: r.status, created: readdirSync(cwd) };
}

/** Whether `line` parses in bash at all (`bash -n`). */
export function parses(line: string): boolean {
  return spawnSync('/bin/bash', ['-n', '-c', line]).status === 0;
}

/**
 * Runs `line` as printed through `sh` in `cwd`, with `checkpoint` on PATH the built CLI (as an
 * installed package puts it there): whether the advice a command prints does what it says.
 */
export function pasteBuilt(cwd: string, line: string): { status: number | null; stdout: string; stderr: string } {
  const bin = join(tempDir('cp-paste-bin-'), 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'checkpoint'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(join(bin, 'checkpoint'), 0o755);
  const r = spawnSync('/bin/sh', ['-c', line], { cwd, env: { ...GIT_ENV, PATH: `${bin}:${process.env.PATH ?? ''}` }, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
