import { join, relative } from 'node:path';
import { lstatSync } from 'node:fs';
import { CheckpointError, isCheckpointError } from '../../errors.js';
import { compileExtraLogs, type PolicyRule } from '../../protocol/fields.js';
import { mergeCheckpointTexts, type MergeTextsResult } from '../../merge/driver.js';
import { joinSides, markerProblem, parseMarkedText, type MarkedText } from '../../merge/markers.js';
import { mergeMarkedText } from '../../merge/settle-markers.js';
import { introducedErrors, notAlreadyIn, type FileContent } from '../../protocol/file-validation.js';
import { fileKind } from '../../protocol/file-names.js';
import { JsonSyntaxError, parseJson } from '../../protocol/json.js';
import type { JsonValue } from '../../protocol/types.js';
import { jsonEqual } from '../../merge/json-value.js';
import { isJsonObject, ownValue, safeKeys } from '../../protocol/identity.js';
import { formatKeepingLayout } from '../../protocol/layout.js';
import { handSlipIn } from '../../merge/hand-slip.js';
import { samePath, type Settlement } from '../../merge/settle.js';
import { CONFIG_REL, configConflict, configHoldsMarkers, configSettlements } from '../../store/config.js';
import { pathArg } from '../../store/paste-path.js';
import { display, replaceCheckpointText, type Clock } from '../../store/checkpoints.js';
import { MAX_RESOLVE_BYTES, TOO_LARGE_ADVICE, addedStage, handMergedFix, handMergedHistoryRel, filesWithMarkers, scanForMarkers, tooLargeMessage, misnamedAdvice, misnamedCheckpointRel, missingConflict, readStages, refuseMisnamed, resolvableFile, resolvableSkill, unmergedCheckpointPaths, type ResolvableFile } from '../../store/conflicts.js';
import { readProjectText, statProjectFile } from '../../store/safe-fs.js';
import { archiveDeletedInMerge } from '../../store/history.js';
import { committedMerge } from '../../store/committed-merge.js';
import { conflictAt, conflictReportAt, typeConflictCopy } from '../../store/index-conflicts.js';
import { runGitBytes } from '../../git/git-process.js';
import { REBASE_SIDES, blobAt, replayConflict } from '../../git/rebasing.js';
import { driverRoutes, gitRun } from '../../install/git-config.js';
import type { Context, ParsedArgs } from '../spec.js';
import { oneLine, shown, shownList } from '../render/output.js';
import { shownPath } from '../../one-line.js';
import { argPath, rootOf } from './common.js';

type Status = 'resolved' | 'conflict' | 'invalid' | 'unparseable' | 'nothing-to-do' | 'deleted-on-one-side';
/** conflictPaths: what still conflicts there, for the hint when a requested path matches nothing. */
/** Where the result came from: git's index stages, the markers in the file, or the file itself (settled already). */
type Source = 'stages' | 'markers' | 'file';
/** deleted: the side that deleted the file in a modify/delete conflict (the file holds the other side's change). */
/** archive: where --accept-deletion kept the changed version (the deletion staged). */
/** oneSide: a file without markers that holds one side's value alone while the other side changed it (what git leaves when the driver did not run). */
/** taken: that side was taken on purpose (`git checkout --ours`/`--theirs`), the driver being set up for the file. */
type Outcome = { path: string; status: Status; source?: Source; messages: string[]; conflictPaths?: string[]; deleted?: 'ours' | 'theirs'; archive?: string; oneSide?: 'ours' | 'theirs'; taken?: boolean };

/** A file's merge worked out, not yet written. */
interface Plan {
  file: ResolvableFile;
  outcome: Outcome;
  /** The text to write: the clean merge, or the merge with markers only around what remains. */
  text?: string;
  /** The texts of ours and theirs it was merged from (the store validates against them). */
  mergedFrom?: string[];
  unmatched: string[];
  /** The text the plan was made from: the write is refused if the file changed since. */
  onDisk?: string;
  /** For a file settled by hand that --add would refuse: what is wrong with it ("is not valid JSON at 3:5: …"). */
  problem?: string;
  /** --accept-deletion of a modify/delete conflict: the changed version goes to history/, the deletion is staged. */
  acceptDeletion?: { changedStage: 2 | 3 };
  /** With `problem`: the ways on where the generic one (`git checkout --merge`) would only make the same file again. */
  ways?: string;
}

