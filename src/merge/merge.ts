// The semantic 3-way merge of checkpoint JSON. Pure: data in, data out. Every decision
// beyond "one side changed it" comes from the field-policy table (protocol/fields.ts).
//
// At a conflict the merged document holds a stand-in value (see conflict.ts `standIn`)
// that does not depend on which side is "ours", so merge(O,A,B) and merge(O,B,A) give
// equal values and the same conflict paths.

import { policyFor, REQUIRED_FIELDS, type LogPolicy, type PolicyRule } from '../protocol/fields.js';
import { addLiteralText, literalKey, MAX_JSON_DEPTH, POSITION_ROOT, positionKey, type LiteralTexts } from '../protocol/json.js';
import type { JsonObject, JsonValue } from '../protocol/types.js';
import { formatPath, standIn, type Conflict, type MergeContext, type PathSegment, type SideTimes } from './conflict.js';
import { canonicalJson, isJsonObject, ownValue, safeKeys } from '../protocol/identity.js';
import { compareStrings, jsonEqual, setOwn, withoutUnsafeKeys } from './json-value.js';
import { oneOriginForSameClaims } from './capsule-origin.js';
import { mergeLog } from './log.js';
import { exactSuffixes, type ExactSuffixes, type LogSource } from './log-texts.js';
import { mergeQueue } from './queue.js';
import { doneSinceBase } from './requeued.js';
import { currenciesWhy, exactCount, exactSum, isMoneyPath, mergeCounter, mixedCurrencies, mixesCurrencies, pastSafe, resetWhy, spentAlike, type CounterTexts, type Currencies } from './counter.js';
import { recordedText } from '../protocol/format.js';
import { instantMs } from '../protocol/instant.js';
import { mergeRecords } from './records.js';
import { mergePlainArray } from './plain-array.js';
import { hasReason, suggestEnum } from '../protocol/enum-slip.js';
import { CHECKPOINT_STATUSES, ROW_STATUSES } from '../protocol/shapes.generated.js';

export type { Conflict, PathSegment } from './conflict.js';
export { formatPath } from './conflict.js';

/** Project rules ahead of the built-in table, e.g. from `compileExtraLogs(config)`. */
export type ExtraRules = readonly PolicyRule[];

export interface MergeOptions {
  extraRules?: ExtraRules;
  /**
   * Every side came from parseJson, which refuses `__proto__`/`constructor`/`prototype` keys:
   * the merged value, built of the sides' parts, cannot hold one, so it is not searched.
   */
  keysChecked?: boolean;
  /**
   * Each side's literal texts (parseJson's): a spend counter past 2^53 is added on the digits its
   * file holds, not on the double it reads as. Without them, on JSON's text of each double.
   */
  texts?: Partial<Record<'base' | 'ours' | 'theirs', LiteralTexts>>;
  /** The documents whose recently_done tells what each side logged done since the base, where not the sides merged (driver.ts `staged`). */
  logged?: { base: JsonValue | undefined; ours: JsonValue; theirs: JsonValue };
  /**
   * The sides are cut from one file's conflict markers (resolve): what both hold alike outside the
   * blocks is that file's one value (a block settled by hand, or a line git's merge took once), not
   * two saves; `logged` (git's staged sides), where given, tells the two saves apart (sessionsAlike).
   */
  fromMarkers?: boolean;
}

export interface MergeResult {
  value: JsonValue;
  conflicts: Conflict[];
  /** Spend counters whose exact text JSON's text of their value (a double) would round (past 2^53, more digits than a double holds, a side's `8.0`): none, absent. */
  exact?: ExactText[];
  /** Logs merged by exact numbers (log-texts.ts): which entry of each side each merged entry is. None, absent. */
  logSources?: LogSource[];
}

/** A number of the merged document whose exact text is not its double's. */
export interface ExactText {
  path: PathSegment[];
  text: string;
}

