// A checkpoint written by a Python agent (json.dump(..., indent=2), ensure_ascii: every non-ASCII
// character as \uXXXX, an emoji as a surrogate pair, floats as 8.0; here also a PHP-style \/)
// through update, done, a real `git merge` with the installed driver, and rotate: each diff
// touches only the lines whose data changed. Real git, the built binary.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanup, cli, commitAll, git, gitTry, makeRepo, read, write, initialized } from '../helpers/repo.js';

const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
beforeAll(assertBuilt);
afterEach(() => dirs.splice(0).forEach(cleanup));

const runs = Array.from({ length: 7 }, (_, k) => k + 1)
  .map((d) => `      {\n        "at": "2026-02-0${d}T10:00:00Z",\n        "note": "d\\u00e9ploy\\u00e9 run ${d} \\u2192 src/orders.ts (PR 12)",\n        "ms": ${8 + d}.0\n      }`)
  .join(',\n');

// What `json.dumps(doc, indent=2)` printed, byte for byte (plus the one `\/`).
const PY = String.raw`{
  "protocol_version": "1.1",
  "skill": "api",
  "project": "caf\u00e9-shop",
  "project_dir": "/home/dev/caf\u00e9-shop",
  "created_at": "2026-02-01T09:00:00Z",
  "updated_at": "2026-03-03T17:45:00Z",
  "phase": "build",
  "step": "Caf\u00e9 menu / orders \ud83d\ude00",
  "status": "in_progress",
  "progress_summary": "Orders endpoint half done; see src/orders.ts (PR 12) and docs\/**\/*.md \u2014 \u00abnot\u00bb the admin UI",
  "next_actions": [
    "Ship PR #12 \u2014 orders",
    "Run evaluator on src/**/*.ts (skip vendor/)",
    "Tell Ren\u00e9 about the \u20ac rounding"
  ],
  "recently_done": [],
  "skill_state": {
    "branch": "main",
    "Stra\u00dfe": "M\u00fcnchen",
    "score": 8.0,
    "run_history": [
RUNS
    ]
  }
}
`.replace('RUNS', runs);

function project(): string {
  const dir = makeRepo();
  dirs.push(dir);
  initialized(dir);
  write(dir, FILE, PY);
  commitAll(dir, 'base');
  return dir;
}

/** The lines the last change removed and added (git diff -U0 against HEAD, or between two revisions). */
function diffLines(dir: string, range: string[] = []): { removed: string[]; added: string[] } {
  const lines = git(dir, ['diff', '-U0', ...range, '--', FILE]).split('\n');
  return {
    removed: lines.filter((l) => l.startsWith('-') && !l.startsWith('---')).map((l) => l.slice(1)),
    added: lines.filter((l) => l.startsWith('+') && !l.startsWith('+++')).map((l) => l.slice(1)),
  };
}

const run = (dir: string, args: string[]): void => {
  const r = cli(dir, args);
  expect(r.code, r.stderr).toBe(0);
};

