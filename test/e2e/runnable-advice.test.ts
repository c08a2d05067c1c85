// The commands doctor and the pre-push hook print as a finding's fix, pasted as printed through
// `sh` with the built CLI on PATH: each does what it says, and `fix` in --json runs as it is.
import { afterEach, describe, expect, it } from 'vitest';
import { assertBuilt, cleanup, commitAll, git, gitTry, initialized, makeRepo, read, withRemote, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';
import { pasteBuilt } from '../helpers/paste.js';

const FILE = '.checkpoints/api.checkpoint.json';
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString().replace(/\.\d+Z$/, 'Z');

type F = { level: string; check: string; path: string; message: string; fix?: string; fix_template?: string };

function handKept(over: Record<string, unknown> = {}) {
  return {
    protocol_version: '1.1', skill: 'api', project: 'p', project_dir: '/x',
    created_at: '2026-11-01T00:00:00Z', updated_at: ago(120),
    phase: 'b', step: 's', status: 'in_progress', progress_summary: 'Real summary',
    context_primer: { key_decisions: ['k'] },
    progress_table: [{ id: 'p', label: 'P', status: 'in_progress' }],
    next_actions: ['Go'],
    ...over,
  };
}

function repo(cp: Record<string, unknown>, files: Record<string, string> = {}): string {
  assertBuilt();
  const dir = makeRepo();
  dirs.push(dir);
  for (const [rel, text] of Object.entries(files)) write(dir, rel, text);
  write(dir, FILE, `${JSON.stringify(cp)}\n`);
  commitAll(dir, 'init', ago(119));
  return dir;
}

const findingsOf = async (dir: string): Promise<F[]> => JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout).findings;