export function mergeCheckpointValues(base: JsonValue | undefined, ours: JsonValue, theirs: JsonValue, opts: MergeOptions = {}): MergeResult {
  const conflicts: Conflict[] = [];
  const extra = opts.extraRules ?? [];
  // A snapshot without its own `at` is as recent as the side's document.
  const sideTimes = { ours: instantOf(ownValue(ours, 'updated_at')), theirs: instantOf(ownValue(theirs, 'updated_at')) };
  // Set only when a side switched cost.currency: then its amounts and the other side's are different units.
  const currencies = mixedCurrencies(base, ours, theirs);
  const exact: Exact = { texts: opts.texts, found: [] };
  const logSources: LogSource[] = [];
  const twoSessions = opts.fromMarkers ? sessionsAlike(opts.logged) : () => twoSaves(sideTimes);

  let done: ReturnType<NonNullable<MergeContext['queueDone']>> | undefined;
  const ctx: MergeContext = {
    // Cut from markers, a record both sides hold alike is the file's one text (as sessionsAlike says of counters).
    twoSaves: !opts.fromMarkers && twoSaves(sideTimes),
    node(path, policyPath, b, o, t) {
      const before = conflicts.length;
      const merged = mergeNode(ctx, extra, sideTimes, twoSessions, currencies, exact, path, policyPath, b, o, t);
      // An array item or object member both sides hold and the base lacks (a record both added
      // under one id, an object both added under one key): what conflicts inside it lies under a
      // value the base never had. Set last by the outermost.
      if (b === undefined && path.length > 0 && isContainer(o) && isContainer(t)) {
        for (let k = before; k < conflicts.length; k++) if (conflicts[k]!.path.length > path.length) conflicts[k]!.baseLacks = path.length;
      }
      return merged;
    },
    queueDone: () => (done ??= sidesDone(base, ours, theirs, opts.logged)),
    conflict(path, b, o, t, why) {
      conflicts.push(why === undefined ? { path, display: formatPath(path), base: b, ours: o, theirs: t } : { path, display: formatPath(path), base: b, ours: o, theirs: t, why });
      return standIn(o, t);
    },
    sliceConflict(path, b, o, t, settled) {
      const kept = standIn(o, t, (run) => run.length === 0) ?? [];
      conflicts.push({ path, display: formatPath(path), base: b, ours: o, theirs: t, span: kept.length, ...(settled && { settled }) });
      return kept;
    },
    conflictCount: () => conflicts.length,
    dropConflictsFrom(n) {
      conflicts.length = n;
    },
    logExactness(path, b, o, t) {
      // A log under an array (inside a record) has no content key of its own here: its entries are their values.
      const at = opts.texts ? textKeys(path) : null;
      return at ? exactSuffixes(at.key, { base: b, ours: o, theirs: t }, opts.texts) : undefined;
    },
    logSource(source) {
      logSources.push(source);
    },
  };
  // `ours` and `theirs` are present, so the root merge always yields a value.
  const merged = ctx.node([], [], base, ours, theirs) ?? ours;
  // Merged objects never take an unsafe key, but a subtree handed through whole (a log
  // entry, a side's array) could carry one from a caller that did not use parseJson.
  const result: MergeResult = { value: opts.keysChecked ? merged : withoutUnsafeKeys(merged), conflicts };
  if (exact.found.length) result.exact = exact.found;
  if (logSources.length) result.logSources = logSources;
  return result;
}

/**
 * What each side logged done since the base (requeued.ts). `logged` (git's stages, where the sides
 * are cut from markers, one merged log in each) tells it only where the queue merged is the one
 * it was logged against: a conflict marked around the whole queue. Elsewhere the markers' base
 * holds the merged pops already, and a pop counted again would read a copy left as queued anew.
 */
function sidesDone(base: JsonValue | undefined, ours: JsonValue, theirs: JsonValue, logged: MergeOptions['logged']): { ours: Map<string, number>; theirs: Map<string, number> } {
  const queue = (doc: JsonValue | undefined) => canonicalJson(ownValue(doc, 'next_actions') ?? null);
  const from = logged && queue(logged.base) === queue(base) ? logged : { base, ours, theirs };
  return { ours: doneSinceBase(from.base, from.ours), theirs: doneSinceBase(from.base, from.theirs) };
}

/** The sides' texts, and the exact texts found so far. */
interface Exact {
  texts: MergeOptions['texts'];
  found: ExactText[];
}

/** Where LiteralTexts keeps the text of an object member at `path` (content key, position); null under an array (its items are keyed by content). */
function textKeys(path: readonly PathSegment[]): { key: string; position: string } | null {
  let key = '';
  let position = POSITION_ROOT;
  for (const seg of path) {
    if (typeof seg === 'number') return null;
    key = literalKey(key, false, seg);
    position = positionKey(position, seg);
  }
  return { key, position };
}