function listOption(value: string | boolean | string[] | undefined): string[] {
  return value === undefined || typeof value === 'boolean' ? [] : Array.isArray(value) ? value : [value];
}

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  if (args.options.check) return check(root, ctx);
  const settlement: Settlement = { ours: listOption(args.options.ours), theirs: listOption(args.options.theirs) };
  const both = settlement.ours!.find((p) => settlement.theirs!.some((t) => samePath(p, t)));
  if (both !== undefined) throw new CheckpointError('E_USAGE', `resolve: ${shown(both)} is given to both --ours and --theirs`, { hint: 'name each conflict path once' });
  const settling = settlement.ours!.length + settlement.theirs!.length > 0;
  const add = Boolean(args.options.add);
  const acceptDeletion = Boolean(args.options['accept-deletion']);

  // Files the marker scan could not read safely (a link out, a FIFO, too large): named once, in
  // the one line a refusal prints or in one note after the report, never a line each.
  const skipped: Skipped[] = [];
  // Files git's line merge took (history/ files named as no archive or rotation): named, left to a person.
  let byHand: string[] = [];
  const plans = await withSkipped(skipped, async () => {
    const found = args.positionals.length ? [] : [...new Set([...unmergedCheckpointPaths(root), ...filesWithMarkers(root, (path, why) => skipped.push({ path, why }))])];
    byHand = found.filter(handMergedHistoryRel).sort();
    const rels = args.positionals.length
      ? args.positionals.map((p) => relative(root, argPath(ctx, p)))
      : found.filter((rel) => resolvableSkill(rel) !== undefined || misnamedCheckpointRel(rel));
    // Every safety check before any write: one refused file leaves all of them as they were. A
    // misnamed checkpoint file with a conflict is refused here, never passed over (--check fails on it).
    refuseMisnamed(rels); // all of them named in its one line, not the first alone
    const unmerged = new Set(unmergedCheckpointPaths(root));
    const files = rels.map((rel) => resolvableFile(root, rel, unmerged, { acceptDeletion }));
    const ruleSets = configSettlements(root).map(compileExtraLogs);
    const plans = files.map((file) => planUnderEach(ruleSets, (rules) => planOne(root, file, rules, settling ? settlement : undefined, unmerged, add, acceptDeletion), root));
    if (acceptDeletion && !plans.some((p) => p.acceptDeletion)) {
      throw new CheckpointError('E_USAGE', `resolve: --accept-deletion: no modify/delete conflict in ${plans.length ? shownList(plans.map((p) => p.file.rel)) : 'any conflicted checkpoint file'}`, {
        hint: 'it settles a checkpoint one side deleted and the other changed; `checkpoint resolve --check` lists the conflicts',
      });
    }

    if (settling) {
      const requested = [...settlement.ours!, ...settlement.theirs!];
      const nowhere = requested.filter((p) => plans.every((plan) => plan.unmatched.includes(p)));
      if (nowhere.length > 0) {
        const open = [...new Set(plans.flatMap((p) => p.outcome.conflictPaths ?? []))];
        throw new CheckpointError('E_USAGE', `resolve: no conflict at ${shownList(nowhere)} in ${plans.length ? shownList(plans.map((p) => p.file.rel)) : 'any conflicted checkpoint file'}`, {
          hint: open.length ? `conflicts there: ${shownList(open, 5)}` : 'run `checkpoint resolve` without --ours/--theirs to see the conflicts',
        });
      }
    }
    for (const plan of plans) await write(root, plan, add, ctx.clock);
    return plans;
  });
  const outcomes = plans.map((p) => p.outcome);
  // A run over every conflict names the one it leaves to a person: settings are merged by hand.
  const config = args.positionals.length === 0 && configHoldsMarkers(root) ? `${CONFIG_REL} ${configConflict(root)}` : null;
  const failed = config !== null || byHand.length > 0 || outcomes.some((o) => o.status !== 'resolved' && o.status !== 'nothing-to-do');
  // Sides left to choose in a rebase's replay: ours is the upstream, theirs the user's commit. Said
  // only when every open conflict's theirs is the replayed commit's file (a stash pop leaves no
  // other trace); a `merge` step or a cherry-pick inside a stopped rebase is not such a replay.
  const open = outcomes.filter((o) => o.status === 'conflict' || o.status === 'deleted-on-one-side');
  const rebasing = open.length > 0 && open.every((o) => replayConflict(root, o.path, blobAt(root, `:3:${o.path}`)));
  if (ctx.json) ctx.out.json({ ok: !failed, files: outcomes.map(({ conflictPaths: _, taken: __, ...o }) => o), ...(skipped.length ? { skipped } : {}), ...(rebasing ? { rebasing: true } : {}), ...(config ? { config } : {}), ...(byHand.length ? { byHand } : {}) });
  else {
    if (!outcomes.length && !byHand.length) ctx.out.out('no conflicted checkpoint files');
    for (const p of byHand) ctx.out.out(`${oneLine(p)}: ✗ ${handMergedFix(pathArg(root, p))}`);
    for (const o of outcomes) {
      // A modify/delete conflict: which side deleted the file, and what each way out does.
      const [deleter, changer] = o.deleted === 'ours' ? ['our side (HEAD)', 'theirs'] : ['their side', 'ours (HEAD)'];
      const what = {
        // Once staged, git rm needs -f to drop the file from the index as well.
        resolved: o.archive
          ? `✓ accepted the deletion by ${deleter} and staged it; the version ${changer} changed is archived in ${o.archive}${add ? ' (staged)' : ` (git add it to commit it with the merge)`}; \`checkpoint restore ${o.archive.split('/').pop()}\` brings it back`
          : o.deleted
          ? `✓ kept the changed file and staged it; ${deleter} deleted it (\`git rm -f ${pathArg(root, o.path)}\` accepts the deletion instead)`
          : o.oneSide
          ? // Theirs alone is never what git leaves (a driver that failed or is gone leaves ours): `git checkout --theirs` made it.
            `✓ holds ${o.oneSide}' side alone, ${o.taken ? `as \`git checkout --${o.oneSide}\` leaves it` : 'as git left it'}: ${o.oneSide === 'ours' ? 'theirs' : 'ours'}' changes are not in it${add ? '; staged as it is' : ' (--add stages it as it is)'}`
          : `✓ ${o.source === 'file' ? 'already resolved in the file' : `resolved from ${o.source}`}${add ? ' and staged' : ' (stage it with git add, or rerun with --add)'}`,
        'deleted-on-one-side': `✗ deleted on ${deleter}, changed on ${changer}: \`checkpoint resolve --add ${pathArg(root, o.path)}\` keeps the changed file, \`checkpoint resolve --accept-deletion ${pathArg(root, o.path)}\` accepts the deletion (archiving the changed version in history/)`,
        conflict: '✗ real conflicts remain (markers only around them; settle one with --ours <path> or --theirs <path>)',
        invalid: '✗ the merged result is invalid: the file is left as it was',
        unparseable: '✗ cannot be merged semantically: the file is left as it was',
        'nothing-to-do': '· nothing to resolve',
      }[o.status];
      ctx.out.out(`${oneLine(o.path)}: ${what}`);
      for (const m of o.messages) ctx.out.err(`  ${oneLine(m)}`);
    }
    if (skipped.length) ctx.out.err(`checkpoint: ${skippedNote(skipped)}; hint: check ${skipped.length === 1 ? 'it' : 'them'} by hand`);
    if (rebasing) ctx.out.err(`checkpoint: ${REBASE_SIDES}`);
    if (config) ctx.out.err(`checkpoint: ${config}`);
  }
  return failed ? 1 : 0;
}

