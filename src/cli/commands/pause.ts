// `checkpoint pause <skill> --context <json> | --context - | --context-file F | (stdin)`:
// save the recovery capsule (recovery-capsule.md). `--auto`: refresh only its mechanical
// state (HEAD, branch, uncommitted paths, time), keeping context and origin frozen.
// Invalid or oversized input is refused with the reason and the file stays byte-identical;
// nothing is ever truncated.
import { mcpCall } from '../../protocol/op-spelling.js';
import { oneLine, shown, shownPath } from '../../one-line.js';
import { CheckpointError } from '../../errors.js';
import {
  CAPSULE_FIELDS,
  CAPSULE_INPUT_MAX_BYTES,
  capsuleInputBytes,
  foreignCapsuleKeys,
  keptClaims,
  utf8Bytes,
  orderedContext,
  validateCapsule,
  validateCapsuleContext,
  withMechanical,
  type CapsuleProblem,
  type Mechanical,
} from '../../protocol/capsule.js';
import { rebaseTexts } from '../../protocol/format.js';
import { JsonNumberRangeError, JsonSyntaxError, literalPlace, parseJson } from '../../protocol/json.js';
import { stampWrite } from '../../protocol/scaffold.js';
import type { Capsule, CapsuleContext, JsonObject, JsonValue } from '../../protocol/types.js';
import { NOT_RECORDED } from '../../protocol/capsule-placeholder.js';
import { display, mutateCheckpoint, notAnObject, readCheckpointFor, checkpointPath, listSkills } from '../../store/checkpoints.js';
import { closest } from '../../protocol/field-slip.js';
import { gitState, type GitState } from '../../store/git-state.js';
import { refuseConflicted } from '../../store/index-conflicts.js';
import { locate, readProjectBytes } from '../../store/safe-fs.js';
import type { Context, ParsedArgs } from '../spec.js';
import { argPath, noteKeptErrors, noteReplacedLink, refuseUndecodableArg, rootOf, skillArg } from './common.js';

/**
 * The most input read, as written: the limit is on the capsule as compact JSON (capsuleInputBytes),
 * which indentation and escapes can make far smaller than its text, so the text is read up to this
 * bound and measured once parsed; past it reading stops, and an endless source (/dev/zero) is refused at once.
 */
const DRAIN_LIMIT = 1024 * 1024;

function refuse(root: string, skill: string, message: string, kind: 'size' | 'invalid' = 'invalid'): CheckpointError {
  const file = display(root, checkpointPath(root, skill));
  return new CheckpointError('E_CAPSULE', `refused: ${message}`, {
    hint:
      kind === 'size'
        ? `${file} was not changed; nothing is truncated: shorten the capsule, or put bulk detail in a file and reference it`
        : `${file} was not changed; fix the capsule JSON (fields: ${CAPSULE_FIELDS.join(', ')}) and run pause again`,
  });
}

function describe(problems: readonly CapsuleProblem[]): string {
  return problems.map((p) => `${p.path}: ${p.message}`).join('; ');
}

async function readStdin(): Promise<{ bytes: Buffer; total: number }> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += buf.length;
    if (total <= DRAIN_LIMIT) chunks.push(buf);
    if (total > DRAIN_LIMIT) break;
  }
  return { bytes: Buffer.concat(chunks), total };
}

/**
 * The capsule file's bytes, read through safe-fs: inside the project no link out is followed, and
 * anywhere a FIFO, a device or a folder is refused (never read, never blocking); a file over the
 * read bound is not read (its size is what the refusal names).
 */
function readFileBounded(root: string, path: string): { bytes: Buffer; total: number } {
  const loc = locate(root, path);
  const hint = { hint: 'give the path of a file holding the capsule JSON (or pass it with --context, or --context - for stdin); the checkpoint was not changed' };
  if (!loc.stat) throw new CheckpointError('E_NOT_FOUND', `--context-file ${shownPath(path)}: no such file`, hint);
  if (!loc.stat.isFile()) throw new CheckpointError('E_USAGE', `--context-file ${shownPath(path)}: not a regular file`, hint);
  const size = loc.stat.size;
  if (size > DRAIN_LIMIT) return { bytes: Buffer.alloc(0), total: size };
  const bytes = readProjectBytes(root, path, { maxBytes: DRAIN_LIMIT, sizeHint: 'shorten the capsule, or put bulk detail in a file and reference it' }) ?? Buffer.alloc(0);
  return { bytes, total: bytes.length };
}