/** A side's text of the number `v` at `path`: its recorded one, else JSON's. */
function sideText(texts: LiteralTexts | undefined, path: readonly PathSegment[], v: number): string {
  const at = texts?.size ? textKeys(path) : null;
  return (at && recordedText(texts, at.key, at.position, v)) ?? JSON.stringify(v);
}

/**
 * Adds to `texts` (the merged document's) the exact text of each counter the merge added where
 * JSON's text of its double would round it (past 2^53, more digits than a double holds), where not inside a conflict (whose blocks are the sides' own texts). Whether one is not
 * ours' text: then ours' bytes are not the merge, though its value may read as the same double.
 */
export function keepExactTexts(texts: LiteralTexts, exact: readonly ExactText[], conflicts: readonly Conflict[], ours: JsonValue, oursTexts: LiteralTexts | undefined): boolean {
  let changed = false;
  const within = (path: readonly PathSegment[], c: Conflict) => c.path.length <= path.length && c.path.every((seg, k) => seg === path[k]);
  for (const { path, text } of exact) {
    if (conflicts.some((c) => within(path, c))) continue;
    const at = textKeys(path);
    if (at && text !== JSON.stringify(Number(text))) {
      addLiteralText(texts, at.key, text);
      addLiteralText(texts, at.position, text);
    }
    const mine = path.reduce<JsonValue | undefined>((v, seg) => ownValue(v, String(seg)), ours);
    changed ||= typeof mine !== 'number' || sideText(oursTexts, path, mine) !== text;
  }
  return changed;
}

/** A counter's text in each side: its recorded one, else JSON's. */
function counterTexts(exact: Exact, path: readonly PathSegment[], base: number | undefined, ours: number, theirs: number): CounterTexts {
  const text = (side: 'base' | 'ours' | 'theirs', v: number) => sideText(exact.texts?.[side], path, v);
  return [base === undefined ? undefined : text('base', base), text('ours', ours), text('theirs', theirs)];
}

/**
 * A spend counter past 2^53 (counter.ts pastSafe) merged on its sides' texts: the doubles may
 * be equal where the digits are not, and their sum is not exact. The double stands in the
 * document; its exact text is kept for the writer.
 */
function exactCounter(ctx: MergeContext, exact: Exact, path: PathSegment[], base: number | undefined, ours: number, theirs: number): JsonValue | undefined {
  const merged = exactCount(...counterTexts(exact, path, base, ours, theirs));
  if ('conflict' in merged) return ctx.conflict(path, base, ours, theirs, merged.conflict);
  exact.found.push({ path: [...path], text: merged.text });
  return merged.value;
}

/**
 * A counter both sides changed, summed on the texts its files hold (counter.ts exactSum): a
 * side that wrote more digits than its double holds (12.3456789012345678) keeps them in the sum,
 * whose exact text is kept for the writer where JSON's text of the double would round it.
 * Undefined where the counter conflicts.
 */
function summedCounter(exact: Exact, path: PathSegment[], base: JsonValue | undefined, ours: JsonValue, theirs: JsonValue): number | undefined {
  const numbers = typeof ours === 'number' && typeof theirs === 'number' && (base === undefined || typeof base === 'number');
  // Added once, on the texts; the doubles only where the texts cannot be (exactSum: a negative, a non-decimal).
  const texts = numbers ? counterTexts(exact, path, base, ours, theirs) : undefined;
  const exactly = texts ? exactSum(...texts) : undefined;
  const sum = exactly?.value ?? mergeCounter(base, ours, theirs);
  const text = exactly?.text;
  // Kept where JSON would spell the sum otherwise, or where a side's text is another decimal of the
  // same double (a spend below its precision: 2e-15 onto 21.4298...02 is ...04, not ours' text).
  const respelled = text !== undefined && texts!.some((t) => t !== undefined && t !== text && Number(t) === sum);
  // (Under an array, where a text has no place of its own, literal-texts.ts spells it by content.)
  if (text !== undefined && (text !== JSON.stringify(sum) || respelled) && textKeys(path)) exact.found.push({ path: [...path], text });
  return sum;
}

