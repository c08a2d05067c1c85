// Numbers equal as doubles but written differently (12345678901234567890 vs ...891, 1e-400 vs
// 2e-400, 8.0 vs 8): a real `git merge` through the installed driver and `update` through the
// built binary must keep every text a user or a side changed. Real git, the built binary.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanup, cli, commitAll, commitSides, git, gitTry, makeRepo, read, write, initialized } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';
import { paste } from '../helpers/paste.js';

const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
beforeAll(assertBuilt);
afterEach(() => dirs.splice(0).forEach(cleanup));

// Hand-written, like a real one: prose paths with notes and globs, an old date, odd numbers.
const text = (over: { phase?: string; big?: string; tiny?: string; score?: string } = {}) => `{
  "protocol_version": "1.1",
  "skill": "api",
  "project": "shop",
  "project_dir": "/home/dev/shop",
  "created_at": "2026-03-01T09:00:00Z",
  "updated_at": "2026-03-03T17:45:00Z",
  "phase": "${over.phase ?? 'build'}",
  "step": "sprint-2",
  "status": "in_progress",
  "progress_summary": "Orders endpoint half done; see src/orders.ts (PR 12) and docs/**/*.md",
  "next_actions": ["Finish src/orders.ts (PR 12)", "Run evaluator on src/**/*.ts"],
  "skill_state": {
    "big": ${over.big ?? '12345678901234567890'},
    "tiny": ${over.tiny ?? '1e-400'},
    "score": ${over.score ?? '8.0'},
    "weights": [2.50, 1.0]
  }
}
`;

function project(): string {
  const dir = makeRepo();
  dirs.push(dir);
  initialized(dir);
  write(dir, FILE, text());
  commitAll(dir, 'base');
  return dir;
}

/** Branch `a` commits `theirs`, main commits `ours`, then main merges a. */
function merge(ours: string, theirs: string): { dir: string; status: number | null; stderr: string } {
  const dir = project();
  commitSides(dir, FILE, ours, theirs, 'a');
  const r = gitTry(dir, ['merge', '--no-edit', 'a']);
  return { dir, status: r.status, stderr: r.stderr + r.stdout };
}

describe('git merge keeps a respelled number', () => {
  it("takes the side that changed a number's text", () => {
    const { dir, status } = merge(text({ phase: 'audit' }), text({ big: '12345678901234567891', tiny: '2e-400' }));
    expect(status).toBe(0);
    const out = read(dir, FILE);
    expect(out).toContain('"phase": "audit"');
    expect(out).toContain('"big": 12345678901234567891,');
    expect(out).toContain('"tiny": 2e-400,');
    expect(out).toContain('"score": 8.0,');
  });

  it('conflicts when both sides respell it differently, with each text in the markers and the summary', () => {
    const { dir, status, stderr } = merge(text({ tiny: '3e-400' }), text({ tiny: '2e-400' }));
    expect(status).not.toBe(0);
    expect(read(dir, FILE)).toMatch(/<<<<<<< .*\n\s+"tiny": 3e-400,\n\|{7} .*\n\s+"tiny": 1e-400,\n={7}\n\s+"tiny": 2e-400,\n>>>>>>> /);
    expect(stderr).toContain('conflict at skill_state.tiny: ours 3e-400 vs theirs 2e-400 (base 1e-400)');
  });
});

describe('git merge keeps each copy of a repeated entry as its side wrote it', () => {
  // A run logged twice, once by a Python tool (8.0, 0.10) and once by a JS one (8, 0.1): equal
  // values, two texts. Ours has both; theirs logged another run and moved the phase on.
  const runs = (phase: string, ...entries: string[]) =>
    text({ phase }).replace('"weights": [2.50, 1.0]', `"weights": [2.50, 1.0],\n    "run_history": [\n      ${entries.join(',\n      ')}\n    ]`);
  const logged = '{"run": 7, "score": 8.0, "cost_usd": 0.10, "log": "runs/7.txt (PR 12)"}';
  const again = '{"run": 7, "score": 8, "cost_usd": 0.1, "log": "runs/7.txt (PR 12)"}';
  const other = '{"run": 8, "score": 9.50, "cost_usd": 1E-7, "log": "runs/8.txt"}';

  it('writes the copy ours logged as 8 as 8, next to the 8.0, after theirs', () => {
    const dir = makeRepo();
    dirs.push(dir);
    initialized(dir);
    write(dir, FILE, runs('build', logged));
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'a']);
    write(dir, FILE, runs('audit', logged, other));
    commitAll(dir, 'a');
    git(dir, ['checkout', '-q', 'main']);
    write(dir, FILE, runs('build', logged, again));
    commitAll(dir, 'main');
    const r = gitTry(dir, ['merge', '--no-edit', 'a']);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const out = read(dir, FILE);
    expect(out).toContain('"phase": "audit"');
    expect(out).toContain(`"run_history": [\n      ${logged},\n      ${again},\n      ${other}\n    ]`);
  });
});

