// Bundles the CLI into dist/. Start-up is most of a command's cost (a checkpoint command
// runs in ~70 ms of node start plus a few ms of work), so each path loads only what it needs:
//  - merge-driver.cjs: the `git merge` hot path: the pure merge code and node built-ins only;
//    merge-layout.cjs (protocol/layout.ts) beside it, required only to keep a hand-made layout.
//  - cli.cjs: the command table, parser and every command. CommonJS, minified: require() is
//    synchronous and skips the ESM loader's start-up; modules behind a dynamic import() stay
//    lazy (esbuild wraps them), so a command runs only the code it needs; it still reads and
//    compiles the whole file, so the everyday commands have their own: cli-<name>.cjs (OWN_BUNDLES).
//  - help.cjs (yargs: --help and completion) and isomorphic-git.cjs (the embedded git engine):
//    heavy, rarely needed, so separate files required on first use. mcp.cjs (the MCP server
//    with the SDK and zod) likewise, for `checkpoint mcp` only; lefthook-read.cjs (yaml, toml)
//    for init in a project with a lefthook config.
//  - index.js: the programmatic API (ESM) for other tools.
import { build } from 'esbuild';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

// The TypeScript types are generated from schema.json, the one declaration of the shape.
await import('./gen-shapes.mjs').then(({ writeShapes }) => writeShapes());

const ROOT = fileURLToPath(new URL('..', import.meta.url));
process.chdir(ROOT);