describe('a Python-written checkpoint keeps its escapes', () => {
  it('update changes only the updated line and updated_at', () => {
    const dir = project();
    run(dir, ['update', 'api', '--skill_state.branch=feat/orders']);
    const { removed, added } = diffLines(dir);
    expect(removed).toEqual(['  "updated_at": "2026-03-03T17:45:00Z",', '    "branch": "main",']);
    expect(added).toHaveLength(2);
    expect(added[1]).toBe('    "branch": "feat/orders",');
  });

  it('done pops the action and writes it into recently_done with its own text', () => {
    const dir = project();
    run(dir, ['done', 'api']);
    const { removed, added } = diffLines(dir);
    expect(removed).toEqual(['  "updated_at": "2026-03-03T17:45:00Z",', String.raw`    "Ship PR #12 \u2014 orders",`, '  "recently_done": [],']);
    expect(added).toContain(String.raw`      "action": "Ship PR #12 \u2014 orders"`);
  });

  it('git merge through the driver merges two branches and keeps every text neither changed', () => {
    const dir = project(); // init installed the driver
    git(dir, ['checkout', '-q', '-b', 'a']);
    run(dir, ['update', 'api', '--phase=audit']);
    commitAll(dir, 'a');
    git(dir, ['checkout', '-q', 'main']);
    // Next to theirs' change, so git's line merge alone would conflict: the driver must do it.
    run(dir, ['update', 'api', '--step=Café menu / orders 😀 (half)']);
    commitAll(dir, 'main');
    const r = gitTry(dir, ['merge', '--no-edit', 'a']);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const { removed, added } = diffLines(dir, ['HEAD~1', 'HEAD']);
    expect(removed).toEqual(['  "phase": "build",']);
    expect(added).toEqual(['  "phase": "audit",']);
    const out = read(dir, FILE);
    for (const literal of [String.raw`"project": "caf\u00e9-shop"`, String.raw`docs\/**\/*.md \u2014`, String.raw`"Stra\u00dfe": "M\u00fcnchen"`, '"score": 8.0', String.raw`"note": "d\u00e9ploy\u00e9 run 7`]) {
      expect(out).toContain(literal);
    }
  });

  it('git merge takes a branch\'s whole-file respelling (a Node agent wrote it raw), ours where both respelled, never a conflict', () => {
    const dir = project();
    const raw = `${JSON.stringify(JSON.parse(PY), null, 2)}\n`;
    git(dir, ['checkout', '-q', '-b', 'a']);
    write(dir, FILE, raw);
    commitAll(dir, 'a: rewritten by a Node agent');
    git(dir, ['checkout', '-q', 'main']);
    run(dir, ['update', 'api', '--phase=audit']);
    // And a tool that writes upper-case hex respelled the é of the step on this side too.
    write(dir, FILE, read(dir, FILE).replace('"Caf\\u00e9 menu', '"Caf\\u00E9 menu'));
    commitAll(dir, 'main');
    const r = gitTry(dir, ['merge', '--no-edit', 'a']);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const out = read(dir, FILE);
    expect(out).toContain('"phase": "audit"');
    // Both respelled the step: ours' spelling. The rest only theirs respelled: theirs', 8.0 included.
    expect(out).toContain(String.raw`"step": "Caf\u00E9 menu / orders \ud83d\ude00"`);
    expect(out).toContain('"Straße": "München"');
    expect(out).not.toContain('\\u00e9');
    expect(out).toContain('"score": 8,');
  });

  it('rotate removes only the moved entries and adds only the pointer', () => {
    const dir = project();
    run(dir, ['rotate', 'api', '--keep', '5']);
    const { removed, added } = diffLines(dir);
    expect(removed.filter((l) => l.includes('"note"'))).toEqual([1, 2].map((d) => String.raw`        "note": "d\u00e9ploy\u00e9 run ${d} \u2192 src/orders.ts (PR 12)",`));
    expect(removed).toHaveLength(10);
    expect(added.join('\n')).toMatch(/^ {4}\],\n {4}"rotated_to": \[\n {6}"\.checkpoints\/history\/api\.\d{4}-\d\d-\d\d\.json"$/);
    // The moved entries keep their texts in history/, and again when restore brings them back.
    const pointer = /"(\.checkpoints\/history\/[^"]+)"/.exec(added.join('\n'))![1]!;
    const history = read(dir, pointer);
    for (const d of [1, 2]) expect(history).toContain(String.raw`"note": "d\u00e9ploy\u00e9 run ${d} \u2192 src/orders.ts (PR 12)",` + `\n        "ms": ${8 + d}.0`);
    run(dir, ['restore', pointer.split('/').pop()!]);
    // Back to the Python file byte for byte, but for the pointer rotate left.
    expect(read(dir, FILE).replace(/\],\n {4}"rotated_to": \[\n[^\]]*\]/, ']')).toBe(PY);
  });
});