describe('doctor --json: fix runs as it is', () => {
  it('a save whose summary only the reader can write is a fix_template, never a fix the CLI refuses (red team 64 r1 7)', async () => {
    const dir = repo(handKept({ context_primer: { key_decisions: ['k'], generated_files: ['tests/*.test.ts'] } }), { 'tests/a.test.ts': 'a\n', 'tests/b.test.ts': 'b\n' });
    git(dir, ['mv', 'tests/a.test.ts', 'tests/a.spec.ts']);
    commitAll(dir, 'rename test', ago(60));
    const renamed = (await findingsOf(dir)).find((f) => f.check === 'generated_files')!;
    expect(renamed.message).toContain("update the checkpoint (`checkpoint update api --progress_summary='<what the change means for the work>'`)");
    expect(renamed.fix).toBeUndefined();
    expect(renamed.fix_template).toBe("checkpoint update api --progress_summary='<what the change means for the work>'");
  });

  it('a slip with no did-you-mean puts its placeholder in fix_template; every fix doctor gives runs through sh', async () => {
    const dir = repo(handKept({ status: 'Zzz' }));
    const slips = (await findingsOf(dir)).find((f) => f.check === 'schema' && f.level === 'info')!;
    expect(slips.fix).toBeUndefined();
    expect(slips.fix_template).toBe("checkpoint update api --status='<in_progress|blocked|complete|failed>' --keep-updated-at");
    const typo = repo(handKept({ status: 'In Progress' }));
    const fix = (await findingsOf(typo)).find((f) => f.check === 'schema' && f.level === 'info')!.fix!;
    expect(pasteBuilt(typo, fix).status).toBe(0);
  });

  it('the slips line fixes every slip doctor lists, a numeric row id among them, not the first five (red team 64 r1 6)', async () => {
    const dir = repo(handKept({
      step: 3, status: 'done', progress_table: [{ id: 1, label: 'P', status: 'Done' }],
      context_primer: { key_decisions: [8.0, 'W'] }, eval_scores: [{ rubric: 'q', score: 8, at: '2026-06-27' }], next_actions: [],
    }));
    const findings = await findingsOf(dir);
    expect(findings.filter((f) => f.check === 'schema' && f.level === 'error')).toHaveLength(6);
    const fix = findings.find((f) => f.check === 'schema' && f.level === 'info')!.fix!;
    expect(fix).toContain("--progress_table.0.id='1'");
    expect(pasteBuilt(dir, fix).status).toBe(0);
    const after = await runCli(dir, ['validate']);
    expect(after.code, after.stdout).toBe(0);
  });

  it('pasting the slips fix, then committing it, leaves a file changed since the save reported: a repair is not a save (red team 64 r1 1)', async () => {
    const dir = repo(handKept({ status: 'In Progress', context_primer: { key_decisions: ['k'], generated_files: ['src/a.ts'] } }), { 'src/a.ts': 'export const a = 1;\n' });
    write(dir, 'src/a.ts', 'export const a = 2; // teammate rewrote it\n');
    commitAll(dir, 'rewrite a.ts', ago(60));
    const changed = (fs: F[]) => fs.filter((f) => f.check === 'generated_files' && f.level === 'warning').map((f) => f.path);
    const before = await findingsOf(dir);
    expect(changed(before)).toEqual(['context_primer.generated_files[0]']);
    const fix = before.find((f) => f.check === 'schema' && f.level === 'info')!.fix!;
    const pasted = pasteBuilt(dir, fix);
    expect(pasted.status, pasted.stderr).toBe(0);
    const repaired = await findingsOf(dir);
    expect(repaired.filter((f) => f.check === 'schema' && f.level === 'error')).toEqual([]);
    expect(changed(repaired)).toEqual(['context_primer.generated_files[0]']);
    commitAll(dir, 'checkpoint: fix the status');
    expect(changed(await findingsOf(dir))).toEqual(['context_primer.generated_files[0]']);
  });

  it('--keep-updated-at refuses, file untouched, where there is no instant to keep; a slip in updated_at itself gets a fix that stamps it', async () => {
    const dir = repo(handKept({ status: 'In Progress', updated_at: '2026-11-02T14:05:00.123456' }));
    const before = read(dir, FILE);
    const r = await runCli(dir, ['update', 'api', '--status=in_progress', '--keep-updated-at']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--keep-updated-at: updated_at "2026-11-02T14:05:00.123456" is not an instant with its zone, so it cannot be kept as written');
    expect(read(dir, FILE)).toBe(before);
    const fix = (await findingsOf(dir)).find((f) => f.check === 'schema' && f.level === 'info')!.fix!;
    expect(fix).toBe('checkpoint update api --status=in_progress');
    expect((await runCli(dir, ['update', 'web', '--step=x', '--keep-updated-at'])).code).toBe(2);
  });
});

describe('the pre-push hook: following its advice once lets the next push through', () => {
  it('a landed PR in a checkpoint with a slip and a file renamed long ago: the first refusal names all three, and their fixes pasted as printed let the push through (red team 64 r1 2)', () => {
    assertBuilt();
    const dir = makeRepo();
    dirs.push(dir);
    withRemote(dir);
    initialized(dir);
    write(dir, 'src/old.ts', 'old\n');
    write(dir, FILE, `${JSON.stringify(handKept({ status: 'In Progress', context_primer: { key_decisions: ['k'], generated_files: ['src/old.ts'] }, next_actions: ['Merge PR #5 after review', 'Write docs'] }))}\n`);
    commitAll(dir, 'init', ago(119));
    git(dir, ['mv', 'src/old.ts', 'src/new.ts']);
    commitAll(dir, 'rename old', ago(110));
    expect(gitTry(dir, ['push', '-q', '--no-verify', '-u', 'origin', 'main']).status).toBe(0);
    git(dir, ['checkout', '-q', '-b', 'f5']);
    write(dir, 'a.ts', 'a\n');
    commitAll(dir, 'a', ago(90));
    git(dir, ['checkout', '-q', 'main']);
    git(dir, ['merge', '-q', '--no-ff', 'f5', '-m', 'Merge pull request #5 from acme/f5']);
    const refused = gitTry(dir, ['push', 'origin', 'main']);
    expect(refused.status).not.toBe(0);
    const out = refused.stdout + refused.stderr;
    expect(out.split('\n').filter((l) => l.endsWith('[blocks push]')).map((l) => l.trim().split(':')[0])).toEqual(['error   status', 'warning context_primer.generated_files[0]', 'warning next_actions[0]']);
    const advice = [...out.matchAll(/`(checkpoint [^`]*)`/g), ...out.matchAll(/fix: (checkpoint .*)$/gm)].map((m) => m[1]!);
    expect(advice).toHaveLength(3);
    for (const line of advice) expect(pasteBuilt(dir, line).status, line).toBe(0);
    commitAll(dir, 'chore: reconcile checkpoint');
    const pushed = gitTry(dir, ['push', 'origin', 'main']);
    expect(pushed.status, pushed.stdout + pushed.stderr).toBe(0);
  });
});

