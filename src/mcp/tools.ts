// The MCP tools: each names a CLI command, turns its typed arguments into that command's argv
// (so the CLI's own parser and checks apply) and says in one line what came back.
import { z } from './sdk.js';
import { CAPSULE_FIELDS, capsuleFieldsText } from '../protocol/capsule.js';
import { MAX_JSON_DEPTH, tooDeepAt } from '../protocol/json.js';
import type { JsonValue } from '../protocol/types.js';
import { pathRoundTrips } from '../protocol/update-flag.js';
import { CheckpointError } from '../errors.js';
import { joinPath } from '../protocol/path.js';
import { FORBIDDEN_KEYS } from '../protocol/fields.js';
import { DEFAULT_VERIFY_TIMEOUT_S, MAX_VERIFY_TIMEOUT_S } from '../cli/spec.js';
import { oneLine, shownList } from '../one-line.js';
import { DEFAULT_MAX_CHARS } from '../cli/render/budget.js';

type Args = Record<string, unknown>;
type Doc = Record<string, unknown>;
export interface Refusal {
  message: string;
  hint: string;
}

export interface ToolSpec {
  name: string;
  command: string;
  title: string;
  description: string;
  readOnly: boolean;
  destructive?: boolean;
  shape: Record<string, z.ZodType>;
  argv: (a: Args) => string[];
  /** Refusals the CLI makes elsewhere (stdin it would read, a flag the server did not enable), each with what to do instead. */
  check?: (a: Args, server: { allowVerify: boolean }) => Refusal | null;
  /** The arguments that name files: each must lie inside the project (src/mcp/project-files.ts). */
  files?: (a: Args) => unknown[];
  summary: (doc: Doc) => string;
  /**
   * A write call that never starts a .checkpoints/ (it only changes a checkpoint already there),
   * so in a folder that is no project it answers as the CLI does rather than being refused.
   */
  startsNothing?: (a: Args) => boolean;
}

const cwd = z.string().optional().describe('absolute path of the project (or worktree) folder; default: the host\'s first root');
const skill = z.string().describe('skill name (file .checkpoints/<skill>.checkpoint.json)');
const engine = z.enum(['auto', 'native', 'isomorphic']).optional().describe('git history engine');
// A path is judged by `checkpoint update`'s own grammar (a.b.1.c, or bracketed as conflicts show
// keys: a["key.with dots"][1], a["mode=fast"]), forbidden keys included. Refused here only what
// would not come back out of the flag as the same path (update-flag.ts): an "=" outside brackets
// ends the path in `--path=value`, and a trailing "+" or ":json" would be read as the flag's own operator.
const fieldPath = z
  .string()
  .min(1)
  .refine(pathRoundTrips, 'a path like a.b, a[1].b or a["k=j"]: any "=" inside brackets, no "+" at its end');
// A value is passed on as it arrived and judged where the CLI judges `--path:json=<text>`
// (forbidden keys, depth, numbers). A zod record would copy it by assignment, and
// `o["__proto__"] = v` sets a prototype: an own `__proto__` key would vanish instead of being refused.
const json = z.unknown().refine((v) => v !== undefined, 'a JSON value is required').describe('any JSON value');


/** Ops one update call takes at most: an agent sends a few; a call that holds the lock and the server for long is refused. */
export const MAX_UPDATE_OPS = 1000;
/**
 * A JSON argument as the text the CLI parses. The host's JSON was parsed before we see it, so a
 * number it could not carry is refused rather than written otherwise: one past a double (1e400,
 * now Infinity, which JSON.stringify writes as null) and an integer past 2^53 (its digits may
 * have been rounded). -0 is written as -0 (JSON.stringify drops the sign). A value nested past
 * what a checkpoint is read with is refused first, in one line: walking or stringifying one
 * 100,000 deep overflows the stack.
 */
function jsonText(value: unknown, where: string): string {
  if (tooDeepAt(value as JsonValue) !== null) {
    throw new CheckpointError('E_USAGE', `${where} nests deeper than ${MAX_JSON_DEPTH} levels, more than a checkpoint is read with`, { hint: 'flatten the value (or pass it as a string); nothing was changed' });
  }
  const text = (v: unknown, at: string): string => {
    if (typeof v === 'number') return numberText(v, at);
    if (Array.isArray(v)) return `[${v.map((item, i) => text(item, joinPath(at, i))).join(',')}]`;
    // Own keys as JSON.parse made them (an own "__proto__" included: the CLI refuses it by name).
    if (typeof v === 'object' && v !== null) return `{${Object.keys(v).map((k) => `${JSON.stringify(k)}:${text((v as Record<string, unknown>)[k], joinPath(at, k))}`).join(',')}}`;
    return JSON.stringify(v);
  };
  return text(value, where);
}

