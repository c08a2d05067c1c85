// What a user's pre-push hook is, read from its text: where checkpoint's line sits in it, and the
// interpreter its `#!` line names. The line init prints is sh, sourcing hooks/pre-push-chain,
// which is written for (and tested under) sh and bash: it is no line of a python or node hook,
// and one put above a hook's `#!` line turns that line into a comment, so git runs the hook with
// sh (its fallback for a file with no `#!`), whatever it was written for.
import { basename } from 'node:path';

/** A line that runs our check: the chain line, or the shipped hook run by path (an earlier line). */
const OUR_CHECK = /hooks\/pre-push-chain\b|checkpoint-protocol\/hooks\/pre-push\b/;

/** The shells pre-push-chain is sourced under: a POSIX sh, and bash. */
const CHAIN_SHELLS = new Set(['sh', 'dash', 'bash']);

/** Those git's sh fallback is: a hook written for one runs the same with no `#!` line. */
const POSIX_SHELLS = new Set(['sh', 'dash']);

/** `set` with options only (`set -e`, `set -euo pipefail`, `set +x`), their names after -o: no other command. */
const SHELL_OPTIONS = /^set\s+[-+][a-zA-Z]+(?:\s+(?:[-+][a-zA-Z]+|[a-z]+))*\s*(?:#.*)?$/;

export interface HookShape {
  /** Our line is the hook's first command; 'later' anywhere else it may never run (after an `exit`, inside a branch) or find git's stdin read to its end. */
  ours: 'first' | 'later' | null;
  /** Line 1 is a `#!` line: our line goes after it. */
  shebang: boolean;
  /** The interpreter the hook is written for when our line is none of its language (python3, node). */
  foreign: string | null;
  /** The shell a hook is written for (bash) when our line, put above its `#!` line, makes git run it with sh instead. */
  demoted: string | null;
}

/** The interpreter a `#!` line names (`/usr/bin/env -S bash -e`: bash), or null. */
export function interpreterOf(line: string): string | null {
  const words = /^#!(.*)$/.exec(line.trim())?.[1]?.trim().split(/\s+/).filter(Boolean) ?? [];
  // env's options and VAR=value settings come before the command it runs.
  const command = words[0] !== undefined && basename(words[0]) === 'env' ? words.slice(1).find((w) => !w.startsWith('-') && !w.includes('=')) : words[0];
  return command === undefined ? null : basename(command);
}

export function hookShape(text: string): HookShape {
  const lines = text.split(/\r?\n/).map((line) => line.trim());
  // A plain `set` of shell options (`set -euo pipefail`) reads no stdin and ends nothing: no command before our line.
  const commands = lines.filter((line) => line !== '' && !line.startsWith('#') && !SHELL_OPTIONS.test(line));
  const ours = commands[0] !== undefined && OUR_CHECK.test(commands[0]) ? 'first' : commands.some((line) => OUR_CHECK.test(line)) ? 'later' : null;
  const shebang = lines[0]!.startsWith('#!');
  // A `#!` line our line was put above: among the comments before the hook's first command of its own.
  const below = shebang ? undefined : lines.find((line, i) => line.startsWith('#!') && lines.slice(0, i).every((l) => l === '' || l.startsWith('#') || OUR_CHECK.test(l)));
  const written = interpreterOf(shebang ? lines[0]! : below ?? '');
  return {
    ours,
    shebang,
    foreign: written !== null && !CHAIN_SHELLS.has(written) ? written : null,
    demoted: below !== undefined && ours === 'first' && written !== null && CHAIN_SHELLS.has(written) && !POSIX_SHELLS.has(written) ? written : null,
  };
}
