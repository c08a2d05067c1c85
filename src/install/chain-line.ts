// The line that runs checkpoint's check from a pre-push hook the user or another tool owns, and
// the hook to create around it: what init prints, and doctor where init writes no hook.
import { existsSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { shellQuote } from '../shell-words.js';
import { shownPath } from '../one-line.js';

/** Where a project that depends on the package has the shipped hook, whatever the package manager. */
export const LOCAL_TEMPLATE = 'node_modules/checkpoint-protocol/hooks/pre-push';

/** `p` relative to the root when it is inside it, else as it is. */
export function fromRoot(root: string, p: string): string {
  const rel = relative(root, p);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : p;
}

export const shown = (root: string, p: string) => shownPath(fromRoot(root, p));

/**
 * The line a user puts first in a pre-push hook another tool owns: it sources the shipped
 * pre-push-chain, which runs our check on git's stdin, ends the hook (exit 1) on drift whatever
 * the hook's shell options, and gives the rest of the hook the same stdin. A project path when
 * the package is installed there (the line can be committed); else the installed copy's, whose
 * hook then finds the package's own launcher beside it.
 */
export function chainLine(root: string, templatePath: string): string {
  if (existsSync(join(root, LOCAL_TEMPLATE))) return `. ${LOCAL_TEMPLATE}-chain`;
  const hook = fromRoot(root, templatePath);
  const q = (p: string) => (/^[\w./-]+$/.test(p) ? p : shellQuote(p));
  return `CHECKPOINT_HOOK=${q(hook)} . ${q(`${hook}-chain`)}`;
}

/** A sh hook at `file` running `line` (git runs only an executable one). */
export const createHook = (root: string, file: string, line: string) => `create ${shown(root, file)} (#!/bin/sh, then this line; chmod +x) with: ${line}`;

/** For a pre-push hook git would run, with no file there yet. */
export function createHookAdvice(root: string, file: string, templatePath: string): string {
  return `to check pushes, ${createHook(root, file, chainLine(root, templatePath))}`;
}
