import { CheckpointError } from '../../errors.js';
import { shown } from '../../one-line.js';
import { pasteArg } from '../../shell-words.js';
import { applyUpdateOps, parseUpdateFlag, type UpdateOp } from '../../protocol/update-ops.js';
import { CLI_SPELLING, mcpCall } from '../../protocol/op-spelling.js';
import { splitUpdateFlag } from '../../protocol/update-flag.js';
import { PROTOCOL_FIELDS } from '../../protocol/fields.js';
import { protocolFieldSlip } from '../../protocol/field-slip.js';
import { memberSlip } from '../../protocol/member-slip.js';
import { FIELD_HOMES, homedField, whyHome } from '../../protocol/field-places.js';
import { COMMANDS, GLOBAL_OPTIONS } from '../spec.js';
import { scaffoldCheckpoint, STAMPED_FIELDS, stampWrite } from '../../protocol/scaffold.js';
import type { JsonObject, JsonValue } from '../../protocol/types.js';
import { joinPath } from '../../protocol/path.js';
import { fitsProtocolField, fitsSchemaAt, MAX_FILE_BYTES, MAX_FUTURE_SKEW_MS, splitAdvice, validateCheckpoint, warningLevel } from '../../protocol/validate.js';
import { instantMs, isIsoInstant } from '../../protocol/instant.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SCHEMA_FILE } from '../../protocol/schema.js';
import { checkpointsDir, display, mutateCheckpoint, notAnObject } from '../../store/checkpoints.js';
import { projectName } from '../../store/project.js';
import { autoRotate, rotationAdvice, type HistoryWrite, type RotateReport } from '../../store/rotate.js';
import type { Context, ParsedArgs } from '../spec.js';
import { noteKeptErrors, noteReplacedLink, refuseUndecodableArg, skillArg, writeRootOf } from './common.js';

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = writeRootOf(ctx);
  const skill = skillArg(args);
  if (!args.ops.length) {
    throw new CheckpointError('E_USAGE', 'checkpoint update: nothing to update', { hint: "e.g. checkpoint update api --step=sprint-2 --next_actions+='Run the evaluator'" });
  }
  for (const op of args.ops) {
    const parts = splitUpdateFlag(op);
    const flag = shown(parts ? `--${parts.path}${parts.plus ? '+' : ''}${parts.json ? ':json' : ''}` : op);
    refuseUndecodableArg(op, flag, 'pass the value as UTF-8; the checkpoint was not changed');
  }
  const spelling = ctx.opSpelling ?? CLI_SPELLING;
  const ops = args.ops.map((flag, i) => parseUpdateFlag(flag, spelling, i)); // all flags checked before the file is touched
  // Refused rather than replaced without a word: the write stamps these itself.
  const stamped = ops.find((op) => op.path.length === 1 && STAMPED_FIELDS.has(op.path[0]!));
  if (stamped) {
    const field = stamped.path[0]!;
    throw new CheckpointError('E_USAGE', `${stamped.given}: ${field} is stamped by every write (${field === 'updated_at' ? 'the time of the write' : 'the current protocol version'}) and cannot be set`, {
      hint: `leave ${spelling.caller === 'cli' ? `--${field}` : `the op on ${field}`} out; the checkpoint was not changed`,
    });
  }
  // The capsule is pause's: its origin says where and when its claims were saved, which a write
  // of one field would relabel (an old capsule shown as "same commit" as HEAD).
  const capsuleOp = ops.find((op) => op.path[0] === 'capsule');
  if (capsuleOp) {
    throw new CheckpointError('E_USAGE', `${capsuleOp.given}: the recovery capsule is written only by checkpoint pause, which records where and when its claims were saved`, {
      hint: spelling.caller === 'mcp'
        ? `save it again with ${mcpCall('pause', skill, [], { capsule: '<capsule>' }).replace('"capsule": "<capsule>"', '"capsule": {…}')} (or "auto": true for its mechanical state); the checkpoint was not changed`
        : `save it again with checkpoint pause ${skill} --context '<json>' (or --auto for its mechanical state); the checkpoint was not changed`,
    });
  }
  const keepUpdatedAt = Boolean(args.options['keep-updated-at']);
  let created = false;
  let typeNotes: string[] = [];
  let rotated: RotateReport | null = null;
  let written: HistoryWrite | null = null;
  let rotationSkipped: string | undefined;
  const result = await mutateCheckpoint(root, skill, {
    now: ctx.clock,
    act: `update ${skill}`,
    change: (current, texts, now) => {
      if (current !== null && (typeof current !== 'object' || Array.isArray(current))) {
        throw notAnObject(skill);
      }
      refuseFieldSlips(ops, current as JsonObject | null, Boolean(args.options['allow-new-field']));
      created = current === null;
      const schema = existsSync(join(checkpointsDir(root), SCHEMA_FILE)) ? `./${SCHEMA_FILE}` : undefined;
      const doc = current ?? scaffoldCheckpoint({ skill, project: projectName(root), projectDir: root, now, schema });
      // Reset per attempt: the change may run again (a lock retry, a rotation).
      typeNotes = [];
      const onTextOverTyped = ({ path, was, text }: { path: string; was: string; text: string }) =>
        typeNotes.push(`${path} was ${was}; ${shown(JSON.stringify(text))} is written as text (for a number or boolean: --${path}:json=<value>)`);
      const kept = keepUpdatedAt ? savedAt(current as JsonObject | null, skill, spelling.caller === 'cli' ? '--keep-updated-at' : 'keep_updated_at', now) : null;
      const next = stampWrite(applyUpdateOps(doc as JsonObject, ops, texts, { keepsType: current === null ? undefined : validWhereItStands(current), onTextOverTyped }), now, typeNotes, texts);
      if (kept === null) return next;
      // A repair of how the file is written: the save it repairs keeps its instant, and drift dated against it stands.
      return Object.assign(next, kept);
    },
    refused: (doc, now) => rotationAdvice(root, skill, doc, now, args.options['auto-rotate'] ? '' : spelling.caller === 'mcp' ? ' (or send auto_rotate: true)' : ' (or pass --auto-rotate)'),
    // --auto-rotate / config auto_rotate: past MAX_FILE_BYTES, old telemetry goes to history first.
    shrinks: true,
    beforeWrite: (next, text, texts, now, journal) => {
      const r = autoRotate(root, skill, next, { now, force: Boolean(args.options['auto-rotate']), text, texts, journal });
      rotated = r.report;
      rotationSkipped = r.skipped;
      written = r.write ?? null;
      return r.doc;
    },
    undoBeforeWrite: (cause) => written?.undo(cause),
  });
  (written as HistoryWrite | null)?.settle();
  const rotation = rotated as RotateReport | null;
  // The size warning was judged before rotation; keep it only if the written file is still over.
  const warnings = rotation && rotation.bytes_after <= MAX_FILE_BYTES ? result.warnings.filter((w) => w.path !== '(file)') : result.warnings;
  noteKeptErrors(ctx, display(root, result.path), result.kept);
  for (const line of typeNotes) ctx.out.err(`checkpoint: note: ${line}`);
  if (rotationSkipped !== undefined) ctx.out.err(`checkpoint: note: not auto-rotated although over ${MAX_FILE_BYTES / 1024} KiB: ${rotationSkipped}`);
  // Written as asked, never moved: said where the protocol keeps it (the validator's warning about it says the same).
  const topLevel = topLevelNotes(ops);
  for (const line of topLevel.values()) ctx.out.err(`checkpoint: note: ${line}`);
  const link = result.replacedLink;
  noteReplacedLink(ctx, display(root, result.path), link);
  if (ctx.json) {
    // As validate reports them: a missing progress_table is advice, not a warning.
    ctx.out.json({ ok: true, skill, path: display(root, result.path), created, ...(link !== undefined ? { replaced_link: link } : {}), ...splitAdvice(warnings), ...(result.kept.length ? { kept_errors: result.kept } : {}), ...(rotation ? { rotated: rotation } : {}) });
    return 0;
  }
  ctx.out.out(`✓ ${created ? 'created' : 'updated'} ${display(root, result.path)} (${ops.length} change${ops.length === 1 ? '' : 's'})`);
  if (rotation) ctx.out.out(`  auto-rotated ${rotation.moved} old log entr${rotation.moved === 1 ? 'y' : 'ies'} to ${rotation.history ?? 'history'} (${rotation.bytes_before} → ${rotation.bytes_after} bytes)`);
  for (const w of warnings) if (!topLevel.has(w.path)) ctx.out.err(`  ${warningLevel(w) === 'advice' ? 'advice ' : 'warning'} ${w.path}: ${w.message}`);
  return 0;
}