/** A file the marker scan skipped, and why. */
type Skipped = { path: string; why: string };

/** The skipped files in one bounded phrase: the reason when there is one file, else `resolve --check` gives each. */
function skippedNote(skipped: readonly Skipped[]): string {
  if (skipped.length === 1) {
    const { path, why } = skipped[0]!;
    // safe-fs names the file and ends "; refused"; said once here.
    const reason = why.replace(/^checkpoint: /, '').replace(`${path} `, '').replace(/; refused$/, '');
    return `skipped ${shownPath(path)}: ${shown(reason, 160)}`;
  }
  return `skipped ${skipped.length} files that cannot be read safely (\`checkpoint resolve --check\` says why): ${shownList(skipped.map((s) => s.path))}`;
}

/** Runs `work`; a refusal from it also names what was skipped on the way, in its own one line. */
async function withSkipped<T>(skipped: readonly Skipped[], work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (!isCheckpointError(e) || skipped.length === 0) throw e;
    throw new CheckpointError(e.code, `${e.message} (${skippedNote(skipped)})`, { hint: e.hint, exit: e.exit, cause: e });
  }
}

/**
 * A file's plan under each set of merge rules config.json's settling may give (configSettlements):
 * made once while it holds no conflict markers; while it does, used only when it comes out alike
 * under each (the config's content is not needed to settle this file), else refused naming the
 * config as what must be settled first, and how. Nothing is written before every plan is made.
 */
function planUnderEach(ruleSets: readonly PolicyRule[][], plan: (rules: PolicyRule[]) => Plan, root: string): Plan {
  const [first, ...others] = ruleSets.map(plan);
  const same = (p: Plan) => p.text === first!.text && p.problem === first!.problem && JSON.stringify(p.outcome) === JSON.stringify(first!.outcome);
  if (others.every(same)) return first!;
  throw new CheckpointError('E_CONFLICT', `${first!.file.rel}: its merge depends on merge rules (logs, telemetry, counters) that the two sides of ${CONFIG_REL} set apart; settle that first: it ${configConflict(root)}, then rerun \`checkpoint resolve\`; nothing was written`);
}

/** The merge written in ours' layout, as the driver writes it: only what the merge changed is laid out anew. */
const keepLayout = () => formatKeepingLayout;