function numberText(n: number, at: string): string {
  if (!Number.isFinite(n)) {
    throw new CheckpointError('E_USAGE', `${at}: a number too large for JSON-RPC to carry (such as 1e400) arrived as ${n}; nothing was changed`, { hint: 'a checkpoint cannot hold it as a number either (the CLI refuses 1e400 too): send it as a string' });
  }
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) {
    throw new CheckpointError('E_USAGE', `${at}: the integer ${String(n)} is past ${Number.MAX_SAFE_INTEGER}, so JSON-RPC may have rounded it on the way; nothing was changed`, {
      hint: 'send its exact digits as JSON text, e.g. {"path": "…", "value": "12345678901234567890", "json": true}, or as a string',
    });
  }
  return Object.is(n, -0) ? '-0' : JSON.stringify(n);
}

/** One update op as its `checkpoint update` flag: a value as `:json` (a string as its JSON text), a string with json: true as the JSON text it holds. */
function opFlag(o: { path: string; op: 'set' | 'append'; value: unknown; json?: boolean }, i: number): string {
  const flag = `--${o.path}${o.op === 'append' ? '+' : ''}`;
  if (o.json) {
    if (typeof o.value !== 'string') {
      throw new CheckpointError('E_USAGE', `ops[${i}]: "json": true takes the value as JSON text, a string; got ${o.value === null ? 'null' : Array.isArray(o.value) ? 'an array' : `a ${typeof o.value}`}`, {
        hint: 'send e.g. "value": "12345678901234567890", or drop "json" to send the value itself',
      });
    }
    return `${flag}:json=${o.value}`;
  }
  // A string is sent as JSON text too: a typed "9" stays the string "9", where a plain `--a=9`
  // over a number would keep the number's type (update-ops keepingType), as a person typing means.
  return typeof o.value === 'string' ? `${flag}:json=${JSON.stringify(o.value)}` : `${flag}:json=${jsonText(o.value, `ops[${i}].value`)}`;
}

/** An object, as the pause tool's capsule; tools/list shows it as one. */
const capsuleObject = z
  .unknown()
  .refine((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'an object (the seven capsule fields)')
  .meta({ type: 'object', additionalProperties: { description: 'any JSON value' } });

/**
 * Refuses a key that would reach an object's prototype (__proto__, prototype, constructor) inside
 * `value`, as `checkpoint update` refuses one in a path: by name and place, before anything runs.
 */
function refuseForbiddenKeys(value: unknown, at: string): void {
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) return value.forEach((item, i) => refuseForbiddenKeys(item, joinPath(at, i)));
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) {
      throw new CheckpointError('E_USAGE', `${joinPath(at, key)}: the key "${key}" is forbidden (prototype pollution); nothing was changed`, {
        hint: `the capsule takes the fields ${CAPSULE_FIELDS.join(', ')}`,
      });
    }
    refuseForbiddenKeys((value as Record<string, unknown>)[key], joinPath(at, key));
  }
}

/** `--name=value` for set options: the = form, so a value starting with "-" stays a value. */
function flags(a: Args, names: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [key, flag] of Object.entries(names)) {
    const v = a[key];
    if (v === undefined || v === false) continue;
    out.push(v === true ? `--${flag}` : `--${flag}=${String(v)}`);
  }
  return out;
}
/** Positionals after `--`, so none is taken for an option. */
const rest = (...p: unknown[]) => ['--', ...p.flat().filter((x): x is string => typeof x === 'string')];
const count = (n: unknown, what: string) => `${Array.isArray(n) ? n.length : 0} ${what}`;
/**
 * A value from the document (an action's text, a blocker's description, a reason) inside a
 * summary: escaped to one line as the CLI prints it, so a newline or a control character in a
 * checkpoint never reads to the agent as a line of ours ("SYSTEM: ...").
 */
const field = (v: unknown) => oneLine(String(v));
/**
 * What the CLI prints beside its answer and a summary must not drop: the checkpoints left out as
 * unreadable or invalid (`broken` / `needs_repair`), and those read despite hand-written slips.
 */
