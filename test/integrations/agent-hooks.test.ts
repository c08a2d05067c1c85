// The agent-host hooks of docs/integrations.md, run exactly as written in
// examples/claude-code/settings.json (read from the file, never copied here) through
// `sh -c`, the way Claude Code runs a command hook, with the hook's JSON on stdin.
// In temp repositories: no checkpoint, a normal one, a blocked one, a merge left unfinished, a saved capsule.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, commitAll, git, gitTry, GIT_ENV, installedProject, makeRepo, read, ROOT, write, HANG_GUARD_MS } from '../helpers/repo.js';
import { freshCheckpoint } from '../helpers/fixtures.js';
import { runCli } from '../helpers/in-process.js';
import { withNpxShim } from '../helpers/npx-shim.js';

interface HookEntry {
  matcher?: string;
  hooks: { type: string; command: string }[];
}
const SETTINGS = JSON.parse(readFileSync(join(ROOT, 'examples/claude-code/settings.json'), 'utf8')) as { hooks: Record<string, HookEntry[]> };

function command(event: string, matcher?: string): string {
  const entries = SETTINGS.hooks[event] ?? [];
  const entry = entries.find((e) => e.matcher === matcher);
  expect(entry, `${event} ${matcher ?? '(no matcher)'} in examples/claude-code/settings.json`).toBeDefined();
  expect(entry!.hooks).toHaveLength(1);
  expect(entry!.hooks[0]!.type).toBe('command');
  return entry!.hooks[0]!.command;
}

const SESSION_START = command('SessionStart', 'startup|resume');
const AFTER_COMPACT = command('SessionStart', 'compact');
const PRE_COMPACT = command('PreCompact');
/** The skill the PreCompact example names (users replace it with theirs). */
const PAUSED_SKILL = /checkpoint-protocol pause (\S+) --auto/.exec(PRE_COMPACT)?.[1] ?? '';

/** Child environment: without an enclosing `npm test`'s npm_* variables, which would send npx elsewhere. */
const ENV: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(GIT_ENV).filter(([k]) => !/^npm_/i.test(k))),
  npm_config_update_notifier: 'false',
  npm_config_loglevel: 'warn',
};

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

/** A project with the package installed under its distinctive bin name only (see installedProject). */
function project(): string {
  const dir = installedProject();
  dirs.push(dir);
  return dir;
}

/**
 * What Claude Code does with a command hook: `sh -c <command>` in the project, event JSON on
 * stdin; through the real npx where a test says so, else test/helpers/npx-shim.ts's.
 */
