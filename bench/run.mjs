// `npm run bench`: every speed claim as a ratio measured in one run, ours vs a baseline on
// the same input, medians of interleaved runs. Absolute times are printed for context only:
// the machine is noisy and they do not compare across runs. Method: BENCHMARKS.md.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeCheckpoint } from './lib/checkpoints.mjs';
import { makeHistoryRepo } from './lib/history-repo.mjs';
import { compare, fmt, timeOnce } from './lib/measure.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/checkpoint.js');
const NODE = process.execPath;
const quick = process.argv.includes('--quick');
const RUNS = quick ? 7 : 21;
const work = mkdtempSync(join(tmpdir(), 'cp-bench-'));
const env = { ...process.env, NO_COLOR: '1', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const rows = [];

function report(name, ours, base, baseName, target) {
  const ratio = ours / base;
  const verdict = target === undefined ? 'reported' : ratio <= target ? `ok (<= ${target}x)` : `OVER (target ${target}x)`;
  rows.push({ name, ratio, ours, base, baseName, verdict });
  console.log(`${name}: ${ratio.toFixed(2)}x  (ours ${fmt(ours)} vs ${baseName} ${fmt(base)})  ${verdict}`);
}

const git = (cwd, args) => execFileSync('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
const run = (cwd, args, expectCodes = [0, 1]) => () => timeOnce(NODE, [BIN, ...args], { cwd, env, expectCodes });

// 1. The merge driver, once per conflicted file inside `git merge`, vs a bare node start.
{
  const dir = join(work, 'merge');
  mkdirSync(dir);
  // Two sessions on one checkpoint: restamps, log appends, a pop and appends on the queue.
  const base = makeCheckpoint('api', 20 * 1024, new Date('2026-11-01T00:00:00Z'));
  const session = (mutate) => { const d = JSON.parse(base); mutate(d); return `${JSON.stringify(d, null, 2)}\n`; };
  const ours = session((d) => {
    d.updated_at = '2026-11-02T00:00:00Z';
    d.recently_done.unshift({ at: '2026-11-02T00:00:00Z', action: String(d.next_actions.shift()) });
    d.skill_state.run_history.push({ id: 'ours-1', at: '2026-11-02T00:00:00Z', result: 'pass' });
    d.eval_scores.push({ rubric: 'oc-code-auditor', score: 8.6, max: 10, at: '2026-11-02T00:00:00Z' });
  });
  const theirs = session((d) => {
    d.updated_at = '2026-11-03T00:00:00Z';
    d.next_actions.push('Write the sprint 3 contract');
    d.skill_state.run_history.push({ id: 'theirs-1', at: '2026-11-03T00:00:00Z', result: 'fail' });
    d.context_primer.key_decisions.push('Rate limiting lives in middleware, not per route.');
  });
  writeFileSync(join(dir, 'O'), base);
  writeFileSync(join(dir, 'B'), theirs);
  const merge = () => {
    writeFileSync(join(dir, 'A'), ours); // git hands the driver a fresh %A each time
    return timeOnce(NODE, [BIN, 'merge-driver', 'O', 'A', 'B', '.checkpoints/api.checkpoint.json', '7'], { cwd: dir, env, expectCodes: [0] });
  };
  const m = compare({ driver: merge, bare: () => timeOnce(NODE, ['-e', '0'], { expectCodes: [0] }) }, { runs: quick ? 11 : 41 });
  report('merge driver, 20 KiB checkpoint', m.driver, m.bare, 'node -e 0', 1.15);
}

// 2. Everyday read commands on 12 real-sized checkpoints vs a node process that only reads and parses them.
{
  const dir = join(work, 'read');
  mkdirSync(join(dir, '.checkpoints'), { recursive: true });
  git(dir, ['init', '-q', '-b', 'main']);
  const files = [];
  for (let i = 0; i < 12; i++) {
    const skill = `skill-${i}`;
    const path = join(dir, '.checkpoints', `${skill}.checkpoint.json`);
    writeFileSync(path, makeCheckpoint(skill, (5 + (i * 15) / 11) * 1024));
    files.push(path);
  }
  git(dir, ['add', '-A']);
  git(dir, ['-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-q', '-m', 'checkpoints']);
  const baselineScript = join(dir, 'read-parse.cjs');
  writeFileSync(baselineScript, `const { readFileSync, readdirSync } = require('node:fs');\nconst d = ${JSON.stringify(join(dir, '.checkpoints'))};\nfor (const f of readdirSync(d)) if (f.endsWith('.json')) JSON.parse(readFileSync(d + '/' + f, 'utf8'));\n`);
  const baseline = () => timeOnce(NODE, [baselineScript], { expectCodes: [0] });
  for (const cmd of ['validate', 'status', 'next']) {
    const m = compare({ ours: run(dir, [cmd]), baseline }, { runs: RUNS });
    report(`${cmd}, 12 checkpoints (5-20 KiB)`, m.ours, m.baseline, 'read+parse', 1.3);
  }
  // status right after HEAD moved: no cached walk, so git runs once (reported, no target).
  const cold = () => {
    rmSync(join(dir, '.git/checkpoint/commits-since.json'), { force: true });
    return run(dir, ['status'])();
  };
  const c = compare({ ours: cold, baseline }, { runs: RUNS });
  report('status after HEAD moved (walk not cached)', c.ours, c.baseline, 'read+parse');
}

// 3. doctor: cost follows the commits since the checkpoints, not the length of history.
{
  const RECENT = 50;
  const recentSince = Math.floor(Date.now() / 1000) - 3 * 86400;
  const repos = {};
  for (const size of [500, 20_000]) {
    const dir = join(work, `history-${size}`);
    makeHistoryRepo(dir, { commits: size - RECENT, recentCommits: RECENT, recentSince });
    mkdirSync(join(dir, '.checkpoints'), { recursive: true });
    for (let i = 0; i < 12; i++) {
      const text = makeCheckpoint(`skill-${i}`, 8 * 1024, new Date((recentSince - 60) * 1000 + 30 * 60_000));
      writeFileSync(join(dir, '.checkpoints', `skill-${i}.checkpoint.json`), text);
    }
    repos[size] = dir;
  }
  const rss = {};
  for (const engine of ['native', 'isomorphic']) {
    const m = compare({
      big: run(repos[20_000], ['doctor', '--engine', engine]),
      small: run(repos[500], ['doctor', '--engine', engine]),
    }, { runs: quick ? 5 : engine === 'native' ? 15 : 9, warmup: 2 });
    report(`doctor (${engine}), 20,000 vs 500 commits`, m.big, m.small, '500 commits', 1.5);
    rss[engine] = m.big;
    const r = spawnSync(NODE, [join(ROOT, 'bench/lib/peak-rss.mjs'), BIN, 'doctor', '--engine', engine], { cwd: repos[20_000], env, encoding: 'utf8' });
    const peak = Number(/peak-rss-kib=(\d+)/.exec(r.stderr)?.[1]);
    console.log(`doctor (${engine}) peak RSS on 20,000 commits: ${(peak / 1024).toFixed(1)} MiB`);
    rows.push({ name: `doctor (${engine}) peak RSS, 20,000 commits`, peakMiB: peak / 1024 });
  }
  report('doctor native vs isomorphic engine, 20,000 commits', rss.native, rss.isomorphic, 'isomorphic');
}

rmSync(work, { recursive: true, force: true });
mkdirSync(join(ROOT, 'bench/.work'), { recursive: true });
writeFileSync(join(ROOT, 'bench/.work/results.json'), `${JSON.stringify({ at: new Date().toISOString(), node: process.version, rows }, null, 2)}\n`);
const over = rows.filter((r) => r.verdict?.startsWith('OVER'));
console.log(over.length ? `\n${over.length} target(s) missed` : '\nall targets met');
process.exitCode = over.length ? 1 : 0;
