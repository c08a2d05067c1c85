import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { makeRealRepo } from './lib/real-repo.mjs';
const now = Math.floor(Date.now() / 1000);
rmSync('/tmp/bx', { recursive: true, force: true });
const f = {
  real: makeRealRepo('/tmp/bx/real', { commits: 50, recentCommits: 500, now }),
  big: makeRealRepo('/tmp/bx/big', { commits: 19_500, recentCommits: 500, now }),
  stale: makeRealRepo('/tmp/bx/stale', { commits: 19_500, recentCommits: 500, now, stale: true }),
};
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100);
for (const { dir } of Object.values(f)) execFileSync('git', ['update-index', '-q', '--refresh'], { cwd: dir });
for (const [n, { dir }] of Object.entries(f)) {
  writeFileSync(`/tmp/bx/${n}-rp.cjs`, `const { readFileSync, readdirSync } = require('node:fs');\nconst d = ${JSON.stringify(dir + '/.checkpoints')};\nfor (const f of readdirSync(d)) if (f.endsWith('.json')) JSON.parse(readFileSync(d + '/' + f, 'utf8'));\n`);
  writeFileSync(`/tmp/bx/${n}-rpg.cjs`, `const { readFileSync, readdirSync } = require('node:fs');\nconst d = ${JSON.stringify(dir + '/.checkpoints')};\nfor (const f of readdirSync(d)) if (f.endsWith('.json')) JSON.parse(readFileSync(d + '/' + f, 'utf8'));\nrequire('node:child_process').spawnSync('git', ['log', '--oneline', '-n', '200'], { cwd: ${JSON.stringify(dir)} });\n`);
}
console.log('ok');
