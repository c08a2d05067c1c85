// Merge of three checkpoint texts, as `git merge` hands them to the driver: parse each
// side strictly, merge semantically, then render (markers only where the sides collide)
// and validate. No fs, no process: driver-main.ts does the I/O.

import { detectFormat, formatJson, type TextFormat } from '../protocol/format.js';
import { CONFLICT_REASON, JsonNumberRangeError, JsonSyntaxError, JsonUnsafeKeyError, parseJson, type LiteralTexts } from '../protocol/json.js';
import type { JsonValue } from '../protocol/types.js';
import { ROTATION_FILE_RULES } from '../protocol/fields.js';
import { fileKind } from '../protocol/file-names.js';
import { introducedErrors } from '../protocol/file-validation.js';
import type { Conflict } from './conflict.js';
import { keepExactTexts, mergeCheckpointValues, type ExtraRules, type MergeOptions } from './merge.js';
import { agreedBase } from './agreed-base.js';
import { virtualBase } from './virtual-base.js';
import { settleConflicts, settledSide, type Settlement } from './settle.js';
import { conflictNumberTexts, mergeLiteralTexts } from './literal-texts.js';
import { jsonEqual } from './json-value.js';
import { renderMerged, summarizeConflicts, type ConflictLabels } from './render.js';
import { renderKeepingLayout } from './render-layout.js';
import { baseLacksById } from './base-records.js';

export type MergeSide = 'base' | 'ours' | 'theirs';

/**
 * A side larger than this is not merged as JSON (a checkpoint is kilobytes; a blob this big in a
 * hostile history would take the memory of a whole `git merge`): git's line merge takes it.
 */
export const MAX_MERGE_BYTES = 16 * 1024 * 1024;

export interface MergeTextsInput {
  /** null (or an empty file, which is what git passes for an add/add) = no common ancestor. */
  base: string | null;
  ours: string;
  theirs: string;
  markerSize?: number;
  extraRules?: ExtraRules;
  /** The path shown in messages; its base name is checked against `<skill>.checkpoint.json`. */
  fileName?: string;
  labels?: Partial<ConflictLabels>;
  /** `resolve --ours/--theirs`: conflicts to settle with one side's version. */
  settle?: Settlement;
  /**
   * The sides git staged, where the sides merged here are cut from markers (resolve): theirs hold
   * one merged recently_done, so only the staged ones tell what each side logged done since the
   * base, which the queue merge reads its pops by (requeued.ts). Sides that cannot be read tell nothing.
   */
  staged?: { base: string | null; ours: string; theirs: string } | null;
  /** The sides are cut from one file's conflict markers (settle-markers.ts): merge.ts MergeOptions `fromMarkers`. */
  fromMarkers?: boolean;
  /** With fromMarkers: a base that is no JSON is git's own (stage 1), merged against what the sides hold alike as without markers. */
  agreeOnBrokenBase?: boolean;
  /**
   * git's merge of two merge bases (a criss-cross history's virtual ancestor), never seen in the
   * work tree: always clean, each conflict a stand-in (virtual-base.ts), in formatJson's layout.
   */
  virtualBase?: boolean;
  /**
   * The writer that keeps ours' layout (protocol/layout.ts formatKeepingLayout), fetched only
   * when a clean merge changed a file that is not laid out as formatJson lays it out; without
   * it, the merge is written in formatJson's layout. A getter, so the driver loads it only then.
   */
  keepLayout?: () => LayoutWriter;
}

/** protocol/layout.ts formatKeepingLayout: `after` written into `original` (parsed `before`) in its layout. */
export type LayoutWriter = (original: string, before: JsonValue, after: JsonValue, format: TextFormat, originalTexts?: LiteralTexts) => string;

export interface MergeTextsResult {
  /** clean: text is the merge. conflict: text is the merge with markers (or unmarked but invalid). unparseable: no text. */
  status: 'clean' | 'conflict' | 'unparseable';
  text?: string;
  conflicts: Conflict[];
  messages: string[];
  /** Paths in `settle` that covered no conflict. */
  unmatched?: string[];
}

const NO_ANCESTOR = /^\uFEFF?\s*$/;

/** A side the semantic merge cannot read, and why ("is not valid JSON at 3:5: ..."). */
export interface UnreadableSide {
  side: MergeSide;
  reason: string;
}

/**
 * One line for every side the semantic merge cannot read: `git merge` runs the driver once per
 * file, so N files print at most N such lines, however many of their sides are broken.
 */
export function unparseableMessage(fileName: string | undefined, sides: readonly UnreadableSide[]): string {
  return `checkpoint: cannot merge ${fileName ?? 'the checkpoint'} semantically: ${sides.map((s) => `${s.side} ${s.reason}`).join('; ')}`;
}

