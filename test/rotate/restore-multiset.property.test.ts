// rotate and restore over logs with repeated records (red team s12 #1). A log is a multiset:
// equal records are separate events. Restore must put back exactly what rotate moved, count
// included, and never double what is already in the checkpoint, over any run of appends,
// rotations (several a day, on later days) and restores (twice, out of turn, of stale files).
// Real files in a real repository; the store's own rotate and restore (the CLI's code path).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rotateSkill } from '../../src/store/rotate.js';
import { restoreArchive } from '../../src/store/restore.js';
import type { JsonObject, JsonValue } from '../../src/protocol/types.js';
import { checkpointDoc } from '../helpers/fixtures.js';
import { makeRepo, write } from '../helpers/repo.js';

const CP = '.checkpoints/api.checkpoint.json';
const HISTORY = '.checkpoints/history';
const DAY0 = Date.UTC(2026, 10, 30, 9);

// Few distinct records, so repeats are the rule: untimed records, as hand-kept or tool-written telemetry often is.
const RECORDS: JsonValue[] = [{ ok: 1 }, { ok: 2 }, 'nightly', 3, { id: 'n', ok: true, note: 'src/x.ts (PR 12)' }];
const record = fc.constantFrom(...RECORDS);

function project(log: JsonValue[]): string {
  const dir = makeRepo();
  write(dir, CP, `${JSON.stringify(checkpointDoc({ skill_state: { run_history: log, current_sprint: 3 } }), null, 2)}\n`);
  return dir;
}

const readDoc = (dir: string): JsonObject => JSON.parse(readFileSync(join(dir, CP), 'utf8')) as JsonObject;
const state = (doc: JsonObject) => doc.skill_state as JsonObject;
const rotationFiles = (dir: string): string[] => {
  try {
    return readdirSync(join(dir, HISTORY)).filter((f) => /^api\.[\d-]+\.json$/.test(f));
  } catch {
    return [];
  }
};
const entriesOf = (dir: string, file: string): JsonValue[] =>
  (JSON.parse(readFileSync(join(dir, HISTORY, file), 'utf8')).entries['skill_state.run_history'] ?? []) as JsonValue[];
const named = (doc: JsonObject): string[] => ((state(doc).rotated_to as string[] | undefined) ?? []).map((p) => p.slice(HISTORY.length + 1));
const sorted = (xs: JsonValue[]) => xs.map((x) => JSON.stringify(x)).sort();

describe('restore gives back exactly what rotate moved', () => {
  it('rotate --keep k, then restore: the checkpoint is byte for byte what it was (every repeat, in order)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(record, { maxLength: 12 }), fc.nat(6), async (log, keep) => {
        const dir = project(log);
        const before = readFileSync(join(dir, CP), 'utf8');
        const now = new Date(DAY0);
        const r = await rotateSkill(dir, 'api', { now, keep });
        expect(r.moved).toBe(Math.max(0, log.length - keep));
        if (!r.moved) return;
        const [file] = rotationFiles(dir);
        const back = await restoreArchive(dir, file!, now);
        expect(back).toMatchObject({ entries: r.moved, already: 0, named: true });
        expect(readFileSync(join(dir, CP), 'utf8')).toBe(before);
        // A second restore of the same file adds nothing.
        expect(await restoreArchive(dir, file!, now)).toMatchObject({ entries: 0, named: false });
        expect(readFileSync(join(dir, CP), 'utf8')).toBe(before);
      }),
      { numRuns: 40 },
    );
  });

  type Op = { kind: 'append'; value: JsonValue } | { kind: 'rotate'; keep: number; nextDay: boolean } | { kind: 'restore'; pick: number };
  const op: fc.Arbitrary<Op> = fc.oneof(
    record.map((value) => ({ kind: 'append' as const, value })),
    fc.record({ kind: fc.constant('rotate' as const), keep: fc.nat(4), nextDay: fc.boolean() }),
    fc.record({ kind: fc.constant('restore' as const), pick: fc.nat(20) }),
  );

  it('over any run of appends, rotations and restores, every record is live or in a file the checkpoint names, exactly as often as it was added', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(record, { maxLength: 6 }), fc.array(op, { minLength: 1, maxLength: 12 }), async (start, ops) => {
        const dir = project(start);
        const all = [...start];
        let day = 0;
        // Order holds too while each restore of a named file takes the newest one (what rotate moved last comes back first).
        let ordered = true;
        const now = () => new Date(DAY0 + day * 86_400_000);
        for (const o of ops) {
          if (o.kind === 'append') {
            const doc = readDoc(dir);
            (state(doc).run_history as JsonValue[]).push(o.value);
            all.push(o.value);
            writeFileSync(join(dir, CP), `${JSON.stringify(doc, null, 2)}\n`);
          } else if (o.kind === 'rotate') {
            if (o.nextDay) day++;
            await rotateSkill(dir, 'api', { now: now(), keep: o.keep });
          } else {
            const files = rotationFiles(dir).sort();
            if (!files.length) continue;
            const file = files[o.pick % files.length]!;
            const names = named(readDoc(dir));
            if (names.includes(file) && file !== names[names.length - 1]) ordered = false;
            await restoreArchive(dir, file, now());
          }
          const doc = readDoc(dir);
          const live = state(doc).run_history as JsonValue[];
          const out = named(doc).flatMap((f) => entriesOf(dir, f));
          expect(sorted([...live, ...out])).toEqual(sorted(all));
        }
        // Restoring what the checkpoint names, newest first, brings the whole log back.
        for (const file of named(readDoc(dir)).reverse()) await restoreArchive(dir, file, now());
        const doc = readDoc(dir);
        expect(state(doc).rotated_to).toBeUndefined();
        if (ordered) expect(state(doc).run_history).toEqual(all);
        else expect(sorted(state(doc).run_history as JsonValue[])).toEqual(sorted(all));
      }),
      { numRuns: 40 },
    );
  });
});
