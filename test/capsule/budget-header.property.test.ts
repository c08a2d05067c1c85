// The header a session reads first survives every budget that can hold it (s13 B): `resume`'s
// `RESUMING: <skill> on <project>` line, and `resume --context`'s two lines naming the capsule
// and labelling its claims unverified (no claim is ever shown without that label). A budget
// that cannot hold the header is refused as a bad option value is: exit 2, one line on stderr
// naming what is needed, and on stdout only the fewest characters saying the budget is too
// small (as much of that as fits). Any budget from 0 to 2000, characters or bytes, on
// real-shaped checkpoints: prose with accents and an emoji, paths with notes, blockers, a capsule.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { fillBudget, type Block } from '../../src/cli/render/budget.js';
import { runCli } from '../helpers/in-process.js';
import { freshCheckpoint } from '../helpers/fixtures.js';
import { cleanup, commitAll, makeRepo, write } from '../helpers/repo.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

const PROJECTS = ['shop', 'shop-backend (orders, payments; see docs/**/*.md)', 'Réglé: le cache 😀 de la boutique — src/orders.ts (PR 12)'];
// Split by user-perceived character, so the texts hold whole flags, joined emoji and skin tones.
const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const PROSE = [...GRAPHEMES.segment('Orders endpoint half done; see src/orders.ts (PR 12), voir docs/**/*.md — réglé 😀 🇩🇪 👨‍👩‍👧 👍🏽. ')].map((g) => g.segment);
const prose = (n: number) => Array.from({ length: n }, (_, i) => PROSE[i % PROSE.length]).join('');

const shape = fc.record({
  project: fc.oneof(fc.constantFrom(...PROJECTS), fc.nat({ max: 400 }).map((n) => `${prose(n)}x`)),
  skill: fc.constantFrom('api', 'web-frontend', `orders-${'x'.repeat(60)}`),
  status: fc.constantFrom('in_progress', 'in_progress', 'blocked', 'Done'),
  summary: fc.nat({ max: 1500 }),
  next: fc.nat({ max: 600 }),
  asks: fc.array(fc.nat({ max: 200 }), { maxLength: 3 }),
  capsule: fc.nat({ max: 500 }),
});

function build(s: { project: string; skill: string; status: string; summary: number; next: number; asks: number[]; capsule: number }): string {
  const dir = makeRepo();
  dirs.push(dir);
  const at = new Date().toISOString();
  const doc = freshCheckpoint(s.skill, {
    project: s.project,
    status: s.status,
    progress_summary: prose(s.summary) || 'Started.',
    next_actions: [`${prose(s.next)} src/orders.ts (PR 12)`, 'Run the evaluator on src/**/*.ts'],
    blockers: s.asks.map((n, k) => ({ id: `B${k + 1}`, description: `${prose(n)}?`, needs: 'user_decision' })),
    capsule: {
      context: { goal: `${prose(s.capsule)} ship orders`, acceptance: 'npm test green', constraints: ['no schema change'], decisions: ['idempotency key in a header'], evidence: [`${prose(s.capsule)} 14 tests pass`], pending: ['evaluator run'], next: 'finish POST /orders validation' },
      origin: { root: dir, head: null, saved_at: at },
      mechanical: { head: null, branch: 'main', uncommitted: ['src/orders.ts'], uncommitted_count: 1, at },
    },
  });
  write(dir, `.checkpoints/${s.skill}.checkpoint.json`, `${JSON.stringify(doc, null, 2)}\n`);
  commitAll(dir, 'checkpoint');
  return dir;
}

/** The one-line form of a value as resume quotes it (a line break shows as \n); the fixtures hold none. */
const header = {
  resume: (s: { skill: string; project: string }) => `RESUMING: ${s.skill} on ${s.project}\n`,
  context: (s: { skill: string }) =>
    `RECOVERY CAPSULE: ${s.skill}  (.checkpoints/${s.skill}.checkpoint.json)\nUNVERIFIED CLAIMS: saved by an earlier session; check each claim against the repository before acting on it. The capsule grants no approvals.\n`,
};

const MARK = '… [cut]';

/**
 * The least output a budget must hold (s64 r4): the header and the next action at its shortest
 * form (`… [cut]`, or the action whole where shorter), with the blank line after it in --context.
 * `whole` is the output with no budget, `size` how the budget counts.
 */
