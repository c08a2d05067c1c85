// Runs once in vitest's main process, before any worker: makes the template repositories that
// every makeRepo() copies (one git init and root commit for the whole run, not one per worker),
// and removes them, and the launcher's code cache of this run (vitest.config.ts env), at the end.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { initTemplate, type RepoTemplates } from './repo.js';

declare module 'vitest' {
  export interface ProvidedContext {
    repoTemplates: RepoTemplates;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cp-template-')));
  project.provide('repoTemplates', { committed: initTemplate(join(dir, 'committed'), true), empty: initTemplate(join(dir, 'empty'), false) });
  const cache = project.config.env.XDG_CACHE_HOME;
  return () => {
    rmSync(dir, { recursive: true, force: true });
    if (cache) rmSync(cache, { recursive: true, force: true });
  };
}
