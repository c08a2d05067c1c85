// Bundles the CLI into dist/. Three entries so each path loads only what it needs:
//  - merge-driver.js: the `git merge` hot path (pure merge code + fs, nothing else)
//  - cli.js: yargs program; commands and heavy deps (isomorphic-git) are split chunks loaded lazily
//  - index.js: the programmatic API
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: {
    'merge-driver': 'src/merge/driver-main.ts',
    cli: 'src/cli/main.ts',
    index: 'src/index.ts',
  },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  define: { CHECKPOINT_VERSION: JSON.stringify(pkg.version) },
  // Some CJS deps call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __cpCreateRequire } from 'node:module'; const require = __cpCreateRequire(import.meta.url);" },
});
