// Untrusted checkpoints: a checkpoint (and .checkpoints/config.json) that arrives through a
// `git merge` carries shell payloads in every string field that could plausibly be executed.
// No read command, the merge driver, or the pre-push hook may run any of them: each payload
// touches its own marker file, and no marker may exist afterwards. Then the positive proof:
// `checkpoint done <skill> --verify` runs next_actions[0].done_when (its markers appear), the
// only path that executes anything, and only when asked. `init` and the hook run as processes;
// the commands run in-process (test/helpers/in-process.ts), with the repository as their cwd.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, commitAll, git, gitTry, makeRepo, read, tempDir, write } from '../helpers/repo.js';
import { runCli } from '../helpers/in-process.js';
import { assertBuilt, run, STACK_LINE } from './helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(cleanup));
beforeAll(assertBuilt);

let markers: string;
const tags: string[] = [];

/**
 * One string carrying every common way a shell would be tricked into running something, each
 * touching its own marker (absolute, in the marker folder; and one relative, in the cwd).
 */
function payload(tag: string): string {
  const m = (form: string) => {
    tags.push(`${tag}-${form}`);
    return join(markers, `${tag}-${form}`);
  };
  tags.push(`pwned-${tag}`);
  return [`x $(touch ${m('subst')})`, `\`touch ${m('backtick')}\``, `; touch ${m('semi')}`, `| touch ${m('pipe')}`, `&& touch ${m('and')}`, `\ntouch ${m('newline')}`, `$(touch pwned-${tag})`].join(' ');
}

/** A value a careless caller might pass to git as an option (argument injection). */
function gitOption(tag: string): string {
  tags.push(`${tag}-gitopt`);
  return `--output=${join(markers, `${tag}-gitopt`)}`;
}

function hostileCheckpoint(skill: string, root: string): Record<string, unknown> {
  const at = '2026-01-01T00:00:00Z';
  return {
    $schema: payload('schema'),
    protocol_version: '1.1',
    skill,
    project: payload('project'),
    project_dir: `/tmp/${payload('project_dir')}`,
    created_at: at,
    updated_at: '2026-01-01T01:00:00Z',
    phase: payload('phase'),
    step: payload('step'),
    status: 'in_progress',
    progress_summary: payload('summary'),
    progress_table: [{ id: 's1', label: payload('row-label'), status: 'in_progress', notes: payload('row-notes'), command: payload('row-command') }],
    context_primer: {
      key_decisions: [payload('decision')],
      generated_files: [payload('generated'), `$(touch ${join(markers, 'generated-path-subst')})/x.ts`, gitOption('generated'), '-o', join(markers, 'generated-dash-o'), `:(top)${payload('pathspec')}`],
      user_preferences: [payload('preference')],
      build_command: payload('primer-build'),
    },
    blockers: [{ id: 'b1', description: payload('blocker-description'), needs: 'user_decision', proposed_resolution: payload('blocker-resolution'), blocking: payload('blocker-blocking') }],
    next_actions: [
      // The one `done --verify` is allowed to run (and must run), checked last.
      { text: 'verify me', done_when: `touch ${join(markers, 'verify-ok')}; touch ${join(markers, 'verify-ok-2')} $(touch ${join(markers, 'verify-subst')})` },
      { text: payload('action-text'), done_when: payload('action-done_when') },
      payload('action-string'),
      { text: 'PR #1 follow-up', done_when: payload('action2-done_when'), run: payload('action2-run') },
    ],
    recently_done: [{ at, action: payload('recently-done') }],
    pm_refs: [{ provider: payload('pm-provider'), id: payload('pm-id'), url: `file://${join(markers, 'pm-url')}`, role: 'source' }],
    eval_scores: [{ rubric: payload('eval-rubric'), score: 1, ref: gitOption('eval-ref'), at }],
    telemetry_handle: { sink: payload('telemetry-sink'), id: payload('telemetry-id') },
    depends_on: [payload('depends')],
    skill_state: {
      command: payload('state-command'),
      script: payload('state-script'),
      hooks: { pre: payload('state-hook') },
      head: gitOption('state-head'),
      run_history: [{ at, cmd: payload('run-history') }],
    },
    capsule: {
      context: {
        goal: payload('capsule-goal'),
        acceptance: payload('capsule-acceptance'),
        constraints: [payload('capsule-constraint')],
        decisions: [payload('capsule-decision')],
        evidence: [payload('capsule-evidence')],
        pending: [payload('capsule-pending')],
        next: payload('capsule-next'),
      },
      origin: { root: `${root}/${payload('capsule-root')}`, head: gitOption('capsule-head'), saved_at: at },
      mechanical: { head: gitOption('mechanical-head'), branch: payload('mechanical-branch'), uncommitted: [payload('mechanical-uncommitted')], at },
    },
  };
}

