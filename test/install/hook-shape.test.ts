// How init reads a user's pre-push hook before saying where checkpoint's sh line goes: the
// interpreter its #! line names, and a #! line the line was put above (git then runs sh).
import { describe, expect, it } from 'vitest';
import { hookShape, interpreterOf, sourcesHuskySh } from '../../src/install/hook-shape.js';

const LINE = '. node_modules/checkpoint-protocol/hooks/pre-push-chain';

describe('interpreterOf', () => {
  it.each([
    ['#!/bin/sh', 'sh'],
    ['#! /bin/bash -e', 'bash'],
    ['#!/usr/bin/env bash', 'bash'],
    ['#!/usr/bin/env -S python3 -u', 'python3'],
    ['#!/usr/bin/env NODE_OPTIONS=--no-warnings node', 'node'],
    ['#!/usr/local/bin/python3.12\r', 'python3.12'],
    ['#!', null],
    ['# lint before push', null],
    ['npm test', null],
  ])('%j names %j', (line, name) => {
    expect(interpreterOf(line)).toBe(name);
  });
});

describe('hookShape', () => {
  it('a plain `set` of shell options before our line (set -euo pipefail, set -e) is no command before it: "already" (red team 64 r3 r5)', () => {
    for (const opts of ['set -euo pipefail', 'set -e', 'set -eu\nset -o pipefail', 'set +x # quiet']) {
      expect(hookShape(`#!/usr/bin/env bash\n${opts}\n\n# checkpoint first\n. node_modules/checkpoint-protocol/hooks/pre-push-chain\necho lint\n`).ours, opts).toBe('first');
    }
    // `set --` replaces the arguments, and `set` alone lists variables: commands like any other.
    for (const other of ['set -- a b', 'set', 'set -e; read x']) {
      expect(hookShape(`#!/bin/sh\n${other}\n. node_modules/checkpoint-protocol/hooks/pre-push-chain\n`).ours, other).toBe('later');
    }
  });

  it("a husky 5-8 hook: our line is first right after its husky.sh line; above it husky.sh runs it twice (red team 64 r3 8)", () => {
    for (const husky of ['. "$(dirname -- "$0")/_/husky.sh"', '. "$(dirname "$0")/_/husky.sh"']) {
      expect(hookShape(`#!/usr/bin/env sh\n${husky}\n\n${LINE}\necho lint\n`).ours, husky).toBe('first');
      expect(hookShape(`#!/usr/bin/env sh\n${LINE}\n${husky}\n\necho lint\n`).ours, husky).toBe('above-husky');
      expect(hookShape(`#!/usr/bin/env sh\n${husky}\necho lint\n${LINE}\n`).ours, husky).toBe('later');
      expect(sourcesHuskySh(`#!/usr/bin/env sh\n${LINE}\n${husky}\n`), husky).toBe(true);
    }
    // husky.sh sourced after a command of the hook's own, or another file: no husky 5-8 hook.
    expect(sourcesHuskySh('#!/bin/sh\necho lint\n. "$(dirname -- "$0")/_/husky.sh"\n')).toBe(false);
    expect(sourcesHuskySh('#!/bin/sh\n. "$(dirname -- "$0")/_/other.sh"\n')).toBe(false);
    expect(hookShape(`#!/bin/sh\n${LINE}\necho lint\n`).ours).toBe('first');
  });

  it('a sh or bash hook: our line first after its #! line (CRLF too) or after comments is first; none foreign', () => {
    expect(hookShape(`#!/usr/bin/env bash\r\nset -euo pipefail\r\n`)).toEqual({ ours: null, shebang: true, foreign: null, demoted: null });
    expect(hookShape(`#!/bin/bash\n# gate (see CONTRIBUTING.md)\n\n${LINE}\nnpm test\n`)).toEqual({ ours: 'first', shebang: true, foreign: null, demoted: null });
    expect(hookShape(`npm run lint\n${LINE}\n`)).toEqual({ ours: 'later', shebang: false, foreign: null, demoted: null });
  });

  it('our line above a bash #! line: git runs the hook with sh, so it is demoted; above a sh one nothing changes', () => {
    expect(hookShape(`${LINE}\n#!/usr/bin/env bash\nset -euo pipefail\n`)).toEqual({ ours: 'first', shebang: false, foreign: null, demoted: 'bash' });
    expect(hookShape(`${LINE}\n#!/bin/sh\nexit 0\n`)).toEqual({ ours: 'first', shebang: false, foreign: null, demoted: null });
    // A #! line after the hook's own first command is no #! line at all.
    expect(hookShape(`npm test\n#!/bin/bash\n`).demoted).toBeNull();
  });

  it('a dash hook takes the line after its #! line; zsh and ksh, which the line is not tested under, are run through the sh wrapper (stop 62 known limit)', () => {
    expect(hookShape('#!/bin/dash\nnpm test\n')).toEqual({ ours: null, shebang: true, foreign: null, demoted: null });
    expect(hookShape('#!/usr/bin/env sh\nnpm test\n').foreign).toBeNull();
    expect(hookShape('#!/usr/bin/env zsh\nnpm test\n').foreign).toBe('zsh');
    expect(hookShape('#!/bin/ksh\nnpm test\n').foreign).toBe('ksh');
  });

  it('a python or node hook is foreign, with our line in it or not, above its #! line or below', () => {
    expect(hookShape('#!/usr/bin/env python3\nimport sys\n')).toMatchObject({ ours: null, foreign: 'python3' });
    expect(hookShape(`#!/usr/bin/env python3\n${LINE}\nimport sys\n`)).toMatchObject({ ours: 'first', foreign: 'python3' });
    expect(hookShape(`${LINE}\n#!/usr/bin/env node\nprocess.exit(0)\n`)).toMatchObject({ ours: 'first', shebang: false, foreign: 'node' });
  });
});