/** Where the capsule JSON comes from, and its raw bytes (their count only, past DRAIN_LIMIT). */
async function readInput(args: ParsedArgs, ctx: Context, root: string): Promise<{ bytes: Buffer; total: number; source: string }> {
  const inline = args.options.context;
  const file = args.options['context-file'];
  if (typeof inline === 'string' && inline !== '-') {
    // The pause tool passes its `capsule` argument as --context: a refusal names what that caller sent.
    const mcp = ctx.opSpelling?.caller === 'mcp';
    refuseUndecodableArg(inline, mcp ? 'capsule' : '--context', mcp ? 'send the capsule as valid Unicode text; the checkpoint was not changed' : 'pass the capsule as UTF-8, or through --context-file / stdin; the checkpoint was not changed', 'E_CAPSULE');
    return { bytes: Buffer.from(inline, 'utf8'), total: utf8Bytes(inline), source: mcp ? 'the capsule argument' : '--context' };
  }
  if (typeof file === 'string') return { ...readFileBounded(root, argPath(ctx, file)), source: file };
  return { ...(await readStdin()), source: 'stdin' };
}

export async function run(args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const skill = skillArg(args);
  const given = ['context', 'context-file'].filter((k) => args.options[k] !== undefined);
  if (args.options.auto && given.length) {
    throw new CheckpointError('E_USAGE', `checkpoint pause: --auto refreshes mechanical state only; it does not take --${given[0]}`, {
      hint: `drop --auto to save the capsule (checkpoint pause ${skill} --${given[0]} …), or drop --${given[0]}; the checkpoint was not changed`,
    });
  }
  if (given.length > 1) throw new CheckpointError('E_USAGE', 'checkpoint pause: give the capsule once: --context or --context-file', { hint: 'keep one of the two; the checkpoint was not changed' });
  if (args.options.auto) return runAuto(root, skill, ctx);
  // stdin is read only when asked (--context -): under a caller that holds it open (an agent's
  // shell, ssh) a bare `pause` would otherwise wait forever, saying nothing.
  if (!given.length) {
    throw new CheckpointError('E_USAGE', 'checkpoint pause: no capsule given', {
      hint: "pass --context '<json>', --context - (stdin), --context-file F, or --auto for mechanical state only; the checkpoint was not changed",
    });
  }

  const act = `save the recovery capsule of ${skill}`;
  // A merge left unfinished (markers, or git's index holding it unmerged, the file even gone) is
  // refused as such: never a JSON error, never "create it first".
  if (!readCheckpointFor(root, skill, act)) {
    refuseConflicted(root, skill, act);
    throw new CheckpointError('E_NOT_FOUND', `no checkpoint for skill "${skill}": the capsule is saved into an existing checkpoint`, {
      hint: `create it first: ${ctx.opSpelling?.caller === 'mcp' ? mcpCall('update', skill, [['phase', 'set', '<phase>'], ['step', 'set', '<step>'], ['next_actions', 'append', '<first action>']]) : `checkpoint update ${skill} --phase='<phase>' --step='<step>' --next_actions+='<first action>'`}`,
    });
  }
  const input = await readInput(args, ctx, root);
  const overLimit = (bytes: number | string) => refuse(root, skill, `capsule input (${input.source}) is ${bytes} bytes, over the ${CAPSULE_INPUT_MAX_BYTES}-byte limit (counted as compact UTF-8 JSON)`, 'size');
  // Past the read bound, unparsed: compact JSON can be that much smaller only by dropping a megabyte of whitespace.
  if (input.total > DRAIN_LIMIT) throw overLimit(`over ${DRAIN_LIMIT}`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(input.bytes);
  } catch {
    throw refuse(root, skill, `capsule input (${input.source}) is not valid UTF-8`);
  }
  if (!text.replace(/^\uFEFF/, '').trim()) throw refuse(root, skill, `capsule input (${input.source}) is empty`);
  let parsed: JsonValue;
  try {
    parsed = parseJson(text).value;
  } catch (e) {
    if (e instanceof JsonNumberRangeError) throw refuse(root, skill, `capsule input (${input.source}), line ${e.line}: ${e.reason}`);
    // Valid JSON refused for a key it holds says so, not "not valid".
    if (e instanceof JsonSyntaxError) throw refuse(root, skill, `capsule input (${input.source}) ${/^forbidden key /.test(e.reason) ? 'holds a key no checkpoint may hold' : 'is not valid JSON'}: ${e.message}`);
    throw e;
  }
  const size = capsuleInputBytes(parsed);
  if (size > CAPSULE_INPUT_MAX_BYTES) throw overLimit(size);
  const problems = validateCapsuleContext(parsed);
  if (problems.length) throw refuse(root, skill, `invalid capsule: ${describe(problems)}`);

  const state = await gitState(root);
  warnUnreadIndex(ctx, state);
  // Judged with the start's instant (an ISO time is always as long); the write stamps its own, under the lock.
  const saved = (at: string): Pick<Capsule, 'context' | 'origin'> => ({ context: orderedContext(parsed as unknown as CapsuleContext), origin: { root, head: state.head, saved_at: at } });
  const stored = validateCapsule(saved(ctx.now.toISOString()));
  if (stored.length) throw refuse(root, skill, describe(stored), 'size');
  let capsule = withMechanical(saved(ctx.now.toISOString()), state, ctx.now.toISOString());
  let foreign: string[] = [];
  let stampNotes: string[] = [];

  const result = await mutateCheckpoint(root, skill, {
    now: ctx.clock,
    act,
    change: (current, texts, now) => {
      stampNotes = [];
      if (current === null) throw new CheckpointError('E_NOT_FOUND', `no checkpoint for skill "${skill}" to hold the capsule`, { hint: `create it with checkpoint update ${skill} ...` });
      if (typeof current !== 'object' || Array.isArray(current)) throw notAnObject(skill);
      // The new claims replace the old ones; what else the stored capsule holds (a hand-kept note) stays.
      const old = storedCapsule(root, skill, current as JsonObject);
      foreign = foreignCapsuleKeys(old ?? undefined);
      const at = now.toISOString();
      capsule = withMechanical(saved(at), state, at, old);
      (current as JsonObject).capsule = capsule as unknown as JsonValue;
      return stampWrite(current as JsonObject, now, stampNotes, texts);
    },
  });
  const bytes = utf8Bytes(JSON.stringify(capsule));
  noteKeptErrors(ctx, display(root, result.path), result.kept);
  noteReplacedLink(ctx, display(root, result.path), result.replacedLink);
  noteForeign(ctx, skill, foreign);
  for (const line of stampNotes) ctx.out.err(`checkpoint: note: ${line}`);
  if (ctx.json) {
    ctx.out.json({ ok: true, skill, path: display(root, result.path), capsule_bytes: bytes, origin: capsule.origin, mechanical: capsule.mechanical ?? null, ...(foreign.length ? { kept_fields: foreign } : {}), ...linked(result) });
    return 0;
  }
  ctx.out.out(`✓ saved the recovery capsule of ${skill} in ${display(root, result.path)} (${bytes} bytes; origin HEAD ${capsule.origin.head ?? 'none'})`);
  ctx.out.out(`  after compaction, read it with: checkpoint resume ${skill} --context`);
  return 0;
}