/** Markers that exist now: in the marker folder, and relative ones anywhere in the repository. */
function found(dir: string): string[] {
  const out = readdirSync(markers);
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.name.startsWith('pwned-')) out.push(r);
      if (e.isDirectory()) walk(r);
    }
  };
  walk('');
  return out.sort();
}

describe('a checkpoint that arrived through a merge never runs anything', () => {
  it('read commands, the merge driver and the pre-push hook run no payload; done --verify runs done_when', async () => {
    markers = tempDir('cp-markers-');
    dirs.push(markers);
    const dir = makeRepo();
    dirs.push(dir);
    const remote = tempDir('cp-remote-');
    dirs.push(remote);
    git(remote, ['init', '-q', '--bare', '-b', 'main']);

    // A project set up the documented way: init (driver + hook), one honest checkpoint.
    const init = await run(dir, ['init']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toMatch(/merge driver|merge\.checkpoint/);
    expect(init.stdout).toMatch(/pre-push/);
    const honest = await runCli(dir, ['update', 'api', '--phase=build', '--step=s1', '--next_actions+=start', '--progress_table+:json={"id":"s1","label":"S1","status":"in_progress"}', '--context_primer:json={"key_decisions":[]}']);
    expect(honest.code, honest.stderr).toBe(0);
    commitAll(dir, 'honest checkpoint', '2026-01-01T00:00:00Z');
    git(dir, ['remote', 'add', 'origin', remote]);
    git(dir, ['push', '-q', '--no-verify', 'origin', 'main']);

    // The hostile branch: the checkpoint rewritten with payloads, and a hostile config.
    git(dir, ['checkout', '-q', '-b', 'evil']);
    const evil = hostileCheckpoint('api', dir);
    write(dir, '.checkpoints/api.checkpoint.json', `${JSON.stringify(evil, null, 2)}\n`);
    write(dir, '.checkpoints/config.json', `${JSON.stringify({ health_url: payload('health_url'), logs: ['skill_state.run_history'], rotate_keep: 1 }, null, 2)}\n`);
    commitAll(dir, `evil ${payload('commit-subject')}`, '2026-01-02T00:00:00Z');

    // main moves on too, so `git merge` has to run our merge driver on the checkpoint.
    git(dir, ['checkout', '-q', 'main']);
    const mainUpdate = await runCli(dir, ['update', 'api', '--skill_state.main_side=1']);
    expect(mainUpdate.code, mainUpdate.stderr).toBe(0);
    commitAll(dir, 'main side', '2026-01-03T00:00:00Z');
    const merge = gitTry(dir, ['merge', '--no-edit', 'evil']);
    expect(merge.status, merge.stdout + merge.stderr).toBe(0);
    expect(found(dir)).toEqual([]);
    // The merge really brought the payloads in (through the driver: both sides survive).
    const merged = JSON.parse(read(dir, '.checkpoints/api.checkpoint.json')) as Record<string, unknown> & { skill_state: Record<string, unknown> };
    expect(merged.phase).toBe(evil.phase);
    expect(merged.skill_state.main_side).toBe('1');
    expect(merged.skill_state.command).toBe((evil.skill_state as Record<string, unknown>).command);
    const validate = await runCli(dir, ['validate']);
    expect(validate.code, validate.stdout + validate.stderr).toBe(0); // valid: every command reads it fully

    // Every read command, text and JSON, each engine where there is a choice.
    const commands = [
      ['doctor'],
      ['doctor', '--fail-on-warnings'],
      ['doctor', '--online='],
      ['doctor', '--engine=isomorphic'],
      ['doctor', '--json'],
      ['status'],
      ['status', '--brief'],
      ['status', '--json'],
      ['status', '--engine=isomorphic'],
      ['next'],
      ['next', '--json'],
      ['resume'],
      ['resume', 'api'],
      ['resume', 'api', '--json'],
      ['resume', 'api', '--context'],
      ['resume', 'api', '--context', '--json'],
      ['list'],
      ['list', '--json'],
      ['show'],
      ['show', 'api'],
      ['validate'],
      ['validate', '--strict'],
      ['history'],
      ['rotate', '--dry-run'],
      ['migrate', '--dry-run'],
      ['resolve', '--check'],
    ];
    const ran: string[] = [];
    for (const args of commands) {
      const r = await runCli(dir, args);
      ran.push(`${args.join(' ')} -> ${r.code}`);
      expect(r.stdout + r.stderr, args.join(' ')).not.toMatch(STACK_LINE);
      expect(r.stderr, args.join(' ')).not.toMatch(/internal error/);
      expect(found(dir), `after checkpoint ${args.join(' ')}`).toEqual([]);
    }
    // The payloads were on screen, as text: doctor saw them and said so.
    const doctor = await runCli(dir, ['doctor', '--json']);
    expect(doctor.stdout).toContain('generated_files');

    // health_url is only ever fetched over http(s), and only with --online: a command-looking
    // or file:/// URL is refused by name.
    const online = await runCli(dir, ['doctor', '--online=']);
    expect(online.code).toBe(2);
    // (the message echoes the URL raw, newline included: see the report on control characters)
    expect(online.stderr).toMatch(/^checkpoint: --online: [\s\S]* is not an http\(s\) URL\n/);
    write(dir, '.checkpoints/config.json', `${JSON.stringify({ health_url: `file://${join(markers, 'health-file-url')}` })}\n`);
    const fileUrl = await runCli(dir, ['doctor', '--online=']);
    expect(fileUrl.code).toBe(2);
    expect(fileUrl.stderr).toMatch(/^checkpoint: --online: file:\/\/.* is not an http\(s\) URL$/m);
    expect(found(dir)).toEqual([]);
    git(dir, ['checkout', '-q', '--', '.checkpoints/config.json']);

    // The pre-push hook (installed by init) runs doctor on the merged checkpoint.
    const push = gitTry(dir, ['push', 'origin', 'main']);
    expect(push.stderr).toMatch(/checkpoint pre-push: checkpoint doctor --fail-on-warnings/);
    expect(push.stderr).not.toMatch(STACK_LINE);
    expect(found(dir), 'after the pre-push hook').toEqual([]);

    expect(tags.length).toBeGreaterThan(200);
    // The positive proof: --verify runs next_actions[0].done_when, and only that.
    const verify = await runCli(dir, ['done', 'api', '--verify']);
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stderr).toMatch(/verifying "verify me" with: touch /);
    expect(found(dir)).toEqual(['verify-ok', 'verify-ok-2', 'verify-subst']);
    // The next action carries payloads in text and done_when: a plain `done` runs neither.
    const plain = await runCli(dir, ['done', 'api']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(found(dir)).toEqual(['verify-ok', 'verify-ok-2', 'verify-subst']);
    console.log(`untrusted: ${tags.length} payload markers in ${new Set(tags.map((t) => t.replace(/-(subst|backtick|semi|pipe|and|newline|gitopt)$/, '').replace(/^pwned-/, ''))).size} fields, ${commands.length} commands + merge driver + pre-push hook + done; ${ran.join(', ')}`);
  });
});
