// Bundles the CLI into dist/, each path loading only what it needs:
//  - merge-driver.cjs: the `git merge` hot path (pure merge code + node built-ins, nothing else)
//  - cli.js: the command table and parser; each command, yargs (help only) and isomorphic-git
//    are split chunks loaded lazily
//  - index.js: the programmatic API
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  define: { CHECKPOINT_VERSION: JSON.stringify(pkg.version) },
};

// The merge driver: one self-contained CommonJS file, so the launcher can require() it
// without starting the ESM loader (about 10 ms of a ~70 ms budget per conflicted file).
await build({ ...common, entryPoints: ['src/merge/driver-main.ts'], outfile: 'dist/merge-driver.cjs', format: 'cjs', minify: true });

await build({
  ...common,
  entryPoints: {
    cli: 'src/cli/main.ts',
    index: 'src/index.ts',
  },
  outdir: 'dist',
  splitting: true,
  format: 'esm',
  // Some CJS deps call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __cpCreateRequire } from 'node:module'; const require = __cpCreateRequire(import.meta.url);" },
});