class NothingToRefresh extends Error {}

/** The JSON type a reader would call `value`, for the refusal. */
function jsonKind(value: JsonValue): string {
  return Array.isArray(value) ? 'an array' : typeof value === 'string' ? 'a string' : `a ${typeof value}`;
}

/**
 * The stored capsule object, or null when there is none (absent or `null`: a fresh one is
 * simply saved). Any other value (prose, a list, a number written by hand) is refused: the
 * capsule has no field to carry it (the schema allows no extra key, skill_state belongs to the
 * skill), so replacing it would drop the user's text. The refusal says how to move it by hand.
 */
function storedCapsule(root: string, skill: string, current: JsonObject): JsonObject | null {
  const value = current.capsule;
  if (value === undefined || value === null) return null;
  if (typeof value === 'object' && !Array.isArray(value)) return value;
  const file = display(root, checkpointPath(root, skill));
  throw new CheckpointError('E_CAPSULE', `refused: the capsule in ${file} is ${jsonKind(value)}, not the capsule object; pause would drop its text`, {
    hint: `${file} was not changed; move that text into the capsule's fields by hand (or elsewhere in the file), remove the "capsule" member (or set it to null), then run checkpoint pause ${skill} --context '<json>' (or --auto)`,
  });
}

/** Keys of the old capsule that pause kept though the protocol does not define them: said, never dropped silently. */
function noteForeign(ctx: Context, skill: string, keys: readonly string[]): void {
  if (!keys.length) return;
  ctx.out.err(`checkpoint: note: kept capsule field${keys.length === 1 ? '' : 's'} the protocol does not define: ${keys.map((k) => shown(k)).join(', ')}; hint: move notes of your own to skill_state of ${skill} (validate reports unknown capsule fields)`);
}

/** The pause is saved before context loss all the same; what git could not say is left out, and said so. */
function warnUnreadIndex(ctx: Context, state: GitState): void {
  const e = state.unreadIndex;
  if (e) ctx.out.err(`checkpoint: warning: saved without the uncommitted paths: ${e.message}; hint: ${e.hint ?? 'repair the index'}`);
}

