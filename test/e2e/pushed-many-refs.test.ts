// A push of many refs at once (`git push --tags`, several branches, a first push to a new remote):
// doctor asks git about all the pushed tips together (pushedCommitsEach, filesInEach, one read
// of their checkpoints), and judges each tip exactly as a push of that ref alone would. Real git,
// a local bare remote; the hook's own run at the end.
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { gatherEvidence } from '../../src/doctor/evidence.js';
import { judgePushedTips, sentRanges } from '../../src/doctor/pushed-tips.js';
import { parsePushRange } from '../../src/doctor/push.js';
import type { Checkpoint } from '../../src/protocol/types.js';
import { assertBuilt, cli, commitAll, git, gitTry, headSha, initialized, makeRepo, read, withRemote, write } from '../helpers/repo.js';

const FILE = '.checkpoints/api.checkpoint.json';

interface Finding {
  level: string;
  check: string;
  skill: string | null;
  path: string;
  message: string;
  blocks: boolean;
  evidence?: { file?: string; sha?: string; missing?: boolean };
}

/** What the pre-push hook would pass for each ref, and the refs' commits, named. */
let repo: { dir: string; ranges: string[]; c: Record<string, string> };

beforeAll(() => {
  assertBuilt();
  const dir = makeRepo();
  withRemote(dir);
  initialized(dir);
  write(dir, 'src/gen/client.ts', 'export {};\n');
  const u = cli(dir, ['update', 'api', '--phase=build', '--step=docs', '--next_actions+=Write docs for PLAT-9', '--context_primer.generated_files+=src/gen/client.ts']);
  expect(u.code, u.stderr).toBe(0);
  commitAll(dir, 'Start the api skill');
  expect(gitTry(dir, ['push', '-q', 'origin', 'main']).status).toBe(0);
  const published = headSha(dir);
  const branch = (name: string, from: string) => git(dir, ['checkout', '-q', '-b', name, from]);
  // drift: a generated file changed after the checkpoint, which still lists it.
  branch('drift', published);
  write(dir, 'src/gen/client.ts', 'export const v = 2;\n');
  const regenerate = commitAll(dir, 'Regenerate the client');
  git(dir, ['tag', '-a', 'v1', '-m', 'v1']);
  git(dir, ['tag', 'l1']);
  // drift2: above drift, a change of its own that is no drift (drift's commit is sent with it).
  branch('drift2', 'drift');
  write(dir, 'more.md', 'more\n');
  const more = commitAll(dir, 'More notes');
  // clean: nothing the checkpoint relies on.
  branch('clean', published);
  write(dir, 'notes.md', 'notes\n');
  const notes = commitAll(dir, 'Add notes');
  git(dir, ['tag', '-a', 'v2', '-m', 'v2']);
  // landed: work the checkpoint still queues.
  branch('landed', published);
  write(dir, 'docs/plat-9.md', 'docs\n');
  const landed = commitAll(dir, 'PLAT-9: write docs (#21)');
  // invalid: the pushed checkpoint itself is invalid (the push carries it).
  branch('invalid', published);
  const doc = JSON.parse(read(dir, FILE)) as Record<string, unknown>;
  write(dir, FILE, `${JSON.stringify({ ...doc, status: 'ready-to-deploy' }, null, 2)}\n`);
  const invalid = commitAll(dir, 'api: ready');
  // main moves on with a clean commit: a range with a base.
  git(dir, ['checkout', '-q', 'main']);
  write(dir, 'tidy.md', 'tidy\n');
  const tidy = commitAll(dir, 'Tidy');
  const sha = (ref: string) => git(dir, ['rev-parse', ref]).trim();
  // As the hook passes them: new refs by their own object (an annotated tag's is the tag), main from the remote's tip;
  // a ref named twice (a tag and a branch at one commit), and a deletion, which sends nothing.
  const ranges = [
    `${published}..${tidy}`, sha('drift'), sha('v1'), sha('l1'), sha('drift2'), sha('clean'), sha('v2'), sha('landed'), sha('invalid'),
    `${sha('drift')}..${sha('drift2')}`, `${published}..${'0'.repeat(40)}`,
  ];
  repo = { dir, ranges, c: { published, regenerate, more, notes, landed, invalid, tidy } };
});

async function doctor(engine: string, ranges: readonly string[]): Promise<Finding[]> {
  const r = await runCli(repo.dir, ['doctor', '--json', '--fail-on-warnings', '--engine', engine, ...ranges.map((range) => `--pushed=${range}`)]);
  expect(r.code, r.stderr).toBe(1);
  return (JSON.parse(r.stdout) as { findings: Finding[] }).findings;
}

