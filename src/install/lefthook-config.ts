// lefthook's config files, found as lefthook finds them (internal/config/loader.go): the main
// config is the first of lefthook, .lefthook, .config/lefthook with .yml, .yaml, .json, .jsonc,
// .toml (extensions tried in that order, each over the three names); a lefthook-local config is
// merged over it (or, without a main one, used alone). A lefthook.yml written beside a
// .config/lefthook.yml or a lefthook.json would be read instead of it: advice names the file
// lefthook reads.
import { existsSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';

const EXTENSIONS = ['.yml', '.yaml', '.json', '.jsonc', '.toml'];
const MAIN = ['lefthook', '.lefthook', '.config/lefthook'];
const LOCAL = ['lefthook-local', '.lefthook-local', '.config/lefthook-local'];

/** The first existing of `names`, as lefthook tries them, relative to `root`. */
function firstOf(root: string, names: string[]): string | null {
  for (const ext of EXTENSIONS) {
    for (const name of names) {
      const file = join(root, name + ext);
      try {
        if (existsSync(file) && statSync(file).isFile()) return file;
      } catch {
        // unreadable: the next name
      }
    }
  }
  return null;
}

/** The config files lefthook reads in this work tree, the main one first (absolute paths); none: []. */
export function lefthookConfigs(root: string): string[] {
  return [firstOf(root, MAIN), firstOf(root, LOCAL)].filter((f): f is string => f !== null);
}

/**
 * The pre-push command that runs our check, written as the config file's format writes it. A file
 * that has a pre-push key already (`text`, its content) gets the entry to add inside it: a second
 * top-level `pre-push:` is a duplicate key lefthook refuses, and every hook with it.
 */
export function lefthookEntry(file: string, run: string, text = ''): string {
  const ext = extname(file);
  const entry = (json: boolean) => (json ? `"checkpoint": { "run": ${JSON.stringify(run)}, "use_stdin": true }` : `checkpoint: { run: ${JSON.stringify(run)}, use_stdin: true }`);
  if (ext === '.json' || ext === '.jsonc') {
    return /"pre-push"\s*:/.test(text) ? `in its "pre-push" object, to "commands": ${entry(true)}` : `"pre-push": { "commands": { ${entry(true)} } }`;
  }
  if (ext === '.toml') return `[pre-push.commands.checkpoint] with run = ${JSON.stringify(run)} and use_stdin = true (a line each, below it)`;
  return /^["']?pre-push["']?\s*:/m.test(text)
    ? `under its pre-push: key, to commands: ${entry(false)} (or, where it lists jobs:, a job - { name: checkpoint, run: ${JSON.stringify(run)}, use_stdin: true })`
    : `pre-push: { commands: { ${entry(false)} } }`;
}
