// An `npx` to put first on PATH where a test runs a documented command (a hook, a CI step, an
// MCP server entry) and the command, not npx, is under test: it runs `npx --no-install <bin>
// args` as npx does in a project (the project's node_modules/.bin/<bin>) without npm's start-up
// (~0.7 s of CPU a run). Each file that uses it keeps at least one run through the real npx.
import { chmodSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { tempDir } from './repo.js';

const SCRIPT = `#!/bin/sh
# test shim: npx --no-install <bin> [args] -> ./node_modules/.bin/<bin> [args]
[ "$1" = --no-install ] || { echo "npx shim: only --no-install <bin> is supported" >&2; exit 97; }
shift
bin=$1
shift
[ -x "$PWD/node_modules/.bin/$bin" ] || { echo "npx shim: $bin is not installed here" >&2; exit 1; }
exec "$PWD/node_modules/.bin/$bin" "$@"
`;

/** `env` with the shim first on PATH; the shim's folder goes with the file's other temp folders. */
export function withNpxShim<T extends NodeJS.ProcessEnv>(env: T): T {
  const dir = tempDir('cp-npx-shim-');
  writeFileSync(join(dir, 'npx'), SCRIPT);
  chmodSync(join(dir, 'npx'), 0o755);
  return { ...env, PATH: [dir, env.PATH].join(delimiter) };
}
