// A `*.checkpoint.json` in .checkpoints/ whose name is not a valid skill name ("Foo", one with a
// newline and ESC, one with a space): git routes it to the merge driver and `resolve --check`
// fails on its markers, so every command the user looks at must say so too, escaped, on one
// line, and resolve must refuse it rather than pass over it reporting success. Real git.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { assertBuilt, cleanup, cli, commitAll, git, gitTry, makeRepo, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';
import { MISNAMED_CELL_WIDTH } from '../../src/cli/render/width.js';

const dirs: string[] = [];
beforeAll(assertBuilt);
afterEach(() => dirs.splice(0).forEach(cleanup));

// Messy, like a real one: a note in a path list, a glob, an old date, a number written 8.0.
const doc = (summary: string) => `{
  "protocol_version": "1.1", "skill": "foo", "project": "demo", "project_dir": "/demo",
  "created_at": "2026-03-01T00:00:00Z", "updated_at": "2026-03-02T00:00:00Z",
  "phase": "build", "step": "one", "status": "in_progress", "progress_summary": "${summary}",
  "context_primer": { "key_decisions": [], "generated_files": ["src/x.ts (PR 12)", "docs/**/*.md"] },
  "next_actions": ["ship it"], "skill_state": { "score": 8.0 }
}
`;

/** Three names no skill can have, each with how the report shows it. */
const NAMES: { stem: string; shown: string }[] = [
  { stem: 'Foo', shown: 'Foo' },
  { stem: 'nl\nx\x1b[2J', shown: 'nl\\nx\\x1b[2J' },
  { stem: 'a b', shown: 'a b' },
];

/** A repo where `.checkpoints/<stem>.checkpoint.json` conflicts (plain git merge, or through the merge driver). */
function conflicted(stem: string, driver = false): { dir: string; rel: string } {
  const dir = makeRepo();
  if (driver) expect(cli(dir, ['install-driver']).code).toBe(0);
  dirs.push(dir);
  const rel = `.checkpoints/${stem}.checkpoint.json`;
  write(dir, rel, doc('Started.'));
  commitAll(dir, 'base');
  git(dir, ['checkout', '-q', '-b', 'other']);
  write(dir, rel, doc('Theirs.'));
  commitAll(dir, 'other');
  git(dir, ['checkout', '-q', 'main']);
  write(dir, rel, doc('Ours.'));
  commitAll(dir, 'ours');
  expect(gitTry(dir, ['merge', '-q', 'other']).status).not.toBe(0);
  return { dir, rel };
}

/** Output shown to a person: nothing a terminal would act on, each finding on its own line. */
const noControl = (text: string) => expect(text).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);