/**
 * The way out when a side's committed file holds markers (a hosted merge that bypassed the
 * driver): `checkpoint resolve` mid-merge would only meet them again, nested in git's own.
 */
function committedMarkersAdvice(sides: readonly UnreadableSide[]): string {
  const marked = sides.filter((s) => s.side !== 'base' && s.reason.startsWith('holds committed conflict markers')).map((s) => s.side);
  if (marked.length === 0) return '';
  const where = marked.length === 2 ? 'on each branch' : marked[0] === 'ours' ? 'on this branch' : 'on their branch';
  return ` (a merge that bypassed the driver): \`git merge --abort\`, run \`checkpoint resolve --add\` ${where} and commit, then merge again`;
}

/** How many of a file's conflicts the driver's one line names; `checkpoint resolve` shows all. */
export const MAX_REPORTED_CONFLICTS = 3;

/**
 * The driver's one line for a file (git runs it once per file: N files, at most N lines of
 * ours): its messages after the first lose their `checkpoint: <file>: ` prefix, and past
 * MAX_REPORTED_CONFLICTS they are counted, not printed.
 */
export function driverReport(fileName: string, messages: readonly string[]): string | undefined {
  if (messages.length <= 1) return messages[0];
  const prefix = `checkpoint: ${fileName}: `;
  const bare = messages.map((m) => (m.startsWith(prefix) ? m.slice(prefix.length) : m.replace(/^checkpoint: /, '')));
  const shown = bare.slice(0, MAX_REPORTED_CONFLICTS).join('; ');
  const more = bare.length > MAX_REPORTED_CONFLICTS ? `; and ${bare.length - MAX_REPORTED_CONFLICTS} more (\`checkpoint resolve\` shows each)` : '';
  return `${prefix}${shown}${more}`;
}

/** The staged sides' values for what they logged done; undefined when ours or theirs cannot be read. */
function stagedLogs(staged: NonNullable<MergeTextsInput['staged']>): MergeOptions['logged'] {
  const value = (text: string | null): JsonValue | undefined => {
    if (text === null || NO_ANCESTOR.test(text)) return undefined;
    try {
      return parseJson(text, { texts: false }).value;
    } catch {
      return undefined;
    }
  };
  const [ours, theirs] = [value(staged.ours), value(staged.theirs)];
  return ours === undefined || theirs === undefined ? undefined : { base: value(staged.base), ours, theirs };
}

