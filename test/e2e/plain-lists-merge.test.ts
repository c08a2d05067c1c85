// A skill's own lists without ids (a checklist of strings, tasks without ids), ticked and noted on
// two branches: `git merge` and `git rebase` through the installed driver settle what git's own
// line merge settles without it (edits at different items), and a key both branches set
// differently inside one task is marked at that key alone, settled by `checkpoint resolve`.
// Real git, the built binary.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanup, cli, commitAll, commitSides, git, gitTry, initialized, makeRepo, read, write } from '../helpers/repo.js';

const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
beforeAll(assertBuilt);
afterEach(() => dirs.splice(0).forEach(cleanup));

type Task = { name: string; done: boolean | string; extra?: string };

// As Python's json.dump(indent=4) writes it: \u escapes, 8.0, no final newline.
const text = (checklist: string[], tasks: Task[], updated = '2026-08-02T17:45:00Z') => `{
    "protocol_version": "1.1",
    "skill": "api",
    "project": "Caf\\u00e9 shop",
    "project_dir": "/home/dev/shop",
    "created_at": "2026-06-01T09:00:00Z",
    "updated_at": "${updated}",
    "phase": "build",
    "step": "orders",
    "status": "in_progress",
    "progress_summary": "Orders API half done \\u2014 see src/orders.ts (PR 12)",
    "next_actions": [
        "Write orders tests"
    ],
    "skill_state": {
        "pass_threshold": 8.0,
        "checklist": [
${checklist.map((c) => `            ${JSON.stringify(c)}`).join(',\n')}
        ],
        "tasks": [
${tasks.map((t) => `            {\n                "name": ${JSON.stringify(t.name)},\n                "done": ${JSON.stringify(t.done)}${t.extra ? `,\n                ${t.extra}` : ''}\n            }`).join(',\n')}
        ]
    }
}`;

const CHECKLIST = ['[ ] lint src/**/*.ts', '[ ] types', '[ ] e2e \\u00e9', '[ ] changelog'];
const TASKS: Task[] = [
  { name: 'Write tests', done: false },
  { name: 'Docs', done: false },
  { name: 'Ship', done: false },
];
const with_ = <T>(list: T[], i: number, v: T): T[] => list.map((x, k) => (k === i ? v : x));

/** Branch `feat` commits `theirs`, main commits `ours`; `how` then merges or rebases. */
function branches(ours: string, theirs: string): string {
  const dir = makeRepo();
  dirs.push(dir);
  initialized(dir);
  write(dir, FILE, text(CHECKLIST, TASKS));
  commitAll(dir, 'base');
  commitSides(dir, FILE, ours, theirs);
  return dir;
}

describe('lists without ids edited at different items on two branches', () => {
  const ours = text(with_(CHECKLIST, 3, '[x] changelog'), with_(TASKS, 0, { name: 'Write tests', done: false, extra: '"note": "flaky on CI (PR 12)"' }), '2026-08-03T11:00:00Z');
  const theirs = text(with_(CHECKLIST, 0, '[x] lint src/**/*.ts'), with_(TASKS, 0, { name: 'Write tests', done: true }), '2026-08-03T10:00:00Z');
  const merged = text(['[x] lint src/**/*.ts', '[ ] types', '[ ] e2e \\u00e9', '[x] changelog'], with_(TASKS, 0, { name: 'Write tests', done: true, extra: '"note": "flaky on CI (PR 12)"' }), '2026-08-03T11:00:00Z');

  it('git merge settles them, every other byte as it was', () => {
    const dir = branches(ours, theirs);
    const r = gitTry(dir, ['merge', '--no-edit', 'feat']);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(read(dir, FILE)).toBe(merged);
  });

  it('git rebase settles them the same way', () => {
    const dir = branches(ours, theirs);
    git(dir, ['checkout', '-q', 'feat']);
    const r = gitTry(dir, ['rebase', 'main']);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(JSON.parse(read(dir, FILE))).toEqual(JSON.parse(merged));
  });
});

describe('one task key set two ways', () => {
  it('is marked at that key alone; resolve --theirs settles it and stages the rest as merged', () => {
    const ours = text(with_(CHECKLIST, 1, '[x] types'), with_(TASKS, 1, { name: 'Docs', done: 'partly' }));
    const theirs = text(CHECKLIST, with_(with_(TASKS, 1, { name: 'Docs', done: true }), 2, { name: 'Ship', done: false, extra: '"owner": "ana"' }));
    const dir = branches(ours, theirs);
    const r = gitTry(dir, ['merge', '--no-edit', 'feat']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('conflict at skill_state.tasks[1].done: ours "partly" vs theirs true (base false)');
    const marked = read(dir, FILE);
    expect(marked).toContain('<<<<<<< ours\n                "done": "partly"\n||||||| base\n                "done": false\n=======\n                "done": true\n>>>>>>> theirs\n');
    expect(marked.match(/^<<<<<<< /gm)).toHaveLength(1);
    const settled = cli(dir, ['resolve', '--theirs', 'skill_state.tasks[1].done', '--add']);
    expect(settled.code, settled.stderr).toBe(0);
    expect(git(dir, ['show', `:0:${FILE}`])).toBe(text(with_(CHECKLIST, 1, '[x] types'), with_(with_(TASKS, 1, { name: 'Docs', done: true }), 2, { name: 'Ship', done: false, extra: '"owner": "ana"' })));
  });
});