describe.each(NAMES)('a checkpoint file named $shown', ({ stem, shown }) => {
  const escaped = `.checkpoints/${shown}.checkpoint.json`;

  it('resolve refuses it in one line, as --check fails on it, and leaves it byte-identical', async () => {
    const { dir, rel } = conflicted(stem);
    const before = readFileSync(join(dir, rel));
    expect((await runCli(dir, ['resolve', '--check'])).code).toBe(1);
    for (const args of [['resolve'], ['resolve', '--add'], ['resolve', rel]]) {
      const r = await runCli(dir, args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(`checkpoint: "${escaped}": `);
      expect(r.stderr).toContain('is not a valid skill name, so resolve will not write it: rename it to <skill>.checkpoint.json');
      noControl(r.stderr.trimEnd());
    }
    expect(readFileSync(join(dir, rel)).equals(before)).toBe(true);
    expect(git(dir, ['diff', '--name-only', '--diff-filter=U', '-z']).split('\0')).toContain(rel);
  });

  it('through the merge driver too: resolve refuses what --check reports', async () => {
    const { dir, rel } = conflicted(stem, true);
    expect(readFileSync(join(dir, rel), 'utf8')).toContain('<<<<<<<');
    expect((await runCli(dir, ['resolve', '--check'])).code).toBe(1);
    const r = await runCli(dir, ['resolve']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`checkpoint: "${escaped}": `);
  });

  it('validate and doctor fail on it with what to do; status shows it as needing repair', async () => {
    const { dir } = conflicted(stem);
    const v = await runCli(dir, ['validate']);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain(`✗ ${escaped}\n`);
    expect(v.stdout).toMatch(/error +\(file name\): ".*" is not a valid skill name, so it is not read as any skill's checkpoint: rename it to <skill>\.checkpoint\.json, the skill in lowercase letters/);
    noControl(v.stdout.replace(/\n/g, ''));
    expect(v.stdout.trimEnd().split('\n')).toHaveLength(3); // the file, its one error, the tally
    // Named on the command line: its content is judged, and its name too.
    const named = await runCli(dir, ['validate', `.checkpoints/${stem}.checkpoint.json`]);
    expect(named.code).toBe(1);
    expect(named.stdout).toContain('(file name): ');
    const json = JSON.parse((await runCli(dir, ['validate', '--json'])).stdout);
    expect(json.ok).toBe(false);
    expect(json.files[0].file).toBe(`.checkpoints/${stem}.checkpoint.json`);

    const d = await runCli(dir, ['doctor', '--json']);
    expect(d.code).toBe(1);
    const findings = JSON.parse(d.stdout).findings as { level: string; check: string; message: string }[];
    expect(findings).toContainEqual(expect.objectContaining({ level: 'error', check: 'file-name' }));
    expect(JSON.parse(d.stdout).checkpoints).toBe(0); // a finding, not a checkpoint
    const text = await runCli(dir, ['doctor']);
    expect(text.stdout).toContain(`${escaped}: `);
    noControl(text.stdout.replace(/\n/g, ''));

    const l = await runCli(dir, ['list']);
    expect(l.code).toBe(1);
    expect(l.stdout).toContain(`${shown}  misnamed`);
    expect(l.stdout.trimEnd().split('\n')).toHaveLength(1);

    const s = await runCli(dir, ['status', '--brief']);
    expect(s.code).toBe(1);
    expect(s.stdout).toContain(`✗ ${shown} needs repair: ${escaped}: `);
    expect(s.stdout.trimEnd().split('\n')).toHaveLength(1);
    noControl(s.stdout.trimEnd());
  });
});

describe('next beside a misnamed checkpoint file', () => {
  it('recommends the readable checkpoint, names the misnamed one, and exits 1 with ok false like status', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, '.checkpoints/foo.checkpoint.json', doc('Started.'));
    write(dir, '.checkpoints/Foo.checkpoint.json', doc('An old copy.'));
    commitAll(dir, 'two copies');
    const text = await runCli(dir, ['next']);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/needs repair: Foo: .*Foo\.checkpoint\.json.*not a valid skill name[\s\S]*→ ship it/);
    const json = await runCli(dir, ['next', '--json']);
    expect(json.code).toBe(1);
    const out = JSON.parse(json.stdout);
    expect([out.ok, out.next.text, out.needs_repair.map((b: { skill: string }) => b.skill)]).toEqual([false, 'ship it', ['Foo']]);
    for (const args of [['status'], ['status', '--brief'], ['list']]) expect((await runCli(dir, args)).code, args.join(' ')).toBe(1);
    // Renamed away: nothing needs repair, and next exits 0.
    git(dir, ['rm', '-q', '.checkpoints/Foo.checkpoint.json']);
    const clean = await runCli(dir, ['next', '--json']);
    expect([clean.code, JSON.parse(clean.stdout).ok]).toEqual([0, true]);
  });
});