// Built beside dist/ and swapped in at the end, so a test run or a hook using dist/ meanwhile
// never sees it half-written.
const OUT = 'dist.building';
rmSync(OUT, { recursive: true, force: true });
// Type declarations of the programmatic API (package.json "types"): tsc into dist/types/,
// running alongside the bundles below. Emitted without checking (--noCheck, the same output in
// about half the time): type errors are `npm run typecheck`'s, which `npm test` and prepack run.
// Rejects (failing the build) when tsc cannot emit them.
const declarations = new Promise((resolve, reject) => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  spawn(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck', '--outDir', `${OUT}/types`], { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: 'inherit' })
    .on('error', reject)
    .on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tsc -p tsconfig.build.json exited with ${code}`))));
});
// Names this build's behaviour (store/verdicts.ts keeps a validation verdict only for the build
// that gave it): a hash of every source file, so any change to the rules is a new build.
const buildId = (() => {
  const hash = createHash('sha256').update(pkg.version);
  for (const file of readdirSync('src', { recursive: true }).map(String).sort()) {
    if (/\.(ts|json)$/.test(file)) hash.update(`\0${file}\0`).update(readFileSync(`src/${file}`));
  }
  return hash.digest('hex').slice(0, 16);
})();
const common = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
  define: { CHECKPOINT_VERSION: JSON.stringify(pkg.version), CHECKPOINT_BUILD: JSON.stringify(buildId) },
};

// CommonJS has no import.meta; give modules that locate package files (install/package-paths.ts) one.
const cjs = {
  ...common,
  format: 'cjs',
  minify: true,
  // import() of the separate files becomes require(): synchronous, and no ESM loader.
  supported: { 'dynamic-import': false },
  // Worked out on first use: the few modules that ask (install/package-paths.ts) are not on the
  // path of most commands, and node:url's pathToFileURL costs start-up when run.
  define: { ...common.define, 'import.meta.url': '__cpMeta.url' },
  banner: { js: "const __cpMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };" },
};

/** Keeps a heavy import out of the bundle: it becomes a require() of its own file in dist/. */
const separate = (filter, file) => ({
  name: `separate:${file}`,
  setup(b) {
    b.onResolve({ filter }, () => ({ path: `./${file}`, external: true }));
  },
});
/**
 * The merge driver reads schema.json only to validate: its bundled copy drops what is for
 * editors and people (titles, descriptions, the names of generated constants), so the hot
 * path loads a smaller schema. The CLI keeps the whole file
 * (init writes it for editors).
 */
const SCHEMA_FOR_CHECKING = {
  name: 'schema-for-checking',
  setup(b) {
    b.onLoad({ filter: /[\\/]protocol[\\/]schema\.json$/ }, (args) => {
      const strip = (node) => {
        if (Array.isArray(node)) return node.map(strip);
        if (!node || typeof node !== 'object') return node;
        const out = {};
        for (const [k, v] of Object.entries(node)) {
          if (['title', 'description', '$id', 'x-const', 'x-keys-const'].includes(k) && typeof v === 'string') continue;
          if (k === '$schema' && typeof v === 'string') continue;
          out[k] = strip(v);
        }
        return out;
      };
      return { contents: JSON.stringify(strip(JSON.parse(readFileSync(args.path, 'utf8')))), loader: 'json' };
    });
  },
};
const HELP = separate(/^\.\/help\.js$/, 'help.cjs');
// The layout writer: the driver requires it only for a clean merge of a hand-laid-out file.
const MERGE_LAYOUT = separate(/^\.\.\/protocol\/layout\.js$/, 'merge-layout.cjs');
/**
 * yargs looks for a package.json to read its settings from, starting at the folder above the
 * nearest `node_modules` in its own path: in a project that installed us, the project's own
 * package.json, which a hostile clone may make a link to /dev/zero (a hang). Without that guess
 * it starts at the cwd, which main.ts sets to this package's folder for help and completion.
 */
const YARGS_OWN_FOLDER = {
  name: 'yargs-own-folder',
  setup(b) {
    b.onLoad({ filter: /[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const guess = "__dirname.substring(0, __dirname.lastIndexOf('node_modules'))";
      if (!source.includes(guess)) throw new Error(`yargs-own-folder: ${args.path} no longer holds ${guess}; re-check how yargs finds package.json`);
      return { contents: source.replace(guess, "''"), loader: 'js' };
    });
  },
};
const ISOMORPHIC_GIT = separate(/^isomorphic-git$/, 'isomorphic-git.cjs');
// The embedded engine's .gitignore reader with the ignore package: only when doctor asks about an untracked listed file.
const IGNORE_RULES = separate(/^\.\/ignore-rules\.js$/, 'ignore-rules.cjs');
// lefthook's config readers with the yaml and toml packages: only when init finds a lefthook config.
const LEFTHOOK_READ = separate(/^\.\/lefthook-read\.js$/, 'lefthook-read.cjs');
// The MCP server with the SDK and zod: only `checkpoint mcp` requires it.
const MCP = separate(/^\.\.\/\.\.\/mcp\/server\.js$/, 'mcp.cjs');
/**
 * One string-width for yargs' help layout: cliui and wrap-ansi ask for 7.x, which measures every
 * string by grapheme segmentation and builds the emoji regex per character; yargs' own 8.x answers
 * printable ASCII (all our help text) by its length. Same widths, ~25 ms off every `--help`.
 */
const ONE_STRING_WIDTH = {
  name: 'one-string-width',
  setup(b) {
    const own = createRequire(import.meta.url).resolve('string-width');
    b.onResolve({ filter: /^string-width$/ }, () => ({ path: own }));
  },
};
/**
 * The commands agents and hooks run all the time get a bundle of their own, dist/cli-<name>.cjs:
 * the CLI with that command's modules only (validate: ~100 KB against cli.cjs's ~600 KB). A
 * command starts by reading and compiling its bundle from the code cache, at a cost that follows
 * the bundle's size. The launcher picks one by the command word; anything else runs cli.cjs.
 */
const OWN_BUNDLES = ['validate', 'status', 'next', 'resume', 'doctor', 'update', 'done', 'pause'];
/** A per-command bundle: the other commands' modules (and completion's script) become a module that refuses to run. */
const onlyCommand = (name) => ({
  name: `only-command:${name}`,
  setup(b) {
    b.onResolve({ filter: /^\.\/commands\/[\w-]+\.js$|^\.\/completion-script\.js$/ }, (a) => (a.path === `./commands/${name}.js` ? undefined : { path: a.path, namespace: 'left-out' }));
    b.onLoad({ filter: /.*/, namespace: 'left-out' }, (a) => ({
      contents: `export function run() { throw new Error(${JSON.stringify(`dist/cli-${name}.cjs carries the ${name} command only, not ${a.path}: bin/checkpoint.js runs the others from cli.cjs`)}); }`,
      loader: 'js',
    }));
  },
});
// help.ts reads the command table only; the commands' modules are never run from it.
const COMMANDS_UNUSED = { name: 'commands-unused', setup: (b) => b.onResolve({ filter: /^\.\/commands\// }, (a) => ({ path: a.path, external: true })) };

await Promise.all([
  build({ ...cjs, entryPoints: ['src/merge/driver-main.ts'], outfile: `${OUT}/merge-driver.cjs`, plugins: [SCHEMA_FOR_CHECKING, MERGE_LAYOUT] }),
  build({ ...cjs, entryPoints: ['src/protocol/layout.ts'], outfile: `${OUT}/merge-layout.cjs`, plugins: [SCHEMA_FOR_CHECKING] }),
  build({ ...cjs, entryPoints: ['src/cli/main.ts'], outfile: `${OUT}/cli.cjs`, plugins: [HELP, ISOMORPHIC_GIT, IGNORE_RULES, LEFTHOOK_READ, MCP] }),
  ...OWN_BUNDLES.map((name) => build({ ...cjs, define: { ...cjs.define, CHECKPOINT_ONLY_COMMAND: JSON.stringify(name) }, entryPoints: ['src/cli/main.ts'], outfile: `${OUT}/cli-${name}.cjs`, plugins: [onlyCommand(name), HELP, ISOMORPHIC_GIT, IGNORE_RULES, LEFTHOOK_READ, MCP] })),
  // The deep-walk worker thread (src/git/deep-thread.ts), started by doctor's deep questions.
  build({ ...cjs, entryPoints: ['src/git/deep-worker.ts'], outfile: `${OUT}/deep-worker.cjs`, plugins: [ISOMORPHIC_GIT, IGNORE_RULES] }),
  // Carries its own copy of the commands it runs, so cli.cjs holds none of the server.
  build({ ...cjs, entryPoints: ['src/mcp/server.ts'], outfile: `${OUT}/mcp.cjs`, plugins: [ISOMORPHIC_GIT, IGNORE_RULES, LEFTHOOK_READ] }),
  build({ ...cjs, entryPoints: ['src/git/ignore-rules.ts'], outfile: `${OUT}/ignore-rules.cjs` }),
  build({ ...cjs, entryPoints: ['src/install/lefthook-read.ts'], outfile: `${OUT}/lefthook-read.cjs` }),
  build({ ...cjs, entryPoints: ['src/cli/help.ts'], outfile: `${OUT}/help.cjs`, plugins: [COMMANDS_UNUSED, YARGS_OWN_FOLDER, ONE_STRING_WIDTH] }),
  build({ ...cjs, stdin: { contents: "module.exports = require('isomorphic-git');", resolveDir: '.' }, outfile: `${OUT}/isomorphic-git.cjs` }),
  build({
    ...common,
    entryPoints: { index: 'src/index.ts' },
    outdir: OUT,
    splitting: true,
    format: 'esm',
    // Some CJS deps call require(); give the ESM bundle one.
    banner: { js: "import { createRequire as __cpCreateRequire } from 'node:module'; const require = __cpCreateRequire(import.meta.url);" },
  }),
]);
await declarations;

// The launcher compiles these from a string read from disk, as Latin-1 (one byte, one character:
// no UTF-8 decode of the whole bundle on every run), which is exact only for ASCII. A character
// above U+007F (a dash in a regex literal, which esbuild leaves as written) would be misread; one
// above U+00FF would also make V8 hold the whole bundle as a two-byte string.
// The launcher also gives them a require() of built-ins and sibling files only, and no import():
// a bundle that needs more is refused here rather than failing on a user's machine.
// help.cjs is compiled so too (bin/checkpoint.js CACHED_SIBLINGS); yargs names built-ins without
// `node:`, and the command table's loaders (./commands/*.js, external) are never run from it.
const { builtinModules } = createRequire(import.meta.url)('node:module');
const allowedRequire = (file, id) => id.startsWith('node:') || builtinModules.includes(id) || /^\.\/[\w.-]+\.cjs$/.test(id) || (file === 'help.cjs' && /^\.\/commands\/[\w-]+\.js$/.test(id));
for (const file of ['cli.cjs', ...OWN_BUNDLES.map((name) => `cli-${name}.cjs`), 'merge-driver.cjs', 'merge-layout.cjs', 'help.cjs']) {
  const text = readFileSync(`${OUT}/${file}`, 'utf8');
  const wide = /[^\x00-\x7f]/.exec(text);
  if (wide) throw new Error(`dist/${file} holds ${JSON.stringify(wide[0])} (U+${wide[0].codePointAt(0).toString(16).toUpperCase()}): write it as a \\u escape in the source, so the bundle stays ASCII`);
  const unsupported = /\bimport\(|\brequire\.(?:resolve|cache|main)\b/.exec(text)?.[0] ?? [...text.matchAll(/\brequire\("([^"]*)"\)/g)].find((m) => !allowedRequire(file, m[1]))?.[0];
  if (unsupported) throw new Error(`dist/${file} holds ${unsupported}: bin/checkpoint.js loads it with a require() of node built-ins and ./<file>.cjs only, and no import()`);
}

rmSync('dist.old', { recursive: true, force: true });
if (existsSync('dist')) renameSync('dist', 'dist.old');
renameSync(OUT, 'dist');
rmSync('dist.old', { recursive: true, force: true });
