// The output budget keeps priority order strictly (red team 53, rtB/04): a higher-priority line
// is never left out (nor cut) while a lower-priority one is kept, so a long question for the user
// does not lose to short key decisions. Where the question does not fit whole, it is cut only at
// one of its breaks (a start that still asks), marked `… [cut]`, never to a start that could read
// as another instruction. Any budget, any mix of tiers, prose with accents and emoji.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { fillBudget, type Block } from '../../src/cli/render/budget.js';
import { runCli } from '../helpers/in-process.js';
import { cleanup, commitAll, makeRepo, write } from '../helpers/repo.js';

const MARK = '… [cut]';
const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const PROSE = [...GRAPHEMES.segment('Réglé le cache 😀 de src/orders.ts (PR 12), voir docs/**/*.md — status "Done" 8.0 🇩🇪 ')].map((g) => g.segment);
const prose = (n: number) => Array.from({ length: n }, (_, i) => PROSE[i % PROSE.length]).join('');

const part = fc.record({
  tier: fc.integer({ min: 0, max: 5 }),
  spaced: fc.boolean(),
  lines: fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 2 }),
  items: fc.array(fc.integer({ min: 0, max: 150 }), { maxLength: 5 }),
});
const question = fc.record({ tier: fc.integer({ min: 0, max: 5 }), at: fc.nat(), reason: fc.integer({ min: 0, max: 120 }) });

/** A question as resume asks it, its breaks after "ASK THE USER" and after its reason. */
function ask(reason: number): { line: string; breaks: number[] } {
  const asked = `ASK THE USER: this checkpoint is ${prose(reason)}.`;
  return { line: `${asked} Continue from here, restart (checkpoint reset api), or show the full checkpoint (checkpoint show api)?`, breaks: ['ASK THE USER'.length, asked.length] };
}