describe('a new skill named like a misnamed file in another case', () => {
  it('is refused (git would track both; a macOS or Windows clone checks out one), the file byte-identical, with the rename that makes it this skill\'s (red team 62c, 03)', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, '.checkpoints/Deploy-Ops.checkpoint.json', doc('ops').replace('"skill": "foo"', '"skill": "Deploy-Ops"'));
    commitAll(dir, 'ops');
    const before = readFileSync(join(dir, '.checkpoints/Deploy-Ops.checkpoint.json'));
    const r = await runCli(dir, ['update', 'deploy-ops', '--next_actions+=ship v3']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("checkpoint: .checkpoints/Deploy-Ops.checkpoint.json already holds a checkpoint named like \"deploy-ops\" in another case; a second file would collide in a macOS or Windows checkout; nothing was created; hint: make it this skill's: git mv .checkpoints/Deploy-Ops.checkpoint.json .checkpoints/deploy-ops.checkpoint.json (plain mv while git does not track it), or name the new skill otherwise\n");
    expect(readFileSync(join(dir, '.checkpoints/Deploy-Ops.checkpoint.json'))).toEqual(before);
    expect(git(dir, ['status', '--porcelain'])).toBe('');
    // Followed as printed, the update lands in the renamed file.
    git(dir, ['mv', '.checkpoints/Deploy-Ops.checkpoint.json', '.checkpoints/deploy-ops.checkpoint.json']);
    expect((await runCli(dir, ['update', 'deploy-ops', '--next_actions+=ship v3'])).code).toBe(0);
    expect(readFileSync(join(dir, '.checkpoints/deploy-ops.checkpoint.json'), 'utf8')).toContain('ship v3');
  });
});

describe('the rename the message asks for', () => {
  it('makes the file a checkpoint resolve settles like any other', async () => {
    const { dir, rel } = conflicted('Foo');
    const fixed = '.checkpoints/foo.checkpoint.json';
    renameSync(join(dir, rel), join(dir, fixed));
    git(dir, ['rm', '-q', '--cached', rel]);
    const r = await runCli(dir, ['resolve']);
    expect(r.stderr).not.toContain('not a valid skill name');
    expect(r.stdout).toContain(`${fixed}: `);
    expect((await runCli(dir, ['validate'])).stdout).not.toContain('not a valid skill name');
  });
});

