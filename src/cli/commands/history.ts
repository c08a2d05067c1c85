import { CheckpointError, isCheckpointError } from '../../errors.js';
import { join } from 'node:path';
import { checkpointPath, display, listSkills } from '../../store/checkpoints.js';
import { CHECKPOINTS_DIR } from '../../store/root.js';
import { archiveTooBig, historyDir, listArchives, parseArchiveName } from '../../store/history.js';
import { listProjectDir, projectPathExists, statProjectFile } from '../../store/safe-fs.js';
import { oneLine } from '../render/output.js';
import { quoted } from '../../one-line.js';
import { ARCHIVE_NAME, ROTATION_NAME } from '../../protocol/file-names.js';
import type { Context, ParsedArgs } from '../spec.js';
import { optionalSkillArg, rootOf } from './common.js';

interface OtherEntry {
  file: string;
  path: string;
  bytes: number;
}

/**
 * JSON files in history/ whose names follow neither archive rule (hand-named or copied in):
 * listed, never hidden, with why restore cannot take them.
 */
function otherJsonFiles(root: string, known: ReadonlySet<string>, onSkip: (file: string, why: string) => void): OtherEntry[] {
  const dir = historyDir(root);
  return listProjectDir(root, dir)
    .filter((file) => file.endsWith('.json') && !known.has(file))
    .sort()
    .flatMap((file) => {
      const path = join(dir, file);
      try {
        // Through safe-fs: a committed link out of the project or a FIFO is skipped, never followed.
        const loc = statProjectFile(root, path);
        return loc ? [{ file, path, bytes: loc.stat!.size }] : [];
      } catch (e) {
        if (!isCheckpointError(e)) throw e;
        onSkip(file, e.message);
        return [];
      }
    });
}

/** Skipped entries named one by one; past this, a count (a clone may hold thousands). */
const MAX_SKIPS_NAMED = 5;

/** Why restore refuses a file of history/ that is no archive by its name. */
function cannotRestore(file: string): string {
  const named = ARCHIVE_NAME.exec(file) ?? ROTATION_NAME.exec(file);
  const why = named ? `${quoted(named[1]!)} is no skill name a checkpoint can have` : 'not named <skill>.<stamp>.checkpoint.json';
  return `cannot restore: ${why} (rename it, or copy it back by hand)`;
}

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const skill = optionalSkillArg(args);
  // One listing of history/: each entry is checked once, so a skipped one is reported once.
  const skippedFiles = new Map<string, string>();
  const skip = (file: string, why: string) => void skippedFiles.set(file, why);
  const all = listArchives(root, undefined, skip);
  const known = new Set([...all.map((e) => e.file), ...skippedFiles.keys()]);
  // With a skill, its archives, and a hand-named file when its name starts with the skill.
  const handNamedFor = (file: string) => !skill || file.startsWith(`${skill}.`) || file.startsWith(`${skill}-`);
  const entries = skill ? all.filter((e) => e.skill === skill) : all;
  const others = otherJsonFiles(root, known, skip).filter((o) => handNamedFor(o.file));
  const skipped = [...skippedFiles.keys()].sort().filter((file) => {
    const archived = parseArchiveName(file);
    return archived ? !skill || archived.skill === skill : handNamedFor(file);
  });
  for (const file of skipped.slice(0, MAX_SKIPS_NAMED)) ctx.out.err(`checkpoint: skipped history/${oneLine(file)}: ${oneLine(skippedFiles.get(file)!)}`);
  if (skipped.length > MAX_SKIPS_NAMED) ctx.out.err(`checkpoint: skipped ${skipped.length - MAX_SKIPS_NAMED} more entries of history/ that are not plain files inside the project (${skipped.length} in all)`);
  // A skill that never had a checkpoint (a typo) is refused as show and reset refuse it, not "no archives".
  if (skill && !entries.length && !others.length && !skipped.length && !projectPathExists(root, checkpointPath(root, skill))) {
    const known = [...new Set([...listSkills(root), ...all.map((e) => e.skill)])].sort();
    throw new CheckpointError('E_NOT_FOUND', `no checkpoint or archive for skill "${skill}" in ${CHECKPOINTS_DIR}/`, {
      hint: known.length ? `known skills: ${known.join(', ')}` : 'no checkpoints or archives here yet',
    });
  }
  // What restore would refuse is marked here, with why, so the list promises nothing it cannot do.
  const refusal = (e: (typeof entries)[number]) => archiveTooBig(e.bytes, e.kind);
  if (ctx.json) {
    ctx.out.json([
      ...entries.map((e) => {
        const why = refusal(e);
        return { ...e, path: display(root, e.path), restorable: !why, ...(why ? { reason: `cannot restore: ${why}` } : {}) };
      }),
      ...others.map((o) => ({ ...o, path: display(root, o.path), skill: null, kind: 'other', restorable: false, reason: cannotRestore(o.file) })),
    ]);
    return 0;
  }
  if (!entries.length && !others.length) {
    ctx.out.out('no archives in .checkpoints/history/');
    return 0;
  }
  for (const e of entries) {
    const why = refusal(e);
    ctx.out.out(`${e.kind === 'checkpoint' ? 'checkpoint' : 'rotation  '}  ${oneLine(e.file)}  ${ctx.out.c.dim(`${e.bytes} bytes${why ? `; cannot restore: ${why}` : ''}`)}`);
  }
  for (const o of others) ctx.out.out(`other       ${oneLine(o.file)}  ${ctx.out.c.dim(`${o.bytes} bytes; ${cannotRestore(o.file)}`)}`);
  return 0;
}