describe('fillBudget keeps priority order strictly', () => {
  it('for every budget: within it, and what is kept is a prefix of the priority order (the last kept part alone may be cut, at a break)', () => {
    fc.assert(
      fc.property(
        fc.array(part, { maxLength: 8 }),
        fc.option(question, { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
        fc.integer({ min: 0, max: 2500 }),
        fc.constantFrom('chars', 'bytes'),
        (parts, q, next, n, unit) => {
          const blocks: Block[] = [{ name: 'header', tier: 0, header: true, head: ['RESUMING: api on shop (PR 12)'] }];
          // Every line is unique (its block and place first), so the output says which it is.
          parts.forEach((p, i) => {
            blocks.push({
              name: `part${i}`,
              tier: p.tier,
              head: [...(p.spaced ? [''] : []), ...p.lines.map((l, k) => `P${i}.${k}: ${prose(l)}`)],
              ...(p.items.length ? { items: p.items.map((l, j) => `  - P${i}-${j} ${prose(l)}`) } : {}),
            });
          });
          let questionAt = -1;
          if (q) {
            const { line, breaks } = ask(q.reason);
            questionAt = 1 + (q.at % blocks.length);
            blocks.splice(questionAt, 0, { name: 'question for the user', tier: q.tier, breaks, head: ['', line] });
          }
          if (next !== undefined) blocks.push({ name: 'next action', tier: 2, cut: true, head: [`Next: ${prose(next)}`] });
          const budget = unit === 'chars' ? { maxChars: n, maxBytes: Infinity } : { maxChars: Infinity, maxBytes: n };
          const size = (t: string) => (unit === 'chars' ? t.length : Buffer.byteLength(t));
          let out: string;
          try {
            out = fillBudget(blocks, budget, 'checkpoint show api');
          } catch {
            // Refused only when the header and the next action's shortest form (`… [cut]`, or the action whole if shorter) do not fit.
            const action = next === undefined ? 0 : Math.min(size(`Next: ${prose(next)}`), size(MARK)) + 1;
            expect(size(`${blocks[0]!.head[0]}\n`) + action).toBeGreaterThan(n);
            return;
          }
          expect(size(`${out}\n`), out).toBeLessThanOrEqual(n);
          const lines = out.split('\n');

          // How much of each block is shown: its first non-blank line whole, cut, or missing; its items shown.
          const seen = blocks.map((b) => {
            const first = b.head.find((l) => l !== '')!;
            // A cut line keeps a start of its block's line: an empty start ("… [cut]", the next action
            // cut to nothing) is the next action's, no other block's.
            const cut = lines.find((l) => l.endsWith(MARK) && (l.length > MARK.length || b.cut === true) && first.startsWith(l.slice(0, -MARK.length)) && l !== first);
            const whole = lines.includes(first) && b.head.every((l) => l === '' || lines.includes(l));
            const items = (b.items ?? []).filter((l) => lines.includes(l)).length;
            return { whole, cut: cut === undefined ? null : cut.length - MARK.length, items };
          });
          // A question is cut only at one of its breaks.
          if (questionAt >= 0 && seen[questionAt]!.cut !== null) expect(blocks[questionAt]!.breaks, out).toContain(seen[questionAt]!.cut);
          // Every other block is whole or missing (the next action aside, which is cut anywhere).
          blocks.forEach((b, i) => {
            if (!b.cut && !b.breaks) expect(seen[i]!.cut, `${b.name} cut:\n${out}`).toBeNull();
          });

          // The priority order: tier, then display order; the header and the next action (held
          // right after the header, never left out) stand outside it. Each block's line, then its items.
          const order = blocks
            .map((b, i) => [b.tier, i] as const)
            .filter(([, i]) => !blocks[i]!.header && !blocks[i]!.cut)
            .sort((a, b) => a[0] - b[0] || a[1] - b[1])
            .map(([, i]) => i);
          const units = order.flatMap((i) => [
            { what: `${blocks[i]!.name}'s line`, kept: seen[i]!.whole || seen[i]!.cut !== null, whole: seen[i]!.whole },
            ...(blocks[i]!.items ?? []).map((_, j) => ({ what: `${blocks[i]!.name}'s item ${j}`, kept: j < seen[i]!.items, whole: j < seen[i]!.items })),
          ]);
          const lastKept = units.map((u) => u.kept).lastIndexOf(true);
          for (const [k, u] of units.entries()) {
            if (k < lastKept) expect(u.whole, `${u.what} not whole, yet a lower part is kept:\n${out}`).toBe(true);
          }
        },
      ),
      // The next action cut to nothing beside a whole header (a random run found it): its cut, not the header's.
      { numRuns: 2000, examples: [[[], undefined, 3, 40, 'bytes']] },
    );
  });
});

describe('resume under --max-chars asks the user first', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach(cleanup));

  it('a stale checkpoint: the question stays (whole or cut after its reason), key decisions and progress give way first (rtB/04)', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    // As a long-running agent left it: an old save, a status written by hand, paths with notes.
    const doc = {
      protocol_version: '1.1',
      skill: 'api',
      project: 'demo',
      project_dir: '.',
      created_at: '2026-01-02T10:00:00Z',
      updated_at: '2026-01-20T10:00:00Z',
      phase: 'b',
      step: 's',
      status: 'in_progress',
      progress_summary: 'Schema ready, backup taken.',
      progress_table: [{ id: 'p', label: 'P (see src/db/*.sql)', status: 'in_progress' }],
      context_primer: { key_decisions: ['k1 short', 'k2'], generated_files: ['src/x.ts (PR 12)'] },
      next_actions: ['Run the full migration against the production database'],
    };
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(doc)}\n`);
    commitAll(dir, 'checkpoint');
    const whole = (await runCli(dir, ['resume'])).stdout;
    const question = whole.split('\n').find((l) => l.startsWith('ASK THE USER: '))!;
    expect(question).toMatch(/^ASK THE USER: this checkpoint is stale\. Continue from here/);
    for (const n of [460, 480, 500]) {
      const r = await runCli(dir, ['resume', '--max-chars', String(n)]);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stdout.length).toBeLessThanOrEqual(n);
      const lines = r.stdout.split('\n');
      expect(lines.some((l) => l === question || l === `ASK THE USER: this checkpoint is stale.${MARK}`), `${n}:\n${r.stdout}`).toBe(true);
      expect(r.stdout).not.toContain('Key decisions');
      expect(r.stdout).not.toMatch(/^Progress: /m);
      expect(r.stdout).toContain('Next: Run the full migration against the production database\n');
    }
  });

  it('a long repair note (hand-written slips) gives way to the question, which is whole where it fits (red team rt60c 08)', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    const doc = {
      protocol_version: '1.1', skill: 'api', project: 'api', project_dir: '/x', created_at: '2026-10-01', updated_at: '2026-01-20T10:00:00Z',
      phase: 3, step: 4, status: 'In Progress', progress_summary: 'x',
      progress_table: [{ label: 'Plan', status: 'Done' }, { label: 'Build', status: 'In Progress' }],
      blockers: [{ description: 'Waiting on DBA sign-off for the schema change', needs: 'external_dep' }],
      next_actions: ['Write the migration', 'Run tests'],
    };
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(doc)}\n`);
    commitAll(dir, 'checkpoint');
    const r = await runCli(dir, ['resume', 'api', '--max-chars', '600']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout.length).toBeLessThanOrEqual(600);
    expect(r.stdout).toMatch(/^ASK THE USER: this checkpoint is stale\. Continue from here, .*\?$/m);
    expect(r.stdout).toMatch(/^… left out to fit the output budget: .*repair note/m);
  });
});