describe('a misnamed file whose name is long or holds ESC, as the reports quote it', () => {
  const long = `${'q'.repeat(146)}Wide`; // 150 characters, no skill's name
  const files = [`${long}.checkpoint.json`, 'a\x1b[31mb.checkpoint.json', 'Foo Bar.checkpoint.json', 'x..y.checkpoint.json'];

  function project(): string {
    const dir = makeRepo();
    dirs.push(dir);
    write(dir, '.checkpoints/api.checkpoint.json', doc('Started.'));
    for (const f of files) write(dir, `.checkpoints/${f}`, doc('A copy.'));
    commitAll(dir, 'misnamed copies');
    return dir;
  }

  it('a cut name keeps its closing quote, the ellipsis inside it; ESC is shown as \\x1b, never \\u001b', async () => {
    const dir = project();
    for (const args of [['validate'], ['doctor'], ['status'], ['list']]) {
      const r = await runCli(dir, args);
      const text = r.stdout + r.stderr;
      expect(text, args.join(' ')).toContain(`"${'q'.repeat(80)}…" (150 characters) is not a valid skill name`);
      expect(text, args.join(' ')).toContain('"a\\x1b[31mb" is not a valid skill name');
      expect(text, args.join(' ')).not.toContain('\\u001b');
      noControl(text.replace(/\n/g, ''));
    }
  });

  it('cannot widen the skill column of status or list: its name is cut to fit, every row stays aligned', async () => {
    const dir = project();
    const cut = `${'q'.repeat(MISNAMED_CELL_WIDTH - 1)}…`;
    for (const [args, second] of [[['status'], /(in_progress|needs repair)/], [['list'], /(in_progress|misnamed)/]] as const) {
      const rows = (await runCli(dir, [...args])).stdout.split('\n').filter((l) => second.test(l));
      expect(rows, args.join(' ')).toHaveLength(1 + files.length);
      // The second column starts where a short name and a cell of MISNAMED_CELL_WIDTH leave it, in every row.
      expect(new Set(rows.map((l) => l.search(second))), args.join(' ')).toEqual(new Set([MISNAMED_CELL_WIDTH + 2]));
      expect(rows.some((l) => l.startsWith(`${cut}  `)), args.join(' ')).toBe(true);
    }
    const brief = (await runCli(dir, ['status', '--brief'])).stdout;
    expect(brief).toContain(`✗ ${cut} needs repair: .checkpoints/${'q'.repeat(67)}`);
  });

  it('--json carries each misnamed file by its real name (JSON escapes it), never our display escaping', async () => {
    const dir = project();
    const real = files.map((f) => ({ skill: f.slice(0, -'.checkpoint.json'.length), file: `.checkpoints/${f}` }));
    const pick = (entries: { skill: string; file?: string }[]) => entries.filter((e) => e.file !== undefined).map(({ skill, file }) => ({ skill, file }));
    const byName = (a: { skill: string }, b: { skill: string }) => (a.skill < b.skill ? -1 : 1);
    const want = [...real].sort(byName);
    const status = await runCli(dir, ['status', '--json']);
    expect(status.stdout).toContain('"a\\u001b[31mb"'); // ESC escaped by JSON itself
    expect(pick(JSON.parse(status.stdout).broken).sort(byName)).toEqual(want);
    expect(pick(JSON.parse((await runCli(dir, ['list', '--json'])).stdout)).sort(byName)).toEqual(want);
    const next = JSON.parse((await runCli(dir, ['next', '--json'])).stdout);
    expect(pick(next.needs_repair).sort(byName)).toEqual(want);
    const findings = JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout).findings as { check: string; skill: string; evidence?: { file?: string } }[];
    expect(findings.filter((f) => f.check === 'file-name').map((f) => ({ skill: f.skill, file: f.evidence?.file })).sort(byName)).toEqual(want);
    // The name a script reads is a file it can open.
    for (const { file } of want) expect(readFileSync(join(dir, file), 'utf8')).toContain('A copy.');
  });
});

