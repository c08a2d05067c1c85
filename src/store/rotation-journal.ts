// The rotation journal, .checkpoints/.<skill>.rotation.tmp (local, never committed): how a
// rotation killed between its history write and its checkpoint write is finished by the next
// run without losing or doubling a record, equal records (a multiset) included.
//
// Invariant: each part of the journal is true of every checkpoint whose fingerprint it lists in
// `docs`: "each of these entries is in the checkpoint's log AND in rotation file `where`, in that
// log at or after position `from`". Only a part true of the checkpoint on disk counts, and only
// while the rotation file still holds its copies past `from`: then each copy excuses one equal
// entry of the checkpoint (it leaves without being archived again), and nothing else does.
// Every checkpoint write keeps the invariant (mutateCheckpoint), rewriting the journal before it
// writes history/ or the checkpoint: the copies it is about to append to a rotation file are a new
// part (true once that write lands: before, the file holds nothing past `from`); a part the write
// settles (its entries leave the checkpoint, or come back from a restored file) lists only the
// checkpoint as it is, so once the write lands the part is true of nothing and excuses nothing; a
// part whose entries stay in both places lists the checkpoint written next too. A kill at any
// point thus leaves a journal true of whichever checkpoint is on disk, and removing it after the
// write is only tidying. (A write from outside, git or an editor, leaves no part true of the new
// checkpoint: the next rotate archives such entries again, never loses one.)
import { createHash } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { canonicalJson } from '../protocol/identity.js';
import { parseJson } from '../protocol/json.js';
import { countEntries, logPathIn, rotationFileProblem, type EntryCounts, type RotationFile } from '../protocol/rotation.js';
import type { JsonObject, JsonValue } from '../protocol/types.js';
import { writeFileAtomic } from './atomic.js';
import { historyDir, MAX_ROTATION_FILE_BYTES, pointerOf } from './history-paths.js';
import { CHECKPOINTS_DIR } from './root.js';
import { readProjectText, writablePath } from './safe-fs.js';

/** The copies a rotation appended to one log of a rotation file: `entries`, at position `from` of that log or later. */
export interface LogCopies {
  from: number;
  entries: JsonValue[];
}

/** One statement of the journal (see the top of this file). */
interface Part {
  docs: string[];
  where: string;
  logs: Record<string, LogCopies>;
}

/** Fingerprint of a JSON value (a checkpoint document; a log, as a rotation file's moved_from records it). */
export function fingerprint(doc: JsonValue | null): string {
  return createHash('sha256').update(canonicalJson(doc)).digest('hex');
}

function journalPath(root: string, skill: string): string {
  return join(root, CHECKPOINTS_DIR, `.${skill}.rotation.tmp`);
}

function isPart(p: unknown): p is Part {
  if (p === null || typeof p !== 'object') return false;
  const { docs, where, logs } = p as Part;
  return Array.isArray(docs) && docs.every((d) => typeof d === 'string') && typeof where === 'string' && logs !== null && typeof logs === 'object'
    && Object.values(logs).every((l) => l !== null && typeof l === 'object' && Number.isInteger(l.from) && l.from >= 0 && Array.isArray(l.entries));
}

/** Whether the rotation file still holds the part's copies, each log from its `from` on (a file thrown away or checked out again does not). */
function heldInFile(root: string, skill: string, part: Part): boolean {
  const path = join(historyDir(root), basename(part.where));
  if (pointerOf(root, path) !== part.where) return false;
  try {
    const text = readProjectText(root, path, { maxBytes: MAX_ROTATION_FILE_BYTES });
    if (text === null) return false;
    const { value } = parseJson(text, { texts: false });
    if (rotationFileProblem(value, skill)) return false;
    const held = (value as unknown as RotationFile).entries;
    return Object.entries(part.logs).every(([dotted, { from, entries }]) => Array.isArray(held[dotted]) && holds(held[dotted]!.slice(from), entries));
  } catch {
    return false;
  }
}

