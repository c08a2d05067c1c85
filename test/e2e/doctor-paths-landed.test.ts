// Paths and landed work doctor misread (red team round 14), each as a user meets it: a hand-kept
// checkpoint committed and published months ago, ordinary commits since, and the push to a local
// bare remote: a real `git push` through the hook `checkpoint init` installs in two cases (one
// refused, one let through), and in the rest what that hook runs, doctor on the pushed range,
// in-process (judgedPush).
import { describe, expect, it } from 'vitest';
import { generatedFileFindings, runCli, type DoctorFinding } from '../helpers/in-process.js';
import { commitAll, git, gitTry, makeRepo, write, initialized } from '../helpers/repo.js';
import { judgedPush, published } from '../helpers/published.js';


/** Written by hand, the way agents leave them: a fractional-second date, notes in paths, a row status off the enum. */
function handKept(skill: string, over: Record<string, unknown>): Record<string, unknown> {
  return {
    protocol_version: '1.1', skill, project: 'demo', project_dir: 'C:\\Users\\me\\proj',
    created_at: '2026-02-27T10:00:00Z', updated_at: '2026-03-14T08:01:59.412Z',
    phase: 'build', step: 'wire it up', status: 'in_progress', progress_summary: 'half way; see notes',
    progress_table: [{ id: 'p1', label: 'Phase 1', status: 'complete' }, { id: 'p2', label: 'Phase 2', status: 'in_progress', note: 'gen ~8.0 min' }],
    next_actions: ['Ship'],
    context_primer: { key_decisions: ['kept the v1 cache format (PR 12)'], generated_files: [] },
    ...over,
  };
}

const push = (dir: string) => {
  const r = gitTry(dir, ['push', 'origin', 'main']);
  return { status: r.status, out: r.stdout + r.stderr };
};

type Found = DoctorFinding;
const fileFindings = generatedFileFindings;

describe('Windows and home paths in generated_files (r14 W4)', () => {
  const files = { 'src/x.ts': 'export const x = 1;\n', 'src/old.ts': 'export const old = 1;\n', 'docs/a, b.md': '# a file named with a comma\n' };
  const entries = [
    'C:\\Users\\me\\proj\\src\\x.ts',
    'C:/Users/me/proj/src/x.ts (PR 3)',
    'c:\\users\\ME\\PROJ\\src\\x.ts',
    'C:\\Users\\me\\proj\\src\\old.ts — codegen output',
    'D:\\elsewhere\\z.ts',
    '~/proj/src/x.ts',
    'docs/a, b.md',
  ];

  it('reads a path under a Windows project_dir (any case, either slash) in this checkout; other Windows and home paths are notes', async () => {
    const dir = published('win', handKept('win', { context_primer: { key_decisions: [], generated_files: entries } }), files);
    for (const engine of ['native', 'isomorphic']) {
      expect((await fileFindings(dir, engine)).map((f) => [f.path, f.level, f.message]), engine).toEqual([
        ['context_primer.generated_files[4]', 'info', '"D:\\\\elsewhere\\\\z.ts" names a path outside the repository; not checked'],
        ['context_primer.generated_files[5]', 'info', '"~/proj/src/x.ts" names a path outside the repository; not checked'],
      ]);
    }
    // Still drift when the file named under project_dir moves.
    git(dir, ['mv', 'src/old.ts', 'src/new.ts']);
    const sha = commitAll(dir, 'Rename the old module').slice(0, 7);
    const drift = (await fileFindings(dir)).filter((f) => f.level === 'warning');
    expect(drift.map((f) => [f.path, f.message])).toEqual([['context_primer.generated_files[3]', `src/old.ts is missing: renamed to src/new.ts in ${sha}; update the checkpoint (\`checkpoint update win --context_primer.generated_files.3='C:\\Users\\me\\proj\\src\\old.ts — codegen output — renamed to src/new.ts'\`)`]]);
    const r = push(dir);
    expect(r.status, r.out).not.toBe(0);
    expect(r.out).toMatch(/src\/old\.ts is missing: renamed to src\/new\.ts[^\n]*\[blocks push\]/);
    expect(r.out).not.toMatch(/x\.ts is missing/);
  });

  it('a Windows path under a POSIX project_dir is outside the repository, not missing; a home path under a home project_dir is exact', async () => {
    const dir = published('posix', handKept('posix', { project_dir: '/home/claude/proj', context_primer: { key_decisions: [], generated_files: ['C:\\Users\\me\\proj\\src\\x.ts', 'C:/Users/me/proj/src/x.ts'] } }), files);
    expect((await fileFindings(dir)).map((f) => [f.level, f.message.replace(/^".*" /, '')])).toEqual([['info', 'names a path outside the repository; not checked'], ['info', 'names a path outside the repository; not checked']]);
    const home = published('home', handKept('home', { project_dir: '~/proj', context_primer: { key_decisions: [], generated_files: ['~/proj/src/x.ts', '~/proj/src/old.ts (codegen)'] } }), files);
    expect(await fileFindings(home)).toEqual([]);
    git(home, ['rm', '-q', 'src/old.ts']);
    const sha = commitAll(home, 'Drop the old module').slice(0, 7);
    expect((await fileFindings(home)).map((f) => [f.path, f.level, f.message])).toEqual([['context_primer.generated_files[1]', 'warning', `src/old.ts is missing: deleted in ${sha} "Drop the old module"; update the checkpoint (\`checkpoint update home --context_primer.generated_files.1='~/proj/src/old.ts (codegen; deleted)'\`) or restore the file`]]);
  });
});

