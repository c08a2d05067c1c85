// `git merge` runs this once per conflicting checkpoint file, so it loads only node:fs
// and the pure merge modules; child_process only for the fallback (git/git-sync.ts). Built-ins come from
// process.getBuiltinModule: an ESM `import` of node:fs builds a facade over all of fs
// (streams included) and costs a few milliseconds of the driver's start-up.
// Contract with git: %A is ours and receives the result; exit 0 = merged, non-zero = left
// conflicted. A usage problem exits 2 with %A untouched, so nothing of ours is lost.

import { checkPolicyConfig, compileExtraLogs } from '../protocol/fields.js';
import { CONFLICT_REASON, JsonSyntaxError, parseJson } from '../protocol/json.js';
import { driverReport, MAX_MERGE_BYTES, mergeCheckpointTexts, unparseableMessage, type LayoutWriter, type MergeSide, type UnreadableSide } from './driver.js';
import type * as Layout from '../protocol/layout.js';
import type { ExtraRules } from './merge.js';
import { DEFAULT_LABELS, DEFAULT_MARKER_SIZE, LINE_MERGE_LABELS } from './render.js';
import { fileKind, HAND_MERGED_HISTORY_NOTE, inHistory } from '../protocol/file-names.js';
import { attributeMarkerSize, mergesBasesAt } from './bases-marker-size.js';
import { readProjectText } from '../store/safe-fs.js';
import { configConflictFix, MAX_CONFIG_BYTES, unknownConfigKeys } from '../store/config-limits.js';
import { runGitSync } from '../git/git-sync.js';
import { REBASE_SIDES, replayConflict } from '../git/rebasing.js';
import { oneLine, quoted } from '../one-line.js';

const fs = process.getBuiltinModule('node:fs');
const CONFIG_PATH = '.checkpoints/config.json';

class UsageError extends Error {}

/** Set when a line went to the process.stderr stream, whose write may still be pending at the end. */
let streamed = false;

/**
 * Always one line: a path (%P) or a key in a hostile clone may hold a newline or an escape sequence.
 * Written synchronously (no stream or tty machinery to start), so the launcher may exit as soon as
 * the driver returns; a full non-blocking pipe (EAGAIN) falls back to the stream.
 */
function say(line: string): void {
  const buf = Buffer.from(`${oneLine(line)}\n`, 'utf8');
  for (let off = 0; off < buf.length; ) {
    try {
      off += fs.writeSync(2, buf, off);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') return; // stderr closed: nowhere to say it
      streamed = true;
      process.stderr.write(buf.subarray(off));
      return;
    }
  }
}

/**
 * Whether the process may end right away once runMergeDriver has resolved (bin/checkpoint.js then
 * skips node's own teardown, ~1% of the driver's cost): everything was written synchronously.
 */
export function canExitNow(): boolean {
  return !streamed;
}