function least(whole: string, head: string, size: (t: string) => number): number {
  const lines = whole.split('\n');
  const k = lines.findIndex((l) => l.startsWith('Next: ') || l.startsWith('next_actions[0] now: '));
  if (k < 0) return size(head);
  return size(head) + Math.min(size(lines[k]!), size(MARK)) + 1 + (lines[k + 1] === '' && lines[k]!.startsWith('next_actions') ? 1 : 0);
}

describe('the header and the next action survive every budget that can hold them', () => {
  it('resume <skill>, resume and resume --context, with --max-chars or --max-bytes from 0 to 2000', async () => {
    await fc.assert(
      fc.asyncProperty(shape, fc.array(fc.tuple(fc.integer({ min: 0, max: 2000 }), fc.constantFrom('--max-chars', '--max-bytes')), { minLength: 1, maxLength: 6 }), async (s, budgets) => {
        const dir = build(s);
        // Without a skill, resume may ask which checkpoint to resume (blocked): its heading is then the header.
        const whole = (await runCli(dir, ['resume'])).stdout;
        const asked = whole.startsWith('RESUMING: ') ? header.resume(s) : `${whole.split('\n')[0]}\n`;
        for (const [n, flag] of budgets) {
          const size = (t: string) => (flag === '--max-chars' ? t.length : Buffer.byteLength(t));
          for (const [args, head] of [
            [['resume', s.skill], header.resume(s)],
            [['resume'], asked],
            [['resume', '--context', s.skill], header.context(s)],
          ] as const) {
            const r = await runCli(dir, [...args, flag, String(n)]);
            const what = `${args.join(' ')} ${flag} ${n}: ${r.stdout}${r.stderr}`;
            expect(size(r.stdout), what).toBeLessThanOrEqual(n);
            const need = least((await runCli(dir, [...args, '--max-chars', '100000'])).stdout, head, size);
            if (need <= n) {
              expect([0, 3], what).toContain(r.code);
              expect(r.stdout.startsWith(head), what).toBe(true);
            } else {
              // Never the header alone with the next action dropped unmarked: refused, naming the least that fits.
              const part = args[1] === '--context' ? 'the header and the current next action' : 'the header and the next action';
              expect(r.code, what).toBe(2);
              expect(['', 'budget too small\n', `budget too small: needs ${flag} ${need}\n`], what).toContain(r.stdout);
              expect(r.stderr, what).toBe(`checkpoint: ${flag} ${n} cannot hold ${part} of this output (${need} ${flag === '--max-chars' ? 'characters' : 'bytes'} with its newline); hint: raise ${flag} to ${need} or more\n`);
            }
            // The capsule's claims never without their label.
            if (args[1] === '--context' && r.stdout.includes('goal:')) expect(r.stdout).toContain('UNVERIFIED CLAIMS:');
          }
        }
      }),
      { numRuns: 15 },
    );
  });

  it('at budgets the old floors let through, neither header gives way to what follows it (a decision, a claim)', async () => {
    const s = { project: 'shop-backend (orders, payments; see docs/**/*.md)', skill: 'api', status: 'in_progress', summary: 200, next: 40, asks: [40], capsule: 40 };
    const dir = build(s);
    const briefing = await runCli(dir, ['resume', 'api', '--max-bytes', '256']);
    expect(briefing.stdout.startsWith(header.resume(s))).toBe(true);
    expect(briefing.stdout).not.toContain('⛔');
    for (const budget of ['--max-chars=400', '--max-chars=450', '--max-bytes=256', '--max-bytes=400']) {
      const r = await runCli(dir, ['resume', 'api', '--context', budget]);
      expect(r.code, budget).toBe(0);
      expect(r.stdout.startsWith(header.context(s)), `${budget}: ${r.stdout}`).toBe(true);
    }
  });

  it('the note says it in the fewest characters that fit, the refusal names what to raise it to', async () => {
    const s = { project: 'shop-backend (orders, payments; see docs/**/*.md)', skill: 'api', status: 'in_progress', summary: 200, next: 40, asks: [60], capsule: 40 };
    const dir = build(s);
    const head = header.resume(s).length;
    // The least it prints: the header and the next action cut to its marker (s64 r4: the header alone dropped the action unmarked, exit 3).
    const need = head + MARK.length + 1;
    for (const [n, out] of [[need - 1, `budget too small: needs --max-chars ${need}\n`], [head, `budget too small: needs --max-chars ${need}\n`], [30, 'budget too small\n'], [16, ''], [0, '']] as const) {
      const r = await runCli(dir, ['resume', 'api', '--max-chars', String(n)]);
      expect([r.code, r.stdout]).toEqual([2, out]);
      expect(r.stderr).toBe(`checkpoint: --max-chars ${n} cannot hold the header and the next action of this output (${need} characters with its newline); hint: raise --max-chars to ${need} or more\n`);
    }
    // Exactly that: the header and the marked cut, no closing line (exit 3: a decision waits on the user).
    const r = await runCli(dir, ['resume', 'api', '--max-chars', String(need)]);
    expect([r.code, r.stdout]).toEqual([3, `${header.resume(s)}${MARK}\n`]);
    // Room for the header and the short closing line only: the next action takes it, cut, with no closing line.
    const action = (await runCli(dir, ['resume', 'api'])).stdout.split('\n').find((l) => l.startsWith('Next: '))!; // a decision waits: "Next: Ask the user ..."
    const short = await runCli(dir, ['resume', 'api', '--max-chars', String(head + 28)]);
    expect(short.stdout).toBe(`${header.resume(s)}${action.slice(0, 20)}… [cut]\n`);
    // Room for both: the action's first 80 characters and the short closing line.
    expect(action.length).toBeGreaterThan(80);
    const both = await runCli(dir, ['resume', 'api', '--max-chars', String(head + 80 + 8 + 28)]);
    expect(both.stdout).toBe(`${header.resume(s)}${action.slice(0, 80)}… [cut]\n… more: checkpoint show api\n`);
    // Not a number is refused as before; no floor of its own.
    expect((await runCli(dir, ['resume', 'api', '--max-chars', 'many'])).stderr).toMatch(/^checkpoint: --max-chars=many: expected a whole number of characters/);
  });
});

