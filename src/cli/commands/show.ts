import { isCheckpointError } from '../../errors.js';
import { oneLine } from '../../one-line.js';
import { repairEntry } from '../../read/repair.js';
import { join } from 'node:path';
import { asReadError, checkpointPath, checkpointsDir, listCheckpointFiles, readCheckpoint, requireCheckpoint } from '../../store/checkpoints.js';
import { misnamedProblem, misnamedStem } from '../../store/skill-name.js';
import { terminalSafeJson } from '../render/json-text.js';
import type { Context, ParsedArgs } from '../spec.js';
import { optionalSkillArg, rootOf } from './common.js';

/**
 * The member of `show --json` (all skills) naming the files that could not be shown. Every other
 * key is a skill, and a skill name starts with a lowercase letter or a digit (SKILL_NAME): a
 * leading "_" keeps the report's own member apart from every skill, a skill called "errors" too.
 */
export const ERRORS_MEMBER = '_errors';

/**
 * Raw JSON, pipeable to jq: one skill's file as it is on disk (line ends LF, C1 controls as
 * \u escapes: json-text.ts), or an object of all of them. The same with --json: JSON takes a
 * number in any spelling, so the file's own text is the exact value (12345678901234567890,
 * 1e-400, -0, 8.0), which a parse and re-serialization would round.
 * All of them: a file that cannot be read is named and the others still shown, exit 1, as
 * status, next and list do (on stderr; with --json in an `_errors` member, as status's `broken`).
 */
export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const skill = optionalSkillArg(args);
  if (skill) {
    ctx.out.out(shownText(readOrThrow(root, skill).text));
    return 0;
  }
  const files: [string, string][] = [];
  const unreadable: ReturnType<typeof repairEntry>[] = [];
  const { skills, misnamed } = listCheckpointFiles(root);
  for (const s of skills) {
    try {
      // Gone since the listing: nothing to show, nothing wrong.
      const file = readCheckpoint(root, s);
      if (file) files.push([s, shownText(file.text)]);
    } catch (e) {
      if (!isCheckpointError(e)) throw e;
      unreadable.push(repairEntry({ skill: s, path: checkpointPath(root, s), problem: e.message }));
    }
  }
  // A misnamed file is no skill's: never read, but named, as status and list name it.
  for (const name of misnamed) unreadable.push(repairEntry({ skill: misnamedStem(name), path: join(checkpointsDir(root), name), problem: misnamedProblem(name) }));
  ctx.out.out(allOf(files, ctx.json ? unreadable : []));
  if (!ctx.json) for (const u of unreadable) ctx.out.err(`checkpoint: not shown: ${u.skill} needs repair: ${oneLine(u.problem)}`);
  return unreadable.length ? 1 : 0;
}

/** One skill's checkpoint, refused as a read refuses (no write's "it was not changed"). */
function readOrThrow(root: string, skill: string) {
  try {
    return requireCheckpoint(root, skill);
  } catch (e) {
    throw asReadError(e);
  }
}

/** A checkpoint's text as show prints it: without its byte order mark, terminal-safe (the MCP resource answers it too). */
export function shownText(text: string): string {
  return terminalSafeJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
}

/**
 * `{ "<skill>": <its text>, ... }` with each file's text spliced in whole (blanks around it
 * dropped), indented one level; the unreadable (when any) last, as `"_errors": [...]`.
 * A line break in valid JSON lies between tokens (a string holds one only as `\n`), so the
 * indent changes no value; skill names need no escaping.
 */
export function allOf(files: ReadonlyArray<readonly [string, string]>, errors: readonly object[] = []): string {
  const members = files.map(([skill, text]) => `  ${JSON.stringify(skill)}: ${text.trim().replace(/\n/g, '\n  ')}`);
  if (errors.length) members.push(`  ${JSON.stringify(ERRORS_MEMBER)}: ${terminalSafeJson(JSON.stringify(errors, null, 2)).replace(/\n/g, '\n  ')}`);
  if (!members.length) return '{}';
  return `{\n${members.join(',\n')}\n}`;
}