function planOne(root: string, file: ResolvableFile, extraRules: PolicyRule[], settle: Settlement | undefined, unmerged: ReadonlySet<string>, add: boolean, acceptDeletion = false): Plan {
  const rel = file.rel;
  const requested = settle ? [...(settle.ours ?? []), ...(settle.theirs ?? [])] : [];
  const stages = unmerged.has(rel) ? readStages(root, rel) : null;
  // The deletion accepted: the changed version (as in the work tree, else as git staged it) is
  // archived, not judged; nothing of it is lost.
  if (acceptDeletion && stages && 'deleted' in stages) {
    return { file, outcome: { path: rel, status: 'resolved', source: 'stages', messages: [], deleted: stages.deleted }, unmatched: requested, acceptDeletion: { changedStage: stages.deleted === 'ours' ? 3 : 2 } };
  }
  // A distinct-types conflict: the path holds the link (or submodule) side, git's copy the file
  // side; nothing to merge, so the report names the copy and how to put it back.
  const copy = stages === null && unmerged.has(rel) ? typeConflictCopy(root, rel) : null;
  if (copy !== null) {
    const report = conflictReportAt(root, rel, conflictAt(root, rel) === 'UA' ? 'UA' : 'AU', lstatSync(file.abs, { throwIfNoEntry: false }) !== undefined, copy);
    return { file, outcome: { path: rel, status: 'unparseable', messages: [`checkpoint: ${report.problem}`, `checkpoint: ${report.repair}`] }, unmatched: requested, problem: `is in a ${report.problem.slice(rel.length + 2)}` };
  }
  const onDisk = readProjectText(root, file.abs, { maxBytes: MAX_RESOLVE_BYTES }) ?? '';
  const marked = parseMarkedText(onDisk);
  // One side deleted the file, the other changed it: nothing to merge, and neither is chosen
  // silently. The changed file is checked like a settled one; only --add keeps it, and only
  // --accept-deletion archives it and stages the deletion.
  if (stages && 'deleted' in stages) {
    const kept = settledFile(file, onDisk, [stages.changed], requested);
    if (kept.outcome.status !== 'resolved') return kept;
    return { ...kept, outcome: { ...kept.outcome, status: add ? 'resolved' : 'deleted-on-one-side', deleted: stages.deleted } };
  }
  const plan = (source: Source, result: MergeTextsResult, mergedFrom: string[]) => fromMerge(file, source, result, mergedFrom, requested, onDisk);
  // Markers a hand edit broke (a closing line deleted): the file is someone's work in progress,
  // never replaced by a merge of the stages; the place, and git's way back.
  if (!marked && stages) {
    const slip = markerProblem(onDisk)!;
    return { file, outcome: { path: rel, status: 'unparseable', messages: [`checkpoint: ${rel}:${slip.line}: ${slip.reason}: mend the markers by hand, then run resolve again; or start again from git's conflict (this drops the file's edits): git checkout --merge -- ${pathArg(root, rel)}`] }, unmatched: [] };
  }
  // The file is the truth once it differs from what git left: markers we wrote (the driver's,
  // or an earlier resolve's) are taken up where they are, so nothing settled is merged again.
  // Git's own line markers, while git still holds the stages and the file is as git left it, are
  // merged from those; edited around or inside them, or a block of them cut down to one side by
  // hand, the file's sides are merged.
  if (marked && marked.blocks > 0 && (marked.own || !stages || editedSinceGit(marked, stages) || settledByHand(marked, stages))) {
    // Broken outside the blocks (a hand edit while settling): that place, and git's way back.
    const slip = handSlipIn(marked.segments);
    if (slip !== null) {
      const back = stages ? `; or start again from git's conflict: git checkout --merge -- ${pathArg(root, rel)}` : '';
      return { file, outcome: { path: rel, status: 'unparseable', messages: [`checkpoint: ${rel}:${slip.line}:${slip.column}: not valid JSON outside the conflict blocks (${slip.reason}), as every side reads it: fix that line by hand, then run resolve again${back}`] }, unmatched: [] };
    }
    // The stages still tell what each side logged done, which the markers' one merged log does not,
    // and which values both sides saved (a value the file holds once is otherwise the file's).
    // git's two-way markers committed by a merge (no stages left): the base and sides are that merge's (red team 12-07).
    const sides = joinSides(marked.segments);
    const committed = !stages && !marked.own && sides.base === null ? committedMerge(root, rel) : undefined;
    const base = stages ? stages.base : committed?.base;
    const staged = stages ?? (committed?.sides && { base: committed.base, ...committed.sides });
    const result = mergeMarkedText({ marked, base, staged, extraRules, fileName: rel, settle, keepLayout });
    return plan('markers', stages ? endingAsOurs(result, stages.ours) : result, [sides.ours, sides.theirs]);
  }
  if (stages) {
    if (!marked || marked.blocks > 0) return plan('stages', mergeCheckpointTexts({ ...stages, extraRules, fileName: rel, settle, keepLayout }), [stages.ours, stages.theirs]);
    const settled = settledFile(file, onDisk, [stages.ours, stages.theirs], requested);
    const broken = settled.outcome.status === 'unparseable' ? brokenStages(stages) : [];
    return broken.length ? lineMergedBroken(root, settled, broken) : oneSideOnly(root, settled, onDisk, stages, extraRules);
  }
  if (!marked) return { file, outcome: { path: rel, status: 'unparseable', messages: [`checkpoint: ${rel}: its conflict markers are nested or unclosed and git holds no stages to merge from: settle it by hand`] }, unmatched: requested };
  // No markers: settled already (by hand or an earlier run); if git still calls it unmerged, check it before it is staged.
  if (unmerged.has(rel)) return settledFile(file, onDisk, [], requested, addedStage(root, rel));
  return { file, outcome: { path: rel, status: 'nothing-to-do', messages: [] }, unmatched: requested };
}

function fromMerge(file: ResolvableFile, source: Source, result: MergeTextsResult, mergedFrom: string[], requested: string[], onDisk: string): Plan {
  const path = file.rel;
  const unmatched = result.unmatched ?? requested;
  const conflictPaths = result.conflicts.map((c) => c.display);
  const outcome = (status: Status, messages = result.messages): Outcome => ({ path, status, source, messages, conflictPaths });
  if (result.status === 'unparseable' || result.text === undefined) return { file, outcome: outcome('unparseable'), unmatched };
  // Already what is on disk: nothing to write (a conflict left as it was, byte for byte).
  const text = result.text === onDisk ? undefined : result.text;
  if (result.status === 'clean') return { file, text, mergedFrom, onDisk, outcome: outcome('resolved', []), unmatched };
  // Invalid without a conflict: writing it unmarked would let it pass `resolve --check`.
  if (result.conflicts.length === 0) return { file, outcome: outcome('invalid'), unmatched };
  return { file, text, mergedFrom, onDisk, outcome: outcome('conflict'), unmatched };
}