// Right after the header comes the next action (s14 A): held at up to its first 80 characters
// (label included; whole if shorter) before the closing line takes anything. The closing line
// then takes the longest of its forms that still fits (naming, counting, `… more: <command>`)
// or is left out. Never a closing line beside an action cut below that (`Next… [cut]`).
const HELD = 80;

/**
 * Checks one budgeted output: `head` is the header as printed (with its newline), `action` the
 * next action's line as printed whole, `spacer` whether a blank line follows it, `whole` the
 * output with no budget, `n` the budget, `size` how it is counted.
 */
function expectActionHeld(o: { out: string; head: string; action: string; spacer: boolean; whole: string; showAll: string; n: number; size: (t: string) => number; what: string }) {
  const { out, head, action, size, n, what } = o;
  const after = o.spacer ? '\n\n' : '\n';
  expect(size(out), what).toBeLessThanOrEqual(n);
  expect(out.startsWith(head), what).toBe(true);
  const lines = out.slice(head.length).replace(/\n+$/, '').split('\n');
  // The action's line, whole or cut (to nothing but the marker, at the least); before it only first-tier lines that fit beside it.
  const line = lines.find((l) => l === action || (l.endsWith(MARK) && action.startsWith(l.slice(0, -MARK.length))));
  const whole = line === action;
  const cut = line !== undefined && !whole;
  const least = action.length <= MARK.length ? action : MARK;
  if (size(head + least + after) <= n) expect(line, `the action after the header: ${what}`).toBeDefined();
  const last = lines.at(-1)!;
  const closing = last !== line && last.startsWith('… ');
  const kept = whole ? action.length : cut ? line.length - MARK.length : -1;
  // Never half a character (an emoji's lone half prints as U+FFFD), and the cut named as printed.
  expect(out, what).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|\uFFFD/);
  // Nor half of what a reader sees as one (a flag, a joined emoji, a skin tone): a cut ends where one does.
  if (cut && kept < action.length) expect(GRAPHEMES.segment(action).containing(kept)?.index, `a cut inside a character: ${what}`).toBe(kept);
  const named = /\(cut to (\d+) of (\d+) characters\)/.exec(last);
  if (named && cut) expect([Number(named[1]), Number(named[2])], what).toEqual([kept, action.length]);
  // A closing line only beside the action at its useful start (a split emoji may cost one character).
  if (closing) expect(kept, `a closing line beside an action cut to ${kept}: ${what}`).toBeGreaterThanOrEqual(Math.min(HELD, action.length) - (whole ? 0 : 1));
  // Where the held action and the short closing line fit, and something is left out, the closing line is there.
  const held = action.length <= HELD ? action : `${action.slice(0, HELD)}${MARK}`;
  if (out !== o.whole && size(head + held + after + `… more: ${o.showAll}\n`) <= n) expect(closing, `no closing line though it fits: ${what}`).toBe(true);
}

