// The output budget of `resume` and `resume --context` (--max-chars): hosts cap what a hook may
// inject, so the text fills the budget by priority, never cuts inside a field, and ends with one
// line naming what it left out. Pure fill rules by property; every tier end to end.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { fillBudget, type Block } from '../../src/cli/render/budget.js';
import { cleanup, commitAll, makeRepo, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';
import { freshCheckpoint } from '../helpers/fixtures.js';
import { fittedJson } from '../../src/cli/commands/resume.js';

const NOTE = /^… left out to fit the output budget: (.*); everything: (.*)$/;

describe('fillBudget', () => {
  const blockArb = fc.record({
    name: fc.stringMatching(/^[a-z]{1,8}$/),
    tier: fc.integer({ min: 0, max: 5 }),
    head: fc.array(fc.string({ minLength: 1, maxLength: 80 }).map((s) => s.replace(/\n/g, ' ')), { minLength: 1, maxLength: 3 }),
    items: fc.option(fc.array(fc.string({ minLength: 1, maxLength: 120 }).map((s) => `  - ${s.replace(/\n/g, ' ')}`), { maxLength: 8 }), { nil: undefined }),
  });

  it('never exceeds the budget, keeps display order and whole lines, and names every left-out block', async () => {
    fc.assert(
      fc.property(fc.uniqueArray(blockArb, { selector: (b) => b.name, maxLength: 8 }), fc.integer({ min: 200, max: 3000 }), (blocks: Block[], maxChars) => {
        const out = fillBudget(blocks, { maxChars, maxBytes: Infinity }, 'checkpoint show x');
        // Printed with its final newline, which the budget counts.
        expect(`${out}\n`.length).toBeLessThanOrEqual(maxChars);
        const lines = out === '' ? [] : out.split('\n');
        const note = NOTE.exec(lines.at(-1) ?? '');
        const body = note ? lines.slice(0, -1) : lines;
        // Every body line is a whole line of some block, in display order.
        const all = blocks.flatMap((b) => [...b.head, ...(b.items ?? [])]);
        let at = 0;
        for (const l of body) {
          const found = all.indexOf(l, at);
          expect(found).toBeGreaterThanOrEqual(0);
          at = found + 1;
        }
        // Complete output means no note; anything missing is named.
        if (body.length === all.length) expect(note).toBeNull();
        else expect(note).not.toBeNull();
      }),
      { numRuns: 300 },
    );
  });

  it('with equal-sized units, what fits is a prefix in tier order', async () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 10 }), fc.integer({ min: 0, max: 10 }), (tiers, k) => {
        const blocks: Block[] = tiers.map((tier, i) => ({ name: `b${i}`, tier, head: [`${String(i).padStart(2, '0')}${'x'.repeat(98)}`] }));
        const note = `… left out to fit the output budget: ${blocks.map((b) => b.name).join(', ')}; everything: show`;
        const out = fillBudget(blocks, { maxChars: k * 101 + note.length + 1, maxBytes: Infinity }, 'show');
        const shown = new Set(out.split('\n').filter((l) => !l.startsWith('…')).map((l) => Number(l.slice(0, 2))));
        const order = blocks.map((b, i) => [b.tier, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]).map(([, i]) => i);
        expect(shown).toEqual(new Set(order.slice(0, Math.min(k, blocks.length))));
      }),
      { numRuns: 300 },
    );
  });
});

