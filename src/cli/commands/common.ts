// Small helpers every command shares.
import { findRoot } from '../../store/root.js';
import { assertSkillName } from '../../store/skill-name.js';
import type { Context, ParsedArgs } from '../spec.js';

export function rootOf(ctx: Context): string {
  return findRoot(ctx.cwd, ctx.dirOverride);
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