/**
 * Whether someone wrote in a file git's line merge left: a line (markers aside) that none of the
 * stages holds. Git's merge only copies lines (taking one side's clean hunks, hence no side whole),
 * so a new line is an edit, line ends aside (a work tree written with CRLF by core.autocrlf).
 */
function editedSinceGit(marked: MarkedText, stages: { base: string | null; ours: string; theirs: string }): boolean {
  const linesOf = (t: string) => t.replace(/\r\n/g, '\n').split('\n');
  const staged = new Set([stages.base ?? '', stages.ours, stages.theirs].flatMap(linesOf));
  const sides = joinSides(marked.segments);
  return [sides.ours, sides.base ?? '', sides.theirs].some((side) => linesOf(side).some((line) => !staged.has(line)));
}

/**
 * Whether someone settled some of git's own line markers by cutting a block down to one side, which
 * writes no line of its own (editedSinceGit sees none): a value (a number, string, boolean or null
 * at an object path) both of the file's sides hold alike where the stages changed it two ways
 * (neither kept the base's, nor did they agree). Git's line merge leaves such a line inside a block;
 * outside one, a person chose it (red team 62a 01). False where a side does not read as JSON.
 */
function settledByHand(marked: MarkedText, stages: { base: string | null; ours: string; theirs: string }): boolean {
  const sides = joinSides(marked.segments);
  const [ours, theirs, stagedOurs, stagedTheirs] = [valueOf(sides.ours), valueOf(sides.theirs), valueOf(stages.ours), valueOf(stages.theirs)];
  if (ours === undefined || theirs === undefined || stagedOurs === undefined || stagedTheirs === undefined) return false;
  const settled = (o: JsonValue, t: JsonValue | undefined, b: JsonValue | undefined, so: JsonValue | undefined, st: JsonValue | undefined): boolean => {
    if (isJsonObject(o) && isJsonObject(t)) return safeKeys(o).some((k) => settled(o[k]!, ownValue(t, k), ownValue(b, k), ownValue(so, k), ownValue(st, k)));
    if ((o !== null && typeof o === 'object') || !jsonEqual(o, t) || so === undefined || st === undefined) return false;
    return !jsonEqual(so, st) && !jsonEqual(so, b) && !jsonEqual(st, b);
  };
  return settled(ours, theirs, stages.base === null ? undefined : valueOf(stages.base), stagedOurs, stagedTheirs);
}

/**
 * A marker needs a line end after the line before it, which ours may not have had at the end of
 * the file (a one-line checkpoint json.dump wrote): once no marker is left, the file ends as ours'
 * stage does, as the driver's clean merge would have.
 */
function endingAsOurs(result: MergeTextsResult, ours: string): MergeTextsResult {
  const end = result.status === 'clean' && result.text !== undefined && !ours.endsWith('\n') ? /\r?\n$/.exec(result.text) : null;
  return end ? { ...result, text: result.text!.slice(0, -end[0].length) } : result;
}

/** The parsed value of `text`, or undefined. */
function valueOf(text: string): JsonValue | undefined {
  try {
    return parseJson(text, { texts: false }).value;
  } catch {
    return undefined;
  }
}

/** The sides git staged that are not JSON: why its line merge, not the driver, made the file. */
function brokenStages(stages: { ours: string; theirs: string }): Array<'ours' | 'theirs'> {
  return (['ours', 'theirs'] as const).filter((side) => valueOf(stages[side]) === undefined);
}

/** `git show :<stage>:<path>` for each side named (the path from the top: no pathArg there). */
const stageShows = (rel: string, sides: readonly ('ours' | 'theirs')[]) => sides.map((side) => `\`git show :${side === 'ours' ? 2 : 3}:${rel}\``).join(', ');

/**
 * A file git's line merge left not valid JSON because a side it merged is not (red team 64 r2):
 * the broken side named, and ways that change something (`git checkout --merge` would make the
 * same file again): fix it by hand, or keep the valid side whole.
 */
function lineMergedBroken(root: string, plan: Plan, broken: readonly ('ours' | 'theirs')[]): Plan {
  const rel = plan.file.rel;
  const arg = pathArg(root, rel);
  const problem = `${plan.problem}: ${broken.join(' and ')} ${broken.length > 1 ? 'are' : 'is'} not valid JSON, and git's line merge carried ${broken.length > 1 ? 'them' : 'it'} in`;
  const keep = broken.length === 1 ? `; or keep ${broken[0] === 'ours' ? 'theirs' : 'ours'} whole: \`git checkout --${broken[0] === 'ours' ? 'theirs' : 'ours'} -- ${arg}\`, then \`git add ${arg}\`` : '';
  const ways = `fix it by hand (${stageShows(rel, broken)} shows what was committed), then \`checkpoint resolve --add ${arg}\`${keep}`;
  return { ...plan, problem, ways, outcome: { ...plan.outcome, messages: [`checkpoint: ${rel} ${problem}; ${ways}`] } };
}

