// Whether a lefthook config runs checkpoint's hook on push (red team 61h-04): only an uncommented
// command under the top-level pre-push with use_stdin: true, in any format lefthook reads.
import { describe, expect, it } from 'vitest';
import { lefthookState } from '../../src/install/lefthook-runs.js';

const HOOK = 'node_modules/checkpoint-protocol/hooks/pre-push';
const RUN = `sh ${HOOK} {1} {2}`;

describe('lefthookState', () => {
  it('runs: a pre-push command or job with use_stdin, in each form and format', async () => {
    expect(await lefthookState('lefthook.yml', `pre-push:\n  commands:\n    checkpoint:   # notes 8.0\n      run: ${RUN}\n      use_stdin: true\n`, HOOK)).toBe('runs');
    expect(await lefthookState('lefthook.yml', `pre-push:\n  parallel: false\n  jobs:\n  - run: echo audit\n  - name: checkpoint\n    use_stdin: true\n    run: |\n      ${RUN}\n`, HOOK)).toBe('runs');
    expect(await lefthookState('lefthook.yaml', `pre-push: { commands: { checkpoint: { run: "${RUN}", use_stdin: true } } }\n`, HOOK)).toBe('runs');
    expect(await lefthookState('lefthook.yml', `pre-push:\n  commands:\n    checkpoint: { run: '${RUN}', use_stdin: true }\n`, HOOK)).toBe('runs');
    expect(await lefthookState('lefthook.yml', `pre-push:\n  jobs:\n    - group:\n        jobs:\n          - run: ${RUN}\n            use_stdin: true\n`, HOOK)).toBe('runs');
    expect(await lefthookState('lefthook.jsonc', `{\n  // push checks\n  "pre-push": { "commands": { "checkpoint": { "run": "${RUN}", "use_stdin": true, }, }, },\n}\n`, HOOK)).toBe('runs');
    expect(await lefthookState('lefthook.toml', `[pre-push.commands.checkpoint]\nrun = "${RUN}" # ours\nuse_stdin = true\n`, HOOK)).toBe('runs');
    expect(await lefthookState('lefthook.toml', `[[pre-push.jobs]]\nrun = "echo audit"\n\n[[pre-push.jobs]]\nname = "checkpoint"\nrun = '${RUN}'\nuse_stdin = true\n`, HOOK)).toBe('runs');
  });

  it('a comment, another hook, or no use_stdin does not run it on push', async () => {
    expect(await lefthookState('lefthook.yml', `pre-push:\n  jobs:\n    - run: echo audit\n# checkpoint: { run: "${RUN}", use_stdin: true }\n`, HOOK)).toBe(null);
    expect(await lefthookState('lefthook.yml', `pre-push:\n  jobs:\n    - run: echo audit\npre-commit:\n  commands:\n    checkpoint:\n      run: ${RUN}\n      use_stdin: true\n`, HOOK)).toBe('not-pre-push');
    expect(await lefthookState('lefthook.yml', `pre-push:\n  jobs:\n    - run: echo audit\n    - name: checkpoint\n      run: ${RUN}\n`, HOOK)).toBe('no-stdin');
    expect(await lefthookState('lefthook.yml', `pre-push:\n  commands:\n    checkpoint:\n      run: ${RUN}\n      # use_stdin: true\n`, HOOK)).toBe('no-stdin');
    expect(await lefthookState('lefthook.json', `{ "pre-push": { "commands": { "checkpoint": { "run": "${RUN}", "use_stdin": false } } } }`, HOOK)).toBe('no-stdin');
    expect(await lefthookState('lefthook.toml', `# [pre-push.commands.checkpoint]\n[pre-commit.commands.checkpoint]\nrun = "${RUN}"\nuse_stdin = true\n`, HOOK)).toBe('not-pre-push');
  });
  // Shapes real configs take that a hand-written reader got wrong (stop 62 known limit: lefthook
  // hand parser): each is read as lefthook's own YAML and TOML readers read it.
  it('YAML anchors, aliases and merge keys: the command lefthook runs is the one they build', async () => {
    const shared = `# what every push check shares\n.push: &push\n  use_stdin: true\n  skip:\n    - merge\n    - rebase\n\n`;
    expect(await lefthookState('lefthook.yml', `${shared}pre-push:\n  commands:\n    checkpoint:\n      <<: *push\n      run: ${RUN}\n`, HOOK)).toBe('runs');
    expect(await lefthookState('lefthook.yml', `pre-commit:\n  commands:\n    checkpoint: &checkpoint\n      run: ${RUN}\n      use_stdin: true\npre-push:\n  commands:\n    checkpoint: *checkpoint\n`, HOOK)).toBe('runs');
    expect(await lefthookState('lefthook.yml', `pre-push:\n  jobs:\n    - &checkpoint\n      name: checkpoint\n      run: ${RUN}\n      use_stdin: true\npre-merge-commit:\n  jobs:\n    - *checkpoint\n`, HOOK)).toBe('runs');
    // Merged in without use_stdin: named, and still given no refs.
    expect(await lefthookState('lefthook.yml', `.quiet: &quiet\n  skip: [merge, rebase]\npre-push:\n  commands:\n    checkpoint:\n      <<: *quiet\n      run: ${RUN}\n`, HOOK)).toBe('no-stdin');
    // An alias bomb is refused, not expanded.
    const bomb = `a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\npre-push:\n  commands:\n    checkpoint: { run: "${RUN}", use_stdin: true }\n`;
    expect(await lefthookState('lefthook.yml', bomb, HOOK)).toBe(null);
  });

  it('YAML block scalars in a jobs list, scalars over lines, quoted keys, comments after values', async () => {
    expect(await lefthookState('lefthook.yml', `pre-push:\n  jobs:\n    - run: |\n        ${RUN}\n      use_stdin: true\n`, HOOK)).toBe('runs');
    expect(await lefthookState('lefthook.yml', `pre-push:\n  jobs:\n  - run: >-\n      sh ${HOOK}\n      {1} {2}\n    name: checkpoint\n    use_stdin: true\n  - name: test\n    run: npm test\n`, HOOK)).toBe('runs');
    expect(await lefthookState('lefthook.yml', `pre-push:\n  commands:\n    checkpoint:\n      run: sh ${HOOK}\n        {1} {2}\n      use_stdin: true\n`, HOOK)).toBe('runs');
    expect(await lefthookState('lefthook.yml', `pre-push:\n  commands:\n    checkpoint:\n      run: "sh ${HOOK}\n        {1} {2}"\n      use_stdin: True\n`, HOOK)).toBe('runs');
    expect(await lefthookState('lefthook.yml', `---\n"pre-push" : # checks before a push\n  parallel: true # both at once\n  'commands':\n    "checkpoint: drift": # 8.0 notes\n      "run": "${RUN}" # {1} {2}: the remote's name and url\n      'use_stdin': true # lefthook passes the refs on stdin\n...\n`, HOOK)).toBe('runs');
    expect(await lefthookState('lefthook.yml', `pre-push:\n  jobs:\n    - name: checks\n      group:\n        parallel: true\n        jobs:\n          - name: checkpoint\n            run: ${RUN}\n            use_stdin: true\n          - run: npm test\n`, HOOK)).toBe('runs');
    // Two pre-push keys: lefthook refuses the file, so it runs nothing.
    expect(await lefthookState('lefthook.yml', `pre-push:\n  commands:\n    checkpoint: { run: "${RUN}", use_stdin: true }\npre-push:\n  commands:\n    test: { run: npm test }\n`, HOOK)).toBe(null);
  });

  it('TOML jobs as an array of inline tables, multi-line strings, quoted keys, arrays of tables', async () => {
    expect(await lefthookState('lefthook.toml', `[pre-push]\nparallel = true\njobs = [\n  { name = "audit", run = "npm audit" },\n  { name = "checkpoint", run = "${RUN}", use_stdin = true }, # ours\n]\n`, HOOK)).toBe('runs');
    expect(await lefthookState('lefthook.toml', `[pre-push.commands.checkpoint]\nrun = """\nsh ${HOOK} \\\n  {1} {2}\n"""\nuse_stdin = true\n`, HOOK)).toBe('runs');
    expect(await lefthookState('lefthook.toml', `[pre-push.commands."checkpoint.drift"]\nrun = '${RUN}'\nuse_stdin = true\n`, HOOK)).toBe('runs');
    expect(await lefthookState('lefthook.toml', `[pre-push]\ncommands = { checkpoint = { run = "${RUN}", use_stdin = true } }\n`, HOOK)).toBe('runs');
    expect(await lefthookState('lefthook.toml', `[[pre-push.jobs]]\nname = "checks"\n\n[pre-push.jobs.group]\nparallel = true\n\n[[pre-push.jobs.group.jobs]]\nname = "checkpoint"\nrun = "${RUN}"\nuse_stdin = true\n`, HOOK)).toBe('runs');
    // A key set twice: not TOML, so lefthook reads no config.
    expect(await lefthookState('lefthook.toml', `[pre-push.commands.checkpoint]\nrun = "${RUN}"\nuse_stdin = true\nuse_stdin = false\n`, HOOK)).toBe(null);
  });
});
