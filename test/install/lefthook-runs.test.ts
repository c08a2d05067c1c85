// Whether a lefthook config runs checkpoint's hook on push (red team 61h-04): only an uncommented
// command under the top-level pre-push with use_stdin: true, in any format lefthook reads.
import { describe, expect, it } from 'vitest';
import { lefthookState } from '../../src/install/lefthook-runs.js';

const HOOK = 'node_modules/checkpoint-protocol/hooks/pre-push';
const RUN = `sh ${HOOK} {1} {2}`;

describe('lefthookState', () => {
  it('runs: a pre-push command or job with use_stdin, in each form and format', () => {
    expect(lefthookState('lefthook.yml', `pre-push:\n  commands:\n    checkpoint:   # notes 8.0\n      run: ${RUN}\n      use_stdin: true\n`, HOOK)).toBe('runs');
    expect(lefthookState('lefthook.yml', `pre-push:\n  parallel: false\n  jobs:\n  - run: echo audit\n  - name: checkpoint\n    use_stdin: true\n    run: |\n      ${RUN}\n`, HOOK)).toBe('runs');
    expect(lefthookState('lefthook.yaml', `pre-push: { commands: { checkpoint: { run: "${RUN}", use_stdin: true } } }\n`, HOOK)).toBe('runs');
    expect(lefthookState('lefthook.yml', `pre-push:\n  commands:\n    checkpoint: { run: '${RUN}', use_stdin: true }\n`, HOOK)).toBe('runs');
    expect(lefthookState('lefthook.yml', `pre-push:\n  jobs:\n    - group:\n        jobs:\n          - run: ${RUN}\n            use_stdin: true\n`, HOOK)).toBe('runs');
    expect(lefthookState('lefthook.jsonc', `{\n  // push checks\n  "pre-push": { "commands": { "checkpoint": { "run": "${RUN}", "use_stdin": true, }, }, },\n}\n`, HOOK)).toBe('runs');
    expect(lefthookState('lefthook.toml', `[pre-push.commands.checkpoint]\nrun = "${RUN}" # ours\nuse_stdin = true\n`, HOOK)).toBe('runs');
    expect(lefthookState('lefthook.toml', `[[pre-push.jobs]]\nrun = "echo audit"\n\n[[pre-push.jobs]]\nname = "checkpoint"\nrun = '${RUN}'\nuse_stdin = true\n`, HOOK)).toBe('runs');
  });

  it('a comment, another hook, or no use_stdin does not run it on push', () => {
    expect(lefthookState('lefthook.yml', `pre-push:\n  jobs:\n    - run: echo audit\n# checkpoint: { run: "${RUN}", use_stdin: true }\n`, HOOK)).toBe(null);
    expect(lefthookState('lefthook.yml', `pre-push:\n  jobs:\n    - run: echo audit\npre-commit:\n  commands:\n    checkpoint:\n      run: ${RUN}\n      use_stdin: true\n`, HOOK)).toBe('not-pre-push');
    expect(lefthookState('lefthook.yml', `pre-push:\n  jobs:\n    - run: echo audit\n    - name: checkpoint\n      run: ${RUN}\n`, HOOK)).toBe('no-stdin');
    expect(lefthookState('lefthook.yml', `pre-push:\n  commands:\n    checkpoint:\n      run: ${RUN}\n      # use_stdin: true\n`, HOOK)).toBe('no-stdin');
    expect(lefthookState('lefthook.json', `{ "pre-push": { "commands": { "checkpoint": { "run": "${RUN}", "use_stdin": false } } } }`, HOOK)).toBe('no-stdin');
    expect(lefthookState('lefthook.toml', `# [pre-push.commands.checkpoint]\n[pre-commit.commands.checkpoint]\nrun = "${RUN}"\nuse_stdin = true\n`, HOOK)).toBe('not-pre-push');
  });
});