/**
 * Each side's document saved at a time of its own (two `updated_at`s): where both raised a counter
 * to the same value, that is two sessions, on two machines or one after the other on
 * a rebase, each of which spent (a +1 run counter, a flat per-session cost). The same commit on
 * both sides (a cherry-pick) counts once while it carries one save's time on both (red team, 12-06:
 * `pull --rebase` and `pull` gave different totals, and both lost a session); once either side
 * carries a later save's time, no file tells it from two sessions (docs/merge-driver.md, 62a 03).
 */
function twoSaves(times: SideTimes): boolean {
  return times.ours !== undefined && times.theirs !== undefined && times.ours !== times.theirs;
}

/** Whether a value both sides hold alike at `path` is two sessions' saves of it, each counted where it is spend. */
type TwoSessions = (path: readonly PathSegment[], value: JsonValue) => boolean;

/**
 * TwoSessions for sides cut from one file's markers, where a value both hold alike is the file's one
 * text: two saves only where git's staged sides (`staged`), saved at two times, both hold it too
 * (git's line merge took two sessions' equal lines once). Anywhere else someone settled it (a block
 * cut down to one side by hand: red team 62a 01), and it stands as written; so it does where the
 * staged sides are unknown, or the path passes through an array (its indices are the merge's).
 */
function sessionsAlike(staged: MergeOptions['logged']): TwoSessions {
  if (staged === undefined) return () => false;
  const times = { ours: instantOf(ownValue(staged.ours, 'updated_at')), theirs: instantOf(ownValue(staged.theirs, 'updated_at')) };
  const at = (doc: JsonValue, path: readonly PathSegment[]) => path.reduce<JsonValue | undefined>((v, seg) => (typeof seg === 'string' ? ownValue(v, seg) : undefined), doc);
  return (path, value) => twoSaves(times) && sameValue(at(staged.ours, path), value) && sameValue(at(staged.theirs, path), value);
}

/**
 * A log of sessions' records both sides changed alike in saves of their own: what each added is
 * each session's own, kept from both (log.ts sessionsApart), so the log merges rather than standing as one side.
 */
function sessionsAddedAlike(ctx: MergeContext, policy: LogPolicy, base: JsonValue | undefined, ours: JsonValue | undefined): boolean {
  return policy.sessions === true && ctx.twoSaves === true && Array.isArray(ours) && !sameValue(base, ours);
}

/**
 * jsonEqual, but -0 and 0 are two numbers, as they are two texts a reader sees (=== calls them
 * one): a side that turned one into the other changed the value, so its text is the merge.
 */
function sameValue(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return typeof a === 'number' && typeof b === 'number' ? Object.is(a, b) : jsonEqual(a, b);
}

/**
 * A status a side only respelled, as read (`"In Progress"` fixed to `in_progress`, `"done"` for
 * `complete`), beside the other side's change: the change stands, and where both mean one status,
 * the protocol's own spelling (red team, 12-06: a side applying the printed fix conflicted).
 * Undefined where the sides mean different statuses, or for any other field.
 */
function statusRespelled(policyPath: readonly string[], base: JsonValue | undefined, ours: string, theirs: string): string | undefined {
  const allowed: readonly string[] | undefined = policyPath.length === 1 && policyPath[0] === 'status' ? CHECKPOINT_STATUSES : policyPath.length === 2 && policyPath[0] === 'progress_table' && policyPath[1] === 'status' ? ROW_STATUSES : undefined;
  if (allowed === undefined) return undefined;
  // A spelling of one status; a value with a reason after it ("blocked - vendor", "blocked-on-review") says more than its status.
  const meant = (v: string) => (allowed.includes(v) ? v : hasReason(v) ? `\u0000${v}` : (suggestEnum(v, allowed) ?? `\u0000${v}`));
  const [o, t] = [meant(ours), meant(theirs)];
  // Both mean one status (each spelled its own way, neither the protocol's, too): the protocol's spelling (red team 64 r2).
  if (o === t) return allowed.includes(o) ? o : undefined;
  if (typeof base !== 'string') return undefined;
  const b = meant(base);
  if (o === b) return theirs;
  if (t === b) return ours;
  return undefined;
}