/**
 * The updated_at a repair (--keep-updated-at) keeps: the file's own, which must be there and be
 * an instant with its zone no more than a day ahead (one that is not needs the write's stamp).
 */
function savedAt(current: JsonObject | null, skill: string, flag: string, now: Date): { updated_at: string } {
  const at = current?.updated_at;
  const leaveOut = `leave ${flag} out (the write stamps the time of the write); the checkpoint was not changed`;
  if (current === null) throw new CheckpointError('E_USAGE', `${flag}: ${skill} has no checkpoint yet, so no updated_at to keep`, { hint: leaveOut });
  if (!isIsoInstant(at)) throw new CheckpointError('E_USAGE', `${flag}: updated_at ${at === undefined ? 'is missing' : `${shown(JSON.stringify(at))} is not an instant with its zone`}, so it cannot be kept as written`, { hint: leaveOut });
  if (instantMs(at) - now.getTime() > MAX_FUTURE_SKEW_MS) throw new CheckpointError('E_USAGE', `${flag}: updated_at ${shown(at)} is more than a day in the future, so it cannot be kept`, { hint: leaveOut });
  return { updated_at: at };
}

/**
 * One note per field kept one level down that an op writes at the top level (`--generated_files+=a.ts`,
 * field-places.ts), by the field's path: the place the protocol keeps it, and the op that writes there.
 */
