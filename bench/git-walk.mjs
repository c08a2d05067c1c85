// How commitsSince scales with history length: the same 50 recent commits on top of 500
// and of 20,000 commits in all. Cost should follow the question, so the ratio of the two
// medians should stay near 1 (target: <= 1.5) for each engine. src/git is TypeScript with
// no build of its own, so it is bundled on the fly with esbuild first.
//   node bench/git-walk.mjs
import { build } from 'esbuild';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { makeHistoryRepo } from './lib/history-repo.mjs';

const RECENT = 50;
const SIZES = [500, 20_000];
const RUNS = 5;
const TARGET_RATIO = 1.5;
const RECENT_SINCE = Date.parse('2026-01-01T00:00:00Z') / 1000;

const root = fileURLToPath(new URL('..', import.meta.url));
const workDir = join(root, 'bench/.work');
mkdirSync(workDir, { recursive: true });
const bundle = join(workDir, 'git-history.mjs');
// isomorphic-git stays external: it resolves from node_modules and loads lazily as in the CLI.
await build({
  entryPoints: [join(root, 'src/git/index.ts')],
  outfile: bundle,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['isomorphic-git'],
  logLevel: 'warning',
});
const { createHistory } = await import(pathToFileURL(bundle).href);

const reposDir = mkdtempSync(join(tmpdir(), 'cp-bench-git-'));
try {
  const repos = SIZES.map((size) => {
    const dir = join(reposDir, String(size));
    const started = performance.now();
    const count = makeHistoryRepo(dir, { commits: size - RECENT, recentCommits: RECENT, recentSince: RECENT_SINCE });
    console.log(`built ${count} commits in ${((performance.now() - started) / 1000).toFixed(2)} s`);
    return { size, dir };
  });

  let ok = true;
  for (const engine of ['native', 'isomorphic']) {
    const histories = await Promise.all(repos.map(({ dir }) => createHistory({ dir, engine })));
    const first = [];
    for (const history of histories) {
      const cold = await timed(() => history.commitsSince(RECENT_SINCE));
      if (cold.result.length !== RECENT) throw new Error(`${engine}: expected ${RECENT} recent commits, got ${cold.result.length}`);
      first.push(cold);
    }
    // Small and large runs alternate so that both see the same machine load.
    const samples = histories.map(() => []);
    for (let run = 0; run < RUNS; run++) {
      for (const [i, history] of histories.entries()) {
        const { ms, result } = await timed(() => history.commitsSince(RECENT_SINCE));
        if (!isDeepStrictEqual(result, first[i].result)) throw new Error(`${engine}: answers changed between runs`);
        samples[i].push(ms);
      }
    }
    const medians = samples.map((list) => list.sort((a, b) => a - b)[Math.floor(RUNS / 2)]);
    for (const [i, { size }] of repos.entries()) {
      console.log(`${engine.padEnd(10)} ${String(size).padStart(6)} commits: first call ${first[i].ms.toFixed(1)} ms, median of ${RUNS} ${medians[i].toFixed(1)} ms`);
    }
    const ratio = medians[1] / medians[0];
    ok &&= ratio <= TARGET_RATIO;
    console.log(`${engine.padEnd(10)} ratio ${SIZES[1]}/${SIZES[0]}: ${ratio.toFixed(2)} (target <= ${TARGET_RATIO})`);
  }
  process.exitCode = ok ? 0 : 1;
} finally {
  rmSync(reposDir, { recursive: true, force: true });
}

async function timed(run) {
  const started = performance.now();
  const result = await run();
  return { ms: performance.now() - started, result };
}