function instantOf(value: JsonValue | undefined): number | undefined {
  const t = typeof value === 'string' ? instantMs(value) : NaN;
  return Number.isFinite(t) ? t : undefined;
}

/**
 * Both sides rewrote a snapshot: the whole value of the side whose own time (its `at`,
 * else its document's `updated_at`) is later. A side that dropped it loses to one that
 * changed it (nothing is lost); equal or unknown times pick by canonical JSON (standIn),
 * so the choice never depends on which side is checked out.
 */
function pickSnapshot(times: SideTimes, ours: JsonValue | undefined, theirs: JsonValue | undefined): JsonValue | undefined {
  if (ours === undefined || theirs === undefined) return ours ?? theirs;
  const o = instantOf(ownValue(ours, 'at')) ?? times.ours;
  const t = instantOf(ownValue(theirs, 'at')) ?? times.theirs;
  if (o !== undefined && t !== undefined && o !== t) return o > t ? ours : theirs;
  if ((o === undefined) !== (t === undefined)) return o !== undefined ? ours : theirs;
  return standIn(ours, theirs);
}

function mergeNode(
  ctx: MergeContext,
  extra: ExtraRules,
  times: SideTimes,
  twoSessions: TwoSessions,
  currencies: Currencies | undefined,
  exact: Exact,
  path: PathSegment[],
  policyPath: string[],
  base: JsonValue | undefined,
  ours: JsonValue | undefined,
  theirs: JsonValue | undefined,
): JsonValue | undefined {
  // Objects merge key by key under every policy but snapshot. Recursing straight away
  // gives what the "one side changed it" shortcuts would, in ours' key order, without
  // comparing each subtree again at every level above it.
  if (isJsonObject(ours) && isJsonObject(theirs) && path.length <= MAX_JSON_DEPTH) {
    const kind = policyFor(policyPath, extra).kind;
    // A capsule's two origins of the same claims are one origin before its keys merge.
    if (kind === 'capsule') [ours, theirs] = oneOriginForSameClaims(base, ours, theirs);
    if (kind !== 'snapshot') return mergeObjects(ctx, path, policyPath, isJsonObject(base) ? base : undefined, ours, theirs);
  }
  // An amount in one side's currency that would land in a document of another (counter.ts).
  if (currencies && isMoneyPath(policyPath) && mixesCurrencies(currencies, base, ours, theirs)) return ctx.conflict(path, base, ours, theirs, currenciesWhy(currencies));
  // Both raised a counter to one value in saves of their own: two sessions that spent alike, both counted.
  if (typeof ours === 'number' && typeof theirs === 'number' && (base === undefined || typeof base === 'number') && sameValue(ours, theirs) && twoSessions(path, ours) && policyFor(policyPath, extra).kind === 'counter' && spentAlike(...counterTexts(exact, path, base, ours, theirs))) {
    return summedCounter(exact, path, base, ours, theirs);
  }
  // A spend counter past 2^53: added on its digits, which equal doubles may differ in (checked only past 2^53).
  if (typeof ours === 'number' && typeof theirs === 'number' && (base === undefined || typeof base === 'number') && pastSafe(base, ours, theirs) && policyFor(policyPath, extra).kind === 'counter') {
    return exactCounter(ctx, exact, path, base, ours, theirs);
  }
  // A log holding numbers that read as doubles of other values: the sides are alike only where
  // those numbers are too (two runs' nanosecond times one double apart are two runs).
  const exactLog = exact.texts && Array.isArray(ours) && Array.isArray(theirs) ? logExactness(ctx, extra, path, policyPath, base, ours, theirs) : undefined;
  if (exactLog) {
    const same = (x: readonly string[], y: readonly string[]): boolean => x.length === y.length && x.every((s, k) => s === y[k]);
    if (sameValue(ours, theirs) && same(exactLog.suffixes.ours, exactLog.suffixes.theirs) && !sessionsAddedAlike(ctx, exactLog.policy, base, ours)) return ours;
    if (sameValue(base, ours) && same(exactLog.suffixes.base, exactLog.suffixes.ours)) return theirs;
    if (sameValue(base, theirs) && same(exactLog.suffixes.base, exactLog.suffixes.theirs)) return ours;
    return mergeLog(ctx, path, policyPath, exactLog.policy, exactLog.base, ours as JsonValue[], theirs as JsonValue[], exactLog.suffixes);
  }
  if (sameValue(ours, theirs)) {
    const policy = Array.isArray(ours) && ctx.twoSaves && !sameValue(base, ours) ? policyFor(policyPath, extra) : undefined;
    if (policy?.kind !== 'log' || !sessionsAddedAlike(ctx, policy, base, ours)) return ours;
    return mergeLog(ctx, path, policyPath, policy, Array.isArray(base) ? base : [], ours as JsonValue[], theirs as JsonValue[]);
  }
  // A field every checkpoint needs, dropped by one side only (a file wiped to `{}`, a bad
  // rewrite): shown, never taken silently, which would leave the merge no checkpoint at all.
  if (path.length === 1 && base !== undefined && (ours === undefined) !== (theirs === undefined) && REQUIRED_FIELDS.includes(String(path[0]))) return ctx.conflict(path, base, ours, theirs);
  if (sameValue(base, ours)) return theirs;
  if (sameValue(base, theirs)) return ours;
  const respelled = typeof ours === 'string' && typeof theirs === 'string' ? statusRespelled(policyPath, base, ours, theirs) : undefined;
  if (respelled !== undefined) return respelled;
  // Both sides changed it, differently.
  if (path.length > MAX_JSON_DEPTH) return ctx.conflict(path, base, ours, theirs);
  const policy = policyFor(policyPath, extra);
  if (policy.kind === 'snapshot') return pickSnapshot(times, ours, theirs);
  // An object one side dropped and the other changed: key by key against an empty one, so
  // a log inside it still gets the other side's additions (a cherry-picked append onto a
  // branch whose checkpoint lacks the whole section) and any other change stands out alone.
  const present = ours ?? theirs;
  // (Not for an array item: a record removed on one side and edited on the other stays whole.)
  // Only when that settles cleanly: a real collision inside is shown at the object itself, so
  // each side's choice in the markers is exactly that side (dropped, or the whole object).
  if (isJsonObject(base) && (ours === undefined || theirs === undefined) && isJsonObject(present) && typeof path[path.length - 1] === 'string') {
    const side = (v: JsonValue | undefined): JsonObject => (v === undefined ? {} : (v as JsonObject));
    const before = ctx.conflictCount();
    const merged = mergeObjects(ctx, path, policyPath, base, side(ours), side(theirs));
    if (ctx.conflictCount() === before) return safeKeys(merged).length > 0 ? merged : undefined;
    ctx.dropConflictsFrom(before);
    return ctx.conflict(path, base, ours, theirs);
  }
  // An absent log is an empty log: a cherry-picked append lands on a branch that lacks it.
  const asLog = (v: JsonValue | undefined): JsonValue | undefined => (v === undefined && policy.kind === 'log' ? [] : v);
  const [o, t] = [asLog(ours), asLog(theirs)];
  if (o === undefined || t === undefined) return ctx.conflict(path, base, ours, theirs);

  const arrays = Array.isArray(o) && Array.isArray(t) ? { b: Array.isArray(base) ? base : [], o, t } : undefined;
  switch (policy.kind) {
    case 'instant': {
      const picked = pickInstant(o, t, policy.pick);
      if (picked !== undefined) return picked;
      break;
    }
    case 'log':
      if (arrays) return mergeLog(ctx, path, policyPath, policy, arrays.b, arrays.o, arrays.t);
      break;
    case 'records': {
      // progress_table rows written without an id are known by their label, blockers written as strings by their text (records.ts).
      const top = policyPath.length === 1 ? policyPath[0] : undefined;
      const merged = arrays && mergeRecords(ctx, path, policyPath, arrays.b, arrays.o, arrays.t, { byLabel: top === 'progress_table', byText: top === 'blockers' });
      if (merged) return merged;
      break;
    }
    case 'queue':
      if (arrays) return mergeQueue(ctx, path, arrays.b, arrays.o, arrays.t, times, path.length === 1 && path[0] === 'next_actions' ? ctx.queueDone?.() : undefined);
      break;
    case 'counter': {
      const sum = summedCounter(exact, path, base, o, t);
      if (sum !== undefined) return sum;
      return ctx.conflict(path, base, ours, theirs, resetWhy(base, o, t));
    }
    case 'value': {
      // A list the protocol does not name (skill_state's own) whose items all carry an id is
      // merged as the protocol's record lists are: per id, so disjoint edits and additions on
      // two branches meet, and the rules inside a record (telemetry, counters) apply.
      const merged = arrays && mergeRecords(ctx, path, policyPath, arrays.b, arrays.o, arrays.t);
      if (merged) return merged;
      // Any other list the base holds: item by item, as git's line merge would (plain-array.ts).
      const items = arrays && Array.isArray(base) ? mergePlainArray(ctx, path, policyPath, arrays.b, arrays.o, arrays.t) : undefined;
      if (items) return items;
      break;
    }
    case 'capsule':
      break;
  }
  return ctx.conflict(path, base, ours, theirs);
}