function uncommittedText(m: Mechanical | undefined): string {
  if (m?.uncommitted_count === undefined) return m && !('uncommitted' in m) ? 'uncommitted paths unknown' : '0 uncommitted paths';
  return `${m.uncommitted_count} uncommitted path${m.uncommitted_count === 1 ? '' : 's'}`;
}

/** A placeholder context: every field states it is unknown, pointing at the checkpoint for what is known. */
function placeholderContext(skill: string): CapsuleContext {
  // Stored in the file: name the distinctive bin, not a `checkpoint` another tool may own.
  const add = `${NOT_RECORDED} (add it: checkpoint-protocol pause ${skill} --context ...)`;
  return {
    goal: `${add}; see the checkpoint's phase, step and progress_summary`,
    acceptance: add,
    constraints: [NOT_RECORDED],
    decisions: [`${NOT_RECORDED}; see context_primer.key_decisions`],
    evidence: [NOT_RECORDED],
    pending: [`${NOT_RECORDED}; see next_actions`],
    next: `${NOT_RECORDED}; see next_actions[0]`,
  };
}

/** The --json member naming the link a write replaced (as update's), when it did. */
const linked = (result: { replacedLink?: string }) => (result.replacedLink !== undefined ? { replaced_link: result.replacedLink } : {});

async function firstAuto(root: string, skill: string, ctx: Context, state: Awaited<ReturnType<typeof gitState>>): Promise<number> {
  const placeholder = (at: string) => withMechanical({ context: placeholderContext(skill), origin: { root, head: state.head, saved_at: at } }, state, at);
  let capsule = placeholder(ctx.now.toISOString());
  const result = await mutateCheckpoint(root, skill, {
    now: ctx.clock,
    act: `save a first recovery capsule of ${skill}`,
    change: (current, _texts, now) => {
      if (current === null) throw new CheckpointError('E_NOT_FOUND', `no checkpoint for skill "${skill}" to hold the capsule`, { hint: `create it with checkpoint update ${skill} ...` });
      if (typeof current !== 'object' || Array.isArray(current)) throw notAnObject(skill);
      // Another writer saved a real capsule meanwhile: keep it, never overwrite claims with placeholders.
      if (storedCapsule(root, skill, current as JsonObject) !== null) return current;
      capsule = placeholder(now.toISOString());
      (current as JsonObject).capsule = capsule as unknown as JsonValue;
      return current;
    },
  });
  noteKeptErrors(ctx, display(root, result.path), result.kept);
  noteReplacedLink(ctx, display(root, result.path), result.replacedLink);
  const add = `the agent should add ${CAPSULE_FIELDS.slice(0, -1).join(', ')} and ${CAPSULE_FIELDS.at(-1)}: checkpoint pause ${skill} --context '<json>'`;
  if (ctx.json) {
    ctx.out.json({ ok: true, skill, refreshed: true, first: true, path: display(root, result.path), mechanical: capsule.mechanical ?? null, todo: add, ...linked(result) });
    return 0;
  }
  const m = capsule.mechanical as Mechanical | undefined;
  // The branch is the clone's text (a clone checks out the remote's default branch): git allows
  // U+2028 and bidi controls in its name, so it is shown on one line as the capsule's view shows it.
  ctx.out.out(`✓ saved a first capsule for ${skill} with mechanical state only (HEAD ${oneLine(String(m?.head ?? 'none'))}, branch ${oneLine(String(m?.branch ?? 'none'))}, ${m && !('uncommitted' in m) ? 'unknown' : (m?.uncommitted_count ?? 0)} uncommitted)`);
  ctx.out.out(`  ${add}`);
  return 0;
}