const short = (sha: string) => sha.slice(0, 7);

describe.each(['native', 'isomorphic'] as const)('%s: a push of many refs', (engine) => {
  it('judges each tip as a push of it alone would: the same findings, in the order the refs came', async () => {
    const { dir, c } = repo;
    const evidence = await gatherEvidence(dir, [JSON.parse(read(dir, FILE)) as Checkpoint], { engine, repoState: true });
    const history = evidence.history!;
    // Peeled as doctor peels them (an annotated tag's object to its commit).
    const ranges = repo.ranges.map(parsePushRange).map((r) => ({ from: r.from, to: /^0+$/.test(r.to) ? r.to : git(dir, ['rev-parse', `${r.to}^{commit}`]).trim() }));
    const now = new Date();
    const together = await judgePushedTips(dir, now, evidence, await sentRanges(history, ranges));
    // One range at a time, its commits from pushedCommits: a tag and a branch at one commit, and
    // a range named twice, are one judgement; a deletion none.
    const alone: Finding[] = [];
    const seen = new Set<string>();
    for (const range of ranges) {
      const key = `${range.from}..${range.to}`;
      if (/^0+$/.test(range.to) || seen.has(key)) continue;
      seen.add(key);
      alone.push(...(await judgePushedTips(dir, now, evidence, [{ range, commits: await history.pushedCommits(range.from, range.to) }])).findings as Finding[]);
    }
    expect(together.findings).toEqual(alone);
    expect(together.commits.map((x) => x.sha).sort()).toEqual([c.regenerate, c.more, c.notes, c.landed, c.invalid, c.tidy].sort());
    const advice = (tip: string) => `advice - no progress_table while in_progress; add one so resume can show X/Y phases (as pushed in ${short(tip)})`;
    const changed = (tip: string) => `warning blocks src/gen/client.ts changed after the checkpoint was written (${short(c.regenerate!)} "Regenerate the client"); re-read it (as pushed in ${short(tip)})`;
    expect(together.findings.map((f) => `${f.level} ${f.blocks ? 'blocks' : '-'} ${f.message}`)).toEqual([
      advice(c.tidy!),
      advice(c.regenerate!), changed(c.regenerate!),
      // drift2 as a new branch sends drift's commit too: the same drift, as pushed in its own tip.
      advice(c.more!), changed(c.more!),
      advice(c.notes!),
      advice(c.landed!),
      `warning blocks "Write docs for PLAT-9" names PLAT-9, which landed after the checkpoint (${short(c.landed!)} "PLAT-9: write docs (#21)"); reconcile instead of redoing it (on the branch you pushed: check it out first, then \`checkpoint done api --landed\`) (as pushed in ${short(c.landed!)})`,
      `error blocks status "ready-to-deploy" must be one of in_progress|blocked|complete|failed (as pushed in ${short(c.invalid!)})`,
      `info - the errors above are hand-written slips: drift is checked on the file as written; fix, on the branch you pushed (check it out first): checkpoint update api --status='<in_progress|blocked|complete|failed>' --keep-updated-at (as pushed in ${short(c.invalid!)})`,
      // drift..drift2 sends only drift2's own commit: no drift.
      advice(c.more!),
    ]);
  });

  it('reports what doctor reports with the ranges the hook passes: each drift once, blocking', async () => {
    const { c } = repo;
    const found = await doctor(engine, repo.ranges);
    expect(found.map((f) => [f.level, f.check, f.path, f.blocks, f.evidence?.sha ?? null])).toEqual([
      ['advice', 'schema', 'progress_table', false, null],
      ['warning', 'generated_files', 'context_primer.generated_files[0]', true, c.regenerate],
      ['warning', 'landed', 'next_actions[0]', true, c.landed],
      ['error', 'schema', 'status', true, null],
    ]);
    expect(found[3]!.message).toBe(`status "ready-to-deploy" must be one of in_progress|blocked|complete|failed (as pushed in ${short(c.invalid!)})`);
  });
});

it('the hook refuses the push of all those refs at once, and sends none of them', () => {
  const { dir } = repo;
  const r = gitTry(dir, ['push', 'origin', 'main', 'drift', 'drift2', 'clean', 'landed', 'invalid', '--tags']);
  expect(r.status, r.stdout + r.stderr).not.toBe(0);
  expect(r.stdout + r.stderr).toMatch(/ready-to-deploy[\s\S]*\[blocks push\]/);
  expect(gitTry(dir, ['ls-remote', 'origin']).stdout).not.toMatch(/refs\/(heads\/(drift|clean|landed|invalid)|tags\/)/);
});