describe('update writes numbers as typed', () => {
  it('changes a number to a text equal as a double, and keeps the texts it is given', async () => {
    const dir = project();
    for (const flag of ['--skill_state.big:json=12345678901234567891', '--skill_state.tiny:json=5e-400', '--skill_state.score:json=9.0', '--skill_state.obj:json={"a":1.0,"b":[2.50]}']) {
      const r = await runCli(dir, ['update', 'api', flag]);
      expect(r.code, r.stderr).toBe(0);
    }
    const out = read(dir, FILE);
    for (const literal of ['"big": 12345678901234567891,', '"tiny": 5e-400,', '"score": 9.0,', '"a": 1.0,', '2.50', '1.0']) expect(out).toContain(literal);
    // The same value again in JSON's spelling leaves the text; another value is written as typed.
    expect((await runCli(dir, ['update', 'api', '--skill_state.score:json=9'])).code).toBe(0);
    expect(read(dir, FILE)).toContain('"score": 9.0,');
    expect((await runCli(dir, ['update', 'api', '--skill_state.score=10'])).code).toBe(0);
    expect(read(dir, FILE)).toContain('"score": 10,');
  });

  it('names a number in the way by its text, and leaves the file byte-identical', async () => {
    const dir = project();
    const before = read(dir, FILE);
    const r = await runCli(dir, ['update', 'api', '--skill_state.score.x=1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cannot write inside skill_state.score: it is 8.0, not an object');
    expect(read(dir, FILE)).toBe(before);
  });
});

describe('a slip fix carries a number as it was written', () => {
  // done_when written as numbers (a person typed a version or a score there), in a hand-kept layout.
  const slipped = `{
    "protocol_version": "1.1", "skill": "api", "project": "shop", "project_dir": "/home/dev/shop",
    "created_at": "2026-03-01T09:00:00Z", "updated_at": "2026-03-03T17:45:00Z",
    "phase": "build", "step": "sprint-2", "status": "in_progress",
    "progress_summary": "Orders half done; see src/orders.ts (PR 12)",
    "next_actions": [
        {"text": "Finish src/orders.ts (PR 12)", "done_when": 8.0},
        {"text": 1E5, "title": "Load test docs/**/*.md"},
        {"text": "Bump to 2.50", "done_when": 2.50},
        {"text": "Re-run", "done_when": -0},
        {"text": "Plain", "done_when": 7}
    ],
    "eval_scores": [{"rubric": "audit", "score": 8.0, "max": 10, "at": "2026-03-01T00:00:00Z"}]
}
`;
  const fix = "checkpoint update api --next_actions.0.done_when='8.0' --next_actions.1.text='Load test docs/**/*.md' --next_actions.2.done_when='2.50' --next_actions.3.done_when='-0' --next_actions.4.done_when='7'";

  it('status, next and doctor print the literal text (8.0, 2.50, -0) in the problem and the fix; pasting the fix gives a valid file with those texts', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, FILE, slipped);
    commitAll(dir, 'checkpoint', '2026-03-03T17:45:00Z');
    const status = await runCli(dir, ['status', '--json']);
    const notes = JSON.parse(status.stdout).repairs as { problem: string }[];
    expect(notes.map((n) => n.problem)).toEqual([
      'next_actions[0].done_when is the number 8.0, not a command string',
      'next_actions[1].text is not text (1E5)',
      'next_actions[2].done_when is the number 2.50, not a command string',
      'next_actions[3].done_when is the number -0, not a command string',
      'next_actions[4].done_when is the number 7, not a command string',
    ]);
    for (const args of [['status'], ['next'], ['doctor']]) expect((await runCli(dir, args)).stdout, args[0]).toContain(fix);
    expect(read(dir, FILE)).toBe(slipped);
    // The words exactly as a shell passes them (paste records them), then run by the built binary.
    const words = paste([fix]).runs[0]!;
    expect(words.slice(0, 3)).toEqual(['checkpoint', 'update', 'api']);
    const pasted = cli(dir, words.slice(1));
    expect(pasted.code, pasted.stderr).toBe(0);
    const after = read(dir, FILE);
    for (const t of ['"done_when": "8.0"', '"done_when": "2.50"', '"done_when": "-0"', '"done_when": "7"', '"score": 8.0']) expect(after).toContain(t);
    expect((await runCli(dir, ['validate', 'api'])).code).toBe(0);
  });
});

