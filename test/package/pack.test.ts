// Works as published: `npm pack` from a clean copy of the sources (prepack builds), the
// tarball holds only what a user needs, it installs offline with zero runtime
// dependencies, and the installed CLI sets up a fresh repository, merges through its own
// driver and type-checks for a TypeScript consumer.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, commitAll, git, gitTry, GIT_ENV, makeRepo, ROOT, tempDir } from '../helpers/repo.js';

const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  files: string[];
  dependencies?: Record<string, string>;
  scripts: Record<string, string>;
};

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
let bin: string;

beforeAll(() => {
  work = tempDir('cp-pack-');
  dirs.push(work);
  // A clean copy of what the package is built from: no dist/, so prepack has to build it.
  const src = join(work, 'src');
  mkdirSync(src);
  for (const part of ['package.json', 'README.md', 'LICENSE', 'bin', 'hooks', 'scripts', 'src', 'tsconfig.json', 'tsconfig.build.json']) {
    if (existsSync(join(ROOT, part))) cpSync(join(ROOT, part), join(src, part), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(src, 'node_modules'), 'dir');
  const out = join(work, 'out');
  mkdirSync(out);
  ok(run('npm', ['pack', '--pack-destination', out], src), 'npm pack');
  const tgz = readdirSync(out).filter((f) => f.endsWith('.tgz'));
  expect(tgz).toEqual([`${PKG.name}-${PKG.version}.tgz`]);
  tarball = join(out, tgz[0]!);

  // An empty project installs it without the network: there is nothing to fetch.
  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }, null, 2)}\n`);
  ok(run('npm', ['install', '--no-audit', '--no-fund', '--offline', tarball], app), 'npm install --offline <tgz>');
  bin = join(app, 'node_modules/.bin/checkpoint');
});

afterAll(() => dirs.splice(0).forEach(cleanup));

describe('npm pack', () => {
  it('has a prepack script that builds, and no runtime dependencies (everything is bundled into dist/)', () => {
    expect(PKG.scripts.prepack).toMatch(/\bbuild\b/);
    expect(PKG.dependencies ?? {}).toEqual({});
  });

  it('the tarball holds bin/, dist/, hooks/, README, LICENSE and package.json, and nothing else', () => {
    const list = ok(run('tar', ['-tzf', tarball], work), 'tar -tzf').split('\n').filter(Boolean).map((p) => p.replace(/^package\//, ''));
    const allowed = /^(bin\/|dist\/|hooks\/|README\.md$|LICENSE$|package\.json$)/;
    expect(list.filter((p) => !allowed.test(p))).toEqual([]);
    for (const f of ['README.md', 'LICENSE', 'package.json', 'bin/checkpoint.js', 'bin/package.json', 'hooks/pre-push', 'dist/index.js', 'dist/merge-driver.cjs', 'dist/types/index.d.ts']) {
      expect(list, f).toContain(f);
    }
    expect(list.some((p) => /^(src|test|scripts|bench)\//.test(p) || p.endsWith('.ts') && !p.endsWith('.d.ts'))).toBe(false);
  });

  it('installs exactly one package into an empty project', () => {
    expect(readdirSync(join(app, 'node_modules')).filter((f) => !f.startsWith('.')).sort()).toEqual([PKG.name]);
    const installed = JSON.parse(readFileSync(join(app, 'node_modules', PKG.name, 'package.json'), 'utf8'));
    expect(installed.version).toBe(PKG.version);
    expect(installed.dependencies ?? {}).toEqual({});
  });
});

describe('the installed CLI', () => {
  it('checkpoint --version matches package.json, directly and through npx', () => {
    expect(ok(run(bin, ['--version'], app), 'checkpoint --version').trim()).toBe(PKG.version);
    expect(ok(run('npx', ['--no-install', 'checkpoint', '--version'], app), 'npx checkpoint --version').trim()).toBe(PKG.version);
  });

  it('init && status in a fresh git repository, with the merge driver pointing at the installed package', () => {
    const repo = makeRepo({ commit: false });
    dirs.push(repo);
    const r = run('sh', ['-c', '"$CHECKPOINT" init && "$CHECKPOINT" status'], repo, { ...NPM_ENV, CHECKPOINT: bin });
    const out = ok(r, 'checkpoint init && checkpoint status');
    expect(out).toContain('created .checkpoints/');
    expect(out).toContain('set merge.checkpoint.driver');
    expect(out).toMatch(/installed the pre-push hook/);
    expect(out).toMatch(/no checkpoints yet/);
    expect(r.stderr).toBe('');
    const driver = git(repo, ['config', 'merge.checkpoint.driver']).trim();
    expect(driver).toContain(join(app, 'node_modules', PKG.name, 'bin/checkpoint.js'));
    expect(driver).toMatch(/ merge-driver %O %A %B %P %L$/);
    expect(readFileSync(join(repo, '.gitattributes'), 'utf8')).toContain('.checkpoints/*.checkpoint.json merge=checkpoint');
    expect(readFileSync(join(repo, '.git/hooks/pre-push'), 'utf8')).toContain(join(app, 'node_modules', PKG.name, 'bin/checkpoint.js'));
  });

  it('a merge of two sessions goes through the installed driver and keeps both', () => {
    const repo = makeRepo();
    dirs.push(repo);
    const cp = (...args: string[]) => ok(run(bin, args, repo), `checkpoint ${args.join(' ')}`);
    cp('init');
    cp('update', 'api', '--project=demo', '--phase=build', '--step=one', '--progress_summary=Started.', '--next_actions+=first');
    commitAll(repo, 'base');
    git(repo, ['checkout', '-q', '-b', 'other']);
    cp('update', 'api', '--next_actions+=from other', '--progress_summary=Other session.');
    commitAll(repo, 'other session');
    git(repo, ['checkout', '-q', 'main']);
    cp('update', 'api', '--next_actions+=from main', '--step=two');
    commitAll(repo, 'main session');

    const merged = gitTry(repo, ['merge', '--no-edit', 'other']);
    expect(merged.status, merged.stdout + merged.stderr).toBe(0);
    const text = readFileSync(join(repo, '.checkpoints/api.checkpoint.json'), 'utf8');
    expect(text).not.toMatch(/^(<{7}|>{7}|={7})/m);
    const doc = JSON.parse(text);
    expect(doc.next_actions).toEqual(expect.arrayContaining(['first', 'from other', 'from main']));
    expect(doc.step).toBe('two');
    expect(doc.progress_summary).toBe('Other session.');
    ok(run(bin, ['validate'], repo), 'checkpoint validate after the merge');

    // The same two sides conflict without the driver: it really was ours that merged them.
    git(repo, ['reset', '-q', '--hard', 'HEAD~1']);
    const plain = gitTry(repo, ['-c', 'merge.checkpoint.driver=false', 'merge', '--no-edit', 'other']);
    expect(plain.status).not.toBe(0);
    git(repo, ['merge', '--abort']);
  });

  it('type-checks for a TypeScript consumer through package.json "exports"', () => {
    writeFileSync(
      join(app, 'consumer.ts'),
      [
        "import { validateCheckpoint, readCheckpoint, listSkills, findRoot, mergeCheckpointTexts, mergeCheckpointValues, runDoctor, parseJson, CheckpointError, type Finding, type Checkpoint } from 'checkpoint-cli';",
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
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: false, types: ['node'], typeRoots: [join(ROOT, 'node_modules/@types')] },
        files: ['consumer.ts'],
      }),
    );
    writeFileSync(join(app, 'package.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')), type: 'module' }));
    ok(run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', app], app), 'tsc on a consumer of the installed package');
  });
});