describe('resume --context fills the budget by tier', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach(cleanup));
  const BUDGET = 2000;
  const pad = (marker: string, n: number) => `${marker} ${'·'.repeat(Math.max(0, n - marker.length - 1))}`;

  /** A checkpoint with a saved capsule; sizes say how long each tier's fields are. */
  async function run(sizes: { decision: number; blocker: number; action: number; goal: number; evidence: number; rest: number; paths: number }, budget = BUDGET) {
    const dir = makeRepo();
    dirs.push(dir);
    const doc = freshCheckpoint('api', {
      blockers: [
        { id: 'B1', description: pad('T1-DECISION Redis or Postgres for sessions?', sizes.decision), needs: 'user_decision' },
        { id: 'B2', description: pad('T1-BLOCKER CI is red on main (see #412)', sizes.blocker), needs: 'external_dep' },
      ],
      next_actions: [pad('T2-ACTION Write src/auth/session.ts (PR 12)', sizes.action), 'Ship it'],
    });
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(doc, null, 2)}\n`);
    commitAll(dir, 'checkpoint');
    const capsule = {
      goal: pad('T3-GOAL auth on sessions', sizes.goal),
      acceptance: pad('T4-ACCEPTANCE npm test green', sizes.rest),
      constraints: [pad('T4-CONSTRAINT no new deps', sizes.rest)],
      decisions: [pad('T4-DECISION cookies, not headers', sizes.rest)],
      evidence: [pad('T3-EVIDENCE-1 npm test at abc', sizes.evidence), pad('T3-EVIDENCE-2 lint clean', sizes.evidence)],
      pending: [pad('T4-PENDING docs', sizes.rest)],
      next: pad('T2-NEXT write the middleware tests', sizes.action),
    };
    expect((await runCli(dir, ['pause', 'api', '--context', JSON.stringify(capsule)])).code).toBe(0);
    for (let i = 0; i < 40; i++) write(dir, `T5-PATH-${i}-${'p'.repeat(sizes.paths)}.md`, 'x\n');
    expect((await runCli(dir, ['pause', 'api', '--auto'])).code).toBe(0);
    const r = await runCli(dir, ['resume', 'api', '--context', '--max-chars', String(budget)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.length).toBeLessThanOrEqual(budget);
    const out = r.stdout.trimEnd();
    const last = out.split('\n').at(-1)!;
    return { out, note: NOTE.exec(last)?.[1] ?? null, has: (m: string) => out.includes(m) };
  }

  it('tier 1: decisions and blockers waiting on the user come before everything else', async () => {
    const r = await run({ decision: 600, blocker: 400, action: 700, goal: 700, evidence: 300, rest: 100, paths: 10 });
    expect(r.has('T1-DECISION') && r.has('T1-BLOCKER')).toBe(true);
    expect(r.has('T3-GOAL')).toBe(false);
    // The next action is never dropped: what room is left holds the start of it, cut and named.
    expect(r.note).toMatch(/current next action \(cut to \d+ of \d+ characters\).*goal/);
    expect(r.out).toMatch(/next_actions\[0\] now: .*T2-ACTION.*… \[cut\]/);
  });

  it('tier 2: the next action next', async () => {
    const r = await run({ decision: 60, blocker: 60, action: 500, goal: 500, evidence: 300, rest: 100, paths: 10 });
    expect(['T1-DECISION', 'T1-BLOCKER', 'T2-ACTION', 'T2-NEXT'].every(r.has)).toBe(true);
    expect(r.has('T3-GOAL')).toBe(false);
    expect(r.note).toMatch(/goal/);
  });

  it("tier 3: the capsule's goal and evidence", async () => {
    const r = await run({ decision: 60, blocker: 60, action: 80, goal: 400, evidence: 300, rest: 300, paths: 10 });
    expect(['T1-DECISION', 'T2-NEXT', 'T3-GOAL', 'T3-EVIDENCE-1', 'T3-EVIDENCE-2'].every(r.has)).toBe(true);
    expect(r.has('T4-ACCEPTANCE')).toBe(false);
    expect(r.note).toMatch(/acceptance/);
  });

  it('tier 4: the rest of the capsule, whole items', async () => {
    const r = await run({ decision: 60, blocker: 60, action: 80, goal: 100, evidence: 100, rest: 120, paths: 60 });
    expect(['T3-GOAL', 'T4-ACCEPTANCE', 'T4-CONSTRAINT', 'T4-DECISION', 'T4-PENDING'].every(r.has)).toBe(true);
    expect(r.note).toMatch(/uncommitted paths/);
  });

  it('tier 5: recorded uncommitted paths last; everything fits means no omissions line', async () => {
    const r = await run({ decision: 40, blocker: 40, action: 60, goal: 60, evidence: 60, rest: 40, paths: 1 });
    expect(['T1-DECISION', 'T2-NEXT', 'T3-GOAL', 'T4-PENDING', 'T5-PATH'].every(r.has)).toBe(true);
    expect(r.note ?? '').not.toMatch(/goal|pending|decisions/);
    const all = await run({ decision: 40, blocker: 40, action: 60, goal: 60, evidence: 60, rest: 40, paths: 1 }, 20_000);
    expect(all.note).toBeNull();
    expect(all.out.match(/T5-PATH/g)).toHaveLength(40);
  });
});

describe('resume fills the budget by tier', () => {
  it('a long summary gives way to what waits on the user and the next action; it is never cut', async () => {
    const dir = makeRepo();
    try {
      const summary = `SUMMARY-START ${'Long account of the auth rewrite so far. '.repeat(25)}SUMMARY-END`.slice(0, 1000);
      const doc = freshCheckpoint('api', {
        status: 'blocked',
        progress_summary: summary,
        blockers: ['Redis or Postgres for sessions?', 'Keep the v1 tokens valid (PR 12)?', 'Ship behind a flag?'].map((d, i) => ({ id: `B${i + 1}`, description: d, needs: 'user_decision' })),
        next_actions: ['NEXT-ACTION Write src/auth/session.ts tests'],
      });
      write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(doc, null, 2)}\n`);
      commitAll(dir, 'checkpoint');
      const r = await runCli(dir, ['resume', 'api', '--max-chars', '1500']);
      expect(r.code, r.stderr).toBe(3); // blocked: ask the user
      expect(r.stdout.length).toBeLessThanOrEqual(1500);
      const out = r.stdout.trimEnd();
      expect(out).toMatch(/^RESUMING: api on .*\nLast session: .*\nStatus: blocked\n/);
      for (const m of ['⛔ B1: Redis or Postgres', '⛔ B2: Keep the v1 tokens', '⛔ B3: Ship behind a flag']) expect(out).toContain(m);
      expect(out).toMatch(/^Next: Ask the user to decide: Redis or Postgres/m); // blocked: the next action is the decision
      expect(out).not.toContain('SUMMARY-START'); // whole or not at all
      expect(NOTE.exec(out.split('\n').at(-1)!)?.[1]).toMatch(/summary/);
      // With room, the whole summary is there, on one line.
      const all = (await runCli(dir, ['resume', 'api', '--max-chars', '9000'])).stdout;
      expect(all).toContain(`Summary: ${summary}\n`);
    } finally {
      cleanup(dir);
    }
  });
});

