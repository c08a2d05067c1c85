// Works as published: `npm pack` of a copy of the package as the build left it, the
// tarball holds only what a user needs, it installs offline with zero runtime
// dependencies under its registry name, and the installed CLI (both bin names) sets up a
// fresh repository, merges through its own driver, pushes through its own pre-push hook and
// type-checks for a TypeScript consumer; `npx` runs it in a project that never installed it.
// A decoy `checkpoint` comes first on PATH throughout: nothing we install may ever run it.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, commitAll, git, gitTry, GIT_ENV, makeRepo, ROOT, tempDir, write, headSha } from '../helpers/repo.js';
import { freshCheckpoint } from '../helpers/fixtures.js';

const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  description: string;
  keywords: string[];
  license: string;
  engines: { node: string };
  bin: Record<string, string>;
  files: string[];
  dependencies?: Record<string, string>;
  scripts: Record<string, string>;
};
/** The registry name: `checkpoint-cli` belongs to an unrelated package. */
const NAME = 'checkpoint-protocol';
/** The bin everything we generate calls; no other package ships it. */
const DISTINCT = NAME;

/**
 * The environment for child npm processes: without the npm_* variables of an enclosing
 * `npm test` (npm_config_local_prefix would point them back at this checkout), and quiet.
 */
const NPM_ENV: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(GIT_ENV).filter(([k]) => !/^npm_/i.test(k))),
  npm_config_update_notifier: 'false',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_loglevel: 'warn',
};

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = NPM_ENV): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 600_000 }); // a hang guard: pack builds, install copies
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  expect(r.error, what).toBeUndefined();
  expect(r.status, `${what}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
  return r.stdout;
}

const dirs: string[] = [];
let work: string;
let tarball: string;
let app: string;
let installed: string;
let bin: string;
let distinct: string;
/** A `checkpoint` executable first on PATH that logs every run to decoyLog and fails. */
let decoyLog: string;
/** A user's environment: the decoy first on PATH, then the project's node_modules/.bin. */
let userEnv: NodeJS.ProcessEnv;

beforeAll(() => {
  work = tempDir('cp-pack-');
  dirs.push(work);
  // A copy of the package with the dist/ this run's `npm run build` made (the tests all run that
  // build). prepack is that same build and the type check (checked below), both of which
  // `npm test` runs from a clean clone, so packing skips them here rather than running them twice.
  const src = join(work, 'src');
  mkdirSync(src);
  for (const part of ['package.json', 'README.md', 'LICENSE', 'bin', 'hooks', 'dist']) {
    if (existsSync(join(ROOT, part))) cpSync(join(ROOT, part), join(src, part), { recursive: true });
  }
  const out = join(work, 'out');
  mkdirSync(out);
  ok(run('npm', ['pack', '--ignore-scripts', '--pack-destination', out], src), 'npm pack');
  const tgz = readdirSync(out).filter((f) => f.endsWith('.tgz'));
  expect(tgz).toEqual([`${NAME}-${PKG.version}.tgz`]);
  tarball = join(out, tgz[0]!);

  // An empty project installs it without the network: there is nothing to fetch.
  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }, null, 2)}\n`);
  ok(run('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], app), 'npm install --offline <tgz>');
  installed = join(app, 'node_modules', NAME);
  bin = join(app, 'node_modules/.bin/checkpoint');
  distinct = join(app, 'node_modules/.bin', DISTINCT);

  const decoyDir = join(work, 'decoy-bin');
  mkdirSync(decoyDir);
  decoyLog = join(work, 'decoy.log');
  writeFileSync(join(decoyDir, 'checkpoint'), `#!/bin/sh\nprintf 'decoy ran: %s\\n' "$*" >> '${decoyLog}'\nexit 97\n`);
  chmodSync(join(decoyDir, 'checkpoint'), 0o755);
  userEnv = { ...NPM_ENV, PATH: [decoyDir, join(app, 'node_modules/.bin'), dirname(process.execPath), NPM_ENV.PATH].join(delimiter) };
});

afterAll(() => dirs.splice(0).forEach(cleanup));

/** The decoy is reachable as `checkpoint` (so the check below can fail) and never ran. */
function expectDecoyNeverRan(): void {
  expect(ok(run('sh', ['-c', 'command -v checkpoint'], work, userEnv), 'command -v checkpoint').trim()).toBe(join(work, 'decoy-bin/checkpoint'));
  expect(existsSync(decoyLog) ? readFileSync(decoyLog, 'utf8') : '').toBe('');
}

