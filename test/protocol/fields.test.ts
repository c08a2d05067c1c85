import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileExtraLogs, patternMatches, policyConfigProblem, policyFor } from '../../src/protocol/fields.js';

/** Reference matcher: plain backtracking (exponential, fine for tiny inputs). */
function reference(pattern: string[], path: string[]): boolean {
  if (pattern.length === 0) return path.length === 0;
  const [seg, ...rest] = pattern;
  if (seg === '**') return Array.from({ length: path.length + 1 }, (_, k) => k).some((k) => reference(rest, path.slice(k)));
  return path.length > 0 && (seg === '*' || seg === path[0]) && reference(rest, path.slice(1));
}

describe('config patterns', () => {
  it('match like backtracking would, for any pattern and path', () => {
    const seg = fc.constantFrom('a', 'b', 'c');
    fc.assert(
      fc.property(fc.array(fc.oneof(seg, fc.constantFrom('*', '**')), { maxLength: 6 }), fc.array(seg, { maxLength: 7 }), (pattern, path) => {
        expect(patternMatches(pattern, path)).toBe(reference(pattern, path));
      }),
      { numRuns: 3000 },
    );
  });

  it('take work linear in pattern x path, however many ** a pattern holds', () => {
    const pattern = [...Array.from({ length: 40 }, () => '**'), 'never'];
    const path = Array.from({ length: 200 }, (_, i) => `k${i}`);
    const steps = { count: 0 };
    expect(patternMatches(pattern, path, steps)).toBe(false);
    // Backtracking would take on the order of C(240, 40) steps; this is at most pattern x path.
    expect(steps.count).toBeLessThanOrEqual(pattern.length * path.length);
    expect(policyFor(path, compileExtraLogs({ telemetry: [pattern.join('.')] }))).toEqual({ kind: 'value' });
  });

  it('put skill_state last_run and streak under the snapshot policy, project telemetry too', () => {
    expect(policyFor(['skill_state', 'last_run'])).toEqual({ kind: 'snapshot' });
    expect(policyFor(['skill_state', 'lint', 'last_run'])).toEqual({ kind: 'snapshot' });
    expect(policyFor(['skill_state', 'streak'])).toEqual({ kind: 'snapshot' });
    expect(policyFor(['last_run'])).toEqual({ kind: 'value' });
    expect(policyFor(['skill_state', 'coverage'], compileExtraLogs({ telemetry: ['skill_state.*'] }))).toEqual({ kind: 'snapshot' });
  });

  it('report a bad list or pattern naming the key', () => {
    expect(policyConfigProblem({ logs: ['skill_state.audits'], telemetry: ['skill_state.**.coverage'] })).toBeUndefined();
    expect(policyConfigProblem({ telemetry: 'skill_state.x' })).toMatch(/^"telemetry" must be an array/);
    expect(policyConfigProblem({ logs: ['ok', 'a..b'] })).toBe('"logs"[1] "a..b" has an empty segment (two dots, or a dot at an end)');
    expect(policyConfigProblem({ telemetry: ['skill_state.run*'] })).toMatch(/^"telemetry"\[0\] "skill_state.run\*" uses \* inside a segment/);
    expect(policyConfigProblem({ logs: [3] })).toBe('"logs"[0] must be a dotted path string');
    expect(policyConfigProblem({ logs: [''] })).toBe('"logs"[0] "" is empty');
  });

  it('refuse a project rule that would reclassify a protocol field, and accept the project\'s own fields', () => {
    expect(policyConfigProblem({ logs: ['next_actions'] })).toBe('"logs"[0] "next_actions" is the protocol field "next_actions", whose policy the protocol fixes');
    expect(policyConfigProblem({ telemetry: ['status'] })).toMatch(/^"telemetry"\[0\] "status" is the protocol field "status"/);
    expect(policyConfigProblem({ logs: ['cost.by_phase'] })).toMatch(/"cost.by_phase" is the protocol field "cost" \(or inside it\)/);
    expect(policyConfigProblem({ logs: ['skill_state'] })).toMatch(/is the protocol field "skill_state"/);
    expect(policyConfigProblem({ logs: ['**.audits'] })).toMatch(/would also match protocol fields/);
    expect(policyConfigProblem({ telemetry: ['*'] })).toMatch(/would also match protocol fields/);
    // Built-in rules under skill_state keep their kind too.
    expect(policyConfigProblem({ telemetry: ['skill_state.run_history'] })).toMatch(/would reclassify the protocol's "skill_state\.\*\*\.run_history" \(a log rotated to history\/, timed by "at", not a telemetry snapshot\)/);
    expect(policyConfigProblem({ logs: ['skill_state.*.last_run'] })).toMatch(/would reclassify the protocol's "skill_state\.\*\*\.last_run"/);
    expect(policyConfigProblem({ telemetry: ['skill_state.*'] })).toMatch(/would reclassify the protocol's "skill_state\.rotated_to"/);
    // Two logs that differ only in rotation are told apart (red team, 12-03: "a log, not a log").
    expect(policyConfigProblem({ logs: ['skill_state.*'] })).toMatch(/"skill_state\.rotated_to" \(a log never rotated, not a log rotated to history\/, timed by "at"\): list your own fields/);
    expect(policyConfigProblem({ logs: ['skill_state.rotated_to'] })).toMatch(/"skill_state\.rotated_to"/);
    // Restating a built-in rule, a project's own skill_state log, a top-level field of its own: fine.
    expect(policyConfigProblem({ logs: ['skill_state.run_history', 'skill_state.**.audits', 'my_log'], telemetry: ['skill_state.**.coverage', 'skill_state.streak'] })).toBeUndefined();
  });

  it('take a project\'s own counters, never a protocol field or a log as one', () => {
    expect(policyConfigProblem({ counters: ['skill_state.runs', 'skill_state.**.retries'] })).toBeUndefined();
    expect(policyConfigProblem({ counters: ['step'] })).toMatch(/^"counters"\[0\] "step" is the protocol field "step"/);
    expect(policyConfigProblem({ counters: ['skill_state.run_history'] })).toMatch(/would reclassify the protocol's "skill_state\.\*\*\.run_history" \(a log rotated to history\/, timed by "at", not a counter\)/);
    expect(policyConfigProblem({ counters: 'skill_state.runs' })).toBe('"counters" must be an array of dotted paths, like "skill_state.audits"');
    expect(policyFor(['skill_state', 'runs'], compileExtraLogs({ counters: ['skill_state.runs'] }))).toEqual({ kind: 'counter' });
  });
});