describe('a block marked cut', () => {
  it('is cut to fit, marked and named, never left out, whatever the lengths', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 400, max: 2000 }), (summary, next, maxChars) => {
        const blocks: Block[] = [
          { name: 'header', tier: 0, head: ['RESUMING: api'] },
          { name: 'summary', tier: 3, head: [`Summary: ${'s'.repeat(summary)}`] },
          { name: 'next action', tier: 2, cut: true, head: [`Next: ${'n'.repeat(next)}`] },
        ];
        const text = fillBudget(blocks, { maxChars, maxBytes: 1e6 }, 'checkpoint show api');
        expect(`${text}\n`.length).toBeLessThanOrEqual(maxChars);
        const line = text.split('\n').find((l) => l.startsWith('Next: '));
        expect(line).toBeDefined();
        if (line !== `Next: ${'n'.repeat(next)}`) {
          expect(line).toMatch(/… \[cut\]$/);
          expect(text).toMatch(/next action \(cut to \d+ of \d+ characters\)/);
          expect(text).not.toContain('Summary:');
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('the first tier and a cut block beside many parts left out', () => {
  // A capsule's shape: a long header, the next action, and many named parts that cannot all fit.
  it('keeps the cut block (cut, never left out) and the header wherever both fit beside a short closing line', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 330 }), // a header that fits 400 characters (a larger one is refused: printBudgeted)
        fc.integer({ min: 0, max: 2000 }),
        fc.array(fc.record({ name: fc.stringMatching(/^[a-z]{10,30}$/), tier: fc.integer({ min: 1, max: 5 }), size: fc.integer({ min: 20, max: 400 }) }), { maxLength: 12 }),
        fc.integer({ min: 400, max: 1200 }),
        (header, next, parts, maxChars) => {
          const action = `next_actions[0] now: ${'n'.repeat(next)}`;
          const blocks: Block[] = [
            { name: 'header', tier: 0, header: true, head: [`RECOVERY CAPSULE: ${'h'.repeat(header)}`, ''] },
            { name: 'saved', tier: 0, head: [`saved: ${'s'.repeat(40)}`] },
            { name: 'current next action', tier: 2, cut: true, head: [action, ''] },
            ...parts.map((p, i) => ({ name: `${p.name}${i}`, tier: p.tier, head: [`${p.name}: ${'x'.repeat(p.size)}`] })),
          ];
          const showAll = 'checkpoint show api';
          const text = fillBudget(blocks, { maxChars, maxBytes: 1e6 }, showAll);
          // A useful start of the action comes before the other first-tier lines (verify s13 V5).
          const cutLine = text.split('\n').find((l) => l.startsWith('next_actions[0] now:'));
          if (text.includes('saved: ')) expect(cutLine === action || (cutLine !== undefined && cutLine.length >= Math.min(80, action.length - 1))).toBe(true);
          expect(`${text}\n`.length).toBeLessThanOrEqual(maxChars);
          const lines = text.split('\n');
          const cut = lines.find((l) => l === action || (l.endsWith('… [cut]') && action.startsWith(l.slice(0, -'… [cut]'.length))));
          const closing = `… left out to fit the output budget: ${parts.length + 2} parts; everything: ${showAll}`;
          // The header, a spacer, the action at its shortest (whole, or cut to its marker), a spacer, the counted closing line.
          const least = blocks[0]!.head[0]!.length + 1 + 1 + Math.min(action.length, '… [cut]'.length) + 1 + 1 + closing.length + 1;
          // The header comes first; wherever the action fits beside it, the action is there too.
          expect(lines[0]).toBe(blocks[0]!.head[0]);
          if (least <= maxChars) expect(cut, text).toBeDefined();
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('the budget holds for the whole output, its final newline included', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach(cleanup));
  // Prose as agents write it: accents, an emoji, a path with a note, a line break in a value.
  const PROSE = Array.from('Réglé le cache 😀 de src/orders.ts (PR 12), voir docs/**/*.md\npuis ');
  const prose = (n: number) => Array.from({ length: n }, (_, i) => PROSE[i % PROSE.length]).join('');
  const skillArb = fc.record({
    pad: fc.nat({ max: 95 }),
    status: fc.constantFrom('in_progress', 'in_progress', 'blocked', 'failed', 'complete', 'Done'),
    stale: fc.boolean(),
    summary: fc.nat({ max: 3000 }),
    next: fc.nat({ max: 3000 }),
    decisions: fc.array(fc.nat({ max: 400 }), { maxLength: 12 }),
    asks: fc.array(fc.nat({ max: 300 }), { maxLength: 3 }),
    capsule: fc.option(fc.nat({ max: 800 }), { nil: undefined }),
    broken: fc.constantFrom(false, false, false, true),
  });

  it('resume, resume <skill> and resume --context print at most --max-chars characters (and stay within --max-bytes)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(skillArb, { minLength: 1, maxLength: 4 }), fc.integer({ min: 400, max: 4000 }), async (skills, maxChars) => {
        const dir = makeRepo();
        dirs.push(dir);
        const names = skills.map((s, i) => `${['api', 'web', 'docs', 'ops'][i]}-${'x'.repeat(s.pad)}`);
        skills.forEach((s, i) => {
          const skill = names[i]!;
          const at = s.stale ? '2026-01-02T03:04:05Z' : new Date().toISOString();
          const doc = freshCheckpoint(skill, {
            status: s.status,
            created_at: at,
            updated_at: at,
            progress_summary: prose(s.summary),
            next_actions: [`${prose(s.next)} (PR 12)`, 'Ship it'],
            blockers: s.asks.map((n, k) => ({ id: `B${k + 1}`, description: prose(n), needs: 'user_decision' })),
            context_primer: { key_decisions: s.decisions.map(prose), generated_files: ['src/orders.ts (PR 12)', 'src/**/*.test.ts'] },
            ...(s.capsule === undefined ? {} : {
              capsule: {
                context: { goal: prose(s.capsule), acceptance: 'npm test green', constraints: [prose(s.capsule)], decisions: ['cookies, not headers'], evidence: [prose(s.capsule)], pending: ['docs'], next: prose(s.capsule) || 'x' },
                origin: { root: dir, head: null, saved_at: at },
                mechanical: { head: null, branch: 'main', uncommitted: ['src/orders.ts'], uncommitted_count: 1, at },
              },
            }),
          });
          write(dir, `.checkpoints/${skill}.checkpoint.json`, s.broken ? '{"skill": "' : `${JSON.stringify(doc, null, 2)}\n`);
        });
        const limit = String(maxChars);
        for (const args of [['resume'], ['resume', names[0]!], ['resume', '--context'], ['resume', '--context', names[0]!]]) {
          const r = await runCli(dir, [...args, '--max-chars', limit]);
          expect([0, 2, 3], r.stderr).toContain(r.code);
          expect(r.stdout.length, `${args.join(' ')}: ${r.stdout}`).toBeLessThanOrEqual(maxChars);
          expect(Buffer.byteLength(r.stdout)).toBeLessThanOrEqual(16 * 1024);
          if (r.code !== 2) expect(r.stdout.endsWith('\n')).toBe(true);
        }
      }),
      { numRuns: 25 },
    );
  });
});