describe('npm pack', () => {
  it('is named checkpoint-protocol, with what a registry page needs and both bins on the launcher', () => {
    expect(PKG.name).toBe(NAME);
    expect(PKG.description).toMatch(/Checkpoint Protocol/);
    expect(PKG.keywords).toEqual(expect.arrayContaining(['checkpoint-protocol', 'git', 'merge-driver']));
    expect(PKG.license).toBe('MIT');
    expect(PKG.engines.node).toMatch(/^>=20/);
    expect(PKG.files).toEqual(['bin/', 'dist/', 'hooks/']);
    // `checkpoint` to type; the bin named like the package is the one npx runs and hooks call.
    expect(PKG.bin).toEqual({ checkpoint: 'bin/checkpoint.js', [DISTINCT]: 'bin/checkpoint.js' });
  });

  it('has a prepack script that builds and type-checks, and no runtime dependencies (everything is bundled into dist/)', () => {
    expect(PKG.scripts.prepack).toBe('npm run build && npm run typecheck');
    expect(PKG.dependencies ?? {}).toEqual({});
  });

  it('the tarball holds bin/, dist/, hooks/, README, LICENSE and package.json, and nothing else', () => {
    const list = ok(run('tar', ['-tzf', tarball], work), 'tar -tzf').split('\n').filter(Boolean).map((p) => p.replace(/^package\//, ''));
    const allowed = /^(bin\/|dist\/|hooks\/|README\.md$|LICENSE$|package\.json$)/;
    expect(list.filter((p) => !allowed.test(p))).toEqual([]);
    for (const f of ['README.md', 'LICENSE', 'package.json', 'bin/checkpoint.js', 'bin/package.json', 'hooks/pre-push', 'dist/index.js', 'dist/merge-driver.cjs', 'dist/lefthook-read.cjs', 'dist/types/index.d.ts']) {
      expect(list, f).toContain(f);
    }
    expect(list.some((p) => /^(src|test|scripts|bench)\//.test(p) || p.endsWith('.ts') && !p.endsWith('.d.ts'))).toBe(false);
  });

  it('installs exactly one package into an empty project', () => {
    expect(readdirSync(join(app, 'node_modules')).filter((f) => !f.startsWith('.')).sort()).toEqual([NAME]);
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(manifest.version).toBe(PKG.version);
    expect(manifest.dependencies ?? {}).toEqual({});
  });
});

describe('the installed CLI', () => {
  it('both bin names run the installed launcher; --version matches, directly and through npx', () => {
    for (const link of [bin, distinct]) {
      expect(realpathSync(link)).toBe(join(installed, 'bin/checkpoint.js'));
      expect(ok(run(link, ['--version'], app, userEnv), `${link} --version`).trim()).toBe(PKG.version);
    }
    expect(ok(run('npx', ['--no-install', DISTINCT, '--version'], app, userEnv), `npx ${DISTINCT} --version`).trim()).toBe(PKG.version);
    expect(ok(run('npx', ['--no-install', 'checkpoint', '--version'], app, userEnv), 'npx checkpoint --version').trim()).toBe(PKG.version);
    expectDecoyNeverRan();
  });

  it('init && status in a fresh git repository, with the driver and the hook baked to the installed package by absolute path', () => {
    const repo = makeRepo({ commit: false });
    dirs.push(repo);
    const r = run('sh', ['-c', `${DISTINCT} init && ${DISTINCT} status`], repo, userEnv);
    const out = ok(r, `${DISTINCT} init && ${DISTINCT} status`);
    expect(out).toContain('created .checkpoints/');
    expect(out).toContain('set merge.checkpoint.driver');
    expect(out).toMatch(/installed the pre-push hook/);
    expect(out).toMatch(/no checkpoints yet/);
    expect(r.stderr).toBe('');
    const driver = git(repo, ['config', 'merge.checkpoint.driver']).trim();
    const bin = `'${join(installed, 'bin/checkpoint.js')}'`;
    expect(driver).toBe(`[ -f ${bin} ] && [ -x '${process.execPath}' ] && exec '${process.execPath}' ${bin} merge-driver %O %A %B %P %L; echo 'checkpoint: the merge driver cannot run (its install, or the node it runs with, moved or was removed), so this checkpoint was left unmerged; run checkpoint install-driver, then: git checkout --merge -- '%P >&2; exit 1`);
    expect(readFileSync(join(repo, '.gitattributes'), 'utf8')).toContain('.checkpoints/*.checkpoint.json merge=checkpoint');
    const hook = readFileSync(join(repo, '.git/hooks/pre-push'), 'utf8');
    expect(hook).toContain(`CHECKPOINT_BIN='${join(installed, 'bin/checkpoint.js')}'`);
    expect(hook).toContain(`CHECKPOINT_NODE='${process.execPath}'`);
    // Its fallbacks name only the distinctive bin: never a bare `checkpoint` command.
    expect(hook).not.toMatch(/(command -v|\.bin\/|set --) checkpoint\b(?!-)/);
    expect(hook).not.toMatch(/^\s*checkpoint\s/m);
    expectDecoyNeverRan();
  });

  it('a merge of two sessions goes through the installed driver and keeps both', () => {
    const repo = makeRepo();
    dirs.push(repo);
    const cp = (...args: string[]) => ok(run(distinct, args, repo, userEnv), `${DISTINCT} ${args.join(' ')}`);
    cp('init');
    cp('update', 'api', '--project=demo', '--phase=build', '--step=one', '--progress_summary=Started.', '--next_actions+=first');
    commitAll(repo, 'base');
    git(repo, ['checkout', '-q', '-b', 'other']);
    cp('update', 'api', '--next_actions+=from other', '--progress_summary=Other session.');
    commitAll(repo, 'other session');
    git(repo, ['checkout', '-q', 'main']);
    cp('update', 'api', '--next_actions+=from main', '--step=two');
    commitAll(repo, 'main session');

    const merged = gitTry(repo, ['merge', '--no-edit', 'other'], userEnv);
    expect(merged.status, merged.stdout + merged.stderr).toBe(0);
    const text = readFileSync(join(repo, '.checkpoints/api.checkpoint.json'), 'utf8');
    expect(text).not.toMatch(/^(<{7}|>{7}|={7})/m);
    const doc = JSON.parse(text);
    expect(doc.next_actions).toEqual(expect.arrayContaining(['first', 'from other', 'from main']));
    expect(doc.step).toBe('two');
    expect(doc.progress_summary).toBe('Other session.');
    ok(run(bin, ['validate'], repo, userEnv), 'checkpoint validate after the merge');

    // The same two sides conflict without the driver: it really was ours that merged them.
    git(repo, ['reset', '-q', '--hard', 'HEAD~1']);
    const plain = gitTry(repo, ['-c', 'merge.checkpoint.driver=false', 'merge', '--no-edit', 'other']);
    expect(plain.status).not.toBe(0);
    git(repo, ['merge', '--abort']);
    expectDecoyNeverRan();
  });

  it('a push goes through the installed pre-push hook: clean passes, drift is refused', () => {
    const remote = tempDir('cp-remote-');
    dirs.push(remote);
    git(remote, ['init', '-q', '--bare', '-b', 'main']);
    const repo = makeRepo();
    dirs.push(repo);
    ok(run(distinct, ['init'], repo, userEnv), `${DISTINCT} init`);
    write(repo, 'src/auth.ts', 'export const auth = true;\n');
    write(repo, '.checkpoints/api.checkpoint.json', `${JSON.stringify(freshCheckpoint('api', { context_primer: { key_decisions: ['JWT in cookies'], generated_files: ['src/auth.ts'] } }), null, 2)}\n`);
    commitAll(repo, 'api checkpoint');
    git(repo, ['remote', 'add', 'origin', remote]);

    const clean = gitTry(repo, ['push', '-q', 'origin', 'main'], userEnv);
    expect(clean.status, clean.stderr).toBe(0);
    expect(clean.stderr).toContain('checkpoint pre-push: checkpoint doctor --fail-on-warnings');
    expect(clean.stdout + clean.stderr).toMatch(/doctor: 1 checkpoint\b.*no drift/);
    const pushed = git(remote, ['rev-parse', 'main']).trim();
    expect(pushed).toBe(headSha(repo));

    // A checkpoint that points at a file nobody wrote: our doctor warns, the hook refuses.
    write(repo, '.checkpoints/web.checkpoint.json', `${JSON.stringify(freshCheckpoint('web', { context_primer: { key_decisions: [], generated_files: ['src/session-store.ts'] } }), null, 2)}\n`);
    commitAll(repo, 'web checkpoint');
    const refused = gitTry(repo, ['push', '-q', 'origin', 'main'], userEnv);
    expect(refused.status).not.toBe(0);
    expect(refused.stdout + refused.stderr).toMatch(/src\/session-store\.ts is missing/);
    expect(refused.stderr).toMatch(/push refused/);
    expect(git(remote, ['rev-parse', 'main']).trim()).toBe(pushed);
    expectDecoyNeverRan();
  });

  it('the hook without a baked path finds only checkpoint-protocol on PATH, never the decoy checkpoint', () => {
    const remote = tempDir('cp-remote-');
    dirs.push(remote);
    git(remote, ['init', '-q', '--bare', '-b', 'main']);
    const repo = makeRepo();
    dirs.push(repo);
    git(repo, ['remote', 'add', 'origin', remote]);
    // The shipped template as is (CHECKPOINT_BIN empty), as a hand-copied hook would be.
    cpSync(join(installed, 'hooks/pre-push'), join(repo, '.git/hooks/pre-push'));
    chmodSync(join(repo, '.git/hooks/pre-push'), 0o755);
    // A project's .checkpoints/ (a repository without one is not judged: doctor would say nothing).
    mkdirSync(join(repo, '.checkpoints'));
    const viaPath = gitTry(repo, ['push', '-q', 'origin', 'main'], userEnv);
    expect(viaPath.status, viaPath.stderr).toBe(0);
    expect(viaPath.stdout + viaPath.stderr).toMatch(/doctor: 0 checkpoints/);

    // Without checkpoint-protocol anywhere, the hook skips doctor rather than run `checkpoint`.
    commitAll(repo, 'second');
    const noInstall = { ...userEnv, PATH: [join(work, 'decoy-bin'), dirname(process.execPath), NPM_ENV.PATH].join(delimiter) };
    const skipped = gitTry(repo, ['push', '-q', 'origin', 'main'], noInstall);
    expect(skipped.status, skipped.stderr).toBe(0);
    expect(skipped.stderr).toMatch(/checkpoint-protocol CLI was not found; doctor skipped/);
    expectDecoyNeverRan();
  });

  it('type-checks for a TypeScript consumer through package.json "exports"', () => {
    writeFileSync(
      join(app, 'consumer.ts'),
      [
        "import { validateCheckpoint, readCheckpoint, listSkills, findRoot, mergeCheckpointTexts, mergeCheckpointValues, runDoctor, parseJson, CheckpointError, type Finding, type Checkpoint } from 'checkpoint-protocol';",
        'const root: string = findRoot(process.cwd());',
        'const skills: string[] = listSkills(root);',
        'const file = readCheckpoint(root, skills[0] ?? "api");',
        'const result = validateCheckpoint(file?.value ?? parseJson("{}").value);',
        'const errors: number = result.errors.length;',
        "const merged = mergeCheckpointTexts({ base: null, ours: '{}', theirs: '{}' });",
        "const status: 'clean' | 'conflict' | 'unparseable' = merged.status;",
        'const values = mergeCheckpointValues(undefined, {}, {});',
        'const findings: Promise<Finding[]> = runDoctor({ root, now: new Date() }).then((r) => r.findings);',
        "const e = new CheckpointError('E_USAGE', 'x');",
        'const cp: Partial<Checkpoint> = {};',
        'export { errors, status, values, findings, e, cp };',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        // skipLibCheck off: it would hide an unresolved import in our .d.ts. The lib is ES2022
        // alone (the default for the target adds the DOM, half the check's CPU): our types must
        // hold in a Node project without it, beside @types/node, which they use.
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', lib: ['ES2022'], strict: true, noEmit: true, skipLibCheck: false, types: ['node'], typeRoots: [join(ROOT, 'node_modules/@types')] },
        files: ['consumer.ts'],
      }),
    );
    writeFileSync(join(app, 'package.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')), type: 'module' }));
    ok(run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', app], app), 'tsc on a consumer of the installed package');
  });
});

describe('npx in a project that has not installed it', () => {
  /** npx with its own empty cache, offline: the tarball is all there is. */
  const npx = (repo: string, args: string[]) =>
    run('npx', ['--yes', ...args], repo, { ...userEnv, PATH: [join(work, 'decoy-bin'), dirname(process.execPath), NPM_ENV.PATH].join(delimiter), npm_config_cache: join(work, 'npx-cache'), npm_config_offline: 'true' });

  it('`npx <package> status` and `doctor` run the bin named like the package', () => {
    const repo = makeRepo();
    dirs.push(repo);
    write(repo, '.checkpoints/api.checkpoint.json', `${JSON.stringify(freshCheckpoint('api'), null, 2)}\n`);
    commitAll(repo, 'api checkpoint');
    // The tarball spec stands in for the registry name: npx picks the bin named like the
    // package, exactly as `npx checkpoint-protocol status` does once it is published.
    const status = npx(repo, [`file:${tarball}`, 'status']);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/\bapi\b/);
    const doctor = npx(repo, [`--package=file:${tarball}`, DISTINCT, 'doctor']);
    expect(doctor.status, doctor.stderr).toBe(0);
    expect(doctor.stdout).toMatch(/doctor: 1 checkpoint/);
    expect(existsSync(join(repo, 'node_modules'))).toBe(false);
    expectDecoyNeverRan();
  });

  it('`npx <package> init` works, and says the driver it registered lives in npx\'s cache', () => {
    const repo = makeRepo();
    dirs.push(repo);
    const init = npx(repo, [`file:${tarball}`, 'init']);
    expect(init.status, init.stderr).toBe(0);
    expect(init.stdout).toMatch(/set merge\.checkpoint\.driver to a copy in npx's cache, which npm may clear \(add checkpoint-protocol as a dev dependency/);
    expect(git(repo, ['config', 'merge.checkpoint.driver'])).toContain(join(work, 'npx-cache', '_npx'));
    expectDecoyNeverRan();
  });
});
