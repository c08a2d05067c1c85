// `npm run demo`: the main job, end to end, in a throw-away repository. Every step checks
// what it claims and the demo exits non-zero the moment one does not behave.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const BIN = fileURLToPath(new URL('../bin/checkpoint.js', import.meta.url));
const keep = process.argv.includes('--keep');
const root = mkdtempSync(join(tmpdir(), 'checkpoint-demo-'));
const repo = join(root, 'app');
const remote = join(root, 'remote.git');
const env = {
  ...process.env,
  NO_COLOR: '1',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Demo',
  GIT_AUTHOR_EMAIL: 'demo@example.com',
  GIT_COMMITTER_NAME: 'Demo',
  GIT_COMMITTER_EMAIL: 'demo@example.com',
  CHECKPOINT_SKIP_INSTALL: '',
};
const FILE = '.checkpoints/api.checkpoint.json';
let step = 0;

function sh(cmd, args, { cwd = repo, ok = [0] } = {}) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
  if (!ok.includes(r.status)) fail(`\`${[cmd, ...args].join(' ')}\` exited ${r.status}\n${r.stdout}${r.stderr}`);
  return r;
}
const git = (...args) => sh('git', args).stdout.trim();
const cp = (args, ok = [0]) => sh(process.execPath, [BIN, ...args], { ok });
const doc = () => JSON.parse(readFileSync(join(repo, FILE), 'utf8'));
const indent = (text) => text.trimEnd().split('\n').map((l) => `      ${l}`).join('\n');

function say(title) {
  console.log(`\n${++step}. ${title}`);
}
function check(condition, what) {
  if (!condition) fail(what);
  console.log(`   ✓ ${what}`);
}
function fail(what) {
  console.error(`\n✗ demo step ${step} did not behave: ${what}`);
  console.error(`  (repository kept at ${repo})`);
  process.exit(1);
}