export function mergeCheckpointTexts(input: MergeTextsInput): MergeTextsResult {
  const unreadable: UnreadableSide[] = [];
  // Texts of literals a rewrite would change, per side: merged by mergeLiteralTexts.
  const sideTexts: Partial<Record<MergeSide, LiteralTexts>> = {};
  // Ours is laid out exactly as formatJson lays it out (the parser's fast path knows): no layout to keep.
  let oursCanonical = false;
  const parseSide = (side: MergeSide, text: string): JsonValue | undefined => {
    try {
      const parsed = parseJson(text);
      sideTexts[side] = parsed.texts;
      if (side === 'ours') oursCanonical = parsed.canonical === true;
      return parsed.value;
    } catch (e) {
      const reason =
        e instanceof JsonNumberRangeError || e instanceof JsonUnsafeKeyError
          ? `cannot be read at ${e.line}:${e.column}: ${e.reason}`
          : e instanceof JsonSyntaxError
            ? e.reason === CONFLICT_REASON
              ? `holds committed conflict markers at ${e.line}:${e.column}`
              : `is not valid JSON at ${e.line}:${e.column}: ${e.reason}`
            : `cannot be read: ${String(e)}`;
      unreadable.push({ side, reason });
      return undefined;
    }
  };
  let base = input.base === null || NO_ANCESTOR.test(input.base) ? undefined : parseSide('base', input.base);
  const ours = parseSide('ours', input.ours);
  const theirs = parseSide('theirs', input.theirs);
  const kind = input.fileName === undefined ? 'checkpoint' : fileKind(input.fileName);
  const extraRules = kind === 'rotation' ? [...ROTATION_FILE_RULES, ...(input.extraRules ?? [])] : input.extraRules;
  // A base no JSON (a broken file both branches repaired): the two sides merge against what they
  // hold alike (agreed-base.ts), as an add/add merges, rather than git's line merge and a dead end.
  // Not for sides cut from markers (settle-markers.ts), where a base cut broken is a cut to refuse,
  // unless the base is git's stage 1 (agreeOnBrokenBase).
  if ((!input.fromMarkers || input.agreeOnBrokenBase) && unreadable.length === 1 && unreadable[0]!.side === 'base' && ours !== undefined && theirs !== undefined) {
    unreadable.length = 0;
    delete sideTexts.base;
    base = agreedBase(ours, theirs, extraRules);
  }
  if (unreadable.length > 0 || ours === undefined || theirs === undefined) return { status: 'unparseable', conflicts: [], messages: [unparseableMessage(input.fileName, unreadable) + committedMarkersAdvice(unreadable)] };

  const merged = mergeCheckpointValues(base, ours, theirs, { extraRules, keysChecked: true, texts: sideTexts, logged: input.staged ? stagedLogs(input.staged) : undefined, fromMarkers: input.fromMarkers });
  let { value, conflicts } = merged;
  const exact = merged.exact ?? [];
  let unmatched: string[] | undefined;
  if (input.virtualBase) return { status: 'clean', text: formatJson(virtualBase(value, conflicts), detectFormat(input.ours)), conflicts: [], messages: [] };
  if (input.settle) ({ value, conflicts, unmatched } = settleConflicts(value, conflicts, input.settle));
  // Literals equal in value but respelled by a side: their texts merge like values (literal-texts.ts).
  const anyTexts = sideTexts.base !== undefined || sideTexts.ours !== undefined || sideTexts.theirs !== undefined;
  const settle = input.settle;
  const texts = anyTexts ? mergeLiteralTexts(value, exact.length ? [...conflicts, ...exact] : conflicts, { base, ours, theirs }, sideTexts, settle && ((display) => settledSide(display, settle)), merged.logSources) : undefined;
  if (texts) {
    for (const c of conflicts) c.texts = conflictNumberTexts(c, sideTexts);
    // One inside a record the base has none of is shown as that record's, as the value merge marks its own (base-records.ts).
    for (const c of texts.conflicts) {
      const lacks = baseLacksById(base, value, c.path);
      if (lacks !== undefined) c.baseLacks = lacks;
    }
    conflicts = [...conflicts, ...texts.conflicts];
    // A requested path that settled only a text conflict did cover one.
    unmatched = unmatched?.filter((p) => !texts.settled.some((display) => settledSide(display, { ours: [p] })));
  }
  const format = { ...detectFormat(input.ours), texts: texts?.texts ?? new Map() };
  // A counter sum no double's text spells is written with its exact digits (merge.ts exactCounter, summedCounter), ours' bytes no longer the merge when they differ.
  const exactChanged = exact.length > 0 && keepExactTexts(format.texts, exact, conflicts, ours, sideTexts.ours);
  if (conflicts.length > 0) {
    // Ours laid out by hand: kept outside the conflicted lines where it can be (render-layout.ts), else formatJson's layout.
    const kept = oursCanonical || !input.keepLayout ? null : renderKeepingLayout({ original: input.ours, before: ours, value, conflicts, format, sideTexts, markerSize: input.markerSize, labels: input.labels, write: input.keepLayout() });
    const text = kept ?? renderMerged(value, conflicts, { format, sideTexts, markerSize: input.markerSize, labels: input.labels });
    return { status: 'conflict', text, conflicts, messages: summarizeConflicts(conflicts, { file: input.fileName }), unmatched };
  }

  // The merged value (the same whichever side is ours) written in ours' layout, as every command
  // writes (layout.ts): unchanged from ours, its bytes; else each value ours has unchanged keeps its
  // text, and what the merge changed takes its container's style. So the text is byte-symmetric
  // (merge(A,B) == merge(B,A)) where the sides share one layout and key order (both canonical, or
  // both as formatJson writes with one indent); otherwise only the value is. Conflicts are laid out
  // by renderMerged (markers need lines of their own). A canonical ours is formatJson's layout
  // already: the layout writer is neither loaded nor run. (jsonEqual first: a merge that changed
  // something is told apart without writing out both values.)
  const text =
    !texts?.changedFromOurs && !exactChanged && jsonEqual(value, ours) && JSON.stringify(value) === JSON.stringify(ours)
      ? input.ours
      : oursCanonical || !input.keepLayout
        ? formatJson(value, format)
        : input.keepLayout()(input.ours, ours, value, format, sideTexts.ours);
  const errors = introducedErrors(input.fileName, { value, text }, [
    { value: ours, text: input.ours },
    { value: theirs, text: input.theirs },
  ]);
  if (errors.length > 0) {
    const where = input.fileName ?? 'the checkpoint';
    const invalid = errors.map((e) =>
      // (file): the size cap, the one error of the whole file; rotate reads a merged file this big.
      e.path === '(file)'
        ? `checkpoint: ${where}: the merged result would be ${new TextEncoder().encode(text).length} bytes, which ${e.message.replace(/; move old telemetry out with .*$/, '')}; the whole merge is in the file, unmarked: \`git add\` it, \`checkpoint rotate\` the skill, then \`git add\` it again (or \`git merge --abort\`, rotate one side, merge again)`
        : `checkpoint: ${where}: the merged result is invalid at ${e.path}: ${e.message}`,
    );
    return { status: 'conflict', text, conflicts, messages: invalid, unmatched };
  }
  return { status: 'clean', text, conflicts, messages: [], unmatched };
}