/**
 * A settled file whose value is one side's while the other side's differs: what git leaves when
 * the merge driver did not run (an install that moved) or failed, as much as `git checkout --ours`.
 * Still staged by --add (taking one side whole is a choice), but never called merged: the other
 * side's changes are named as missing, with the way to merge them.
 */
function oneSideOnly(root: string, plan: Plan, onDisk: string, stages: { base: string | null; ours: string; theirs: string }, extraRules: PolicyRule[]): Plan {
  if (plan.outcome.status !== 'resolved') return plan;
  const [mine, ours, theirs] = [valueOf(onDisk), valueOf(stages.ours), valueOf(stages.theirs)];
  // One side git could not give as JSON (saved as UTF-16 by an editor, binary): the driver left
  // the other side's text, which is not a merge. Never staged as one: the broken side is named.
  const broken = mine === undefined ? null : ours === undefined && theirs !== undefined && jsonEqual(mine, theirs) ? 'ours' : theirs === undefined && ours !== undefined && jsonEqual(mine, ours) ? 'theirs' : null;
  if (broken !== null) {
    const rel = plan.file.rel;
    const arg = pathArg(root, rel);
    const [kept, stage] = broken === 'theirs' ? ['ours', 3] : ['theirs', 2];
    const problem = `holds ${kept} alone: ${broken} is not valid JSON (not UTF-8, or not JSON at all), so nothing of it was merged`;
    // `:<stage>:<path>` names the path from the top wherever git runs: no pathArg there.
    const ways = `look at it with \`git show :${stage}:${rel}\`, bring its changes into the file by hand, then \`checkpoint resolve --add ${arg}\`; or keep ${kept} as it is: \`git add ${arg}\``;
    return { ...plan, problem, outcome: { ...plan.outcome, status: 'unparseable', messages: [...plan.outcome.messages, `checkpoint: ${rel} ${problem}; ${ways}`] } };
  }
  if (mine === undefined || ours === undefined || theirs === undefined || jsonEqual(ours, theirs)) return plan;
  const side = jsonEqual(mine, ours) ? 'ours' : jsonEqual(mine, theirs) ? 'theirs' : undefined;
  if (side === undefined || mergeSettledAs(side, stages, plan.file.rel, extraRules, mine)) return plan;
  const rel = plan.file.rel;
  const arg = pathArg(root, rel);
  // Ours alone may be a driver that did not run, but only where git could not run it (not set up,
  // its install gone); where it could, ours alone is a side taken (`git checkout --ours`) as theirs is.
  const noDriver = side === 'ours' && !driverRoutes(root, rel);
  const hint = noDriver
    ? `checkpoint: ${rel}: to merge the other side in (the merge driver did not run or failed: \`checkpoint doctor\` checks it): checkpoint install-driver, then git checkout --merge -- ${arg}, then checkpoint resolve; --add stages it as it is`
    : `checkpoint: ${rel}: to merge ${side === 'ours' ? 'theirs' : 'ours'} back in: git checkout --merge -- ${arg}, then checkpoint resolve; --add stages it as it is`;
  return { ...plan, outcome: { ...plan.outcome, oneSide: side, taken: !noDriver, messages: [...plan.outcome.messages, hint] } };
}

/**
 * Whether `value` is the semantic merge of the stages with every conflict settled as `side`: a
 * merge whose other side changed only what collided (settled with resolve --ours, or by hand),
 * which holds that side's value whole and still misses nothing.
 */
function mergeSettledAs(side: 'ours' | 'theirs', stages: { base: string | null; ours: string; theirs: string }, fileName: string, extraRules: PolicyRule[], value: JsonValue): boolean {
  const merged = mergeCheckpointTexts({ ...stages, extraRules, fileName });
  if (merged.status !== 'conflict' || !merged.conflicts.length) return false;
  const settled = mergeCheckpointTexts({ ...stages, extraRules, fileName, settle: { [side]: merged.conflicts.map((c) => c.display) } });
  const result = settled.status === 'clean' && settled.text !== undefined ? valueOf(settled.text) : undefined;
  return result !== undefined && jsonEqual(result, value);
}

/**
 * A file without markers git still calls unmerged: resolved by hand, so checked (as a merge result
 * of `sides`) and never merged again. `added`: the one side git holds for a file one side alone
 * added (AU, UA: a rename conflict, an archive two branches' resets both made): the errors its
 * content had where it came from are its own, not the merge's; judged without its new name, which
 * a live checkpoint's "skill" must still match.
 */