const leftOut = (broken: unknown, repairs: unknown): string[] => {
  const out: string[] = [];
  const skills = Array.isArray(broken) ? broken.map((b) => String((b as Doc)?.skill)) : [];
  if (skills.length) out.push(`needs repair: ${shownList(skills, 5, field)} (checkpoint validate)`);
  const slipped = new Set(Array.isArray(repairs) ? repairs.map((r) => String((r as Doc)?.skill)) : []).size;
  if (slipped) out.push(`${slipped} checkpoint${slipped === 1 ? '' : 's'} read despite hand-written slips (each fix in repairs)`);
  return out;
};
const joined = (first: string, rest: string[]) => [first, ...rest].filter(Boolean).join('; ');

/** Each prompt's arguments (all text, as MCP's prompts take them): the server registers them, params.ts refuses any other. */
export const PROMPT_ARGUMENTS = {
  'resume-session': { skill: z.string().optional(), cwd: z.string().optional() },
} as const;

export const TOOLS: ToolSpec[] = [
  {
    name: 'status',
    command: 'status',
    title: 'Where every skill left off',
    description: 'Every checkpoint: status, phase/step, age, next actions, blockers, and the decisions waiting on the user (same as `checkpoint status --json`).',
    readOnly: true,
    shape: { cwd, brief: z.boolean().optional(), since: z.string().optional().describe('details only for skills updated since this ISO instant'), engine },
    argv: (a) => flags(a, { brief: 'brief', since: 'since', engine: 'engine' }),
    summary: (d) => joined(`${count(d.skills, 'skill(s)')}, ${count(d.decisions_waiting, 'decision(s) waiting on the user')}${d.next ? `; next: ${field((d.next as Doc).text)}` : ''}`, leftOut(d.broken, d.repairs)),
  },
  {
    name: 'next',
    command: 'next',
    title: 'The one thing to do now',
    description: 'The single highest-priority action that git does not show as already landed (same as `checkpoint next --json`).',
    readOnly: true,
    shape: { cwd, engine },
    argv: (a) => flags(a, { engine: 'engine' }),
    summary: (d) => {
      const rest = leftOut(d.needs_repair, d.repairs);
      return joined(d.next ? `${field((d.next as Doc).skill)}: ${field((d.next as Doc).text)}` : rest.length ? 'nothing to recommend' : 'nothing queued', rest);
    },
  },
  {
    name: 'resume',
    command: 'resume',
    title: 'Orientation for a new session',
    description: 'What a new session reads first: the briefing of the most important (or the named) skill; with context=true the saved recovery capsule (unverified claims). ask_user=true means: ask the user before resuming.',
    readOnly: true,
    shape: {
      cwd,
      skill: skill.optional(),
      context: z.boolean().optional().describe('the recovery capsule saved before compaction, instead of the briefing'),
      max_chars: z.number().int().min(0).optional().describe(`budget in characters of the whole text, notes included (default ${DEFAULT_MAX_CHARS}); one too small for the first line (RESUMING: <skill> on <project>; with context=true, the capsule\'s header) and the next action cut to its marker is refused`),
      engine,
    },
    argv: (a) => [...flags(a, { context: 'context', max_chars: 'max-chars', engine: 'engine' }), ...rest(a.skill)],
    summary: () => '',
  },
  {
    name: 'show',
    command: 'show',
    title: 'A checkpoint as stored',
    description: 'One checkpoint as its raw JSON (or all of them by skill when no skill is given; a file that does not parse is left out and named in `_errors`, as status names it in `broken`; every other key is a skill). The text content is each file\'s exact text; the structured content is it parsed, so an integer past 2^53 is rounded there.',
    readOnly: true,
    shape: { cwd, skill: skill.optional() },
    argv: (a) => rest(a.skill),
    summary: () => '',
  },
  {
    name: 'validate',
    command: 'validate',
    title: 'Check checkpoints against the protocol',
    description: 'Errors and warnings with JSON paths for every checkpoint (or the named files).',
    readOnly: true,
    shape: { cwd, files: z.array(z.string()).optional().describe('files inside the project to check, relative to cwd'), strict: z.boolean().optional().describe('warnings fail too') },
    files: (a) => (Array.isArray(a.files) ? a.files : []),
    argv: (a) => [...flags(a, { strict: 'strict' }), ...rest(a.files)],
    summary: (d) => `${(d.files as unknown[] | undefined)?.filter((f) => (f as Doc).ok).length ?? 0}/${count(d.files, 'valid')}`,
  },
  {
    name: 'doctor',
    command: 'doctor',
    title: 'Drift between checkpoints, git and the working tree',
    description: 'Findings where checkpoints disagree with git history and the working tree. Never goes online unless `online` is true: then it fetches the health_url of .checkpoints/config.json.',
    readOnly: true,
    // No URL from the agent: a prompt could make the server probe the user's own network (a
    // loopback service, a cloud metadata address). The project's config names the one it trusts.
    shape: { cwd, online: z.boolean().optional().describe('true: also compare the health_url of .checkpoints/config.json with HEAD (never a URL of the agent\'s)'), engine },
    argv: (a) => [...(a.online === true ? ['--online='] : []), ...flags(a, { engine: 'engine' })],
    summary: (d) => `doctor: ${d.checkpoints} checkpoint(s), ${d.errors} error(s), ${d.warnings} warning(s)`,
  },
  {
    name: 'update',
    command: 'update',
    title: 'Change a checkpoint',
    description:
      'Merge new state into a checkpoint (created if missing), stamped and validated, under the skill\'s lock. Operations as `checkpoint update`: op "set" replaces (objects merge into objects; over a list with entries only a list), "append" adds to a list (recently_done: in front, as newest); value is any JSON; with json: true, JSON text kept exactly as written (for integers past 2^53, which JSON-RPC may round).',
    readOnly: false,
    destructive: true,
    shape: {
      cwd,
      skill,
      ops: z
        .array(z.strictObject({ path: fieldPath.describe('field path as `checkpoint update` takes it: skill_state.iteration, progress_table[1].status, skill_state["a.b"]'), op: z.enum(['set', 'append']).default('set'), value: json, json: z.boolean().optional().describe('value is JSON text (a string), read as `checkpoint update --path:json=<text>` reads it: numbers kept exactly as written (12345678901234567890, 8.0)') }))
        .min(1)
        // Each op is applied and checked in turn under the skill's lock; thousands in one call held
        // it (and the server, which answers nothing meanwhile) for seconds to minutes (red team 61g).
        .max(MAX_UPDATE_OPS, `at most ${MAX_UPDATE_OPS} ops in one call: send the rest in further calls`),
      auto_rotate: z.boolean().optional().describe('rotate old telemetry first when the file would pass 32 KiB'),
      allow_new_field: z.boolean().optional().describe('write a new top-level field whose name is a near miss of a protocol field (refused otherwise, as a likely typo)'),
      keep_updated_at: z.boolean().optional().describe('a repair, not a save: keep updated_at as written, so what changed since the last save still counts as changed'),
    },
    argv: (a) => [
      ...(a.ops as Parameters<typeof opFlag>[0][]).map(opFlag),
      ...flags(a, { auto_rotate: 'auto-rotate', allow_new_field: 'allow-new-field', keep_updated_at: 'keep-updated-at' }),
      ...rest(a.skill),
    ],
    summary: (d) => {
      // The CLI's words: warnings, and advice (a missing progress_table) apart.
      const notes = [Array.isArray(d.warnings) && d.warnings.length ? count(d.warnings, 'warning(s)') : '', Array.isArray(d.advice) && d.advice.length ? count(d.advice, 'advice') : ''].filter(Boolean);
      return `${d.created ? 'created' : 'updated'} ${field(d.path)}${notes.length ? ` (${notes.join(', ')})` : ''}`;
    },
  },
  {
    name: 'done',
    command: 'done',
    title: 'Mark the first action done',
    description: 'Move the action next names (next_actions[0], or the first after those the checkpoint marks done or git shows landed, which go along) into recently_done and return what is next. landed=true records only those (reconciling queued work that already landed). verify=true runs its done_when command first (only when the server was started with --allow-verify).',
    readOnly: false,
    destructive: false,
    shape: {
      cwd,
      skill,
      complete: z.boolean().optional().describe('when this was the last action, mark the checkpoint complete'),
      verify: z.boolean().optional().describe("run the action's done_when command first; needs `checkpoint mcp --allow-verify`"),
      landed: z.boolean().optional().describe('record only the actions git shows landed or the checkpoint marks done, wherever they stand'),
      timeout: z.number().positive().max(MAX_VERIFY_TIMEOUT_S).optional().describe(`seconds verify may run (default ${DEFAULT_VERIFY_TIMEOUT_S}, at most ${MAX_VERIFY_TIMEOUT_S}, as the CLI's --timeout)`),
    },
    check: (a, server) => {
      if (a.verify && !server.allowVerify) return { message: 'done: verify runs a command from the checkpoint file and is off in this server', hint: 'the user can enable it by starting the server as `checkpoint mcp --allow-verify`' };
      // The CLI's own refusal would hint `--verify --timeout=…`, a flag this caller never sends.
      if (a.timeout !== undefined && !a.verify) {
        return {
          message: 'done: timeout limits the verify check, and verify was not given',
          hint: server.allowVerify ? `send verify: true with timeout: ${a.timeout}, or drop timeout` : 'drop timeout: verify is off in this server (the user can enable it by starting it as `checkpoint mcp --allow-verify`)',
        };
      }
      return null;
    },
    argv: (a) => [...flags(a, { complete: 'complete', verify: 'verify', landed: 'landed', timeout: 'timeout' }), ...rest(a.skill)],
    summary: (d) => (d.ok === false ? `not done: ${field(d.reason)}` : `done: ${field(d.done)}${Array.isArray(d.also_done) && d.also_done.length ? ` (and ${d.also_done.length} before it)` : ''}; next: ${d.next !== null && d.next !== undefined ? field(d.next) : Array.isArray(d.skipped_as_landed) && d.skipped_as_landed.length ? `(none open: ${d.skipped_as_landed.length} left already landed or marked done; next says how to reconcile)` : `(none; ${field(d.status)})`}`),
  },
  {
    name: 'pause',
    command: 'pause',
    title: 'Save the recovery capsule',
    description:
      `Before compaction: save the seven-field capsule (${CAPSULE_FIELDS.join(', ')}) into the checkpoint, or with auto=true refresh only its mechanical state (HEAD, branch, uncommitted paths).`,
    readOnly: false,
    destructive: true,
    shape: {
      cwd,
      skill,
      // The fields are checked by `pause` against the schema, with its messages: not restated here.
      // Passed on as it arrived, as `json` is: a record would copy it, and an own "__proto__" key
      // would vanish on the way (a prototype set) instead of being refused (check below).
      capsule: capsuleObject.optional().describe(capsuleFieldsText()),
      auto: z.boolean().optional(),
    },
    // Without either, `pause` would read the capsule from stdin: here that is the protocol stream.
    check: (a) => {
      if ((a.capsule !== undefined) === Boolean(a.auto)) {
        return {
          message: `checkpoint pause: give either capsule (the seven-field object) or auto=true${a.capsule !== undefined ? ', not both' : ''}`,
          hint: `capsule saves what only this session knows (${CAPSULE_FIELDS.join(', ')}); auto=true refreshes only HEAD, branch and uncommitted paths in the saved one`,
        };
      }
      // One nested past what is read is refused by its depth (jsonText), before it is walked here.
      if (tooDeepAt(a.capsule as JsonValue) === null) refuseForbiddenKeys(a.capsule, 'capsule');
      return null;
    },
    argv: (a) => [...(a.capsule !== undefined ? [`--context=${jsonText(a.capsule, 'capsule')}`] : []), ...flags(a, { auto: 'auto' }), ...rest(a.skill)],
    // auto=true refreshes a checkpoint that is there, else says "nothing to refresh" (a hook runs it anywhere).
    startsNothing: (a) => a.auto === true,
    summary: (d) => (d.refreshed === false ? field(d.message) : d.capsule_bytes !== undefined ? `saved the capsule of ${field(d.skill)} (${d.capsule_bytes} bytes)` : `refreshed the capsule of ${field(d.skill)}`),
  },
  {
    name: 'rotate',
    command: 'rotate',
    title: 'Move old telemetry to history',
    description: 'Move old per-session telemetry out of checkpoints into .checkpoints/history/ (never deletes).',
    readOnly: false,
    destructive: false,
    shape: { cwd, skills: z.array(z.string()).optional(), keep: z.number().int().min(0).optional(), dry_run: z.boolean().optional() },
    argv: (a) => [...flags(a, { keep: 'keep', dry_run: 'dry-run' }), ...rest(a.skills)],
    summary: (d) => {
      const failed = Array.isArray(d.failures) ? (d.failures as Doc[]) : [];
      const done = `${(d.skills as Doc[] | undefined)?.filter((s) => s.changed).length ?? 0} checkpoint(s) ${d.dry_run ? 'would change' : 'rotated'}`;
      // Each failure in the CLI's words: a host that reads only the text must not take a refusal for "nothing to rotate".
      return joined(done, failed.map((f) => `${field(f.skill)} not rotated: ${field(f.message)}${f.hint ? `; hint: ${field(f.hint)}` : ''}`));
    },
  },
];
