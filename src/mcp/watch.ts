// Watches .checkpoints/ of one project so the MCP server can tell the host when checkpoints
// change on disk (a CLI write, a `git checkout`). Events are debounced; a watcher that fails
// (folder removed, too many watches) is re-armed later and never takes the server down.
import { existsSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { listSkills } from '../store/checkpoints.js';
import { CHECKPOINTS_DIR } from '../store/root.js';
import { CHECKPOINT_SUFFIX, skillFromFileName } from '../store/skill-name.js';

export const DEBOUNCE_MS = 150;
const RETRY_MS = 2000;

export interface Watch {
  close(): void;
}

/** Calls onChange with the skills whose files changed (null: unknown, treat all as changed). */
export function watchCheckpoints(root: string, onChange: (skills: string[] | null) => void): Watch {
  let watcher: FSWatcher | null = null;
  let timer: NodeJS.Timeout | null = null;
  let retry: NodeJS.Timeout | null = null;
  let closed = false;
  let pending: Set<string> | null = new Set();
  // Set when the folder went unwatched (it was not there yet, a checkout removed it, the watch
  // failed): a file written before the next watch on it starts is seen by no watcher.
  let unwatched = false;

  const flush = () => {
    timer = null;
    const skills = pending;
    pending = new Set();
    try {
      onChange(skills ? [...skills] : null);
    } catch {
      // a notification that cannot be sent (host gone) is not our failure
    }
  };
  const changed = (file: string | null) => {
    if (file === null || file === CHECKPOINTS_DIR) pending = null;
    else {
      const skill = skillFromFileName(file);
      // lock and temp files come and go with every write; only the result matters
      if (!skill) return;
      pending?.add(skill);
    }
    if (!timer) timer = setTimeout(flush, DEBOUNCE_MS);
  };
  /** Every checkpoint now in the folder, announced as changed: what appeared while it went unwatched. */
  const rescan = () => {
    let skills: string[];
    try {
      skills = listSkills(root);
    } catch {
      return; // a folder the store refuses (a link out of the project) is refused by each call, not here
    }
    for (const skill of skills) changed(`${skill}${CHECKPOINT_SUFFIX}`);
  };
  const rearm = () => {
    unwatched = true;
    watcher?.close();
    watcher = null;
    if (!closed && !retry) retry = setTimeout(() => ((retry = null), arm()), RETRY_MS);
  };
  const arm = () => {
    if (closed) return;
    try {
      // The folder itself, or (before it exists, or after a checkout removed it) the project root.
      const dir = join(root, CHECKPOINTS_DIR);
      try {
        watcher = watch(dir, { persistent: false }, (_event, file) => {
          changed(file === null ? null : String(file));
          // A checkout that removed the folder leaves this watcher on nothing: watch anew.
          if (!existsSync(dir)) rearm();
        });
        // Listed after the watch started, so a file is either listed here or seen by it (or both: announced twice, harmless).
        if (unwatched) {
          unwatched = false;
          rescan();
        }
      } catch {
        watcher = watch(root, { persistent: false }, (_event, file) => {
          if (String(file) !== CHECKPOINTS_DIR) return;
          changed(null);
          rearm();
        });
      }
      watcher.on('error', rearm);
    } catch {
      rearm();
    }
  };
  arm();
  return {
    close() {
      closed = true;
      watcher?.close();
      if (timer) clearTimeout(timer);
      if (retry) clearTimeout(retry);
    },
  };
}
