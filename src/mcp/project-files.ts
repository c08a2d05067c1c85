// A tool argument that names a file is read only inside the project: through our tools an agent
// must not reach /etc/shadow or ~/.ssh, not even the first character of one in a parse error.
// (The CLI's `validate <file>` reads what the user names: that is the user's own choice.)
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { CheckpointError } from '../errors.js';
import { quoted, shownPath } from '../one-line.js';
import { locate } from '../store/safe-fs.js';

/** Refuses `file` (as the command resolves it, from `dir`) unless it lies inside `root` without following a link out. */
export function assertProjectFile(root: string, dir: string, file: string, tool: string): void {
  const named = quoted(file);
  const hint = 'name files inside the project, e.g. .checkpoints/api.checkpoint.json';
  if (file.includes('\0')) throw new CheckpointError('E_PATH', `${tool}: file ${named} holds a NUL byte; refused`, { hint });
  const rel = relative(root, resolve(dir, file));
  // The project itself ("." from its root) is inside it: validate then says it is a folder, as for any other.
  if (rel === '') return;
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new CheckpointError('E_PATH', `${tool}: file ${named} is outside the project ${shownPath(root)}; refused (the MCP tools read only inside it)`, { hint });
  }
  // Walks it from the root, one component at a time: a link out of the project on the way is refused.
  locate(root, rel);
}