function settledFile(file: ResolvableFile, text: string, sides: string[], requested: string[], added: string | null = null): Plan {
  const path = file.rel;
  let value;
  try {
    value = parseJson(text, { texts: false }).value;
  } catch (e) {
    const problem = `is not valid JSON${e instanceof JsonSyntaxError ? ` at ${e.line}:${e.column}: ${e.reason}` : ''}`;
    return { file, outcome: { path, status: 'unparseable', source: 'file', messages: [`checkpoint: ${path} ${problem}: fix it by hand`] }, unmatched: requested, problem };
  }
  const parsed = (texts: readonly string[]) => texts.flatMap((t): FileContent[] => {
    try {
      return [{ value: parseJson(t, { texts: false }).value, text: t }];
    } catch {
      return [];
    }
  });
  const errors = notAlreadyIn(fileKind(path) === 'checkpoint' ? undefined : path, introducedErrors(path, { value, text }, parsed(sides)), parsed(added === null ? [] : [added]), value);
  if (errors.length) {
    const problem = `is invalid at ${errors[0]!.path}: ${errors[0]!.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`;
    return { file, outcome: { path, status: 'invalid', source: 'file', messages: errors.map((e) => `checkpoint: ${path}: invalid at ${e.path}: ${e.message}`) }, unmatched: requested, problem };
  }
  return { file, outcome: { path, status: 'resolved', source: 'file', messages: [] }, unmatched: requested };
}

/** Through the store, like every other write. */
async function write(root: string, plan: Plan, add: boolean, now: Clock): Promise<void> {
  if (plan.acceptDeletion) {
    const { rel, skill } = plan.file;
    const stage = plan.acceptDeletion.changedStage;
    // History first: once the deletion is staged, the changed version is kept there.
    const archive = await archiveDeletedInMerge(root, skill, now, () => runGitBytes(root, ['cat-file', 'blob', `:${stage}:${rel}`], ''));
    const archived = display(root, archive).split('\\').join('/');
    gitRun(root, ['rm', '--cached', '--quiet', '--', rel]);
    if (add) gitRun(root, ['add', '--', archived]);
    plan.outcome.archive = archived;
    return;
  }
  if (plan.text !== undefined) await replaceCheckpointText(root, plan.file.skill, plan.file.abs, { text: plan.text, mergedFrom: plan.mergedFrom ?? [], from: plan.onDisk });
  if (add && plan.outcome.status === 'resolved') gitRun(root, ['add', '--', plan.file.rel]);
}

/**
 * What makes `resolve --add` refuse a settled file git still calls unmerged (not valid JSON, or
 * errors neither side had), and the ways on: fix it by hand, or the git command that gives back
 * what to settle (discarding the edits): the merge again, or in a modify/delete conflict the
 * changed side; a file no merge made (one side's name in a rename conflict, AU/UA, or one both
 * sides deleted, DD) is dropped instead, as `git checkout --merge` refuses it (an archive in
 * history/ never is: git gives its one side back). Null when --add
 * would stage it, or when resolve would refuse it for another reason (its own message says why).
 */
function settledProblem(root: string, rel: string, unmerged: readonly string[]): { problem: string; ways: string } | null {
  let plan: Plan;
  try {
    const file = resolvableFile(root, rel);
    plan = planUnderEach(configSettlements(root).map(compileExtraLogs), (rules) => planOne(root, file, rules, undefined, new Set(unmerged), true), root);
  } catch (e) {
    if (isCheckpointError(e)) return null;
    throw e;
  }
  if (plan.problem === undefined) return null;
  if (plan.ways !== undefined) return { problem: plan.problem, ways: plan.ways };
  const stages = readStages(root, rel);
  const arg = pathArg(root, rel);
  const add = `\`checkpoint resolve --add ${arg}\``;
  if (stages && 'deleted' in stages) {
    const changed = stages.deleted === 'ours' ? 'theirs' : 'ours';
    return { problem: plan.problem, ways: `fix it by hand, or drop the edits and take the changed side again with \`git checkout --${changed} -- ${arg}\`; then ${add} (or \`checkpoint resolve --accept-deletion ${arg}\` to accept the deletion, the edited file archived in history/)` };
  }
  const code = stages === null ? conflictAt(root, rel) : undefined;
  if (code === 'AU' || code === 'UA') {
    const copy = typeConflictCopy(root, rel);
    if (copy !== null) return { problem: plan.problem, ways: conflictReportAt(root, rel, code, true, copy).repair };
    // An archive in history/ is one side's state, kept whatever the other side archived: never dropped.
    const other = fileKind(rel) === 'checkpoint' ? `drop it: \`git rm ${arg}\`` : `take it back as git holds it: \`git checkout --${code === 'AU' ? 'ours' : 'theirs'} -- ${arg}\`, then ${add}`;
    return { problem: plan.problem, ways: `fix it by hand, then ${add}; or ${other}` };
  }
  if (code === 'DD') return { problem: plan.problem, ways: `fix it by hand, then ${add}; or accept the deletion: \`git rm --cached ${arg}\` (the file stays, untracked)` };
  return { problem: plan.problem, ways: `fix it by hand, or drop the edits and merge it again with \`git checkout --merge -- ${arg}\`; then ${add}` };
}

/**
 * Why a file without markers is still a conflict, for --check: gone from the work tree (and what
 * brings it back), one side deleted it (and both ways out), or settled but not staged.
 */
function unmergedWhy(root: string, p: string, resolveIt: string): string {
  if (!statProjectFile(root, join(root, p))) {
    const missing = missingConflict(root, p);
    return `is ${missing.what}: ${missing.advice}`;
  }
  const stages = readStages(root, p);
  if (stages && 'deleted' in stages) {
    const [deleter, changer] = stages.deleted === 'ours' ? ['our side (HEAD)', 'theirs'] : ['their side', 'ours (HEAD)'];
    return `is in a modify/delete conflict: ${deleter} deleted it, ${changer} changed it (\`checkpoint resolve --add ${pathArg(root, p)}\` keeps it, \`checkpoint resolve --accept-deletion ${pathArg(root, p)}\` accepts the deletion, archiving the change in history/)`;
  }
  return `has no conflict markers but is still unmerged in git's index (git add ${pathArg(root, p)}${resolveIt})`;
}

