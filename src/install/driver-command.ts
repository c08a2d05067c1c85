// The merge.checkpoint.* values install-driver writes, as pure text: what install sets, and
// whether a value found in a clone's config is one of ours (from any install, a moved one too)
// or the user's own (kept by install, and named by doctor instead of sending the user to
// install-driver, which would keep it again).

import { shellQuote } from '../shell-words.js';

// The POSIX shell git runs drivers with reads the paths quoted as any pasted command.
export { shellQuote };

export const DRIVER_NAME = 'checkpoint semantic JSON merge (checkpoint merge-driver)';

/** %O %A %B %P %L: git substitutes them already shell-quoted. */
export function driverCommand(nodePath: string, binPath: string): string {
  return `${shellQuote(nodePath)} ${shellQuote(binPath)} merge-driver %O %A %B %P %L`;
}

const QUOTED = `'(?:[^']|'\\\\'')*'`;
const OUR_DRIVER = new RegExp(`^${QUOTED} ${QUOTED} merge-driver %O %A %B %P %L$`);

/** True for a driver command install wrote (whichever node and bin paths it baked in). */
export function isOurDriverCommand(value: string): boolean {
  return OUR_DRIVER.test(value);
}