describe('several misnamed files in one conflicted merge', () => {
  // Git lists them sorted by bytes: "F", "a", "q", "x".
  const stems = ['Foo Bar', 'a\x1b[31mb', 'x..y', `${'q'.repeat(146)}Wide`];
  const rels = stems.map((s) => `.checkpoints/${s}.checkpoint.json`);

  function conflictedAll(driver = false): string {
    const dir = makeRepo();
    dirs.push(dir);
    if (driver) expect(cli(dir, ['install-driver']).code).toBe(0);
    const all = [...rels, '.checkpoints/api.checkpoint.json'];
    for (const rel of all) write(dir, rel, doc('Started.'));
    commitAll(dir, 'base');
    git(dir, ['checkout', '-q', '-b', 'other']);
    for (const rel of all) write(dir, rel, doc('Theirs.'));
    commitAll(dir, 'other');
    git(dir, ['checkout', '-q', 'main']);
    for (const rel of all) write(dir, rel, doc('Ours.'));
    commitAll(dir, 'ours');
    expect(gitTry(dir, ['merge', '-q', 'other']).status).not.toBe(0);
    return dir;
  }

  it('resolve quotes the first three in its one refusal line, then how many more, points to --check for all, and writes nothing', async () => {
    const dir = conflictedAll();
    const before = rels.map((rel) => readFileSync(join(dir, rel)));
    const r = await runCli(dir, ['resolve', '--add']);
    expect(r.code).toBe(2);
    const line = r.stderr.trimEnd();
    expect(line.split('\n')).toHaveLength(1);
    // Each quoted (a space or a comma inside one cannot blur where it ends), a long one cut at a path's 160 characters.
    expect(line).toContain(`checkpoint: ".checkpoints/Foo Bar.checkpoint.json", ".checkpoints/a\\x1b[31mb.checkpoint.json", ".checkpoints/${'q'.repeat(146)}W…" (179 characters) and 1 more: 4 checkpoint files whose names are not valid skill names, so resolve will not write them`);
    expect(line).toContain('; hint: `checkpoint resolve --check` lists every one; settle their markers by hand');
    noControl(line);
    // As the hint says: --check names all four, the one left out of the line included.
    const check = (await runCli(dir, ['resolve', '--check'])).stdout;
    for (const rel of rels) expect(check, rel).toContain(`✗ ${rel.replace('\x1b', '\\x1b').slice(0, 40)}`);
    // Named on the command line, each one is named too.
    const named = await runCli(dir, ['resolve', rels[0]!, rels[2]!]);
    expect([named.code, named.stderr]).toEqual([2, expect.stringContaining('checkpoint: ".checkpoints/Foo Bar.checkpoint.json", ".checkpoints/x..y.checkpoint.json": 2 checkpoint files')]);
    rels.forEach((rel, k) => expect(readFileSync(join(dir, rel)).equals(before[k]!)).toBe(true));
  });

  it('resolve --check advises what works for them (never resolve --add first), and following it lets resolve --add run', async () => {
    const dir = conflictedAll(true);
    const check = await runCli(dir, ['resolve', '--check']);
    expect(check.code).toBe(1);
    const lines = check.stdout.trimEnd().split('\n');
    for (const rel of rels) expect(lines.find((l) => l.startsWith(`✗ ${rel.replace('\x1b', '\\x1b').slice(0, 40)}`)), rel).toContain("its name is no skill's, so resolve will not write it");
    const advice = lines.findIndex((l) => l.startsWith('for the 4 misnamed files: settle their markers by hand and git add them, or rename each to <skill>.checkpoint.json with mv, then git rm --cached the old name'));
    const resolveAdd = lines.findIndex((l) => l.includes('checkpoint resolve --add'));
    expect([advice >= 0, resolveAdd > advice, lines[resolveAdd]!.startsWith('then run ')]).toEqual([true, true, true]);
    expect(JSON.parse((await runCli(dir, ['resolve', '--check', '--json'])).stdout).misnamed).toEqual([...rels].sort());

    // As advised: one renamed (mv, then git rm --cached the old name), the others settled by hand and added.
    renameSync(join(dir, rels[0]!), join(dir, '.checkpoints/foo-bar.checkpoint.json'));
    git(dir, ['rm', '-q', '--cached', rels[0]!]);
    for (const rel of rels.slice(1)) {
      write(dir, rel, doc('Settled by hand.'));
      git(dir, ['add', '--', rel]);
    }
    const r = await runCli(dir, ['resolve', '--add']);
    expect(r.code, r.stderr).not.toBe(2);
    expect(r.stderr).not.toContain('not a valid skill name');
    expect(r.stdout).toContain('.checkpoints/foo-bar.checkpoint.json: ');
    expect(r.stdout).toContain('.checkpoints/api.checkpoint.json: ');
  });

  it('one misnamed file alone: --check advises settling or renaming it, then resolve', async () => {
    const dir = conflictedAll();
    for (const rel of rels.slice(1)) {
      write(dir, rel, doc('Settled by hand.'));
      git(dir, ['add', '--', rel]);
    }
    const lines = (await runCli(dir, ['resolve', '--check'])).stdout.trimEnd().split('\n');
    expect(lines).toContain('for the misnamed file: settle its markers by hand and git add it, or rename it to <skill>.checkpoint.json with mv, then git rm --cached the old name (git mv refuses a conflicted file)');
    expect(lines.at(-1)).toBe('then run `checkpoint resolve --add` locally (hosted merge buttons bypass the merge driver)');
  });
});