describe('an absolute path with a space in its folders (red team 12-06)', () => {
  const files = { 'docs/my dir/notes.md': '# notes\n', 'src/x.ts': 'export const x = 1;\n' };
  // Prose after a slash or a drive in words stays a note, whatever is deleted.
  const prose = ['/ see the notes in docs', 'C: drive cleanup'];
  // Each with the entry its finding's fix writes: a note saying the file was deleted, its own note kept.
  const cases: [string, (dir: string) => string, (dir: string) => string, string][] = [
    ['this checkout', (dir) => dir, (dir) => `${dir}/docs/my dir/notes.md`, '(deleted)'],
    ['another machine', () => '/home/claude/demo', () => '/home/claude/demo/docs/my dir/notes.md (kept by hand)', '(kept by hand; deleted)'],
    ['Windows', () => 'C:\\Users\\me\\My Project', () => 'C:\\Users\\me\\My Project\\docs\\my dir\\notes.md', '(deleted)'],
  ];

  it.each(cases)('under project_dir (%s) is checked as the relative path is: its deletion is drift and the deleting push is refused', async (_, projectDir, entry, gone) => {
    const dir = published('spaced', handKept('spaced', { context_primer: { key_decisions: [], generated_files: ['src/x.ts'] } }), files);
    write(dir, '.checkpoints/spaced.checkpoint.json', `${JSON.stringify(handKept('spaced', { project_dir: projectDir(dir), context_primer: { key_decisions: [], generated_files: [entry(dir), ...prose] } }), null, 2)}\n`);
    commitAll(dir, 'cp: list the notes');
    const added = await judgedPush(dir);
    expect(added.status, added.out).toBe(0);
    const notes = (found: Found[]) => found.filter((f) => f.level === 'info').map((f) => f.path);
    for (const engine of ['native', 'isomorphic']) {
      const found = await fileFindings(dir, engine);
      expect(found.filter((f) => f.level !== 'info'), engine).toEqual([]);
      expect(notes(found), engine).toEqual(['context_primer.generated_files[1]', 'context_primer.generated_files[2]']);
    }
    git(dir, ['rm', '-q', 'docs/my dir/notes.md']);
    const sha = commitAll(dir, 'Drop the notes').slice(0, 7);
    for (const engine of ['native', 'isomorphic']) {
      const found = await fileFindings(dir, engine);
      expect(found.filter((f) => f.level !== 'info').map((f) => [f.path, f.level, f.message]), engine).toEqual([
        ['context_primer.generated_files[0]', 'warning', `docs/my dir/notes.md is missing: deleted in ${sha} "Drop the notes"; update the checkpoint (\`checkpoint update spaced --context_primer.generated_files.0='${entry(dir).replace(/ \(.*\)$/, '')} ${gone}'\`) or restore the file`],
      ]);
      expect(notes(found), engine).toEqual(['context_primer.generated_files[1]', 'context_primer.generated_files[2]']);
    }
    const r = await judgedPush(dir);
    expect(r.status, r.out).not.toBe(0);
    expect(r.out).toMatch(/docs\/my dir\/notes\.md is missing: deleted in [0-9a-f]{7} "Drop the notes"[^\n]*\[blocks push\]/);
  });

  it('outside the repository and project_dir it is a note, as one without spaces is', async () => {
    const dir = published('spaced', handKept('spaced', { project_dir: '/home/claude/demo', context_primer: { key_decisions: [], generated_files: ['/Users/me/Other Project/docs/a.md'] } }), files);
    expect((await fileFindings(dir)).map((f) => [f.level, f.message])).toEqual([['info', '"/Users/me/Other Project/docs/a.md" names a path outside the repository; not checked']]);
  });
});

