import { listSkills, requireCheckpoint } from '../../store/checkpoints.js';
import { terminalSafeJson } from '../render/json-text.js';
import type { Context, ParsedArgs } from '../spec.js';
import { optionalSkillArg, rootOf } from './common.js';

/**
 * Raw JSON, pipeable to jq: one skill's file as it is on disk (line ends LF, C1 controls as
 * \u escapes: json-text.ts), or an object of all of them. The same with --json: JSON takes a
 * number in any spelling, so the file's own text is the exact value (12345678901234567890,
 * 1e-400, -0, 8.0), which a parse and re-serialization would round.
 */
export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const skill = optionalSkillArg(args);
  if (skill) {
    ctx.out.out(ownText(requireCheckpoint(root, skill).text));
    return 0;
  }
  ctx.out.out(allOf(listSkills(root).map((s) => [s, ownText(requireCheckpoint(root, s).text)])));
  return 0;
}

/** A checkpoint's text as show prints it: without its byte order mark, terminal-safe. */
function ownText(text: string): string {
  return terminalSafeJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
}

/**
 * `{ "<skill>": <its text>, ... }` with each file's text spliced in whole (blanks around it
 * dropped), indented one level.
 * A line break in valid JSON lies between tokens (a string holds one only as `\n`), so the
 * indent changes no value; skill names need no escaping.
 */
export function allOf(files: ReadonlyArray<readonly [string, string]>): string {
  if (!files.length) return '{}';
  return `{\n${files.map(([skill, text]) => `  ${JSON.stringify(skill)}: ${text.trim().replace(/\n/g, '\n  ')}`).join(',\n')}\n}`;
}