/** A log's policy, base and sides' exact suffixes (log-texts.ts) where some side's log holds a number of another value than its double's. */
function logExactness(ctx: MergeContext, extra: ExtraRules, path: PathSegment[], policyPath: string[], base: JsonValue | undefined, ours: JsonValue[], theirs: JsonValue[]): { policy: LogPolicy; base: JsonValue[]; suffixes: ExactSuffixes } | undefined {
  if (path.length > MAX_JSON_DEPTH) return undefined;
  const policy = policyFor(policyPath, extra);
  if (policy.kind !== 'log') return undefined;
  const b = Array.isArray(base) ? base : [];
  const suffixes = ctx.logExactness(path, b, ours, theirs);
  return suffixes && { policy, base: b, suffixes };
}

/** The later (or earlier) of two ISO-8601 instants; undefined when either does not parse. */
function pickInstant(ours: JsonValue, theirs: JsonValue, pick: 'latest' | 'earliest'): string | undefined {
  if (typeof ours !== 'string' || typeof theirs !== 'string') return undefined;
  const o = instantMs(ours);
  const t = instantMs(theirs);
  if (!Number.isFinite(o) || !Number.isFinite(t)) return undefined;
  // The same instant spelled differently ("Z" vs "+00:00"): the smaller text, whichever side it is on.
  if (o === t) return compareStrings(ours, theirs) <= 0 ? ours : theirs;
  return (pick === 'latest') === o > t ? ours : theirs;
}

