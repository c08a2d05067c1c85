// A queue conflict's markers must hold each side as a whole choice: taking one side of every
// block gives no action more often than a side holds it, nor less often than both sides hold
// it (red team: a reordered queue beside an edit in place; a move around a repeated action).

import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatJson } from '../../src/protocol/format.js';
import { parseJson } from '../../src/protocol/json.js';
import type { JsonValue } from '../../src/protocol/types.js';
import { mergeCheckpointTexts } from '../../src/merge/driver.js';
import { parseMarkedText } from '../../src/merge/markers.js';
import { mergeMarkedText } from '../../src/merge/settle-markers.js';

const fileName = '.checkpoints/demo.checkpoint.json';
const T0 = Date.parse('2026-03-01T10:00:00Z');
const docText = (queue: JsonValue[], hour = 0) =>
  formatJson({ protocol_version: '1.1', skill: 'demo', project: 'demo', project_dir: '/work/demo', created_at: new Date(T0).toISOString(), updated_at: new Date(T0 + hour * 3600_000).toISOString(), phase: 'spec', step: 'draft', status: 'in_progress', progress_summary: 'spec under way', next_actions: queue });
const count = (queue: readonly JsonValue[], a: JsonValue) => queue.filter((x) => isDeepStrictEqual(x, a)).length;

/** The text with every conflict block cut to one side (the markers are the driver's own, diff3 style). */
function cut(text: string, side: 'ours' | 'theirs'): string {
  const out: string[] = [];
  let state: 'out' | 'ours' | 'base' | 'theirs' = 'out';
  for (const line of text.split(/(?<=\n)/)) {
    if (line.startsWith('<<<<<<< ')) state = 'ours';
    else if (line.startsWith('||||||| ')) state = 'base';
    else if (line.startsWith('=======')) state = 'theirs';
    else if (line.startsWith('>>>>>>> ')) state = 'out';
    else if (state === 'out' || state === side) out.push(line);
  }
  return out.join('');
}
const queueOf = (text: string) => (parseJson(text).value as any).next_actions as JsonValue[];

describe('a queue conflict holds each side whole', () => {
  it('a reordered queue beside an edit in place: taking ours gives ours, theirs gives theirs', () => {
    const base = ['A', 'B', 'C'];
    const ours = ['C', 'B', 'A'];
    const theirs = ['A', 'B2', 'C'];
    const driver = mergeCheckpointTexts({ base: docText(base), ours: docText(ours), theirs: docText(theirs), fileName });
    expect(driver.status).toBe('conflict');
    expect(queueOf(cut(driver.text!, 'ours'))).toEqual(ours);
    expect(queueOf(cut(driver.text!, 'theirs'))).toEqual(theirs);
    const again = mergeMarkedText({ marked: parseMarkedText(driver.text!)!, fileName });
    expect(again.text).toBe(driver.text);
  });

  it('an action both sides hold, moved on one side around a repeated run, is in both sides of the markers', () => {
    // Theirs moved "c" to the front; the alignment anchors on the one "c" and reads theirs' "a", "a" as moved after it.
    const base = ['a', 'a', 'c', 'd'];
    const ours = ['a', 'a'];
    const theirs = ['c', 'a', 'a'];
    const driver = mergeCheckpointTexts({ base: docText(base), ours: docText(ours), theirs: docText(theirs), fileName });
    expect(driver.status).toBe('conflict');
    expect(queueOf(cut(driver.text!, 'ours'))).toEqual(ours);
    expect(queueOf(cut(driver.text!, 'theirs'))).toEqual(theirs);
  });

  it('taking one side of every block holds no action more often than a side holds it, nor less often than both do', () => {
    const queue = fc.array(fc.constantFrom<JsonValue>('audit the spec', 'build the review', 'ship src/x.ts (PR 12)', 'deploy docs', { text: 'deploy docs', done_when: 'npm run docs' }), { maxLength: 6 });
    fc.assert(
      fc.property(queue, queue, queue, fc.nat(2), fc.nat(2), (base, ours, theirs, oursAt, theirsAt) => {
        const driver = mergeCheckpointTexts({ base: docText(base), ours: docText(ours, oursAt), theirs: docText(theirs, theirsAt), fileName });
        // Markers only: a clean merge left invalid (an empty queue in_progress: both sides popped) has none to take.
        if (driver.status !== 'conflict' || driver.conflicts.length === 0) return;
        for (const side of ['ours', 'theirs'] as const) {
          const taken = queueOf(cut(driver.text!, side));
          for (const a of [...taken, ...ours, ...theirs]) {
            const why = `${JSON.stringify(a)} taking ${side}: ${JSON.stringify(taken)}`;
            expect(count(taken, a), why).toBeLessThanOrEqual(Math.max(count(ours, a), count(theirs, a)));
            expect(count(taken, a), why).toBeGreaterThanOrEqual(Math.min(count(ours, a), count(theirs, a)));
          }
        }
      }),
      { numRuns: 3000 },
    );
  });
});