try {
  say('A project with checkpoint set up: `checkpoint init` (schema, merge driver, pre-push hook)');
  execFileSync('git', ['init', '-q', '-b', 'main', repo], { env });
  execFileSync('git', ['init', '-q', '--bare', remote], { env });
  git('remote', 'add', 'origin', remote);
  writeFileSync(join(repo, 'README.md'), '# app\n');
  cp(['init']);
  cp(['update', 'api', '--phase=build', '--step=auth', "--progress_summary=Auth API under way.",
    '--progress_table:json=[{"id":"auth","label":"Auth","status":"in_progress"},{"id":"docs","label":"Docs","status":"not_started"}]',
    '--context_primer:json={"key_decisions":["JWT sessions"],"generated_files":["README.md"]}',
    '--next_actions+=Write the login handler', '--next_actions+=Add rate limiting (PR #7)', '--next_actions+=Document the API']);
  git('add', '-A');
  git('commit', '-q', '-m', 'Start the api skill');
  check(git('config', 'merge.checkpoint.driver').includes('merge-driver'), 'merge driver registered in git config');
  console.log(indent(cp(['status']).stdout));

  say('Two agent sessions on two branches update the same checkpoint');
  git('checkout', '-q', '-b', 'session-a');
  cp(['done', 'api']);
  cp(['update', 'api', '--skill_state.run_history+:json={"id":"run-a","at":"2026-11-30T10:00:00Z","result":"pass"}', '--next_actions+=Add refresh tokens']);
  git('commit', '-q', '-am', 'session A: login handler done');
  git('checkout', '-q', 'main');
  git('checkout', '-q', '-b', 'session-b');
  cp(['update', 'api', '--eval_scores+:json={"rubric":"auditor","score":8,"max":10}', '--skill_state.run_history+:json={"id":"run-b","at":"2026-11-30T11:00:00Z","result":"fail"}', '--next_actions+=Fix the failing eval']);
  git('commit', '-q', '-am', 'session B: evaluated');
  check(true, 'session A popped an action and logged a run; session B scored, logged a run and queued work');

  say('Merging both through the semantic merge driver: clean, nothing lost');
  git('checkout', '-q', 'main');
  git('merge', '-q', '--no-edit', 'session-a');
  const merged = sh('git', ['merge', '--no-edit', 'session-b']);
  check(merged.status === 0, 'git merge session-b: no conflict (a plain text merge would stop here)');
  const m = doc();
  check(m.skill_state.run_history.length === 2, 'both sessions\' run_history entries kept');
  check(m.recently_done[0].action === 'Write the login handler', 'session A\'s completed action kept in recently_done');
  check(m.eval_scores.length === 1, 'session B\'s eval score kept');
  check(JSON.stringify(m.next_actions) === JSON.stringify(['Add rate limiting (PR #7)', 'Document the API', 'Add refresh tokens', 'Fix the failing eval']), 'next_actions: the pop applied once, both appended actions kept');
  check(cp(['validate']).status === 0, 'the merged checkpoint validates');

  say('A real conflict: both sessions moved `phase` differently');
  git('checkout', '-q', '-b', 'session-c');
  cp(['update', 'api', '--phase=audit']);
  git('commit', '-q', '-am', 'session C: audit');
  git('checkout', '-q', 'main');
  cp(['update', 'api', '--phase=deploy', '--skill_state.run_history+:json={"id":"run-main","at":"2026-11-30T12:00:00Z"}']);
  git('commit', '-q', '-am', 'main: deploy');
  const conflict = sh('git', ['merge', '--no-edit', 'session-c'], { ok: [1] });
  const text = readFileSync(join(repo, FILE), 'utf8');
  check((text.match(/^<{7} /gm) ?? []).length === 1, 'git merge stopped, with markers around `phase` only');
  console.log(indent(text.slice(text.indexOf('<<<<<<<'), text.indexOf('>>>>>>>') + 16)));
  console.log(indent(conflict.stderr.split('\n').filter((l) => l.includes('conflict at')).join('\n')));
  // The user decides: deploy wins. Keep ours' block, drop the markers and theirs.
  writeFileSync(join(repo, FILE), text.replace(/<{7} ours\n([\s\S]*?)\|{7} base\n[\s\S]*?={7}\n[\s\S]*?>{7} theirs\n/, '$1'));
  check(cp(['validate']).status === 0 && doc().skill_state.run_history.some((r) => r.id === 'run-main'), 'resolved by keeping "deploy"; everything else was already merged');
  git('commit', '-q', '-am', 'Merge session-c: keep deploy');

  say('A merge made without the driver (as hosted merge buttons do), fixed by `checkpoint resolve`');
  git('checkout', '-q', '-b', 'session-d');
  cp(['update', 'api', '--skill_state.run_history+:json={"id":"run-d","at":"2026-11-30T13:00:00Z"}', '--next_actions+=Load-test login']);
  git('commit', '-q', '-am', 'session D');
  git('checkout', '-q', 'main');
  cp(['update', 'api', '--skill_state.run_history+:json={"id":"run-e","at":"2026-11-30T13:30:00Z"}', '--step=auth-hardening']);
  git('commit', '-q', '-am', 'main: hardening');
  // .git/info/attributes outranks .gitattributes: route checkpoints to git's text merge for this one merge.
  writeFileSync(join(repo, '.git/info/attributes'), '.checkpoints/*.checkpoint.json merge=text\n');
  sh('git', ['merge', '--no-edit', 'session-d'], { ok: [1] });
  rmSync(join(repo, '.git/info/attributes'));
  check(cp(['resolve', '--check'], [1]).status === 1, 'a plain text merge left conflict markers (`checkpoint resolve --check` exits 1, as in CI)');
  const resolved = cp(['resolve', '--add']);
  console.log(indent(resolved.stdout));
  const r = doc();
  check(r.skill_state.run_history.some((x) => x.id === 'run-d') && r.skill_state.run_history.some((x) => x.id === 'run-e') && r.step === 'auth-hardening', '`checkpoint resolve --add` merged it semantically: both runs kept, the step change kept');
  git('commit', '-q', '--no-edit');

  say('A PR lands that a next action still names');
  git('checkout', '-q', '-b', 'rate-limit');
  writeFileSync(join(repo, 'rate-limit.js'), 'export const limit = 100;\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'Add rate limiting');
  git('checkout', '-q', 'main');
  git('merge', '-q', '--no-ff', 'rate-limit', '-m', 'Merge pull request #7 from team/rate-limit');
  const doctor = cp(['doctor'], [0, 1]);
  console.log(indent(doctor.stdout));
  check(/#7, which landed/.test(doctor.stdout), 'doctor flags the action that would redo PR #7');
  const next = JSON.parse(cp(['next', '--json']).stdout);
  console.log(indent(cp(['next']).stdout));
  check(next.next.text === 'Document the API', '`checkpoint next` skips it and recommends "Document the API"');

  say('The pre-push hook refuses the push until the checkpoint is reconciled');
  const refused = sh('git', ['push', '-q', 'origin', 'main'], { ok: [1] });
  console.log(indent(refused.stderr.split('\n').filter((l) => l.startsWith('checkpoint pre-push') || l.startsWith('warning')).join('\n')));
  check(refused.status === 1, 'git push refused while doctor warns');
  // The fix the warning names: the landed action recorded, the open one still queued.
  cp(['done', 'api', '--landed']);
  check(doc().next_actions[0] === 'Document the API', '`checkpoint done api --landed` (the warning\'s fix) records PR #7 and keeps "Document the API" queued');
  git('commit', '-q', '-am', 'checkpoint: reconcile api (PR #7 landed)');
  check(sh('git', ['push', '-q', 'origin', 'main']).status === 0, 'after it the push goes through');

  say('One agent turn through MCP: the host starts `checkpoint mcp`, the agent reads, works, records');
  const client = new Client({ name: 'demo-host', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd: repo, env }));
  try {
    const prompt = await client.getPrompt({ name: 'resume-session', arguments: {} });
    console.log(indent(prompt.messages[0].content.text.split('\n').slice(2, 7).join('\n')));
    const turnNext = await client.callTool({ name: 'next', arguments: {} });
    console.log(indent(`tool next -> ${turnNext.content[0].text}`));
    writeFileSync(join(repo, 'API.md'), '# API\n\nPOST /login\n');
    const turnDone = await client.callTool({ name: 'done', arguments: { skill: 'api' } });
    console.log(indent(`tool done -> ${turnDone.content[0].text}`));
    const turnUpdate = await client.callTool({ name: 'update', arguments: { skill: 'api', ops: [{ path: 'skill_state.run_history', op: 'append', value: { id: 'run-mcp', at: '2026-11-30T14:00:00Z', result: 'pass' } }] } });
    console.log(indent(`tool update -> ${turnUpdate.content[0].text}`));
    const bad = await client.callTool({ name: 'update', arguments: { skill: 'api', ops: [{ path: 'status', value: 'finished-ish' }] } });
    console.log(indent(`tool update (bad value) -> error: ${bad.content[0].text.split('\n')[0]}`));
    check(doc().recently_done[0].action === 'Document the API' && doc().skill_state.run_history.some((x) => x.id === 'run-mcp'), 'the tools ran the same code as the CLI: action done, run logged');
    check(bad.isError === true && doc().status !== 'finished-ish', 'a bad value is a tool error and the file is unchanged');
    // A notification whose resource now shows the CLI's write (the tools' own writes notify too).
    const changed = new Promise((done) => client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => {
      const now = await client.readResource({ uri: 'checkpoint://api' });
      if (now.contents[0].text.includes('Review the API docs')) done(true);
    }));
    cp(['update', 'api', '--next_actions+=Review the API docs']);
    // The guard's timer is cleared once the notification came: a pending one keeps node alive, and the demo would exit 30 s after its last step.
    let guard;
    const reached = await Promise.race([changed, new Promise((done) => (guard = setTimeout(() => done(false), 30_000)))]);
    clearTimeout(guard);
    check(reached, 'a CLI write on disk reached the host as a resource notification');
  } finally {
    await client.close();
  }
  git('commit', '-q', '-am', 'checkpoint: an MCP turn');

  console.log(`\nEvery step behaved.${keep ? ` The repository is kept at ${repo}` : ''}`);
} finally {
  if (!keep && !process.exitCode) rmSync(root, { recursive: true, force: true });
}