/** A side's bytes, or null when it is over MAX_MERGE_BYTES (git's line merge takes the file then). */
function readBytes(path: string, what: string): Buffer | null {
  let fd: number | undefined;
  try {
    // Non-blocking, and only a plain file: git passes its temp files, never a FIFO or a device,
    // which would hang the merge or read without end.
    fd = fs.openSync(path, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new UsageError(`cannot read ${what} (${path}): not a plain file`);
    if (st.size > MAX_MERGE_BYTES) return null;
    return fs.readFileSync(fd);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`cannot read ${what} (${path}): ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function parseMarkerSize(arg: string | undefined): number {
  if (arg === undefined || arg === '') return DEFAULT_MARKER_SIZE;
  const size = Number(arg);
  if (!Number.isInteger(size) || size < 1 || size > 1000) throw new UsageError(`marker size must be a positive integer, got "${arg}"`);
  return size;
}

/** Project-declared logs and telemetry from `.checkpoints/config.json` (git runs drivers at the worktree top). */
function readExtraRules(): ExtraRules {
  // No throw for the usual case: most projects have no config, and a thrown ENOENT is not free.
  if (!fs.existsSync(CONFIG_PATH) && !isLink(CONFIG_PATH)) return [];
  try {
    // Never follows a committed link out of the repo, never reads a FIFO or /dev/zero: git would hang.
    const text = readProjectText(process.cwd(), CONFIG_PATH, { maxBytes: MAX_CONFIG_BYTES });
    if (text === null) return [];
    const config = parseJson(text).value;
    if (config === null || typeof config !== 'object' || Array.isArray(config)) throw new Error('must be a JSON object');
    // Mid-merge there is no one to answer an exit 2: bad entries are named and ignored, the valid
    // ones still apply (an ignored log merges by the plain rules: conflicts, never a silent loss).
    const { kept, problems } = checkPolicyConfig(config);
    const unknown = unknownConfigKeys(config).map((k) => `unknown key ${quoted(k)}`);
    if (problems.length || unknown.length) say(`checkpoint merge-driver: warning: ${CONFIG_PATH}: ignoring ${[...unknown, ...problems].join('; ')} (the rest applies)`);
    return compileExtraLogs(kept);
  } catch (e) {
    // git merged config.json first in this merge and left it conflicted: settled by hand, never by `checkpoint resolve`.
    const why = e instanceof JsonSyntaxError && e.reason === CONFLICT_REASON ? `it holds merge conflict markers: ${configConflictFix(CONFIG_PATH)}` : e instanceof Error ? e.message : String(e);
    say(`checkpoint merge-driver: warning: ignoring ${CONFIG_PATH}: ${why}`);
    return [];
  }
}

function isLink(path: string): boolean {
  try {
    return fs.lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * protocol/layout.ts, required on first use: scripts/build.mjs builds it apart (dist/merge-layout.cjs),
 * so a merge of files laid out as formatJson writes them never reads or compiles it.
 */
const keepLayout = (): LayoutWriter => (require('../protocol/layout.js') as typeof Layout).formatKeepingLayout;

// ignoreBOM keeps a BOM in the text, so the merged file keeps it too.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** args: %O %A %B %P [%L]. Resolves to the exit code. */
export async function runMergeDriver(args: string[]): Promise<number> {
  try {
    return mergeFiles(args);
  } catch (e) {
    // One line, never a stack trace, in the middle of someone's `git merge`.
    const detail = e instanceof UsageError ? e.message : `unexpected error, ours is left as it was: ${e instanceof Error ? e.message : String(e)}`;
    say(`checkpoint merge-driver: ${detail}`);
    return 2;
  }
}

function mergeFiles(args: string[]): number {
  if (args.length < 4 || args.length > 5) throw new UsageError(`expected arguments %O %A %B %P [%L], got ${args.length}`);
  const [basePath, oursPath, theirsPath, repoPath, markerArg] = args as [string, string, string, string, string | undefined];
  const markerSize = parseMarkerSize(markerArg);
  // Routed by the `history/*.json` attribute line but named as no archive or rotation: resolve
  // never takes it, so git's line merge does, as without us (red team 64 r2, repro5).
  if (inHistory(repoPath) && !checkpointNamed(repoPath)) {
    const conflicts = lineMerge(oursPath, basePath, theirsPath, markerSize, repoPath);
    say(`checkpoint merge-driver: ${repoPath}: ${HAND_MERGED_HISTORY_NOTE}${conflicts === 0 ? '' : '; settle its conflicts by hand, then git add it'}`);
    return conflicts === 0 ? 0 : 1;
  }
  const virtualBase = markerSize !== DEFAULT_MARKER_SIZE && mergesBases(repoPath, markerSize);
  // The markers a checkpoint's readers know (status, resolve, doctor): never shorter than git's
  // seven, whatever smaller conflict-marker-size an attributes line asks (red team 62a, 02).
  const written = Math.max(markerSize, DEFAULT_MARKER_SIZE);
  const bytes = {
    ours: readBytes(oursPath, '%A (ours)'),
    base: readBytes(basePath, '%O (base)'),
    theirs: readBytes(theirsPath, '%B (theirs)'),
  };

  const unreadable: UnreadableSide[] = [];
  const decode = (side: MergeSide): string => {
    const raw = bytes[side];
    if (raw === null) {
      unreadable.push({ side, reason: `is larger than ${MAX_MERGE_BYTES} bytes` });
      return '';
    }
    try {
      return utf8.decode(raw);
    } catch {
      unreadable.push({ side, reason: 'is not valid UTF-8' });
      return '';
    }
  };
  const texts = { base: decode('base'), ours: decode('ours'), theirs: decode('theirs') };
  const result =
    unreadable.length > 0
      ? { status: 'unparseable' as const, text: undefined, messages: [unparseableMessage(repoPath, unreadable)] }
      : mergeCheckpointTexts({ ...texts, markerSize: written, extraRules: readExtraRules(), fileName: repoPath, labels: DEFAULT_LABELS, keepLayout, virtualBase });

  // A file that is no checkpoint by its name (a `*.json` or `*` attribute routed it here: a
  // config, a text file) is git's to merge by lines, as without us: silent, clean when clean.
  if (result.status === 'unparseable' && !checkpointNamed(repoPath)) return lineMerge(oursPath, basePath, theirsPath, markerSize, repoPath) === 0 ? 0 : 1;
  const report = driverReport(repoPath, result.messages);
  if (report !== undefined) say(report);
  // Left conflicted by a rebase's replay: which side is whose, the reverse of a merge's (red team
  // 12-07); not a --rebase-merges merge step, nor a cherry-pick or stash pop at a stopped rebase.
  if (result.status !== 'clean' && replayConflict(process.cwd(), repoPath, bytes.theirs)) say(`checkpoint: ${REBASE_SIDES}`);
  if (result.status === 'unparseable') {
    lineMerge(oursPath, basePath, theirsPath, written, repoPath);
    return 1;
  }
  if (result.text !== undefined && result.text !== texts.ours) fs.writeFileSync(oursPath, result.text);
  return result.status === 'clean' ? 0 : 1;
}

/**
 * Whether git runs us to merge merge bases into the virtual ancestor of a criss-cross merge
 * rather than for the merge itself (bases-marker-size.ts: the file's marker size plus 2 per level).
 * Asked only for a size other than the default, so a plain merge starts no git; the attribute is
 * read to tell those levels from a size a project set. (A project that set a size below 7 has its
 * bases merged at 7 too, which is taken for a plain merge: asking git there would cost every merge
 * a process.)
 */
function mergesBases(repoPath: string, markerSize: number): boolean {
  const out = runGitSync(process.cwd(), ['check-attr', 'conflict-marker-size', '--', repoPath]);
  if (out.code !== 0) return false;
  const value = /: conflict-marker-size: (.*)$/m.exec(out.stdout)?.[1];
  return mergesBasesAt(markerSize, attributeMarkerSize(value));
}

/** Whether `path` is named as a checkpoint (`<skill>.checkpoint.json`) or, under history/, as an archive or a rotation. */
function checkpointNamed(path: string): boolean {
  return inHistory(path) ? fileKind(path) !== 'checkpoint' : path.endsWith('.checkpoint.json');
}

/**
 * git's own line merge with diff3 markers, written into %A: the number of conflicts it left (a
 * checkpoint's is reported as a conflict whatever it is).
 * Through the gateway's synchronous core (git-sync.ts: no imports, child_process fetched only
 * here), so the driver bundle stays lean. merge-file exits with the number of conflicts
 * (at most 127); more means it failed.
 */
function lineMerge(ours: string, base: string, theirs: string, markerSize: number, repoPath: string): number {
  const args = ['merge-file', '--diff3', '-L', LINE_MERGE_LABELS.ours, '-L', LINE_MERGE_LABELS.base, '-L', LINE_MERGE_LABELS.theirs, `--marker-size=${markerSize}`, ours, base, theirs];
  const r = runGitSync(process.cwd(), args);
  if (r.code < 0 || r.code > 127) {
    say(`checkpoint merge-driver: git merge-file could not merge ${repoPath}; ours is left as it was`);
    return -1;
  }
  return r.code;
}