function topLevelNotes(ops: readonly UpdateOp[]): Map<string, string> {
  const notes = new Map<string, string>();
  for (const op of ops) {
    const field = homedField(op.path[0]!);
    if (field === null || notes.has(field)) continue;
    notes.set(field, `${field} is written at the top level, as asked; ${whyHome(field)}: ${op.spelling.op(`${FIELD_HOMES[field].home}.${op.path.join('.')}`, op.mode, '…', 'text')}`);
  }
  return notes;
}

/**
 * The option names an update's own command line may hold (global ones, update's, `version`): as
 * a field name, a flag that went astray (`--json=1`, `--color=1`). Other commands' options are
 * ordinary words a project may use as fields.
 */
const OPTION_NAMES: ReadonlySet<string> = new Set(['version', ...[GLOBAL_OPTIONS, COMMANDS.find((c) => c.name === 'update')!.options].flatMap((o) => Object.entries(o).flatMap(([name, spec]) => [name, ...(spec.short ? [spec.short] : [])]))]);

/** What `op` would write at its top-level field: its value, in a list for an append, under its path's keys. */
function topValue(op: UpdateOp): unknown {
  let value: unknown = op.mode === 'append' ? [op.value] : op.value;
  for (const seg of op.path.slice(1).reverse()) value = { [String(seg)]: value };
  return value;
}

/**
 * Refuses an op that would add a top-level field that is no protocol field and is most likely a
 * typo: a near miss of one whose value would fit it (`--stauts=blocked`), or an option's name
 * (`--json=1`). A field the file already has, one far from every protocol field, one whose value
 * does not fit the field it nearly names (`--state=draft`, `--host=db1`), or `allow`
 * (--allow-new-field) is written. So, one level down, is a near miss of a member the protocol
 * defines there (member-slip.ts: a blocker's "neds"), unless the file already holds it.
 */
function refuseFieldSlips(ops: readonly UpdateOp[], current: JsonObject | null, allow: boolean): void {
  if (allow) return;
  const at = (path: readonly (string | number)[]): unknown => {
    let here: unknown = current;
    for (const seg of path) {
      if (here === null || typeof here !== 'object' || !Object.hasOwn(here, seg)) return undefined;
      here = (here as Record<string, unknown>)[seg];
    }
    return here;
  };
  for (const op of ops) {
    // One level down (a blocker's "neds", context_primer.key-decisions): written, nobody would read it.
    const member = memberSlip(op.path, op.value, op.mode === 'append', { at, fits: fitsSchemaAt });
    if (member !== null) {
      throw new CheckpointError('E_USAGE', `${op.given}: ${shown(member.given)} is not a member of ${member.where}; did you mean ${shown(member.meant)}?`, {
        hint: `the checkpoint was not changed; to keep a member of your own with this name, rerun with ${op.spelling.allowNewField}`,
      });
    }
    const top = op.path[0];
    if (typeof top !== 'string' || PROTOCOL_FIELDS.includes(top) || (current !== null && Object.hasOwn(current, top))) continue;
    const near = protocolFieldSlip(top);
    const meant = near !== null && fitsProtocolField(near, topValue(op)) ? near : null;
    if (meant === null && !OPTION_NAMES.has(top)) continue;
    const cli = op.spelling.caller === 'cli';
    const why =
      meant !== null
        ? `${shown(top)} is not a protocol field; did you mean ${cli ? `--${meant}` : shown(JSON.stringify(meant))}?`
        : `${shown(top)} is the name of ${cli ? `an option, not a protocol field (an option takes no =value here${top === 'dir' && op.path.length === 1 && typeof op.value === 'string' ? `: the folder to run in goes as -C ${pasteArg(op.value)}` : ''})` : 'an option of checkpoint update, not a protocol field'}`;
    throw new CheckpointError('E_USAGE', `${op.given}: ${why}`, {
      hint: `the checkpoint was not changed; to add a field of your own with this name, rerun with ${op.spelling.allowNewField}, or keep it under skill_state: ${op.spelling.op(`skill_state.${top}`, op.mode, '...', 'text')}`,
    });
  }
}

/**
 * Whether the file's value at a path is valid there, so plain text over it keeps its type: a
 * number where the protocol wants text (`done_when: 8.0`) is fixed by `--…done_when=8.0`, as text.
 * The file is validated only when some op would keep a type.
 */
function validWhereItStands(current: JsonValue): (at: ReadonlyArray<string | number>) => boolean {
  let wrong: Set<string> | undefined;
  return (at) => {
    wrong ??= new Set(validateCheckpoint(current).errors.map((e) => e.path));
    return !wrong.has(at.reduce<string>((p, seg) => joinPath(p, seg), ''));
  };
}
