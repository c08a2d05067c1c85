import { afterEach, describe, expect, it } from 'vitest';
import { readDriverConfig, readDriverSetting } from '../../src/git/driver-config.js';
import { decodeConfigValue } from '../../src/git/config-file.js';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DRIVER_NAME } from '../../src/install/driver-command.js';
import { GIT_ENV, cleanup, cli, git, gitTry, makeRepo, tempDir } from '../helpers/repo.js';
import { execFileSync } from 'node:child_process';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(cleanup));

describe('merge driver registration, read without git', () => {
  it('decodes config values the way git does', () => {
    expect(decodeConfigValue(`'/a b/node' 'x'\\\\''s' %O ; comment`)).toBe(`'/a b/node' 'x'\\''s' %O`);
    expect(decodeConfigValue('"quoted ; kept" tail # cut')).toBe('quoted ; kept tail');
    expect(decodeConfigValue('a\\tb\\"c')).toBe('a\tb"c');
  });

  it('reads what git wrote, and doctor warns when it points at a missing install', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    const value = `'/usr/bin/node' '/gone/it'\\''s here/bin/checkpoint.js' merge-driver %O %A %B %P %L`;
    git(dir, ['config', 'merge.checkpoint.driver', value]);
    expect(await readDriverConfig(dir)).toBe(value);
    expect(cli(dir, ['install-driver']).code).toBe(0); // routes .gitattributes, replaces the driver
    git(dir, ['config', 'merge.checkpoint.driver', value]);
    const findings = JSON.parse(cli(dir, ['doctor', '--json']).stdout).findings as { check: string; level: string; message: string }[];
    expect(findings.filter((f) => f.check === 'merge_driver')).toEqual([
      expect.objectContaining({ level: 'warning', message: expect.stringContaining("/gone/it's here/bin/checkpoint.js") }),
    ]);
  });

  it("reads git's older [merge.checkpoint] section form, so doctor agrees with install-driver", async () => {
    const dir = makeRepo();
    dirs.push(dir);
    expect(cli(dir, ['install-driver']).code).toBe(0);
    const value = git(dir, ['config', 'merge.checkpoint.driver']).trim();
    git(dir, ['config', '--remove-section', 'merge.checkpoint']);
    appendFileSync(join(dir, '.git/config'), `[merge.CheckPoint]\n\tname = ${DRIVER_NAME}\n\tdriver = "${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"\n[merge.other]\n\tdriver = x\n`);
    expect(git(dir, ['config', 'merge.checkpoint.driver']).trim()).toBe(value);
    expect(await readDriverConfig(dir)).toBe(value);
    expect(cli(dir, ['install-driver']).stdout).toBe('✓ merge driver already installed\n');
    const findings = JSON.parse(cli(dir, ['doctor', '--json']).stdout).findings as { check: string }[];
    expect(findings.filter((f) => f.check === 'merge_driver')).toEqual([]);
  });

  it('answers as git does for every mix of system, global (XDG and HOME) and local settings', async () => {
    const dir = makeRepo();
    dirs.push(dir);
    const home = tempDir();
    mkdirSync(join(home, 'xdg/git'), { recursive: true });
    const files = { system: join(home, 'system.cfg'), xdg: join(home, 'xdg/git/config'), home: join(home, '.gitconfig'), local: join(dir, '.git/config') };
    // Set key by key and put back: process.env itself must stay node's (os.tmpdir() and child
    // processes read the real environment), and one worker runs many test files (isolate: false).
    const keys = ['GIT_CONFIG_SYSTEM', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_NOSYSTEM', 'XDG_CONFIG_HOME', 'HOME'] as const;
    const saved = Object.fromEntries(keys.map((k) => [k, process.env[k]]));
    const setEnv = (values: Record<string, string | undefined>) => {
      for (const k of keys) {
        if (values[k] === undefined) delete process.env[k];
        else process.env[k] = values[k];
      }
    };
    try {
      for (let mask = 0; mask < 16; mask++) {
        for (const [i, [name, file]] of Object.entries(files).entries()) {
          if (name === 'local') gitTry(dir, ['config', '--local', '--unset-all', 'merge.checkpoint.driver']);
          else writeFileSync(file, '');
          if (mask & (1 << i)) {
            if (name === 'local') git(dir, ['config', '--local', 'merge.checkpoint.driver', `driver-${name}`]);
            else writeFileSync(file, `[merge "checkpoint"]\n\tdriver = driver-${name}\n`);
          }
        }
        // git's own places, not the tests' GIT_CONFIG_GLOBAL=/dev/null and GIT_CONFIG_NOSYSTEM.
        const places = { GIT_CONFIG_SYSTEM: files.system, XDG_CONFIG_HOME: join(home, 'xdg'), HOME: home };
        const env: NodeJS.ProcessEnv = { ...GIT_ENV, ...places };
        delete env.GIT_CONFIG_GLOBAL;
        delete env.GIT_CONFIG_NOSYSTEM;
        let expected: string | null = null;
        try {
          expected = execFileSync('git', ['config', '--show-scope', 'merge.checkpoint.driver'], { cwd: dir, env, encoding: 'utf8' }).trim();
        } catch {
          expected = null; // exit 1: set nowhere
        }
        setEnv(places);
        const setting = await readDriverSetting(dir);
        setEnv(saved);
        expect(setting === null ? null : `${setting.scope}\t${setting.value}`, `mask ${mask}`).toBe(expected);
      }
    } finally {
      setEnv(saved);
    }
  });
});