describe('when resume asks the user, the question and its list fit the budget too', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach(cleanup));
  const long = (i: number) => `skill-${i}-${'x'.repeat(90)}`;

  it('eight blocked skills with long names: the question, as many as fit, and a line naming the rest', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    for (let i = 1; i <= 8; i++) write(dir, `.checkpoints/${long(i)}.checkpoint.json`, `${JSON.stringify(freshCheckpoint(long(i), { status: 'blocked', next_actions: ['Ask about src/auth.ts (PR 12)'] }), null, 2)}\n`);
    // 500, not 400: the question names a real skill to resume (here of 97 characters), no template.
    for (const maxChars of [500, 700]) {
      const r = await runCli(dir, ['resume', '--max-chars', String(maxChars)]);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stdout.length).toBeLessThanOrEqual(maxChars);
      expect(r.stdout).toMatch(/^Several checkpoints need a decision/);
      // A real skill to resume, never a template pasted as printed (red team 64 r4).
      expect(r.stdout).toMatch(/^ASK THE USER which to resume, then resume it \(e\.g\. `checkpoint resume skill-\d-x{90}`\)\.$/m);
      expect(r.stdout).toMatch(/  skill-\d-x+ +blocked /);
      expect(NOTE.exec(r.stdout.trimEnd().split('\n').at(-1)!)?.slice(1)).toEqual([expect.stringMatching(/^candidates \(\d of 8\)$/), 'checkpoint status']);
    }
    // With room, all eight and no note.
    const all = await runCli(dir, ['resume']);
    expect(all.stdout.match(/^ {2}skill-/gm)).toHaveLength(8);
    expect(all.stdout).not.toContain('left out');
  });

  it('checkpoints that cannot be read (resume and resume --context): the question stays, the repair lines give way', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    for (let i = 1; i <= 10; i++) write(dir, `.checkpoints/${long(i)}.checkpoint.json`, '{"skill": "half-written\n');
    for (const args of [['resume'], ['resume', '--context']]) {
      for (const maxChars of [400, 1200]) {
        const r = await runCli(dir, [...args, '--max-chars', String(maxChars)]);
        // --context asks in its text and exits 0: the compaction hooks run it unwrapped.
        expect(r.code, r.stderr).toBe(args.includes('--context') ? 0 : 3);
        expect(r.stdout.length).toBeLessThanOrEqual(maxChars);
        expect(r.stdout).toMatch(/^ASK THE USER before starting work: repair them with the command on each line/m);
        expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(/^… left out to fit the output budget: checkpoints needing repair( \(\d+ of 10\))?; everything: checkpoint (status|validate)$/);
      }
    }
  });
});