/**
 * Key by key. The result keeps ours' key order; a key only theirs has goes right after
 * the key that precedes it in theirs, so a rewrite moves no untouched line.
 */
function mergeObjects(ctx: MergeContext, path: PathSegment[], policyPath: string[], base: JsonObject | undefined, ours: JsonObject, theirs: JsonObject): JsonObject {
  const merged = new Map<string, JsonValue>();
  const mergeKey = (key: string): void => {
    const value = ctx.node([...path, key], [...policyPath, key], ownValue(base, key), ownValue(ours, key), ownValue(theirs, key));
    if (value !== undefined) merged.set(key, value);
  };
  const oursKeys = safeKeys(ours);
  for (const key of oursKeys) mergeKey(key);

  const insertedAfter = new Map<string | null, string[]>(); // ours key (null = the start) -> theirs-only keys that follow it
  let anchor: string | null = null;
  for (const key of safeKeys(theirs)) {
    if (Object.prototype.hasOwnProperty.call(ours, key)) {
      if (merged.has(key)) anchor = key;
      continue;
    }
    mergeKey(key);
    if (!merged.has(key)) continue;
    const list = insertedAfter.get(anchor) ?? [];
    list.push(key);
    insertedAfter.set(anchor, list);
  }

  // Every member ours' very own (an object neither side changed, the usual case): ours itself,
  // which the merged file's validation then skips as ours' (validate.ts `known`). Object.is: a
  // member merged from -0 to 0 (sameValue) is not ours'.
  if (insertedAfter.size === 0 && merged.size === oursKeys.length && oursKeys.every((key) => Object.is(merged.get(key), ours[key]))) return ours;
  const result: JsonObject = {};
  const put = (key: string): void => setOwn(result, key, merged.get(key)!);
  for (const key of insertedAfter.get(null) ?? []) put(key);
  for (const key of oursKeys) {
    if (!merged.has(key)) continue;
    put(key);
    for (const inserted of insertedAfter.get(key) ?? []) put(inserted);
  }
  return result;
}

const isContainer = (v: JsonValue | undefined): boolean => v !== null && typeof v === 'object';