async function runAuto(root: string, skill: string, ctx: Context): Promise<number> {
  const nothing = (why: string): number => {
    if (ctx.json) ctx.out.json({ ok: true, skill, refreshed: false, message: why });
    else ctx.out.out(why);
    return 0;
  };
  const isObject = (v: JsonValue | null): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
  const hasCapsule = (v: JsonValue | null): v is JsonObject => isObject(v) && storedCapsule(root, skill, v) !== null;
  const act = `refresh the recovery capsule of ${skill}`;
  // As for a capsule: a merge left unfinished is said, never a JSON error or "nothing to refresh".
  const file = readCheckpointFor(root, skill, act);
  if (!file) {
    refuseConflicted(root, skill, act);
    // A hook runs this at every session's end: a misspelled skill there would never save, silently.
    const near = closest(skill, listSkills(root));
    return nothing(`no checkpoint for skill "${skill}"; nothing to refresh${near === undefined ? '' : ` (did you mean "${near}"? check the skill name the hook passes)`}`);
  }
  if (isObject(file.value)) storedCapsule(root, skill, file.value); // refused before git is asked anything

  const state = await gitState(root); // outside the lock: git can be slow, the write is not
  warnUnreadIndex(ctx, state);
  // First compaction before any capsule: save the mechanical state under a placeholder
  // context that says, field by field, that the agent has not recorded it yet.
  if (!hasCapsule(file.value)) return firstAuto(root, skill, ctx, state);
  let capsule: Capsule | undefined;
  let filled: string[] = [];
  let originNow = false;
  try {
    const result = await mutateCheckpoint(root, skill, {
      now: ctx.clock,
      act,
      change: (current, texts, now) => {
        if (!hasCapsule(current)) throw new NothingToRefresh();
        const at = now.toISOString();
        const old = current.capsule as JsonObject;
        // context and origin stay exactly as saved (frozen); only mechanical is replaced. A capsule
        // written by hand gets what it lacks filled in, the rest kept: placeholders for claims, and
        // for its origin "not recorded" (head null), never this HEAD and time: its claims were not
        // saved here and now, and a newer HEAD does not revalidate their evidence (recovery-capsule.md).
        let kept = keptClaims(old, { context: placeholderContext(skill), origin: { root, head: null, saved_at: NOT_RECORDED } });
        // No claim of anyone's in it (each one a placeholder now): recorded here and now, as a first --auto's.
        originNow = CAPSULE_FIELDS.every((k) => kept.filled.includes(`context.${k}`));
        if (originNow) kept = keptClaims(old, { context: placeholderContext(skill), origin: { root, head: state.head, saved_at: at } });
        filled = kept.filled;
        capsule = withMechanical(kept.base, state, at, kept.rest);
        // A claim written at the capsule's top level moves into context as it was written (`Caf\u00e9` stays so).
        const read = new Map(texts);
        for (const k of kept.lifted) {
          const [fromKey, fromPosition] = literalPlace(current, ['capsule', k]);
          const [toKey, toPosition] = literalPlace(current, ['capsule', 'context', k]);
          rebaseTexts(read, fromKey, toKey, texts);
          rebaseTexts(read, fromPosition, toPosition, texts);
        }
        current.capsule = capsule as unknown as JsonValue;
        return current;
      },
    });
    noteKeptErrors(ctx, display(root, result.path), result.kept);
    noteReplacedLink(ctx, display(root, result.path), result.replacedLink);
    if (ctx.json) {
      ctx.out.json({ ok: true, skill, refreshed: true, path: display(root, result.path), mechanical: capsule?.mechanical ?? null, ...(filled.length ? { filled } : {}), ...linked(result) });
      return 0;
    }
  } catch (e) {
    if (e instanceof NothingToRefresh) return nothing(`no capsule saved yet for "${skill}"; nothing to refresh`);
    throw e;
  }
  const m = capsule?.mechanical as Mechanical | undefined;
  ctx.out.out(
    m
      ? `✓ refreshed the capsule's mechanical state for ${skill}: HEAD ${oneLine(String(m.head ?? 'none'))}, branch ${oneLine(String(m.branch ?? 'none'))}, ${uncommittedText(m)}`
      : `✓ ${skill}: the capsule is at its size limit; mechanical state omitted`,
  );
  // Claims are filled with placeholders; an origin it lacked is said as what was recorded (not this HEAD, unless it held no claim).
  const claims = filled.filter((p) => !p.startsWith('origin.'));
  const origin = filled.filter((p) => p.startsWith('origin.'));
  if (claims.length) ctx.out.out(`  filled what the capsule lacked: ${claims.join(', ')} (placeholders say "not recorded"; add them: checkpoint pause ${skill} --context '<json>')`);
  if (origin.length && originNow) ctx.out.out(`  recorded the origin the capsule lacked (${origin.join(', ')}) as this HEAD and time (it held no claims)`);
  else if (origin.length) {
    const said = origin.map((p) => (p === 'origin.root' ? 'root: this folder' : p === 'origin.head' ? 'head: null' : `${p.slice('origin.'.length)}: "${NOT_RECORDED}"`));
    ctx.out.out(`  the capsule lacked its origin (${origin.join(', ')}): recorded as not known (${said.join(', ')}), not as this HEAD and time, which its claims were not saved at; checkpoint pause ${skill} --context '<json>' records the origin of the claims it saves`);
  }
  return 0;
}