describe('a comma list in one generated_files entry (r14 W4)', () => {
  const files = { 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 1;\n', 'docs/a, b.md': '# named with a comma\n' };

  it('checks each part: a missing part is drift, and a push that deletes a listed part is refused', async () => {
    const dir = published('list', handKept('list', { project_dir: '/home/claude/demo', context_primer: { key_decisions: [], generated_files: ['src/a.ts, src/b.ts (PR 4)', 'docs/a, b.md', '`src/a.ts`, docs/*.md'] } }), files);
    expect(await fileFindings(dir)).toEqual([]);
    git(dir, ['rm', '-q', 'src/b.ts']);
    const sha = commitAll(dir, 'Drop the b module').slice(0, 7);
    expect((await fileFindings(dir)).map((f) => [f.path, f.level, f.message])).toEqual([['context_primer.generated_files[0]', 'warning', `src/b.ts is missing: deleted in ${sha} "Drop the b module"; update the checkpoint (\`checkpoint update list --context_primer.generated_files.0='src/a.ts' --context_primer.generated_files+='src/b.ts (PR 4; deleted)'\`) or restore the file`]]);
    const r = await judgedPush(dir);
    expect(r.status, r.out).not.toBe(0);
    expect(r.out).toMatch(/src\/b\.ts is missing[^\n]*\[blocks push\]/);
  });

  it('reports every missing part, where the whole entry used to be a note', async () => {
    const dir = makeRepo();
    initialized(dir);
    write(dir, '.checkpoints/gone.checkpoint.json', `${JSON.stringify(handKept('gone', { project_dir: dir, updated_at: new Date().toISOString(), context_primer: { generated_files: ['src/gone1.ts, src/gone2.ts', 'src/x.ts, and more'] } }), null, 2)}\n`);
    commitAll(dir, 'checkpoint');
    // Never in history: the search went back walk_days (365) from the day doctor ran (DAY here).
    expect((await fileFindings(dir)).map((f) => [f.path, f.level, f.message.replace(/since \d{4}-\d\d-\d\d /, 'since DAY ')])).toEqual([
      ['context_primer.generated_files[0]', 'warning', `src/gone1.ts is missing; no commit in HEAD's history dated since DAY deleted or renamed it (an older or misdated one may have: \`git log --full-history -1 -- src/gone1.ts\`)`],
      ['context_primer.generated_files[0]', 'warning', `src/gone2.ts is missing; no commit in HEAD's history dated since DAY deleted or renamed it (an older or misdated one may have: \`git log --full-history -1 -- src/gone2.ts\`)`],
      ['context_primer.generated_files[1]', 'info', '"src/x.ts, and more" names no file; read as a note, not checked'],
    ]);
  });
});

describe('paths joined by a bare comma in one generated_files entry (red team rtB 06)', () => {
  const files = { 'src/x.ts': 'export const x = 1;\n', 'src/a.ts': 'export const a = 1;\n', 'docs/a,b.md': '# named with a comma\n' };

  it('both files there: no finding and the save\'s push goes through; one deleted: named missing on its own, and its push refused', async () => {
    const dir = published('commas', handKept('commas', { project_dir: '/home/claude/demo' }), files);
    const cp = handKept('commas', { project_dir: '/home/claude/demo', updated_at: '2026-03-20T10:00:00Z', context_primer: { key_decisions: [], generated_files: ['src/x.ts,src/a.ts (PR 12)', 'docs/a,b.md'] } });
    write(dir, '.checkpoints/commas.checkpoint.json', `${JSON.stringify(cp, null, 2)}\n`);
    commitAll(dir, 'checkpoint: list the generated files', '2026-03-20T10:00:01Z');
    expect(await fileFindings(dir)).toEqual([]);
    const saved = push(dir);
    expect(saved.out).not.toMatch(/missing|blocks push/);
    expect(saved.status, saved.out).toBe(0);
    git(dir, ['rm', '-q', 'src/a.ts']);
    const sha = commitAll(dir, 'Drop the a module').slice(0, 7);
    expect((await fileFindings(dir)).map((f) => [f.path, f.level, f.message])).toEqual([['context_primer.generated_files[0]', 'warning', `src/a.ts is missing: deleted in ${sha} "Drop the a module"; update the checkpoint (\`checkpoint update commas --context_primer.generated_files.0='src/x.ts' --context_primer.generated_files+='src/a.ts (PR 12; deleted)'\`) or restore the file`]]);
    const r = await judgedPush(dir);
    expect(r.status, r.out).not.toBe(0);
    expect(r.out).toMatch(/src\/a\.ts is missing[^\n]*\[blocks push\]/);
  });
});

describe('landed PRs written as people write them (r14 W5)', () => {
  const actions = ['Merge PR#45', 'Land https://github.com/org/repo/pull/47 once CI is green', 'Review PR 46', 'Port the C# client (step #1, issue #3)', 'Ship'];

  it('a squash or merge of PR#45, PR 46 or a pull/47 URL lands the action: next skips it, doctor names it, the push is refused', async () => {
    const dir = published('api', handKept('api', { project_dir: '/home/claude/demo', next_actions: actions }));
    commitAll(dir, 'Add export (#45)');
    commitAll(dir, 'Merge pull request #46 from org/review-fixes');
    commitAll(dir, 'Fix the CI link (#47)');
    // Numbers that name no PR of these actions: a step and an issue.
    commitAll(dir, 'Tidy the build (#1)');
    commitAll(dir, 'Triage (#3)');
    const next = JSON.parse((await runCli(dir, ['next', '--json'])).stdout).next as { text: string; skipped_as_landed: { text: string }[] };
    expect(next).toMatchObject({ text: actions[3], skipped_as_landed: actions.slice(0, 3).map((text) => ({ text })) });
    for (const engine of ['native', 'isomorphic']) {
      const landed = (JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings as Found[]).filter((f) => f.message.includes('landed'));
      expect(landed.map((f) => [f.path, f.message.replace(/,? which landed.*/, '')]), engine).toEqual([
        ['next_actions[0]', '"Merge PR#45" names #45'],
        ['next_actions[1]', '"Land https://github.com/org/repo/pull/47 once CI is green" names #47'],
        ['next_actions[2]', '"Review PR 46" names #46'],
      ]);
    }
    const r = await judgedPush(dir);
    expect(r.status, r.out).not.toBe(0);
    for (const n of [45, 46, 47]) expect(r.out).toMatch(new RegExp(`names #${n}, which landed[^\\n]*\\[blocks push\\]`));
    expect(r.out).not.toMatch(/names #[13]\b/);
  });
});

describe('a PR URL of another repository (round 11)', () => {
  // Work on the request itself (not a port of it, which follows up its landing whatever form names it: red team 64).
  const foreign = 'Finish the fix in https://github.com/other-org/other-repo/pull/45 for src/auth.ts (see docs/**/*.md)';
  const own = 'Land https://GitHub.com/acme/shop/pull/46 once CI is green';
  const actions = [own, 'Merge PR#50 (auth middleware)', foreign, 'Ship the session docs'];
  const landedIn = async (dir: string, engine: string) =>
    (JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings as Found[]).filter((f) => f.message.includes('landed')).map((f) => f.path);
  type Landed = { text: string }[];
  /** The actions a command's --json output says landed (status: per skill; next and resume: skipped). */
  const skippedIn = (out: { skills?: { landed_actions: Landed }[]; next?: { skipped_as_landed: Landed }; skipped_as_landed?: Landed }) =>
    (out.skills?.[0]?.landed_actions ?? (out.next ?? out).skipped_as_landed)!.map((s) => s.text);
  const skipped = async (dir: string, cmd: string[]) => skippedIn(JSON.parse((await runCli(dir, [...cmd, '--json'])).stdout));

  it('is not this repository\'s #45: doctor (both engines), next, resume and the push judge only this repository\'s PRs; with no hosted remote it counts as before', async () => {
    const dir = published('api', handKept('api', { project_dir: '/home/claude/demo', next_actions: actions }));
    // This repository on GitHub, as a clone names it (origin is the local bare remote the push goes to).
    git(dir, ['remote', 'add', 'github', 'git@github.com:Acme/Shop.git']);
    commitAll(dir, 'Merge pull request #45 from acme/feat');
    commitAll(dir, 'Ship the CI link (#46)');
    commitAll(dir, 'Merge pull request #50 from acme/auth');
    for (const engine of ['native', 'isomorphic']) expect(await landedIn(dir, engine), engine).toEqual(['next_actions[0]', 'next_actions[1]']);
    const next = JSON.parse((await runCli(dir, ['next', '--json'])).stdout);
    expect(skippedIn(next)).toEqual([own, actions[1]]);
    expect(await skipped(dir, ['resume', 'api'])).toEqual([own, actions[1]]);
    expect(await skipped(dir, ['status'])).toEqual([own, actions[1]]);
    expect(next.next.text).toBe(foreign);
    const r = await judgedPush(dir);
    expect(r.status, r.out).not.toBe(0);
    expect(r.out).toMatch(/names #46, which landed/);
    expect(r.out).not.toMatch(/names #45/);

    // Without a hosted remote nothing tells the other repository apart: counted, as before (and not remembered from the run above).
    git(dir, ['remote', 'remove', 'github']);
    for (const engine of ['native', 'isomorphic']) expect(await landedIn(dir, engine), engine).toEqual(['next_actions[0]', 'next_actions[1]', 'next_actions[2]']);
    expect(await skipped(dir, ['next'])).toEqual(actions.slice(0, 3));
    expect(await skipped(dir, ['status'])).toEqual(actions.slice(0, 3));
    // An https remote with .git, in a linked worktree (remotes live in the common config), tells them apart again.
    git(dir, ['remote', 'add', 'up', 'https://github.com/acme/shop.git']);
    const wt = `${dir}-wt`;
    git(dir, ['worktree', 'add', '-q', wt]);
    try {
      expect(await skipped(wt, ['next'])).toEqual([own, actions[1]]);
      expect(await landedIn(wt, 'isomorphic')).toEqual(['next_actions[0]', 'next_actions[1]']);
    } finally {
      git(dir, ['worktree', 'remove', '--force', wt]);
    }
  });
});

describe('a complete skill whose generated file is renamed (r14 U2)', () => {
  const complete = handKept('old', {
    status: 'complete', phase: 'done', step: 'shipped', progress_summary: 'finished in March (see #12)', next_actions: [],
    progress_table: [{ id: 'a', label: 'Codegen', status: 'complete' }],
    context_primer: { key_decisions: ['generated once, then hand-tuned'], generated_files: ['src/gen.ts (PR 12)', 'lib/*.ts (codegen)'] },
  });
  const files = { 'src/gen.ts': 'export const v = 1;\n', 'lib/client.ts': 'export const client = 1;\n', 'lib/server.ts': 'export const server = 1;\n' };

  it('is advice, as its edits are, and the push goes through; open work still blocks on it', async () => {
    const dir = published('old', complete, files);
    git(dir, ['mv', 'src/gen.ts', 'src/generated.ts']);
    git(dir, ['mv', 'lib/client.ts', 'src/client.ts']);
    const sha = commitAll(dir, 'Rename the generated modules').slice(0, 7);
    for (const engine of ['native', 'isomorphic']) {
      expect((await fileFindings(dir, engine)).map((f) => [f.path, f.level, f.message.replace(/ after the checkpoint.*/, '')]), engine).toEqual([
        ['context_primer.generated_files[0]', 'advice', `src/gen.ts is missing: renamed to src/generated.ts in ${sha}; update the checkpoint (\`checkpoint update old --context_primer.generated_files.0='src/gen.ts (PR 12; renamed to src/generated.ts)'\`)`],
        ['context_primer.generated_files[1]', 'advice', 'lib/client.ts (matched by lib/*.ts) was renamed to src/client.ts'],
      ]);
    }
    const r = await judgedPush(dir);
    expect(r.out).not.toMatch(/blocks push/);
    expect(r.status, r.out).toBe(0);
    expect((await runCli(dir, ['doctor', '--fail-on-warnings'])).code).toBe(0);

    const open = published('old', { ...complete, status: 'in_progress', next_actions: ['Regenerate the client'] }, files);
    git(open, ['mv', 'src/gen.ts', 'src/generated.ts']);
    commitAll(open, 'Rename the generated module');
    const refused = await judgedPush(open);
    expect(refused.status, refused.out).not.toBe(0);
    expect(refused.out).toMatch(/src\/gen\.ts is missing: renamed to src\/generated\.ts[^\n]*\[blocks push\]/);
  });
});

describe('a file a brace entry names, renamed in its folder (r14 U2)', () => {
  it('is named renamed, not deleted: advice for a complete skill, drift for open work', async () => {
    const files = { 'lib/client.ts': 'export const client = 1;\n', 'lib/server.ts': 'export const server = 1;\n' };
    for (const status of ['complete', 'in_progress']) {
      const dir = published('gen', handKept('gen', { status, next_actions: status === 'complete' ? [] : ['Ship'], context_primer: { generated_files: ['lib/{client,server}.ts (codegen)'] } }), files);
      git(dir, ['mv', 'lib/client.ts', 'lib/api-client.ts']);
      commitAll(dir, 'Rename the client');
      expect((await fileFindings(dir)).map((f) => [f.level, f.message.replace(/ after the checkpoint.*/, '')]), status).toEqual([
        [status === 'complete' ? 'advice' : 'warning', 'lib/client.ts (matched by lib/{client,server}.ts) was renamed to lib/api-client.ts'],
      ]);
    }
  });
});

describe('a file two generated_files entries name', () => {
  it('is one finding, under the first literal entry; a glob beside it reports the other files it matches; the push says it once', async () => {
    const files = { 'src/orders.ts': 'export const orders = 1;\n', 'src/other.ts': 'export const other = 1;\n' };
    const entries = ['src/orders.ts', 'src/*.ts', 'src/orders.ts (PR 12)'];
    const dir = published('api', handKept('api', { context_primer: { key_decisions: [], generated_files: entries } }), files);
    write(dir, 'src/orders.ts', 'export const orders = 2;\n');
    const sha = commitAll(dir, 'Orders API (#12)').slice(0, 7);
    for (const engine of ['native', 'isomorphic']) {
      expect((await fileFindings(dir, engine)).map((f) => [f.path, f.message.replace(/ \(\w+ "Orders.*$/, '')]), engine).toEqual([
        ['context_primer.generated_files[0]', 'src/orders.ts changed after the checkpoint was written'],
      ]);
    }
    write(dir, 'src/other.ts', 'export const other = 2;\n');
    commitAll(dir, 'Tidy other');
    expect((await fileFindings(dir)).map((f) => [f.path, f.message.replace(/ \(\w+ ".*$/, '')])).toEqual([
      ['context_primer.generated_files[0]', 'src/orders.ts changed after the checkpoint was written'],
      ['context_primer.generated_files[1]', 'src/other.ts (matched by src/*.ts) changed after the checkpoint was written'],
    ]);
    const r = await judgedPush(dir);
    expect(r.status, r.out).not.toBe(0);
    expect(r.out.match(/src\/orders\.ts changed after the checkpoint/g)).toHaveLength(1);
    expect(r.out).toContain(sha);
  });
});

describe('GitHub\'s owner/repo#N reference to this repository', () => {
  it('doctor reports the landing and next skips the action, as for #N or the PR URL; another repository\'s is left alone', async () => {
    const dir = published('xref', handKept('xref', { next_actions: ['Land acme/shop#31 after review', 'Port other-org/shop#32'] }));
    git(dir, ['remote', 'add', 'upstream', 'git@github.com:Acme/Shop.git']);
    write(dir, 'src/a.ts', 'a\n');
    commitAll(dir, 'Add a (#31)');
    write(dir, 'src/b.ts', 'b\n');
    commitAll(dir, 'Port b (#32)');
    for (const engine of ['native', 'isomorphic']) {
      const landed = (JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings as Found[]).filter((f) => f.path.startsWith('next_actions'));
      expect(landed.map((f) => `${f.level} ${f.path}`), engine).toEqual(['warning next_actions[0]']);
    }
    const next = await runCli(dir, ['next']);
    expect(next.stdout).toMatch(/→ Port other-org\/shop#32/);
  });
});

describe('a request another repository of the same organisation numbers, named with it (red team s56)', () => {
  // The web app's PRs, named as people name them beside this repository's own (acme/api); this
  // repository's dependabot squashes carry the same numbers: "chore(deps): bump x (#12)".
  const foreign = ['Merge PR #12 in acme/web once the API is deployed', "Review the web repo's PR #13", 'Merge the frontend PR (acme/web PR 14)'];
  const own = ['Merge PR #15 after review', 'Rebase PR #16 on release/1.x'];

  it('lands nothing here: doctor (both engines), next and the push through the hook judge only this repository\'s numbers', async () => {
    const dir = published('frontend', handKept('frontend', { next_actions: [...foreign, 'Write the web docs'] }));
    git(dir, ['remote', 'add', 'github', 'git@github.com:acme/api.git']);
    for (const n of [12, 13, 14]) commitAll(dir, `chore(deps): bump lib-${n} (#${n})`);
    for (const engine of ['native', 'isomorphic']) {
      const landed = (JSON.parse((await runCli(dir, ['doctor', '--json', '--engine', engine])).stdout).findings as Found[]).filter((f) => f.path.startsWith('next_actions'));
      expect(landed, engine).toEqual([]);
    }
    expect(JSON.parse((await runCli(dir, ['next', '--json'])).stdout).next.text).toBe(foreign[0]);
    const r = push(dir);
    expect(r.status, r.out).toBe(0);
    expect(r.out).not.toMatch(/names #1[234]/);
  });

  it('this repository\'s own numbers, a branch beside them, still land, and the push is refused', async () => {
    const dir = published('api', handKept('api', { next_actions: [...own, 'Write the docs'] }));
    git(dir, ['remote', 'add', 'github', 'git@github.com:acme/api.git']);
    for (const n of [15, 16]) commitAll(dir, `Merge pull request #${n} from acme/feat-${n}`);
    const landed = (JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout).findings as Found[]).filter((f) => f.path.startsWith('next_actions'));
    expect(landed.map((f) => f.path)).toEqual(['next_actions[0]', 'next_actions[1]']);
    const r = push(dir);
    expect(r.status, r.out).not.toBe(0);
    expect(r.out).toMatch(/names #15, which landed[^\n]*\[blocks push\]/);
  });
});