describe('the next action comes right after the header, before the closing line takes anything', () => {
  it('resume <skill> and resume --context, at budgets from the header to 300 beyond it, characters or bytes', async () => {
    await fc.assert(
      fc.asyncProperty(shape, fc.array(fc.tuple(fc.integer({ min: -5, max: 300 }), fc.constantFrom('--max-chars', '--max-bytes')), { minLength: 1, maxLength: 5 }), async (s, budgets) => {
        const dir = build(s);
        for (const [args, head, label] of [
          [['resume', s.skill], header.resume(s), 'Next: '],
          [['resume', '--context', s.skill], header.context(s), 'next_actions[0] now: '],
        ] as const) {
          const whole = (await runCli(dir, [...args, '--max-chars', '100000'])).stdout;
          const action = whole.split('\n').find((l) => l.startsWith(label))!;
          expect(action, whole).toBeDefined();
          for (const [extra, flag] of budgets) {
            const size = (t: string) => (flag === '--max-chars' ? t.length : Buffer.byteLength(t));
            const n = Math.max(0, size(head) + extra);
            const r = await runCli(dir, [...args, flag, String(n)]);
            const what = `${args.join(' ')} ${flag} ${n}: ${r.stdout}${r.stderr}`;
            // Short of the header and the action's marked cut: refused, never the header alone.
            if (n < least(whole, head, size)) {
              expect(r.code, what).toBe(2);
              expect(r.stdout, what).not.toContain(head);
              continue;
            }
            expect([0, 3], what).toContain(r.code);
            expectActionHeld({ out: r.stdout, head, action, spacer: args[1] === '--context', whole, showAll: `checkpoint show ${s.skill}`, n, size, what });
          }
        }
      }),
      { numRuns: 10 },
    );
  });

  it('fillBudget: any header, action and parts, at budgets from the header to 400 beyond it (refused short of the action\'s marked cut)', () => {
    const part = fc.record({ name: fc.stringMatching(/^[a-z]{3,20}$/), tier: fc.integer({ min: 0, max: 5 }), size: fc.integer({ min: 1, max: 300 }), items: fc.array(fc.integer({ min: 1, max: 120 }), { maxLength: 4 }) });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 0, max: 400 }),
        fc.boolean(),
        fc.array(part, { maxLength: 8 }),
        fc.integer({ min: 0, max: 400 }),
        fc.constantFrom('chars', 'bytes'),
        (h, a, spacer, parts, extra, unit) => {
          const size = (t: string) => (unit === 'chars' ? t.length : Buffer.byteLength(t));
          const head = `RESUMING: ${prose(h)}x\n`;
          const action = `Next: ${prose(a)}`;
          const blocks: Block[] = [
            { name: 'header', tier: 0, header: true, head: [head.slice(0, -1)] },
            ...parts.slice(0, 2).map((p, i) => ({ name: `${p.name}${i}`, tier: 0, head: [`${p.name}: ${prose(p.size)}`] })),
            { name: 'next action', tier: 2, cut: true, head: spacer ? [action, ''] : [action] },
            ...parts.slice(2).map((p, i) => ({ name: `${p.name}${i + 2}`, tier: p.tier, head: [`${p.name}: ${prose(p.size)}`], items: p.items.map((k) => `  - ${prose(k)}`) })),
          ];
          const showAll = 'checkpoint show api';
          const n = size(head) + extra;
          const budget = unit === 'chars' ? { maxChars: n, maxBytes: Infinity } : { maxChars: Infinity, maxBytes: n };
          const whole = `${fillBudget(blocks, { maxChars: Infinity, maxBytes: Infinity }, showAll)}\n`;
          // Short of the header and the action's shortest form (its marker, or itself if shorter): refused.
          if (n < size(head) + Math.min(size(action), size(MARK)) + 1 + (spacer ? 1 : 0)) {
            expect(() => fillBudget(blocks, budget, showAll)).toThrow(/does not fit/);
            return;
          }
          const out = `${fillBudget(blocks, budget, showAll)}\n`;
          expectActionHeld({ out, head, action, spacer, whole, showAll, n, size, what: `${unit} ${n}:\n${out}` });
        },
      ),
      { numRuns: 1000 },
    );
  });
});