/** Whether `log` holds each of `entries`, each as often as it is listed. */
function holds(log: readonly JsonValue[], entries: readonly JsonValue[]): boolean {
  const left = countEntries(new Map(), '', log).get('')!;
  return entries.every((e) => {
    const k = canonicalJson(e);
    const n = left.get(k) ?? 0;
    left.set(k, n - 1);
    return n > 0;
  });
}

/** The log at `dotted` in `doc`, or undefined. */
function logIn(doc: JsonValue, dotted: string): JsonValue[] | undefined {
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return undefined;
  let at: JsonValue | undefined = doc;
  for (const seg of logPathIn(doc, dotted)) at = at !== null && typeof at === 'object' && !Array.isArray(at) ? (at as JsonObject)[seg] : undefined;
  return Array.isArray(at) ? at : undefined;
}

/** The rotation journal as one checkpoint write (or a look without one) finds it: the parts true of the checkpoint now. */
export class RotationJournal {
  /** Per part, per log: the copies not yet excused or settled by this write, counted. */
  private left: EntryCounts[];
  private added: Part | null = null;
  private preparedFor: string | null = null;
  /** Whether the journal written keeps a part for the checkpoint written. */
  private carried = false;

  private constructor(
    private readonly root: string,
    private readonly skill: string,
    /** The checkpoint on disk. */
    private readonly doc: JsonValue | null,
    private readonly parts: Part[],
    /** The journal's text as found (null: none), to put back when the write fails. */
    private readonly found: string | null,
  ) {
    this.left = [];
    this.excuseNone();
  }

  /** The journal of `skill` as it bears on `current`, the checkpoint on disk (null: none). */
  static open(root: string, skill: string, current: JsonValue | null): RotationJournal {
    let text: string | null;
    try {
      text = readProjectText(root, journalPath(root, skill), { maxBytes: MAX_ROTATION_FILE_BYTES });
    } catch {
      return new RotationJournal(root, skill, current, [], ''); // unreadable: true of nothing (and not put back)
    }
    if (text === null) return new RotationJournal(root, skill, current, [], null);
    let parts: unknown;
    try {
      parts = (JSON.parse(text) as { parts?: unknown }).parts;
    } catch {
      parts = undefined;
    }
    const now = fingerprint(current);
    const valid = Array.isArray(parts) ? parts.filter((p): p is Part => isPart(p) && p.docs.includes(now) && heldInFile(root, skill, p)) : [];
    return new RotationJournal(root, skill, current, valid, text);
  }

  /** A plan that is not written (auto-rotation that would not fit) excuses nothing. */
  excuseNone(): void {
    this.left = this.parts.map((p) => {
      const counts: EntryCounts = new Map();
      for (const [dotted, { entries }] of Object.entries(p.logs)) countEntries(counts, dotted, entries);
      return counts;
    });
  }

  /** The rotation files its true parts name: a retry appends there too (their copies are leaving the checkpoint). */
  files(): string[] {
    return [...new Set(this.parts.map((p) => p.where))];
  }

  /**
   * Each copy in a rotation file excuses one equal entry of the checkpoint (it leaves without
   * moving again), no more: returns where that copy is, or null. Counts afresh at each call: the
   * write settles what the last excuser excused.
   */
  excuser(): (dotted: string, entry: JsonValue) => string | null {
    this.excuseNone();
    return (dotted, entry) => {
      const k = canonicalJson(entry);
      const i = this.left.findIndex((counts) => (counts.get(dotted)?.get(k) ?? 0) > 0);
      if (i < 0) return null;
      const byEntry = this.left[i]!.get(dotted)!;
      byEntry.set(k, byEntry.get(k)! - 1);
      return this.parts[i]!.where;
    };
  }

