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

/**
 * husky 5-8's first line in a user's hook (`. "$(dirname -- "$0")/_/husky.sh"`, `--` since v8):
 * husky.sh runs the hook again (`sh -e "$0"`) and exits, so only what follows it runs once.
 */
const HUSKY_SH = /^\.\s+"\$\(dirname\s+(?:--\s+)?"\$0"\)\/_\/husky\.sh"\s*(?:#.*)?$/;

export interface HookShape {
  /**
   * Our line is the hook's first command (in a husky 5-8 hook, the first after its husky.sh line);
   * 'later' anywhere else it may never run (after an `exit`, inside a branch) or find git's stdin
   * read to its end; 'above-husky' above husky.sh's line, which runs the hook again: the check runs twice.
   */
  ours: 'first' | 'later' | 'above-husky' | null;
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

/** Where husky 5-8's husky.sh line is among a hook's commands, when it is the first of its own (not ours): else -1. */
function huskyIndex(commands: string[]): number {
  const i = commands.findIndex((line) => !OUR_CHECK.test(line));
  return i !== -1 && HUSKY_SH.test(commands[i]!) ? i : -1;
}

const linesOf = (text: string) => text.split(/\r?\n/).map((line) => line.trim());

/** A hook's commands: a plain `set` of shell options (`set -euo pipefail`) reads no stdin and ends nothing, so is none. */
const commandsOf = (lines: string[]) => lines.filter((line) => line !== '' && !line.startsWith('#') && !SHELL_OPTIONS.test(line));

/** Whether the hook is a husky 5-8 one, whose first command of its own sources husky.sh. */
export const sourcesHuskySh = (text: string) => huskyIndex(commandsOf(linesOf(text))) !== -1;

export function hookShape(text: string): HookShape {
  const lines = linesOf(text);
  const commands = commandsOf(lines);
  const husky = huskyIndex(commands);
  const first = commands[husky + 1];
  const ours =
    husky > 0 && commands.slice(0, husky).some((line) => OUR_CHECK.test(line)) ? 'above-husky'
    : first !== undefined && OUR_CHECK.test(first) ? 'first'
    : commands.some((line) => OUR_CHECK.test(line)) ? 'later'
    : null;
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