/** CI gate: exit 1 when any checkpoint file holds conflict markers, is unmerged, or cannot be read for markers (too large, a link out, a FIFO). */
function check(root: string, ctx: Context): number {
  // A file the scan could not read is failed below, with its reason: no separate "skipped" note.
  const { markers, tooLarge, unreadable } = scanForMarkers(root);
  const unmerged = unmergedCheckpointPaths(root);
  const unread = tooLarge.map((t) => t.path);
  const bad = [...new Set([...markers, ...unread, ...unreadable.map((u) => u.path), ...unmerged])];
  // A misnamed file is one resolve refuses: never advised to it, whatever else is there.
  const misnamed = bad.filter((p) => misnamedCheckpointRel(p));
  // A file settled by hand (no markers) that git still calls unmerged: --add stages it only when it is sound.
  const settled = unmerged.filter((p) => !markers.includes(p) && !unread.includes(p) && !unreadable.some((u) => u.path === p) && !misnamed.includes(p));
  const invalid = settled.flatMap((p) => {
    const why = settledProblem(root, p, unmerged);
    return why === null ? [] : [{ path: p, ...why }];
  });
  // Git's own markers around a side that is not JSON: resolve --add cannot merge them, so never advised (red team 64 r2).
  const lineMerged = new Map(markers.flatMap((p): Array<[string, Array<'ours' | 'theirs'>]> => {
    const stages = unmerged.includes(p) ? readStages(root, p) : null;
    const broken = stages && !('deleted' in stages) ? brokenStages(stages) : [];
    return broken.length ? [[p, broken]] : [];
  }));
  if (ctx.json) ctx.out.json({ ok: bad.length === 0, conflicted: bad, markers, unmerged, tooLarge: unread, unreadable, misnamed, invalid: invalid.map(({ path, problem }) => ({ path, problem })) });
  else if (bad.length) {
    // Offered for a file resolve takes; by name while a misnamed file would make a bare run refuse.
    const resolveIt = (p: string) => (resolvableSkill(p) === undefined ? '' : `, or checkpoint resolve --add${misnamed.length ? ` ${pathArg(root, p)}` : ''}`);
    // Say which: text to settle in the file, a file not read, or a settled file git's index still calls unmerged.
    for (const p of bad) {
      const index = unmerged.includes(p) ? " (and is unmerged in git's index)" : '';
      const refused = misnamed.includes(p) ? '; its name is no skill\'s, so resolve will not write it' : '';
      const big = tooLarge.find((t) => t.path === p);
      const unread = unreadable.find((u) => u.path === p);
      const broken = invalid.find((i) => i.path === p);
      const why = broken
        ? `${broken.problem}, and is still unmerged in git's index: ${broken.ways}`
        : p === CONFIG_REL && markers.includes(p)
        ? configConflict(root, index) // settings: settled by hand, never by resolve
        : handMergedHistoryRel(p)
        ? `${markers.includes(p) ? 'holds merge conflict markers' : 'is unmerged in git\'s index'}${markers.includes(p) ? index : ''}: ${handMergedFix(pathArg(root, p))}`
        : lineMerged.has(p)
        ? `holds git's line-merge markers${index}: ${lineMerged.get(p)!.join(' and ')} ${lineMerged.get(p)!.length > 1 ? 'are' : 'is'} not valid JSON, so resolve cannot merge it: settle the markers by hand (${stageShows(p, lineMerged.get(p)!)} shows what was committed), then \`checkpoint resolve --add ${pathArg(root, p)}\``
        : markers.includes(p)
        ? `holds merge conflict markers${index}${refused}`
        : big
          ? `is ${tooLargeMessage(big.bytes)}${index}; ${TOO_LARGE_ADVICE}`
          : unread
            ? `could not be read for conflict markers${index}: ${unread.why.replace(/^checkpoint: /, '')}`
            : refused
              ? `has no conflict markers but is still unmerged in git's index (git add it)${refused}`
              : unmergedWhy(root, p, resolveIt(p));
      ctx.out.out(`✗ ${oneLine(p)} ${oneLine(why)}`); // a file name in a clone may hold a newline
    }
    // First what makes resolve refuse, then resolve: it would refuse the whole run before.
    if (misnamed.length) ctx.out.out(`for the ${misnamed.length === 1 ? 'misnamed file' : `${misnamed.length} misnamed files`}: ${misnamedAdvice(misnamed.length)}`);
    if (markers.some((p) => p !== CONFIG_REL && !lineMerged.has(p) && !handMergedHistoryRel(p))) ctx.out.out(`${misnamed.length ? 'then ' : ''}run \`checkpoint resolve --add\` locally (hosted merge buttons bypass the merge driver)`);
  } else ctx.out.out('✓ no checkpoint file holds conflict markers or is unmerged');
  return bad.length ? 1 : 0;
}
