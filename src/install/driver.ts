// Registers the semantic merge driver in a repository: the .gitattributes line and the
// merge.checkpoint.* config. Idempotent; uninstall removes exactly what install adds.
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ATTRIBUTES_LINE, HISTORY_ATTRIBUTES_LINE } from '../protocol/file-names.js';
import { assertGitRepo, gitOut, gitRun } from './git-config.js';
import { isNpxCachePath } from './package-paths.js';
import { applyPlans, type InstallPlan, type InstallResult } from './plan.js';
import { writeFileAtomic } from '../store/atomic.js';
import { readProjectText, writablePath } from '../store/safe-fs.js';

export const DRIVER_NAME = 'checkpoint semantic JSON merge (checkpoint merge-driver)';
const ATTRIBUTE_LINES = [ATTRIBUTES_LINE, HISTORY_ATTRIBUTES_LINE];

/** Quote for the POSIX shell git runs drivers with; safe with spaces, quotes and $. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** %O %A %B %P %L: git substitutes them already shell-quoted. */
export function driverCommand(nodePath: string, binPath: string): string {
  return `${shellQuote(nodePath)} ${shellQuote(binPath)} merge-driver %O %A %B %P %L`;
}

/** Decides what install will change; reads (and refuses) everything before anything is written. */
export function planDriver(root: string, nodePath: string, binPath: string): InstallPlan {
  assertGitRepo(root);
  const changes: string[] = [];
  const sets: [string, string][] = [];
  const wanted: [string, string][] = [
    ['merge.checkpoint.name', DRIVER_NAME],
    ['merge.checkpoint.driver', driverCommand(nodePath, binPath)],
    ['merge.checkpoint.recursive', 'binary'],
  ];
  for (const [key, value] of wanted) {
    if (gitOut(root, ['config', '--local', '--get', key]) === value) continue;
    sets.push([key, value]);
    // A driver in npx's cache breaks silently when npm clears it: say so while it is fixable.
    const transient = key === 'merge.checkpoint.driver' && isNpxCachePath(binPath);
    changes.push(transient ? `set ${key} to a copy in npx's cache, which npm may clear (add checkpoint-protocol as a dev dependency and run init again)` : `set ${key}`);
  }
  const path = join(root, '.gitattributes');
  // A committed .gitattributes may be a link out of the repo or a FIFO: never followed or read.
  const text = readProjectText(root, path) ?? '';
  const lines = text.split(/\r?\n/);
  const missing = ATTRIBUTE_LINES.filter((l) => !lines.includes(l));
  let attributes: string | null = null;
  if (missing.length) {
    const eol = text.includes('\r\n') ? '\r\n' : '\n';
    const sep = text && !text.endsWith('\n') ? eol : '';
    attributes = text + sep + missing.join(eol) + eol;
    changes.push(`added ${missing.length === 1 ? 'a line' : `${missing.length} lines`} to .gitattributes`);
  }
  return {
    changes,
    notes: [],
    apply() {
      for (const [key, value] of sets) gitRun(root, ['config', '--local', key, value]);
      if (attributes !== null) writeFileAtomic(writablePath(root, path, { atomic: true }), attributes);
    },
  };
}

export function installDriver(root: string, nodePath: string, binPath: string): InstallResult {
  return applyPlans([planDriver(root, nodePath, binPath)]);
}

export function uninstallDriver(root: string): InstallResult {
  assertGitRepo(root);
  const changes: string[] = [];
  const notes: string[] = [];
  if (gitOut(root, ['config', '--local', '--get-regexp', '^merge\\.checkpoint\\.']) !== null) {
    gitRun(root, ['config', '--local', '--remove-section', 'merge.checkpoint']);
    changes.push('removed merge.checkpoint from git config');
  }
  const path = join(root, '.gitattributes');
  const text = readProjectText(root, path);
  if (text !== null) {
    const eol = text.includes('\r\n') ? '\r\n' : '\n';
    const kept = text.split(/\r?\n/).filter((l) => !ATTRIBUTE_LINES.includes(l));
    const next = kept.join(eol);
    if (next !== text) {
      if (next.trim() === '') unlinkSync(path);
      else writeFileAtomic(writablePath(root, path, { atomic: true }), next);
      changes.push('removed the checkpoint lines from .gitattributes');
    }
  }
  return { changes, notes };
}
