import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkpointsDir } from '../../store/checkpoints.js';
import { refuseOutside } from '../../store/index-conflicts.js';
import { overriddenMessage, overridingMergeLines } from '../../install/merge-attribute.js';
import { CHECKPOINTS_GITIGNORE, CHECKPOINTS_README } from '../../store/readme.js';
import { SCHEMA_FILE, schemaText } from '../../protocol/schema.js';
import { planDriver } from '../../install/driver.js';
import { planPrePushHook } from '../../install/hook.js';
import { gitlinkedCheckpointsNote, ignoredCheckpointsNote } from '../../install/ignored.js';
import { applyPlans, type InstallPlan } from '../../install/plan.js';
import { HOOK_TEMPLATE_PATH, stableBinPath } from '../../install/package-paths.js';
import type { Context, ParsedArgs } from '../spec.js';
import { renderSteps } from './install-driver.js';
import { rootOf } from './common.js';
import { writeFileAtomic } from '../../store/atomic.js';
import { ensureProjectDir, linkAt, projectPathExists, readProjectText, writablePath } from '../../store/safe-fs.js';
import { CheckpointError } from '../../errors.js';
import { shownPath } from '../../one-line.js';
import { gitDirEnvNote } from '../../git/git-dir-env.js';
import { resolveGitDirsSync } from '../../git/locate.js';
import { usesSha256 } from '../../git/object-format.js';

/**
 * Creates .checkpoints/ with its README, .gitignore and JSON Schema. Idempotent: reports what
 * it did. README and .gitignore belong to the project once written: init writes them only
 * when absent and leaves an edited one alone. The schema is ours and kept current.
 * Every step is planned (and any refusal thrown) before the first write: exit 2 changes nothing.
 */
export async function run(_args: ParsedArgs, ctx: Context): Promise<number> {
  const root = rootOf(ctx);
  const plans = [planCheckpointsDir(root), ...(await integrationPlans(root, ctx))];
  const { changes, notes } = applyPlans(plans);
  // A note of setup: said with what this run set up, not again by a run that changes nothing.
  const sha256 = changes.length ? sha256Note(root) : null;
  if (sha256 !== null) notes.unshift(sha256);
  // Set up, and still never run: a later .gitattributes line decides merges of checkpoint files.
  notes.push(...overridingMergeLines(root).map(overriddenMessage));
  if (ctx.json) ctx.out.json({ ok: true, root, changes, notes });
  else ctx.out.out(renderSteps(changes, notes, `✓ ${root} is already set up`));
  return 0;
}

function planCheckpointsDir(root: string): InstallPlan {
  const dir = checkpointsDir(root);
  // Left out by a sparse checkout, README and .gitignore would be written over the committed ones.
  refuseOutside(root, 'set up .checkpoints/');
  const exists = projectPathExists(root, dir);
  if (exists) ensureProjectDir(root, dir); // only checks: a file or FIFO named .checkpoints is refused here
  const files = [
    planFile(root, join(dir, 'README.md'), CHECKPOINTS_README, '.checkpoints/README.md', 'absent'),
    planFile(root, join(dir, SCHEMA_FILE), schemaText(), `.checkpoints/${SCHEMA_FILE}`, 'changed'),
    planIgnoreFile(root, join(dir, '.gitignore')),
  ];
  return {
    changes: [...(exists ? [] : ['created .checkpoints/']), ...files.flatMap((f) => f.changes)],
    notes: [],
    apply() {
      ensureProjectDir(root, dir);
      for (const f of files) f.apply();
    },
  };
}

/** .checkpoints/.gitignore, written when absent; one committed as a link is refused (git reads none, so lock files would show as untracked). */
function planIgnoreFile(root: string, path: string): InstallPlan {
  const link = linkAt(path);
  if (link !== null) {
    throw new CheckpointError('E_PATH', `.checkpoints/.gitignore is a symlink to ${shownPath(link)}: git reads no linked .gitignore, so the lock files it should ignore show as untracked; refused`, {
      hint: 'replace the link with a regular file holding the lines git should apply, then run init again',
    });
  }
  return planFile(root, path, CHECKPOINTS_GITIGNORE, '.checkpoints/.gitignore', 'absent');
}

/** Writes `content` when the file is absent, or (`changed`) whenever it differs. */
function planFile(root: string, path: string, content: string, label: string, when: 'absent' | 'changed'): InstallPlan {
  const current = readProjectText(root, path);
  const write = current === null || (when === 'changed' && current !== content);
  const changes = write ? [`${current === null ? 'wrote' : 'updated'} ${label}`] : current === content ? [] : [`left ${label} as the project edited it`];
  return { changes, notes: [], apply: () => write && writeFileAtomic(writablePath(root, path, { atomic: true }), content) };
}

/** Git integrations that init also sets up: the merge driver and the pre-push hook. */
async function integrationPlans(root: string, ctx: Context): Promise<InstallPlan[]> {
  const note = (change: string): InstallPlan[] => [{ changes: [change], notes: [], apply() {} }];
  if (!existsSync(join(root, '.git'))) {
    const env = gitDirEnvNote(ctx.env);
    return note(env ? `merge driver and pre-push hook not installed: ${env}; then run init again` : 'not a git repository: merge driver and pre-push hook not installed (run init again after `git init`)');
  }
  const ignored = gitlinkedCheckpointsNote(root) ?? ignoredCheckpointsNote(root);
  const bin = stableBinPath(root);
  return [
    ...(ignored === null ? [] : [{ changes: [], notes: [ignored], apply() {} }]),
    planDriver(root, process.execPath, bin),
    await planPrePushHook(root, readFileSync(HOOK_TEMPLATE_PATH, 'utf8'), process.execPath, bin, HOOK_TEMPLATE_PATH),
  ];
}

/**
 * A repository naming its objects with SHA-256: the hook is installed all the same (it will judge
 * pushes once checkpoint reads such a repository), but today it lets every push through, so init
 * says so once, at setup, rather than leave the user to find it at a push. Not a git repository: none.
 */
function sha256Note(root: string): string | null {
  if (!existsSync(join(root, '.git'))) return null;
  try {
    if (!usesSha256(resolveGitDirsSync(root).commonDir)) return null;
  } catch {
    return null; // a .git git cannot open: the driver's own planning names it
  }
  return 'this repository names its objects with SHA-256, which checkpoint cannot read yet: the pre-push hook lets every push through unjudged and `checkpoint doctor` refuses here (exit 2); the merge driver and `validate` work';
}
