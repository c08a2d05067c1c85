// A hand-kept checkpoint (tabs, CRLF, inline arrays, one-line objects, `"k":v`, a blank line,
// 8.0 and 1E3, a status outside the enum, notes in path lists) through update, done, pause
// --auto and rotate: each `git diff` shows only the lines the command changed, in the file's own
// layout. Real git; the merges through the installed driver, which git runs; the commands through
// the CLI's entry in this process (test/helpers/in-process.ts), which saves a node start-up each.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanup, commitAll, git, gitTry, makeRepo, read, write, initialized } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';

const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
beforeAll(assertBuilt);
afterEach(() => dirs.splice(0).forEach(cleanup));

const HAND = [
  '{',
  '\t"protocol_version": "1.1",',
  '\t"skill": "api",',
  '\t"project": "shop",',
  '\t"project_dir": "/home/dev/shop",',
  '\t"created_at": "2026-02-01T09:00:00Z",',
  '\t"updated_at": "2026-03-03T17:45:00Z",',
  '\t"phase": "build",',
  '\t"step": "orders endpoint",',
  '\t"status":"waiting-on-review",',
  '\t"progress_summary": "Orders half done; see src/orders.ts (PR 12)",',
  '',
  '\t"generated_files": ["src/x.ts (PR 12)", "src/orders/**/*.ts", "docs/api.md"],',
  '\t"next_actions": [',
  '\t\t{"text": "Ship PR #12", "done_when": "merged, score 8.0+"},',
  '\t\t"Run evaluator on src/**/*.ts (skip vendor/)"',
  '\t],',
  '\t"recently_done": [],',
  '\t"eval_scores": [{"rubric": "auditor", "score": 8.0, "max": 10.0, "at": "2026-02-05T10:00:00Z"}],',
  '\t"skill_state": {"branch": "main", "ratio": 1E3, "tags": ["a","b"],',
  '\t\t"run_history": [',
  '\t\t\t{"at": "2026-01-05T10:00:00Z", "ms": 812.0, "note": "src/x.ts (PR 12)"},',
  '\t\t\t{"at": "2026-01-06T10:00:00Z", "ms": 9.50},',
  '\t\t\t{"at": "2026-02-06T10:00:00Z", "ms": 10}',
  '\t\t]}',
  '}',
  '',
].join('\r\n');

function project(): string {
  const dir = makeRepo();
  dirs.push(dir);
  initialized(dir);
  write(dir, FILE, HAND);
  commitAll(dir, 'base');
  return dir;
}

/** The lines the last command removed and added (git diff -U0), line ends shown as they are. */
function diffLines(dir: string): { removed: string[]; added: string[] } {
  const lines = git(dir, ['diff', '-U0', '--', FILE]).split('\n');
  return {
    removed: lines.filter((l) => l.startsWith('-') && !l.startsWith('---')).map((l) => l.slice(1)),
    added: lines.filter((l) => l.startsWith('+') && !l.startsWith('+++')).map((l) => l.slice(1)),
  };
}

async function run(dir: string, args: string[]): Promise<void> {
  const r = await runCli(dir, args);
  expect(r.code, r.stderr).toBe(0);
}

const STAMP = /^\t"updated_at": "\d{4}-\d\d-\d\dT[\d:.]+Z",\r$/;

