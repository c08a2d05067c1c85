import { build } from 'esbuild';
const keep = new Set(process.argv[2].split(','));
const separate = (filter, file) => ({ name: file, setup(b) { b.onResolve({ filter }, () => ({ path: `./${file}`, external: true })); } });
const stub = { name: 'stub', setup(b) {
  b.onResolve({ filter: /^\.\/commands\/[\w-]+\.js$/ }, (a) => { const n = a.path.slice(11, -3); return keep.has(n) ? undefined : { path: n, namespace: 'stub' }; });
  b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({ contents: 'export async function run() { throw new Error("not in this bundle"); }', loader: 'js' }));
} };
const r = await build({ absWorkingDir: '/work/main', bundle: true, platform: 'node', target: 'node20', format: 'cjs', minify: true, legalComments: 'none', outfile: `/tmp/s48/dist/${process.argv[3]}.cjs`, metafile: true,
  supported: { 'dynamic-import': false }, define: { CHECKPOINT_VERSION: '"0.1.0"', CHECKPOINT_BUILD: '"x"', 'import.meta.url': '__cpMeta.url' },
  banner: { js: "const __cpMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };" },
  entryPoints: ['src/cli/main.ts'],
  plugins: [stub, separate(/^\.\/help\.js$/, 'help.cjs'), separate(/^isomorphic-git$/, 'isomorphic-git.cjs'), separate(/^\.\/ignore-rules\.js$/, 'ignore-rules.cjs'), separate(/^\.\.\/\.\.\/mcp\/server\.js$/, 'mcp.cjs')] });
const out = Object.values(r.metafile.outputs)[0];
console.log(process.argv[3], out.bytes);
