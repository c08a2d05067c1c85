// Watches .checkpoints/ of one project so the MCP server can tell the host when checkpoints
// change on disk (a CLI write, a `git checkout`). An event only says "look again": each look
// compares the folder with what the last one found, so a change is announced once whichever
// events the OS delivers, in whatever order, or none (a checkout that removes the folder may
// end the watch before its files' events arrive). Looks are debounced; a watcher that fails
// (folder removed, too many watches) is re-armed later and never takes the server down.
import { statSync, watch as fsWatch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { listSkills } from '../store/checkpoints.js';
import { CHECKPOINTS_DIR } from '../store/root.js';
import { CHECKPOINT_SUFFIX, skillFromFileName } from '../store/skill-name.js';

export const DEBOUNCE_MS = 150;
export const RETRY_MS = 2000;

export interface Watch {
  close(): void;
}

/** What a look found: whether the folder is there (and which one), and each checkpoint's stat. */
export interface Snapshot {
  folder: string | null;
  files: Map<string, string>;
}

/** One file or folder's identity and last change, as a string to compare; null when it is not there. */
function stamp(path: string): string | null {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.dev}:${s.ino}:${s.mode}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch {
    return null;
  }
}

/** The folder as it is now; null when the store refuses it (a link out of the project). */
export function snapshot(root: string): Snapshot | null {
  const dir = join(root, CHECKPOINTS_DIR);
  let skills: string[];
  try {
    skills = listSkills(root);
  } catch {
    return null; // refused by each call that reads it, not here
  }
  const files = new Map<string, string>();
  for (const skill of skills) {
    const s = stamp(join(dir, `${skill}${CHECKPOINT_SUFFIX}`));
    if (s !== null) files.set(skill, s); // gone since the listing: not there
  }
  return { folder: stamp(dir), files };
}

/** The skills that appeared, went or changed between two looks; null when nothing did (the folder neither). */
export function changedSkills(before: Snapshot, after: Snapshot): string[] | null {
  const skills = new Set<string>();
  for (const [skill, s] of after.files) if (before.files.get(skill) !== s) skills.add(skill);
  for (const skill of before.files.keys()) if (!after.files.has(skill)) skills.add(skill);
  // The folder appearing or going is a change of the list even with no checkpoint in it.
  const folderMoved = (before.folder === null) !== (after.folder === null);
  return skills.size || folderMoved ? [...skills].sort() : null;
}

type WatchFn = (path: string, opts: { persistent: boolean }, listener: (event: string, file: string | Buffer | null) => void) => FSWatcher;

/**
 * Calls onChange with the skills whose files changed (null: unknown, treat all as changed; []:
 * only the folder came or went). `watch` is fs.watch; a test passes its own to choose the events.
 */
export function watchCheckpoints(root: string, onChange: (skills: string[] | null) => void, watch: WatchFn = fsWatch as WatchFn): Watch {
  const dir = join(root, CHECKPOINTS_DIR);
  let watcher: FSWatcher | null = null;
  let watched: string | null = null; // the folder the watcher is on (its stamp's dev:ino), null: on the root
  let timer: NodeJS.Timeout | null = null;
  let retry: NodeJS.Timeout | null = null;
  let closed = false;
  // What the host was last told of (or what was there when the watch began).
  let known: Snapshot | null = null;
  // Skills events named since the last look: announced as they are only when the folder cannot be looked at.
  let named: Set<string> | null = new Set();

  const look = () => {
    timer = null;
    const events = named;
    named = new Set();
    const now = snapshot(root);
    let skills: string[] | null;
    if (now && known) {
      skills = changedSkills(known, now);
      known = now;
      if (!skills) return;
    } else {
      if (now) known = now;
      if (events?.size === 0) return;
      skills = events ? [...events] : null;
    }
    try {
      onChange(skills);
    } catch {
      // a notification that cannot be sent (host gone) is not our failure
    }
  };
  const changed = (file: string | null) => {
    if (file === null || file === CHECKPOINTS_DIR) named = null;
    else {
      const skill = skillFromFileName(file); // lock and temp files name no checkpoint
      if (skill) named?.add(skill);
    }
    if (!closed && !timer) timer = setTimeout(look, DEBOUNCE_MS);
  };
  const rearm = () => {
    watcher?.close();
    watcher = null;
    if (!closed && !retry) retry = setTimeout(() => ((retry = null), arm()), RETRY_MS);
  };
  /** The folder the watcher is on is still the one at .checkpoints/ (not removed, nor removed and made anew). */
  const sameFolder = () => {
    const s = stamp(dir);
    return s !== null && s.split(':', 2).join(':') === watched;
  };
  const arm = () => {
    if (closed) return;
    try {
      try {
        // The folder itself, or (before it exists, or after a checkout removed it) the project root.
        watcher = watch(dir, { persistent: false }, (_event, file) => {
          const name = file === null ? null : String(file);
          changed(name);
          // A checkout that removed the folder leaves this watcher on nothing: watch anew. The
          // folder's own removal is named as the folder (inotify); one made anew may reuse the inode.
          if (name === null || name === CHECKPOINTS_DIR || !sameFolder()) rearm();
        });
        watched = stamp(dir)?.split(':', 2).join(':') ?? null;
      } catch {
        watched = null;
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
    // Looked at after the watch started, so a change is either in this look or seen by the
    // watch (or both: the second look then finds nothing new). The first look is the baseline.
    if (!known) known = snapshot(root);
    else changed(null);
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