function hook(dir: string, cmd: string, event: Record<string, unknown>, npx: 'real' | 'shim') {
  const r = spawnSync('sh', ['-c', cmd], {
    cwd: dir,
    env: { ...(npx === 'real' ? ENV : withNpxShim(ENV)), CLAUDE_PROJECT_DIR: dir },
    input: JSON.stringify({ session_id: 'test', cwd: dir, ...event }),
    encoding: 'utf8',
    timeout: HANG_GUARD_MS,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
const startup = (dir: string, npx: 'real' | 'shim' = 'shim') => hook(dir, SESSION_START, { hook_event_name: 'SessionStart', source: 'startup' }, npx);
const afterCompact = (dir: string, npx: 'real' | 'shim' = 'shim') => hook(dir, AFTER_COMPACT, { hook_event_name: 'SessionStart', source: 'compact' }, npx);
const preCompact = (dir: string, npx: 'real' | 'shim' = 'shim') => hook(dir, PRE_COMPACT, { hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: '' }, npx);

const checkpoint = freshCheckpoint;
const save = (dir: string, skill: string, doc: unknown) => write(dir, `.checkpoints/${skill}.checkpoint.json`, `${JSON.stringify(doc, null, 2)}\n`);

const CAPSULE = {
  goal: 'Ship the auth middleware (card AUTH-7)',
  acceptance: 'npx vitest run test/auth passes',
  constraints: ['no new dependencies'],
  decisions: ['cookies over headers; rejected: bearer tokens'],
  evidence: ['test/auth: 12 passed at the last commit'],
  pending: ['refresh-token rotation'],
  next: 'write the expiry test',
};

describe('the example hook commands', () => {
  it('are the documented ones, and the skill placeholder is a valid skill name', () => {
    expect(SESSION_START).toMatch(/^npx --no-install checkpoint-protocol resume \|\| test \$\? -eq 3$/);
    expect(AFTER_COMPACT).toMatch(/^npx --no-install checkpoint-protocol resume --context$/);
    expect(PRE_COMPACT).toMatch(/^npx --no-install checkpoint-protocol pause \S+ --auto \|\| exit 1$/);
    expect(PAUSED_SKILL).toMatch(/^[a-z0-9][a-z0-9-]*$/);
    const docs = readFileSync(join(ROOT, 'docs/integrations.md'), 'utf8');
    for (const cmd of [SESSION_START, AFTER_COMPACT, PRE_COMPACT]) expect(docs, cmd).toContain(cmd);
    // The snippet printed in the docs is the example file, not a drifting copy.
    const snippet = /```json\n([\s\S]*?)\n```/.exec(docs)?.[1];
    expect(JSON.parse(snippet ?? 'null')).toEqual(SETTINGS);
  });
});

describe('with no checkpoint', () => {
  it('every hook exits 0 and says there is nothing to resume', () => {
    const dir = project();
    // Each command as written, through the real npx.
    const start = startup(dir, 'real');
    expect(start.code, start.stderr).toBe(0);
    expect(start.stdout).toMatch(/no checkpoint to resume/);
    const compact = afterCompact(dir, 'real');
    expect(compact.code, compact.stderr).toBe(0);
    expect(compact.stdout).toMatch(/no recovery capsule saved/);
    const pause = preCompact(dir, 'real');
    expect(pause.code, pause.stderr).toBe(0);
    expect(pause.stdout).toMatch(/nothing to refresh/);
    expect(existsSync(join(dir, '.checkpoints'))).toBe(false); // nothing written
  });
});

describe('with a normal checkpoint', () => {
  it('session start prints the orientation with the next action, exit 0', () => {
    const dir = project();
    save(dir, PAUSED_SKILL, checkpoint(PAUSED_SKILL));
    commitAll(dir, 'checkpoint');
    const r = startup(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`RESUMING: ${PAUSED_SKILL} on demo`);
    expect(r.stdout).toContain('Next: Write the auth middleware tests');
    expect(r.stdout).not.toMatch(/ASK THE USER/);
  });

  it('before the first compaction without a saved capsule: saves the mechanical state and says what to add', () => {
    const dir = project();
    save(dir, PAUSED_SKILL, checkpoint(PAUSED_SKILL));
    const before = JSON.parse(read(dir, `.checkpoints/${PAUSED_SKILL}.checkpoint.json`));
    const r = preCompact(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/saved a first capsule .* mechanical state only/);
    expect(r.stdout).toMatch(/agent should add goal, acceptance/);
    const after = JSON.parse(read(dir, `.checkpoints/${PAUSED_SKILL}.checkpoint.json`));
    expect(after.capsule.mechanical.head).toMatch(/^[0-9a-f]{7,40}$/);
    expect(after.capsule.context.goal).toMatch(/^unknown: not recorded yet/);
    // Nothing else in the checkpoint changed.
    const { capsule: _capsule, ...rest } = after;
    expect(rest).toEqual(before);
    // A second compaction refreshes the mechanical state and keeps the rest.
    expect(preCompact(dir).stdout).toMatch(/refreshed the capsule's mechanical state/);
  });
});

describe('with a blocked checkpoint', () => {
  it('resume exits 3; the session-start hook turns that into 0 and still hands over the orientation', async () => {
    const dir = project();
    save(dir, PAUSED_SKILL, checkpoint(PAUSED_SKILL, {
      status: 'blocked',
      blockers: [{ id: 'b1', description: 'Which session store: Redis or Postgres?', needs: 'user_decision' }],
    }));
    commitAll(dir, 'blocked');
    expect((await runCli(dir, ['resume'])).code).toBe(3); // what the wrapper is for
    const r = startup(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/ASK THE USER/);
    expect(r.stdout).toContain(PAUSED_SKILL);
  });

  it('a real failure still fails the hook: checkpoint-protocol not installed is exit 1, shown to the user', () => {
    const dir = makeRepo();
    dirs.push(dir);
    const r = startup(dir, 'real'); // what npx itself does when the bin is not installed
    expect(r.code).toBe(1);
    expect(r.stderr).not.toBe('');
  });
});

describe('when pause refuses', () => {
  it('PreCompact exits 1, not 2 (which may block the compaction), and shows why; the file is untouched', () => {
    const dir = project();
    const broken = '{"skill": "' + PAUSED_SKILL + '", "status": \n';
    write(dir, `.checkpoints/${PAUSED_SKILL}.checkpoint.json`, broken);
    const r = preCompact(dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`.checkpoints/${PAUSED_SKILL}.checkpoint.json`);
    expect(read(dir, `.checkpoints/${PAUSED_SKILL}.checkpoint.json`)).toBe(broken);
  });
});

describe('after a compaction in an unfinished merge', () => {
  it('SessionStart(compact), unwrapped, exits 0 and hands over the question, never "no capsule saved" (red team 62e 02)', async () => {
    const dir = project();
    save(dir, PAUSED_SKILL, checkpoint(PAUSED_SKILL, { context_primer: { key_decisions: ['JWT in cookies (see PR 12)'], generated_files: ['src/auth.ts (the middleware)'] } }));
    commitAll(dir, 'checkpoint');
    expect((await runCli(dir, ['pause', PAUSED_SKILL, '--context', JSON.stringify(CAPSULE)])).code).toBe(0);
    commitAll(dir, 'capsule');
    git(dir, ['checkout', '-q', '-b', 'side']);
    expect((await runCli(dir, ['update', PAUSED_SKILL, '--phase=review'])).code).toBe(0);
    commitAll(dir, 'side');
    git(dir, ['checkout', '-q', '-']);
    expect((await runCli(dir, ['update', PAUSED_SKILL, '--phase=deploy'])).code).toBe(0);
    commitAll(dir, 'main');
    expect(gitTry(dir, ['merge', '-q', 'side']).status).not.toBe(0);
    const r = afterCompact(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ASK THE USER before starting work: .*do not start fresh/m);
    expect(r.stdout).toContain(`✗ ${PAUSED_SKILL}: .checkpoints/${PAUSED_SKILL}.checkpoint.json`);
    expect(r.stdout).not.toMatch(/no recovery capsule saved/);
  });
});

describe('with a saved capsule', () => {
  it('PreCompact refreshes its mechanical state only; SessionStart(compact) prints it as unverified claims', async () => {
    const dir = project();
    save(dir, PAUSED_SKILL, checkpoint(PAUSED_SKILL));
    commitAll(dir, 'checkpoint');
    const saved = await runCli(dir, ['pause', PAUSED_SKILL, '--context', JSON.stringify(CAPSULE)]);
    expect(saved.code, saved.stderr).toBe(0);
    write(dir, 'src/auth.ts', 'export const wip = false;\n');
    commitAll(dir, 'capsule');
    write(dir, 'src/auth.ts', 'export const wip = true;\n'); // uncommitted work at compaction time

    const pause = preCompact(dir);
    expect(pause.code, pause.stderr).toBe(0);
    expect(pause.stdout).toMatch(/refreshed the capsule's mechanical state/);
    const doc = JSON.parse(read(dir, `.checkpoints/${PAUSED_SKILL}.checkpoint.json`));
    expect(doc.capsule.context).toEqual(CAPSULE);
    expect(doc.capsule.mechanical.uncommitted).toContain('src/auth.ts');

    const r = afterCompact(dir);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/UNVERIFIED CLAIMS/);
    for (const v of Object.values(CAPSULE).flat()) expect(r.stdout).toContain(v);

    // A fresh session after the compaction still gets the orientation too.
    const start = startup(dir);
    expect(start.code, start.stderr).toBe(0);
    expect(start.stdout).toContain(`RESUMING: ${PAUSED_SKILL}`);
  });
});