describe('a hand-formatted checkpoint keeps its layout through writes', () => {
  it('update changes only the updated lines', async () => {
    const dir = project();
    await run(dir, ['update', 'api', '--step=orders endpoint: pagination', '--generated_files+=src/pagination.ts']);
    const { removed, added } = diffLines(dir);
    expect(removed).toEqual(['\t"updated_at": "2026-03-03T17:45:00Z",\r', '\t"step": "orders endpoint",\r', '\t"generated_files": ["src/x.ts (PR 12)", "src/orders/**/*.ts", "docs/api.md"],\r']);
    expect(added[0]).toMatch(STAMP);
    expect(added.slice(1)).toEqual(['\t"step": "orders endpoint: pagination",\r', '\t"generated_files": ["src/x.ts (PR 12)", "src/orders/**/*.ts", "docs/api.md", "src/pagination.ts"],\r']);
  });

  it('done moves the action into recently_done, at the file\'s indent, touching nothing else', async () => {
    const dir = project();
    await run(dir, ['done', 'api']);
    const { removed, added } = diffLines(dir);
    expect(removed).toEqual(['\t"updated_at": "2026-03-03T17:45:00Z",\r', '\t\t{"text": "Ship PR #12", "done_when": "merged, score 8.0+"},\r', '\t"recently_done": [],\r']);
    expect(added[0]).toMatch(STAMP);
    expect(added.slice(1).join('\n')).toMatch(/^\t"recently_done": \[\r\n\t\t\{\r\n\t\t\t"at": "[^"]+",\r\n\t\t\t"action": "Ship PR #12",\r\n\t\t\t"done_when": "merged, score 8.0\+"\r\n\t\t\}\r\n\t\],\r$/);
  });

  it('pause --auto only adds the capsule', async () => {
    const dir = project();
    await run(dir, ['pause', 'api', '--auto']);
    const { removed, added } = diffLines(dir);
    expect(removed).toEqual(['\t\t]}\r']);
    expect(added[0]).toBe('\t\t]},\r');
    expect(added[1]).toBe('\t"capsule": {\r');
    expect(added.every((l) => l.endsWith('\r') && /^\t/.test(l))).toBe(true);
  });

  it('rotate removes only the moved entries and adds only the pointer, keeping the texts it moved', async () => {
    const dir = project();
    await run(dir, ['rotate', 'api', '--keep', '1']);
    const { removed, added } = diffLines(dir);
    expect(removed).toEqual(['\t\t\t{"at": "2026-01-05T10:00:00Z", "ms": 812.0, "note": "src/x.ts (PR 12)"},\r', '\t\t\t{"at": "2026-01-06T10:00:00Z", "ms": 9.50},\r']);
    expect(added.join('\n')).toMatch(/^\t\t\],\r\n\t\t"rotated_to": \[\r\n\t\t\t"\.checkpoints\/history\/api\.\d{4}-\d\d-\d\d\.json"\r$/);
    const history = git(dir, ['ls-files', '--others', '--exclude-standard', '.checkpoints/history']).trim();
    expect(read(dir, history)).toContain('"ms": 812.0');
  });
});

describe('a checkpoint with lone-CR line ends (classic Mac OS) keeps its layout as its CRLF twin does (red team s13 #8)', () => {
  it('update and done write it as they write the CRLF file, line ends apart: inline arrays and objects stay inline', async () => {
    const twin = project();
    const mac = project();
    write(mac, FILE, HAND.replace(/\r\n/g, '\r'));
    for (const dir of [twin, mac]) {
      await run(dir, ['update', 'api', '--step=orders endpoint: pagination', '--generated_files+=src/pagination.ts', '--skill_state.tags+=c', '--skill_state.owner=ren']);
      await run(dir, ['done', 'api']);
    }
    // The stamps (updated_at, the done record's at) are the clock's: the same instant written in both.
    const written = new Set(HAND.match(/\d{4}-\d\d-\d\dT[\d:.]+Z/g));
    const stamps = (text: string) => text.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, (t) => (written.has(t) ? t : '<now>'));
    const out = read(mac, FILE);
    expect(out).not.toContain('\n');
    expect(out).toContain('\t"generated_files": ["src/x.ts (PR 12)", "src/orders/**/*.ts", "docs/api.md", "src/pagination.ts"],\r');
    expect(out).toContain('"tags": ["a","b","c"]');
    expect(stamps(out)).toBe(stamps(read(twin, FILE)).replace(/\r\n/g, '\r'));
  });
});

describe('a new record follows its siblings in a list of one-line records', () => {
  // Spaces, but the first record's line starts with a tab (pasted in), one-line records, a note in a path.
  const LIST = [
    '{',
    '  "protocol_version": "1.1", "skill": "api", "project": "shop", "project_dir": "/home/dev/shop",',
    '  "created_at": "2026-02-01T09:00:00Z", "updated_at": "2026-03-03T17:45:00Z",',
    '  "phase": "build", "step": "orders", "status": "in_progress", "progress_summary": "Orders half done",',
    '  "next_actions": [',
    '    {"text": "Ship PR #12", "done_when": "merged, score 8.0+"},',
    '    "Run evaluator on src/**/*.ts (skip vendor/)"',
    '  ],',
    '  "recently_done": [',
    '\t{"at": "2026-02-02T09:00:00Z", "action": "wrote src/x.ts (PR 12)", "score": 8.0},',
    '    {"at":"2026-02-03T09:00:00Z","action":"reviewed"}',
    '  ]',
    '}',
    '',
  ].join('\n');

  function listProject(): string {
    const dir = makeRepo();
    dirs.push(dir);
    initialized(dir);
    write(dir, FILE, LIST);
    commitAll(dir, 'base');
    return dir;
  }

  it('done writes the new record on one line and leaves the old records byte for byte (a log kept newest-first: in front)', async () => {
    const dir = listProject();
    write(dir, FILE, LIST.replace('2026-02-02T09:00:00Z', '2026-02-04T09:00:00Z'));
    commitAll(dir, 'newest-first');
    await run(dir, ['done', 'api']);
    const { removed, added } = diffLines(dir);
    expect(removed).toEqual(['  "created_at": "2026-02-01T09:00:00Z", "updated_at": "2026-03-03T17:45:00Z",', '    {"text": "Ship PR #12", "done_when": "merged, score 8.0+"},']);
    expect(added).toHaveLength(2);
    expect(added[1]).toMatch(/^\t\{"at": "[^"]+", "action": "Ship PR #12", "done_when": "merged, score 8\.0\+"\},$/);
    expect(read(dir, FILE)).toContain('\n\t{"at": "2026-02-04T09:00:00Z", "action": "wrote src/x.ts (PR 12)", "score": 8.0},\n    {"at":"2026-02-03T09:00:00Z","action":"reviewed"}\n  ]');
  });

  it('done appends to a log kept oldest-first, in the style of the record next to it, the others byte for byte', async () => {
    const dir = listProject();
    await run(dir, ['done', 'api']);
    const { removed, added } = diffLines(dir);
    expect(removed.slice(1)).toEqual(['    {"text": "Ship PR #12", "done_when": "merged, score 8.0+"},', '    {"at":"2026-02-03T09:00:00Z","action":"reviewed"}']);
    expect(added.slice(1)).toEqual(['    {"at":"2026-02-03T09:00:00Z","action":"reviewed"},', expect.stringMatching(/^    \{"at":"[^"]+","action":"Ship PR #12","done_when":"merged, score 8\.0\+"\}$/)]);
    expect(read(dir, FILE)).toContain('\n\t{"at": "2026-02-02T09:00:00Z", "action": "wrote src/x.ts (PR 12)", "score": 8.0},\n');
  });

  it('update --recently_done+:json= appends one line in the style of the record next to it', async () => {
    const dir = listProject();
    await run(dir, ['update', 'api', '--recently_done+:json={"at":"2026-03-04T10:00:00Z","action":"tagged v2","files":["a.ts","b.ts"]}']);
    const { removed, added } = diffLines(dir);
    expect(removed).toEqual(['  "created_at": "2026-02-01T09:00:00Z", "updated_at": "2026-03-03T17:45:00Z",', '    {"at":"2026-02-03T09:00:00Z","action":"reviewed"}']);
    expect(added.slice(1)).toEqual(['    {"at":"2026-02-03T09:00:00Z","action":"reviewed"},', '    {"at":"2026-03-04T10:00:00Z","action":"tagged v2","files":["a.ts","b.ts"]}']);
  });

  it('update --recently_done+= on a log kept newest-first writes the new entry in front, where done would, the others byte for byte (red team D10)', async () => {
    const dir = listProject();
    write(dir, FILE, LIST.replace('2026-02-02T09:00:00Z', '2026-02-04T09:00:00Z'));
    commitAll(dir, 'newest-first');
    await run(dir, ['update', 'api', '--recently_done+=tagged v2']);
    const { removed, added } = diffLines(dir);
    expect(removed).toEqual(['  "created_at": "2026-02-01T09:00:00Z", "updated_at": "2026-03-03T17:45:00Z",']);
    expect(added.slice(1)).toEqual(['\t"tagged v2",']);
    expect(read(dir, FILE)).toContain('"recently_done": [\n\t"tagged v2",\n\t{"at": "2026-02-04T09:00:00Z", "action": "wrote src/x.ts (PR 12)", "score": 8.0},\n');
  });

  it('a recently_done built with += loses its oldest entries to history/ when done cuts it to ten, never the newest (red team D10)', async () => {
    const dir = listProject();
    write(dir, FILE, LIST.replace(/"recently_done": \[[^\]]*\]/, '"recently_done": []'));
    commitAll(dir, 'empty log');
    await run(dir, ['update', 'api', ...Array.from({ length: 10 }, (_, i) => `--recently_done+=step ${i + 1}`)]);
    await run(dir, ['done', 'api']);
    const doc = JSON.parse(read(dir, FILE));
    expect(doc.recently_done.map((e: string | { action: string }) => (typeof e === 'string' ? e : e.action))).toEqual(['Ship PR #12', ...[10, 9, 8, 7, 6, 5, 4, 3, 2].map((i) => `step ${i}`)]);
    const history = readdirSync(join(dir, '.checkpoints', 'history'));
    expect(history).toHaveLength(1);
    expect(JSON.parse(read(dir, `.checkpoints/history/${history[0]}`)).entries.recently_done).toEqual(['step 1']);
  });

  it('records laid out over lines keep getting new records over lines', async () => {
    const dir = listProject();
    write(dir, FILE, LIST.replace('\t{"at": "2026-02-02T09:00:00Z", "action": "wrote src/x.ts (PR 12)", "score": 8.0},', '    {\n      "at": "2026-02-02T09:00:00Z",\n      "action": "wrote"\n    },'));
    commitAll(dir, 'multi');
    await run(dir, ['update', 'api', '--recently_done+:json={"at":"2026-03-04T10:00:00Z","action":"tagged"}']);
    expect(read(dir, FILE)).toMatch(/\n {4}\{\n {6}"at": "2026-03-04T10:00:00Z",\n {6}"action": "tagged"\n {4}\}\n {2}\]/);
  });
});

describe('a hand-formatted checkpoint keeps its layout through `git merge`', () => {
  it("the driver writes the merge in ours' layout: only the lines the other branch changed", async () => {
    const dir = project();
    git(dir, ['checkout', '-q', '-b', 'a']);
    await run(dir, ['update', 'api', '--step=orders endpoint: pagination']);
    commitAll(dir, 'a: step');
    git(dir, ['checkout', '-q', '-b', 'b', 'HEAD~1']);
    await run(dir, ['update', 'api', '--generated_files+=src/pagination.ts', '--skill_state.branch=feat/pagination']);
    commitAll(dir, 'b: files');
    git(dir, ['checkout', '-q', 'a']);
    const merge = gitTry(dir, ['merge', '--no-edit', 'b']);
    expect(merge.status, merge.stdout + merge.stderr).toBe(0);
    const lines = git(dir, ['diff', '-U0', 'HEAD^1', 'HEAD', '--', FILE]).split('\n');
    const removed = lines.filter((l) => l.startsWith('-') && !l.startsWith('---')).map((l) => l.slice(1));
    const added = lines.filter((l) => l.startsWith('+') && !l.startsWith('+++')).map((l) => l.slice(1));
    // The merge against branch a: b's stamp (the later), b's list addition and key; the rest byte for byte (8.0, 1E3, the blank line, CRLF).
    expect(removed).toEqual([
      git(dir, ['show', `HEAD^1:${FILE}`]).split('\n').find((l) => l.startsWith('\t"updated_at"'))!,
      '\t"generated_files": ["src/x.ts (PR 12)", "src/orders/**/*.ts", "docs/api.md"],\r',
      '\t"skill_state": {"branch": "main", "ratio": 1E3, "tags": ["a","b"],\r',
    ]);
    expect(added).toEqual([
      git(dir, ['show', `HEAD^2:${FILE}`]).split('\n').find((l) => l.startsWith('\t"updated_at"'))!,
      '\t"generated_files": ["src/x.ts (PR 12)", "src/orders/**/*.ts", "docs/api.md", "src/pagination.ts"],\r',
      '\t"skill_state": {"branch": "feat/pagination", "ratio": 1E3, "tags": ["a","b"],\r',
    ]);
    expect(read(dir, FILE)).toContain('\t"step": "orders endpoint: pagination",\r\n');
  });

  /** Branches a and b from the base, each changing `HAND` by `edits` (exact text swaps), then `git merge b` on a. */
  function conflicted(a: [string, string][], b: [string, string][]): { dir: string; ours: string; merge: { status: number | null; out: string } } {
    const dir = project();
    const swap = (edits: [string, string][]) => edits.reduce((t, [from, to]) => (expect(t).toContain(from), t.replace(from, to)), HAND);
    git(dir, ['checkout', '-q', '-b', 'a']);
    write(dir, FILE, swap(a));
    commitAll(dir, 'a');
    git(dir, ['checkout', '-q', '-b', 'b', 'HEAD~1']);
    write(dir, FILE, swap(b));
    commitAll(dir, 'b');
    git(dir, ['checkout', '-q', 'a']);
    const r = gitTry(dir, ['merge', '--no-edit', 'b']);
    return { dir, ours: swap(a), merge: { status: r.status, out: r.stdout + r.stderr } };
  }

  it("a conflicted merge keeps ours' layout outside the conflicted lines; each side's block is that line with its values (1E3, 2E3, 3.0E3 as written)", async () => {
    const { dir, ours, merge } = conflicted(
      [['"step": "orders endpoint"', '"step": "orders: pagination (a)"'], ['"ratio": 1E3', '"ratio": 2E3'], ['"score": 8.0,', '"score": 8.0, "by": "a",']],
      [['"step": "orders endpoint"', '"step": "orders: cursor (b)"'], ['"ratio": 1E3', '"ratio": 3.0E3'], ['"note": "src/x.ts (PR 12)"', '"note": "src/x.ts (PR 12), re-run"']],
    );
    expect(merge.status, merge.out).not.toBe(0);
    expect(merge.out).toMatch(/conflict at step: .*conflict at skill_state\.ratio: ours 2E3 vs theirs 3\.0E3 \(base 1E3\)/);
    const block = (o: string, base: string, t: string) => ['<<<<<<< ours', o, '||||||| base', base, '=======', t, '>>>>>>> theirs'].map((l) => `${l}\r\n`).join('');
    const state = (v: string) => `\t"skill_state": {"branch": "main", "ratio": ${v}, "tags": ["a","b"],`;
    // Ours byte for byte (tabs, CRLF, inline lists, the blank line, 8.0), b's clean change, and a block per conflicted line
    // (the skill_state line opens an object that goes on over the lines after it: each side's line does the same).
    const expected = ours
      .replace('\t"step": "orders: pagination (a)",\r\n', block('\t"step": "orders: pagination (a)",', '\t"step": "orders endpoint",', '\t"step": "orders: cursor (b)",'))
      .replace(`${state('2E3')}\r\n`, block(state('2E3'), state('1E3'), state('3.0E3')))
      .replace('"note": "src/x.ts (PR 12)"', '"note": "src/x.ts (PR 12), re-run"');
    expect(read(dir, FILE)).toBe(expected);
    // Settled field by field, the file is ours' layout again, with the choices made.
    const r = await runCli(dir, ['resolve', '--theirs', 'step', '--theirs', 'skill_state.ratio', '--add']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(read(dir, FILE)).toBe(
      ours.replace('"step": "orders: pagination (a)"', '"step": "orders: cursor (b)"').replace('"ratio": 2E3', '"ratio": 3.0E3').replace('"note": "src/x.ts (PR 12)"', '"note": "src/x.ts (PR 12), re-run"'),
    );
    expect(git(dir, ['diff', '--name-only', '--diff-filter=U'])).toBe('');
  });

  it("a member one side deleted and the other changed, on a line of its own: that side's block is empty, the layout kept", async () => {
    const { dir, ours, merge } = conflicted([['"phase": "build",', '"phase": "build (a)",']], [['\t"phase": "build",\r\n', '']]);
    expect(merge.status, merge.out).not.toBe(0);
    const block = ['<<<<<<< ours', '\t"phase": "build (a)",', '||||||| base', '\t"phase": "build",', '=======', '>>>>>>> theirs'].map((l) => `${l}\r\n`).join('');
    expect(read(dir, FILE)).toBe(ours.replace('\t"phase": "build (a)",\r\n', block));
    const r = await runCli(dir, ['resolve', '--theirs', 'phase']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(read(dir, FILE)).toBe(ours.replace('\t"phase": "build (a)",\r\n', ''));
  });

  it('a lone conflict it cannot put on its line (a member one side deleted, beside others on that line) is one block of the lines the sides differ on, the layout kept, valid for each side', async () => {
    const { dir, merge } = conflicted([['"ratio": 1E3,', '"ratio": 2E3,']], [['"ratio": 1E3, ', '']]);
    expect(merge.status, merge.out).not.toBe(0);
    expect(merge.out).toMatch(/conflict at skill_state\.ratio: ours 2E3 vs theirs absent/);
    const text = read(dir, FILE);
    expect(text).toMatch(/^<<<<<<< ours\r$/m);
    // Ours' layout kept outside the block (it was laid out afresh by formatJson before 12-05).
    expect(text).toContain('"generated_files": ["src/x.ts (PR 12)"');
    expect(text.match(/^<<<<<<< ours\r$/gm)).toHaveLength(1);
    for (const side of ['ours', 'theirs'] as const) {
      const r = await runCli(dir, ['resolve', `--${side}`, 'skill_state.ratio']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(JSON.parse(read(dir, FILE)).skill_state.ratio).toBe(side === 'ours' ? 2000 : undefined);
      write(dir, FILE, text);
    }
  });
});
