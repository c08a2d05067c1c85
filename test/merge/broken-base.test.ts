// A merge base that is not valid JSON (a broken file committed, both branches repairing it): the
// two valid sides merge against what they hold alike, never git's line merge, whose markers
// `resolve --add` then refused (red team 64 r2, repro3: a dead end).
import { describe, expect, it } from 'vitest';
import { mergeCheckpointTexts } from '../../src/merge/driver.js';

const file = (opts: { comma?: string; done?: string; total?: string; updated?: string; phase?: string }) => `{
  "protocol_version": "1.1", "skill": "api", "project": "demo", "project_dir": "/tmp/x",
  "created_at": "2026-12-01T10:00:00Z", "updated_at": "${opts.updated ?? '2026-12-01T12:00:00Z'}",
  "phase": "${opts.phase ?? 'build'}", "step": "orders", "status": "in_progress"${opts.comma ?? ','}
  "progress_summary": "x", "next_actions": ["Ship it"],
  "cost": { "total_usd": ${opts.total ?? '1.0'} },
  "recently_done": [
    {"text": "Scaffold", "at": "2026-12-01T11:00:00Z"}${opts.done ?? ''}
  ]
}
`;
const merge = (base: string, ours: string, theirs: string) => mergeCheckpointTexts({ base, ours, theirs, fileName: '.checkpoints/api.checkpoint.json' });
const done = (text: string, at: string) => `,\n    {"text": "${text}", "at": "${at}"}`;

describe('a base that is not valid JSON', () => {
  const base = file({ comma: ',,' });
  it('merges two sides that each appended a record: both kept once, the base record once, either way round', () => {
    const a = file({ done: done('A', '2026-12-02T00:00:00Z'), updated: '2026-12-02T00:00:00Z' });
    const b = file({ done: done('B', '2026-12-03T00:00:00Z'), updated: '2026-12-03T00:00:00Z' });
    for (const [o, t] of [[a, b], [b, a]] as const) {
      const r = merge(base, o, t);
      expect(r.status, r.messages.join('\n')).toBe('clean');
      expect(JSON.parse(r.text!).recently_done.map((d: { text: string }) => d.text)).toEqual(['Scaffold', 'A', 'B']);
      expect(JSON.parse(r.text!).cost.total_usd).toBe(1);
    }
  });

  it('asks where the sides differ, as an add/add does: a value, and a counter whose spend since an unknown base cannot be told', () => {
    const r = merge(base, file({ phase: 'test', total: '2.0' }), file({ phase: 'ship', total: '3.0' }));
    expect(r.status).toBe('conflict');
    expect(r.conflicts.map((c) => c.display).sort()).toEqual(['cost.total_usd', 'phase']);
  });

  it('still refuses a side that is not valid JSON', () => {
    expect(merge(file({}), file({ comma: ',,' }), file({})).status).toBe('unparseable');
  });
});