describe('protocol_version written as a number is read by its text, alike by every command (red team 62e 7)', () => {
  // Hand-written: the quotes dropped from the version, a row status off the enum, 8.0, notes in paths.
  const numbered = (v: string) => text().replace('"protocol_version": "1.1"', `"protocol_version": ${v}`).replace('"step": "sprint-2",', '"step": "sprint-2",\n  "progress_table": [{"id": "orders", "label": "Orders (PR 12)", "status": "Done"}],');

  function withVersion(v: string): string {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, FILE, numbered(v));
    return dir;
  }

  it('1.0 and 1.1 are those versions unquoted: quoted as written, a slip to write as a string (advice, no error: fixer f4 5), and update stamps "1.1" keeping every other byte', async () => {
    for (const v of ['1.0', '1.1']) {
      const dir = withVersion(v);
      const said = `protocol_version is the number ${v}, read as "${v}"; the protocol writes it as the string "${v}" (any checkpoint update stamps "1.1")`;
      const validate = await runCli(dir, ['validate', '--json']);
      expect(JSON.parse(validate.stdout).files[0].errors.filter((e: { path: string }) => e.path === 'protocol_version')).toEqual([]);
      expect(JSON.parse(validate.stdout).files[0].advice).toContainEqual({ level: 'advice', path: 'protocol_version', message: said });
      const status = JSON.parse((await runCli(dir, ['status', '--json'])).stdout);
      expect(status.broken, v).toEqual([]);
      expect(status.repairs).toContainEqual(expect.objectContaining({ path: 'protocol_version', problem: `protocol_version is the number ${v}, not the string "${v}"`, by_hand: `write protocol_version as "${v}" (any \`checkpoint update\` stamps it anew)` }));
      const doctor = await runCli(dir, ['doctor', '--json']);
      expect(doctor.stdout).toContain(JSON.stringify(said));
      // A slip, as status reads it: the fix's own write stamps the version too.
      expect(doctor.stdout).toContain('the errors above are hand-written slips: drift is checked on the file as written; fix: checkpoint update api --progress_table.0.status=complete');
      const update = await runCli(dir, ['update', 'api', '--step=sprint-3']);
      expect(update.code, update.stderr).toBe(0);
      expect(update.stderr).toContain(`protocol_version was the number ${v}, where the protocol writes the string "${v}"; this write stamped "1.1"`);
      const after = read(dir, FILE);
      expect(after.replace(/"updated_at": "[^"]*"/, '"updated_at": "T"')).toBe(numbered('"1.1"').replace('"step": "sprint-2"', '"step": "sprint-3"').replace(/"updated_at": "[^"]*"/, '"updated_at": "T"'));
    }
  });

  it('1.10 is version 1.10, not 1.1: every command quotes it so and says so; status needs repair, update refuses it as newer, the file byte-identical', async () => {
    const dir = withVersion('1.10');
    const said = 'protocol_version is 1.10, not text: the on-disk wire version is a string, one of 1.0|1.1, written in quotes (the number 1.10 is not 1.1: a version is read as written)';
    const validate = await runCli(dir, ['validate', '--json']);
    expect(JSON.parse(validate.stdout).files[0].errors).toContainEqual({ level: 'error', path: 'protocol_version', message: said });
    const status = JSON.parse((await runCli(dir, ['status', '--json'])).stdout);
    expect(status.broken).toEqual([{ skill: 'api', problem: `protocol_version: ${said} (checkpoint validate ${FILE})` }]);
    expect(status.repairs).toEqual([]);
    const doctor = await runCli(dir, ['doctor', '--json']);
    expect(doctor.stdout).toContain(JSON.stringify(said));
    expect(doctor.stdout).not.toMatch(/protocol_version is 1\.1\b/);
    const update = await runCli(dir, ['update', 'api', '--step=sprint-3']);
    expect(update.code).toBe(2);
    expect(update.stderr).toBe(
      'checkpoint: refused: the checkpoint says protocol_version 1.10 (the number 1.10 is not 1.1: a version is read as written), newer than the 1.1 this checkpoint writes; a write would relabel it 1.1; hint: nothing was changed; write it with a checkpoint that knows that version, or, if the file holds 1.1 content, set "protocol_version": "1.1" by hand\n',
    );
    expect(read(dir, FILE)).toBe(numbered('1.10'));
  });
});