  /**
   * The copies in the rotation file `pointer` (restore leaves them out: the checkpoint holds them
   * already). The write that restores that file settles them: its entries are all back.
   */
  settleFile(pointer: string): EntryCounts {
    const counts: EntryCounts = new Map();
    this.parts.forEach((p, i) => {
      if (p.where !== pointer) return;
      for (const [dotted, { entries }] of Object.entries(p.logs)) countEntries(counts, dotted, entries);
      this.left[i] = new Map();
    });
    return counts;
  }

  /**
   * Keeps the invariant for the write of `final`, before it: every true part stays true of the
   * checkpoint now; the copies this write neither excused nor settled, and which `final` still
   * holds, are true of `final` too. `added`: the copies this write appends to `where`. Nothing
   * to say: the journal goes. Idempotent for the same `final`.
   */
  prepare(final: JsonValue, added?: { where: string; logs: Record<string, LogCopies> }): void {
    if (!this.parts.length && !this.added && !added && this.found === null) return;
    const current = fingerprint(this.doc);
    if (added) this.added = { docs: [current], ...added };
    const next = fingerprint(final);
    if (this.preparedFor === next && !added) return;
    const out: Part[] = [];
    // What `final` holds, per log, less the copies already carried into it.
    const available = new Map<string, JsonValue[]>();
    this.carried = false;
    this.parts.forEach((part, i) => {
      out.push({ ...part, docs: [current] });
      const stay: Record<string, LogCopies> = {};
      for (const [dotted, { from, entries }] of Object.entries(part.logs)) {
        const budget = new Map(this.left[i]!.get(dotted) ?? []);
        const kept = entries.filter((e) => {
          const k = canonicalJson(e);
          const n = budget.get(k) ?? 0;
          budget.set(k, n - 1);
          return n > 0;
        });
        if (kept.length) stay[dotted] = { from, entries: kept };
      }
      const logs = Object.entries(stay);
      if (!logs.length) return;
      // Carried only when `final` holds every one of them beside the copies carried before.
      const pools = logs.map(([dotted, { entries }]) => [dotted, available.get(dotted) ?? logIn(final, dotted) ?? [], entries] as const);
      if (!pools.every(([, pool, entries]) => holds(pool, entries))) return;
      for (const [dotted, pool, entries] of pools) available.set(dotted, without(pool, entries));
      out.push({ docs: [next], where: part.where, logs: stay });
      this.carried = true;
    });
    if (this.added) out.push(this.added);
    this.preparedFor = next;
    if (!out.length) {
      this.remove();
      return;
    }
    writeFileAtomic(writablePath(this.root, journalPath(this.root, this.skill), { atomic: true }), `${JSON.stringify({ parts: out })}\n`);
  }

  /** The checkpoint write landed: a journal with nothing true of the checkpoint written goes (tidying: it excuses nothing now). */
  settle(): void {
    if (this.preparedFor !== null && !this.carried) this.remove();
  }

  /**
   * The checkpoint write failed (after any history write was taken back): the journal as it was.
   * Left as written if that fails: all it says is true of the checkpoint as it is.
   */
  undo(): void {
    if (this.preparedFor === null) return;
    this.preparedFor = null;
    if (this.found === null) this.remove();
    else if (this.found) {
      try {
        writeFileAtomic(writablePath(this.root, journalPath(this.root, this.skill), { atomic: true }), this.found);
      } catch {
        // a full disk: what it says now is true as well
      }
    }
  }

  private remove(): void {
    try {
      unlinkSync(writablePath(this.root, journalPath(this.root, this.skill)));
    } catch {
      // none, or not ours to remove: a part true of no checkpoint excuses nothing
    }
  }
}

/** `pool` less one copy of each of `entries`. */
function without(pool: readonly JsonValue[], entries: readonly JsonValue[]): JsonValue[] {
  const drop = countEntries(new Map(), '', entries).get('')!;
  return pool.filter((e) => {
    const k = canonicalJson(e);
    const n = drop.get(k) ?? 0;
    if (n <= 0) return true;
    drop.set(k, n - 1);
    return false;
  });
}
