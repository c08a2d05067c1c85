// Installs hooks/pre-push into the repository's hooks folder (core.hooksPath respected),
// keeping a foreign pre-push hook as pre-push.chained, which ours runs first. Idempotent.
import { chmodSync, renameSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { assertGitRepo, gitOut } from './git-config.js';
import { shellQuote } from './driver.js';
import { writeFileAtomic } from '../store/atomic.js';
import { ensureProjectDir, projectPathExists, readProjectText, writablePath } from '../store/safe-fs.js';

const MARKER = 'checkpoint pre-push hook';

export function hooksDir(root: string): string {
  const configured = gitOut(root, ['config', '--get', 'core.hooksPath']);
  if (configured) return isAbsolute(configured) ? configured : resolve(root, configured);
  const common = gitOut(root, ['rev-parse', '--git-common-dir'])!;
  return join(resolve(root, common), 'hooks');
}

/**
 * The shipped template with this installation's node and launcher baked in. Function
 * replacers: a string replacement would expand `$&`, `$'` and `$$` found in install paths.
 */
export function renderHook(template: string, nodePath: string, binPath: string): string {
  return template
    .replace(/^CHECKPOINT_NODE=""$/m, () => `CHECKPOINT_NODE=${shellQuote(nodePath)}`)
    .replace(/^CHECKPOINT_BIN=""$/m, () => `CHECKPOINT_BIN=${shellQuote(binPath)}`);
}

export function installPrePushHook(root: string, template: string, nodePath: string, binPath: string): string[] {
  assertGitRepo(root);
  const dir = hooksDir(root);
  // core.hooksPath may name a committed folder (.husky/, .githooks/): checked like any project path.
  ensureProjectDir(root, dir);
  const path = join(dir, 'pre-push');
  const content = renderHook(template, nodePath, binPath);
  const changes: string[] = [];
  const current = readProjectText(root, path, { maxBytes: 1024 * 1024 });
  if (current !== null) {
    if (current === content) return [];
    if (!current.includes(MARKER)) {
      const chained = join(dir, 'pre-push.chained');
      if (projectPathExists(root, chained)) return [`left ${path} alone: both it and pre-push.chained exist; chain \`checkpoint-protocol doctor --fail-on-warnings\` by hand`];
      renameSync(path, chained);
      changes.push('kept the existing pre-push hook as pre-push.chained (it runs first)');
    }
  }
  const target = writablePath(root, path, { atomic: true });
  writeFileAtomic(target, content);
  chmodSync(target, 0o755);
  changes.push(`installed the pre-push hook in ${path}`);
  return changes;
}
