// Small helpers every command shares.
import { CheckpointError, type ErrorCode } from '../../errors.js';
import { resolve } from 'node:path';
import { assertNotInGitDir } from '../../git/locate.js';
import { assertProjectFolder, findRoot, startDir } from '../../store/root.js';
import { assertNoNestedCheckpoints } from '../../store/nested.js';
import { assertSkillName } from '../../store/skill-name.js';
import type { Context, ParsedArgs } from '../spec.js';
import type { KeptError } from '../../store/checkpoints.js';
import { oneLine } from '../render/output.js';
import { shownPath } from '../../one-line.js';

export function rootOf(ctx: Context): string {
  return projectRoot(ctx.cwd, ctx.dirOverride);
}

/**
 * The project root every command (and the MCP server) works in: found from `cwd`, or from the
 * -C folder as given. A folder inside a git dir (a bare repository, a `.git` folder) is refused
 * here, before anything is read or written: it has no working tree to keep checkpoints in.
 */
export function projectRoot(cwd: string, override?: string): string {
  const root = findRoot(cwd, override);
  const start = startDir(cwd, override);
  assertNotInGitDir(start, cwd);
  assertNoNestedCheckpoints(start, root);
  return root;
}

/**
 * Where a file argument the user typed is relative to: the -C folder (itself taken from where the
 * command was started) when one is given, else the current folder. As `git -C <dir>` does: run as
 * if started in <dir>, so `checkpoint -C sub validate x.json` reads sub/x.json, never the project
 * root's or the caller's x.json.
 */
export function argBase(ctx: Context): string {
  return ctx.dirOverride === undefined ? ctx.cwd : startDir(ctx.cwd, ctx.dirOverride);
}

/** A file argument as an absolute path, by the one rule of argBase. Every command that reads a file argument uses this. */
export function argPath(ctx: Context, file: string): string {
  return resolve(argBase(ctx), file);
}

/** rootOf for a command that may create .checkpoints/: a -C folder must be a project already (assertProjectFolder). */
export function writeRootOf(ctx: Context): string {
  const root = rootOf(ctx);
  if (ctx.dirOverride !== undefined) assertProjectFolder(root);
  return root;
}

export function skillArg(args: ParsedArgs, index = 0): string {
  const skill = args.positionals[index];
  assertSkillName(skill);
  return skill;
}

export function optionalSkillArg(args: ParsedArgs): string | undefined {
  const skill = args.positionals[0];
  if (skill === undefined) return undefined;
  assertSkillName(skill);
  return skill;
}

export function engineArg(args: ParsedArgs): 'auto' | 'native' | 'isomorphic' {
  const e = args.options.engine;
  return e === 'native' || e === 'isomorphic' ? e : 'auto';
}

/**
 * Node decodes argv before we see it, turning invalid UTF-8 into U+FFFD; the same bytes from a
 * file are refused, so a U+FFFD in a command-line value is refused too (a file can carry a real one).
 */
export function refuseUndecodableArg(value: string, what: string, hint: string, code: ErrorCode = 'E_USAGE'): void {
  if (value.includes('\uFFFD')) {
    throw new CheckpointError(code, `refused: ${what} is not valid UTF-8 (it holds U+FFFD, the mark of undecodable bytes)`, { hint });
  }
}

/**
 * The stderr line next, status and resume print when git history could not be read (a damaged
 * repository): they still answer, but an action shown as still to do may have landed.
 */
export function historyNotice(error: string | null): string | null {
  if (error === null) return null;
  return `checkpoint: warning: git history could not be read, so queued PRs and tickets were not checked against landed work: ${oneLine(error)} (\`checkpoint doctor\` for details)`;
}

/** What a write left alone: the errors the file already had (the write kept them as they were), in one clause. */
export function keptErrorsText(kept: readonly KeptError[]): string {
  const errors = (n: number) => (n === 1 ? 'an error' : `${n} errors`);
  const asWas = (n: number) => `left as ${n === 1 ? 'it was' : 'they were'}`;
  const first = (es: readonly KeptError[]) => `${oneLine(`${es[0]!.path}: ${es[0]!.message}`)}${es.length > 1 ? ` (+${es.length - 1} more)` : ''}`;
  // Never "left as it was" for a value this write changed (written into a map where a list belongs).
  const rewritten = kept.filter((e) => e.rewritten);
  if (!rewritten.length) return `already had ${errors(kept.length)}, ${asWas(kept.length)}: ${first(kept)}`;
  const left = kept.filter((e) => !e.rewritten);
  return `already had ${errors(kept.length)}; still wrong where this write changed ${rewritten.length === 1 ? 'it' : 'them'}: ${first(rewritten)}${left.length ? `; ${asWas(left.length)}: ${first(left)}` : ''}`;
}

/**
 * The stderr line of a write that went through although the file was invalid before it (an
 * error the write did not bring in does not block it): so the user knows, and where.
 */
export function noteKeptErrors(ctx: Context, file: string, kept: readonly KeptError[]): void {
  if (kept.length) ctx.out.err(`checkpoint: note: ${file} ${keptErrorsText(kept)}; fix it by hand or with \`checkpoint update\`, then \`checkpoint validate\``);
}

/**
 * The stderr line of a write that replaced a checkpoint committed as a link inside the project
 * (`link`: what the link said) with a regular file: every write does (an atomic rename never
 * writes through a link), so every write says it, since git shows a type change.
 */
export function noteReplacedLink(ctx: Context, file: string, link: string | undefined): void {
  if (link !== undefined) ctx.out.err(`checkpoint: note: ${file} was a symlink to ${shownPath(link)}; the write replaced the link with a regular file (${shownPath(link)} is unchanged; git shows a type change)`);
}
