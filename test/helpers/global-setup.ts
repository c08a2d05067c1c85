// Runs once in vitest's main process, before any worker: makes the template repositories that
// every makeRepo() copies (one git init and root commit for the whole run, not one per worker)
// and the one initialized() copies init's files from, and removes them, and the launcher's code
// cache of this run (vitest.config.ts env), at the end.
import { cpSync, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { BIN, cli, INIT_WRITES, initTemplate, ROOT, type RepoTemplates } from './repo.js';

declare module 'vitest' {
  export interface ProvidedContext {
    repoTemplates: RepoTemplates;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cp-template-')));
  const cache = project.config.env.XDG_CACHE_HOME;
  const committed = initTemplate(join(dir, 'committed'), true);
  project.provide('repoTemplates', { committed, empty: initTemplate(join(dir, 'empty'), false), initialized: initializedTemplate(committed, join(dir, 'initialized'), cache) });
  return () => {
    rmSync(dir, { recursive: true, force: true });
    if (cache) rmSync(cache, { recursive: true, force: true });
  };
}

/**
 * The committed template after the built `checkpoint init` ran in it (initialized() in repo.ts
 * copies what it wrote); null without a build (tests that need one say so themselves).
 */
function initializedTemplate(committed: string, dir: string, cache: string | undefined): string | null {
  if (!existsSync(join(ROOT, 'dist/cli.cjs')) || !existsSync(BIN)) return null;
  cpSync(committed, dir, { recursive: true });
  const r = cli(dir, ['init'], { env: cache ? { XDG_CACHE_HOME: cache } : {} });
  if (r.code !== 0) throw new Error(`checkpoint init in the template repository failed: ${r.stderr}`);
  // initialized() copies these files and the config init added: what init writes must be no more.
  const added = files(dir).filter((f) => f !== '.git/config' && !existsSync(join(committed, f)));
  if (added.join('\n') !== [...INIT_WRITES].sort().join('\n')) throw new Error(`checkpoint init wrote ${added.join(', ')}; test/helpers/repo.ts INIT_WRITES lists ${INIT_WRITES.join(', ')}`);
  return dir;
}

/** Every file under `dir`, relative, sorted. */
function files(dir: string, under = ''): string[] {
  return readdirSync(join(dir, under), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(dir, join(under, e.name)) : [join(under, e.name)]))
    .sort();
}
