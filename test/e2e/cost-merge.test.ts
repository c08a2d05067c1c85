// Spend counters through a real `git merge` and the driver `checkpoint init` installs: a sum keeps
// the `.0` the sides wrote, a reset on one branch and a currency switch on one branch stop as
// conflicts on exactly the amounts they touch, never a silent sum. Built binary, real git.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/protocol/json.js';
import { assertBuilt, cleanup, commitAll, commitSides, git, gitTry, makeRepo, read, write, initialized } from '../helpers/repo.js';

const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
beforeAll(assertBuilt);
afterEach(() => dirs.splice(0).forEach(cleanup));

interface Cost {
  currency?: string;
  total?: string;
  build?: string;
  input?: string;
}

// As oc-cost-ops writes it through Python's json.dump: every amount a float (`5.0`), tokens ints.
const text = (cost: Cost = {}, updated = '2026-03-03T17:45:00Z') => `{
  "protocol_version": "1.1",
  "skill": "api",
  "project": "shop",
  "project_dir": "/home/dev/shop",
  "created_at": "2026-03-01T09:00:00Z",
  "updated_at": "${updated}",
  "phase": "build",
  "step": "sprint-2",
  "status": "in_progress",
  "progress_summary": "Orders endpoint half done; see src/orders.ts (PR 12) and docs/**/*.md",
  "next_actions": ["Finish src/orders.ts (PR 12)", "Run evaluator on src/**/*.ts"],
  "cost": {
    "currency": "${cost.currency ?? 'USD'}",
    "total_usd": ${cost.total ?? '5.0'},
    "budget_usd": 50,
    "by_phase": {
      "spec": 1.5,
      "build": ${cost.build ?? '3.5'}
    },
    "tokens": {
      "input": ${cost.input ?? '120000'}
    },
    "updated_at": "${updated}"
  }
}
`;

/** Branch `a` commits `theirs`, main commits `ours`, then main merges a through the installed driver. */
function merge(ours: string, theirs: string): { dir: string; status: number | null; out: string; file: string } {
  const dir = makeRepo();
  dirs.push(dir);
  initialized(dir);
  write(dir, FILE, text());
  commitAll(dir, 'base');
  commitSides(dir, FILE, ours, theirs, 'a');
  const r = gitTry(dir, ['merge', '--no-edit', 'a']);
  return { dir, status: r.status, out: r.stderr + r.stdout, file: read(dir, FILE) };
}

/** The diff3 block git leaves for one field: ours, base and theirs lines, each as the side wrote it. */
const block = (ours: string, base: string, theirs: string) => new RegExp(`\\n<{7} ours\\n${ours}\\n\\|{7} base\\n${base}\\n={7}\\n${theirs}\\n>{7} theirs\\n`);

describe("git merge adds two branches' spend", () => {
  it('keeps the `.0` the sides wrote: 5.0, 6.0 and 7.0 merge to 8.0; 5.0, 6.5 and 7.0 to 8.5', () => {
    const whole = merge(text({ total: '6.0', build: '4.0' }, '2026-03-04T10:00:00Z'), text({ total: '7.0', build: '4.5', input: '150000' }, '2026-03-04T11:00:00Z'));
    expect(whole.status, whole.out).toBe(0);
    expect(whole.file).toContain('\n    "total_usd": 8.0,\n');
    expect(whole.file).toContain('\n      "build": 5.0\n');
    expect(whole.file).toContain('\n      "input": 150000\n');
    const half = merge(text({ total: '6.5' }), text({ total: '7.0' }));
    expect(half.status, half.out).toBe(0);
    expect(half.file).toContain('\n    "total_usd": 8.5,\n');
    // What git committed is the driver's text.
    expect(git(half.dir, ['show', `HEAD:${FILE}`])).toBe(half.file);
  });
});

describe('git merge stops where adding the counters would mean neither side', () => {
  it('a reset on one branch (a new budget period) beside spend on the other: a conflict on total_usd only, both values kept', () => {
    // Ours started a new budget period: total back to 0; theirs spent 2 more. Both spent tokens.
    const { status, out, file } = merge(text({ total: '0.0', input: '130000' }), text({ total: '7.0', input: '125000' }));
    expect(status).not.toBe(0);
    expect(out).toContain('conflict at cost.total_usd: ours 0.0 vs theirs 7.0 (base 5.0): ours lowered it (a reset or a correction), and a decrease is not spend');
    expect(file.match(/^<{7} /gm)).toHaveLength(1);
    expect(file).toMatch(block('    "total_usd": 0.0,', '    "total_usd": 5.0,', '    "total_usd": 7.0,'));
    // Everything else merged: the tokens summed (10000 + 5000 more).
    expect(file).toContain('\n      "input": 135000\n');
    // Taking one side's block gives valid JSON.
    const theirs = file.replace(/<{7} ours\n[^]*?={7}\n([^]*?)>{7} theirs\n/, '$1');
    expect((parseJson(theirs).value as any).cost.total_usd).toBe(7);
  });

  it('a currency switched on one branch beside spend in the old one: conflicts on exactly the amounts the other branch spent', () => {
    // Ours moved the checkpoint to EUR, converting every amount; theirs spent 2.00 USD more on build.
    const ours = text({ currency: 'EUR', total: '4.6', build: '3.22' });
    const theirs = text({ total: '7.0', build: '5.5', input: '150000' });
    const { status, out, file } = merge(ours, theirs);
    expect(status).not.toBe(0);
    expect(out).toContain('conflict at cost.total_usd: ours 4.6 vs theirs 7.0 (base 5.0): amounts in different currencies (base "USD", ours "EUR", theirs "USD")');
    expect(out).toContain('cost.by_phase.build');
    expect(file.match(/^<{7} /gm)).toHaveLength(2);
    expect(file).toMatch(block('    "total_usd": 4.6,', '    "total_usd": 5.0,', '    "total_usd": 7.0,'));
    expect(file).toMatch(block('      "build": 3.22', '      "build": 3.5', '      "build": 5.5'));
    // The currency switch itself and what only one side changed merge as ever.
    expect(file).toContain('\n    "currency": "EUR",\n');
    expect(file).toContain('\n      "input": 150000\n');
  });
});