describe('resume --json within --max-bytes (red team, 12-04)', () => {
  it('whole when it fits; else its least-needed parts are left out and named, a refusal (exit 2) when not even the next action fits', async () => {
    // makeRepo's folder goes after this file (test/helpers/cleanup.ts).
    const dir = makeRepo();
    const summary = 'é'.repeat(15_000); // 30,000 bytes: over the 16 KiB default on its own
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(freshCheckpoint('api', { progress_summary: summary, next_actions: ['Write the auth middleware', 'Then the tests'], context_primer: { key_decisions: ['Use JWT'], generated_files: [] } }), null, 2)}\n`);
    const whole = await runCli(dir, ['resume', 'api', '--json', '--max-bytes', '100000']);
    expect(JSON.parse(whole.stdout)).toMatchObject({ progress_summary: summary, next_actions: ['Write the auth middleware', 'Then the tests'] });
    expect(JSON.parse(whole.stdout).left_out).toBeUndefined();
    for (const args of [[], ['--max-bytes', '1000'], ['--max-bytes', '700']]) {
      const r = await runCli(dir, ['resume', 'api', '--json', ...args]);
      expect(r.code, args.join(' ')).toBe(0);
      expect(Buffer.byteLength(r.stdout)).toBeLessThanOrEqual(Number(args[1] ?? 16 * 1024));
      const doc = JSON.parse(r.stdout);
      // The summary alone makes room: the rest is given back.
      expect(doc, args.join(' ')).toMatchObject({ progress_summary: null, left_out: ['progress_summary'], everything: 'checkpoint show api', next: { text: 'Write the auth middleware' }, key_decisions: ['Use JWT'] });
    }
    const tight = await runCli(dir, ['resume', 'api', '--json', '--max-bytes', '500']);
    expect(tight.code).toBe(2);
    expect(JSON.parse(tight.stdout).error.message).toMatch(/^--max-bytes 500 cannot hold the --json briefing at its smallest, the next action and the decisions waiting on the user kept \(\d+ bytes with its newline\)$/);
  });

  /** The budget a --json refusal names in its hint. */
  const named = (stdout: string): number => Number(/raise --max-bytes to (\d+) or more/.exec(JSON.parse(stdout).error.hint)![1]);

  it('the budget a refusal names is the least that works: it holds the answer, one byte less is refused (red team 62e 6)', async () => {
    const dir = makeRepo();
    // Hand-written: a short summary and an empty files list cost less than their names in left_out.
    write(
      dir,
      '.checkpoints/api.checkpoint.json',
      `${JSON.stringify(freshCheckpoint('api', { progress_summary: 'x'.repeat(300), next_actions: ['Run the unit tests'], context_primer: { key_decisions: ['Use JWT (see notes/auth.md)'], generated_files: [] }, eval_scores: [{ rubric: 'audit', score: 8.0, max: 10, at: '2026-06-01T00:00:00Z' }] }), null, 2)}\n`,
    );
    const refused = await runCli(dir, ['resume', '--json', '--max-bytes', '100']);
    expect(refused.code).toBe(2);
    const least = named(refused.stdout);
    const at = await runCli(dir, ['resume', '--json', '--max-bytes', String(least)]);
    expect(at.code, at.stdout).toBe(0);
    // At the least budget the answer is its smallest form, so it fills it exactly (no smaller budget could hold it).
    expect(Buffer.byteLength(at.stdout)).toBe(least);
    const under = await runCli(dir, ['resume', '--json', '--max-bytes', String(least - 1)]);
    expect(under.code).toBe(2);
    expect(named(under.stdout)).toBe(least);
  });

  it('fittedJson: for any briefing, every budget at or over the one it names holds an answer within it, and every budget under it is refused', () => {
    const text = fc.string({ maxLength: 40, unit: fc.constantFrom('a', 'b', ' ', 'é', '\u2028', '🧭') });
    const list = fc.array(text, { maxLength: 4 });
    const briefing = fc.record(
      {
        ok: fc.constant(true),
        skill: fc.constant('api'),
        progress_summary: fc.option(fc.string({ maxLength: 400 }), { nil: null }),
        next: fc.record({ text }),
        next_actions: fc.array(text, { minLength: 1, maxLength: 5 }),
        key_decisions: list,
        files: list,
        files_gone: list,
        others_in_progress: list,
        user_decisions: list,
        candidates: list,
      },
      { requiredKeys: ['ok', 'skill', 'next'] },
    );
    fc.assert(
      fc.property(briefing, fc.integer({ min: -60, max: 60 }), (data, offset) => {
        let least = 0;
        try {
          fittedJson(data, 1, 'api');
        } catch (e) {
          least = Number(/raise --max-bytes to (\d+) or more/.exec((e as { hint: string }).hint)![1]);
        }
        const budget = least + offset;
        if (budget < least) {
          expect(() => fittedJson(data, budget, 'api')).toThrow(/cannot hold/);
          return;
        }
        const out = fittedJson(data, budget, 'api');
        expect(Buffer.byteLength(out) + 1).toBeLessThanOrEqual(budget);
        if (budget === least) expect(Buffer.byteLength(out) + 1).toBe(least);
      }),
      { numRuns: 400 },
    );
  });
});
