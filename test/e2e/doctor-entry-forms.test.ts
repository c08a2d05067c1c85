// How people write generated_files entries (red team s11, #3 #4 #9), each as a user meets it: a
// hand-kept checkpoint committed and published months ago, then the push to a local bare remote;
// doctor's findings for both engines. The push is a real `git push` through the hook `checkpoint
// init` installs where the hook's part is in question (a push let through, one refused);
// elsewhere the verdict it gets is what that hook runs, doctor on the pushed range, asked
// in-process (judgedPush).
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/in-process.js';
import { BIN, commitAll, git, GIT_ENV, gitTry, read, tempDir, write, headSha } from '../helpers/repo.js';
import { handKept, judgedPush, published } from '../helpers/published.js';

const FILE = '.checkpoints/api.checkpoint.json';
const ENGINES = ['native', 'isomorphic'];

function listFiles(dir: string, files: string[], over: Record<string, unknown> = {}): void {
  const doc = JSON.parse(read(dir, FILE)) as Record<string, unknown> & { context_primer: { generated_files: string[] } };
  doc.context_primer.generated_files = files;
  write(dir, FILE, `${JSON.stringify({ ...doc, ...over }, null, 2)}\n`);
}

const push = (dir: string) => {
  const r = gitTry(dir, ['push', 'origin', 'main']);
  return { status: r.status, out: r.stdout + r.stderr };
};

type F = { path: string; level: string; message: string; blocks?: boolean };
async function fileFindings(dir: string, engine: string, extra: string[] = []): Promise<F[]> {
  const r = await runCli(dir, ['doctor', '--json', '--engine', engine, ...extra]);
  return (JSON.parse(r.stdout).findings as F[]).filter((f) => f.path.startsWith('context_primer.generated_files'));
}

const SOURCES = { 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 2;\n', 'app/[id]/page.tsx': 'export default () => null;\n', 'docs/guide/x.md': '# x\n' };

describe('URLs and links in generated_files (r11 #3)', () => {
  const links = [
    'https://github.com/o/r/blob/main/src/a.ts',
    'https://example.com/docs/api.html (deployed)',
    '(src/a.ts)',
    '[a](src/a.ts)',
    '[src/b.ts](src/b.ts) — the b half',
    '<src/a.ts>',
    'file:///repo/src/a.ts',
    'docs/guide/x.md?plain=1',
    'app/[id]/page.tsx',
  ];

  it('a push adding them is not refused; doctor notes the URLs as written and reads the links as their files', async () => {
    const dir = published('api', handKept(['src/a.ts']), SOURCES);
    listFiles(dir, ['src/a.ts', ...links]);
    commitAll(dir, 'cp: links');
    const r = push(dir);
    expect(r.out).not.toMatch(/blocks push/);
    expect(r.status, r.out).toBe(0);
    for (const engine of ENGINES) {
      const found = await fileFindings(dir, engine, ['--fail-on-warnings']);
      expect(found.filter((f) => f.level !== 'info'), engine).toEqual([]);
      // Exactly the three URLs are notes, in the text the checkpoint holds ("//" kept).
      expect(found.map((f) => f.message), engine).toEqual([
        '"https://github.com/o/r/blob/main/src/a.ts" names a URL, not a file in this checkout; read as a note, not checked',
        '"https://example.com/docs/api.html (deployed)" names a URL (https://example.com/docs/api.html), not a file in this checkout; read as a note, not checked',
        '"file:///repo/src/a.ts" names a URL, not a file in this checkout; read as a note, not checked',
      ]);
    }
  });

  it('a link names its file for drift too: a change after the checkpoint and a deletion, as the plain path would', async () => {
    const dir = published('api', handKept(['[a](src/a.ts)', '<src/b.ts> (PR 4)', 'docs/guide/x.md?plain=1', 'app/[id]/page.tsx']), SOURCES);
    write(dir, 'src/a.ts', 'export const a = 3;\n');
    write(dir, 'app/[id]/page.tsx', 'export default () => 1;\n');
    git(dir, ['rm', '-q', 'src/b.ts', 'docs/guide/x.md']);
    commitAll(dir, 'rework a, drop b');
    for (const engine of ENGINES) {
      const found = (await fileFindings(dir, engine)).map((f) => `${f.level} ${f.path}: ${f.message}`);
      expect(found, engine).toEqual([
        expect.stringMatching(/^warning context_primer\.generated_files\[0\]: src\/a\.ts changed after the checkpoint was written \([0-9a-f]{7} "rework a, drop b"/),
        expect.stringMatching(/^warning context_primer\.generated_files\[1\]: src\/b\.ts is missing: deleted in [0-9a-f]{7} "rework a, drop b"; update the checkpoint \(`checkpoint update api --context_primer\.generated_files\.1='<src\/b\.ts> \(PR 4; deleted\)'`\) or restore the file$/),
        expect.stringMatching(/^warning context_primer\.generated_files\[2\]: docs\/guide\/x\.md is missing: deleted in [0-9a-f]{7} "rework a, drop b"; update the checkpoint \(`checkpoint update api --context_primer\.generated_files\.2='docs\/guide\/x\.md\?plain=1 \(deleted\)'`\) or restore the file$/),
        expect.stringMatching(/^warning context_primer\.generated_files\[3\]: app\/\[id\]\/page\.tsx changed after the checkpoint was written/),
      ]);
    }
  });
});

describe('entries as agents list them: markers, arrows, verbs, placeholders, places (red team 12-04)', () => {
  // Each form names its own files (doctor names a file once per checkpoint).
  const FORMS = ['- F', '1. F', 'F \u2192 auth handler', 'F => store', 'F | limiter', 'F \u2705', 'Updated F', 'F and G', 'F:L10', 'F:L5-L9', 'F:', '{project-dir}/F', '<project>/F', '$PROJECT_DIR/F'];
  const entries = FORMS.map((form, i) => form.replace('F', `src/f${i}.ts`).replace('G', `src/g${i}.ts`));
  const files = entries.flatMap((_, i) => (FORMS[i]!.includes('G') ? [`src/f${i}.ts`, `src/g${i}.ts`] : [`src/f${i}.ts`]));

  it('a push adding them is not refused (the files are there); once the files are deleted, each is missing and the deleting push is refused', async () => {
    const dir = published('api', handKept(['src/a.ts']), { ...SOURCES, ...Object.fromEntries(files.map((f) => [f, `// ${f}\n`])) });
    listFiles(dir, entries);
    commitAll(dir, 'cp: list as an agent does');
    const added = await judgedPush(dir);
    expect(added.status, added.out).toBe(0);
    for (const engine of ENGINES) expect(await fileFindings(dir, engine, ['--fail-on-warnings']), engine).toEqual([]);
    git(dir, ['rm', '-q', ...files]);
    commitAll(dir, 'remove the auth module');
    for (const engine of ENGINES) {
      const found = await fileFindings(dir, engine);
      expect(found.map((f) => f.message.split(' ')[0]), engine).toEqual(files);
      expect(found.every((f) => f.level === 'warning' && / is missing: deleted in [0-9a-f]{7} "remove the auth module"/.test(f.message)), engine).toBe(true);
    }
    const refused = await judgedPush(dir);
    expect(refused.status, refused.out).not.toBe(0);
    expect(refused.out).toMatch(/src\/f0\.ts is missing[^\n]*\[blocks push\]/);
  });
});

describe('a symbol in a file, and Markdown emphasis around a path (red team 12-06)', () => {
  // Each form names its own file; the underscore-led names are files of their own.
  const FORMS = ['F::test_login', 'F::Foo', 'F:main()', 'F#Foo.bar', '**`F`**', '_F_', '***F***', '- **F** (PR 4)'];
  const entries = FORMS.map((form, i) => form.replace('F', `src/s${i}.py`));
  const own = ['_config.yml', 'src/__init__.py', 'src/_private.ts'];
  const files = [...entries.map((_, i) => `src/s${i}.py`), ...own];

  it('reads each as its file: a push adding them is not refused; once the files are deleted, each is missing and the deleting push is refused', async () => {
    const dir = published('api', handKept(['src/a.ts']), { ...SOURCES, ...Object.fromEntries(files.map((f) => [f, `# ${f}\n`])) });
    listFiles(dir, [...entries, ...own]);
    commitAll(dir, 'cp: symbols and emphasis');
    const added = await judgedPush(dir);
    expect(added.status, added.out).toBe(0);
    for (const engine of ENGINES) expect(await fileFindings(dir, engine, ['--fail-on-warnings']), engine).toEqual([]);
    git(dir, ['rm', '-q', ...files]);
    commitAll(dir, 'drop the module');
    for (const engine of ENGINES) {
      const found = await fileFindings(dir, engine);
      expect(found.map((f) => f.message.split(' ')[0]), engine).toEqual(files);
      expect(found.every((f) => f.level === 'warning' && / is missing: deleted in [0-9a-f]{7} "drop the module"; update the checkpoint \(`checkpoint update [\w-]+ --[\w.]+='.+'`\) or restore the file$/.test(f.message)), engine).toBe(true);
    }
    const refused = await judgedPush(dir);
    expect(refused.status, refused.out).not.toBe(0);
    expect(refused.out).toMatch(/src\/s0\.py is missing: deleted in [0-9a-f]{7} "drop the module"; update the checkpoint \(`checkpoint update [\w-]+ --[\w.]+='.+'`\) or restore the file \[blocks push\]/);
    expect(refused.out).toMatch(/src\/s5\.py is missing: deleted in [0-9a-f]{7} "drop the module"; update the checkpoint \(`checkpoint update [\w-]+ --[\w.]+='.+'`\) or restore the file \[blocks push\]/);
    expect(refused.out).toMatch(/_config\.yml is missing: deleted in [0-9a-f]{7} "drop the module"; update the checkpoint \(`checkpoint update [\w-]+ --[\w.]+='.+'`\) or restore the file \[blocks push\]/);
  });
});

describe("a path written from the folder above the project, the project folder's name first (red team B04)", () => {
  // handKept's project_dir is /home/claude/demo: "demo/src/a.ts" is src/a.ts as listed from /home/claude.
  it('reads it as the file under the project: a push adding it is not refused, and a change to the file after the save is drift under its own name', async () => {
    const dir = published('api', handKept(['src/a.ts']), SOURCES);
    listFiles(dir, ['demo/src/a.ts (PR 12)', '`demo/docs/guide/x.md` — rewritten']);
    commitAll(dir, 'cp: list from the folder above');
    const added = await judgedPush(dir);
    expect(added.status, added.out).toBe(0);
    for (const engine of ENGINES) expect(await fileFindings(dir, engine, ['--fail-on-warnings']), engine).toEqual([]);
    write(dir, 'src/a.ts', 'export const a = 2;\n');
    const tuned = commitAll(dir, 'tune a');
    for (const engine of ENGINES) {
      const found = (await fileFindings(dir, engine)).map((f) => f.message);
      expect(found, engine).toEqual([expect.stringMatching(new RegExp(`^src/a\\.ts changed after the checkpoint was written \\(${tuned.slice(0, 7)} "tune a"`))]);
    }
    const refused = await judgedPush(dir);
    expect(refused.status, refused.out).not.toBe(0);
    expect(refused.out).toMatch(/src\/a\.ts changed after the checkpoint was written[^\n]*\[blocks push\]/);
    expect(refused.out).not.toMatch(/missing/);
  });

  it('takes a real folder named like the project as written: a file deleted from it is missing, though src/a.ts is there', async () => {
    const dir = published('api', handKept(['src/a.ts']), { ...SOURCES, 'demo/src/a.ts': 'export const demo = 1;\n', 'demo/src/b.ts': 'export const b = 1;\n' });
    listFiles(dir, ['demo/src/a.ts']);
    commitAll(dir, 'cp: list the demo app');
    const added = await judgedPush(dir);
    expect(added.status, added.out).toBe(0);
    git(dir, ['rm', '-q', 'demo/src/a.ts']);
    const gone = commitAll(dir, 'drop the demo app');
    for (const engine of ENGINES) {
      expect((await fileFindings(dir, engine)).map((f) => f.message), engine).toEqual([`demo/src/a.ts is missing: deleted in ${gone.slice(0, 7)} "drop the demo app"; update the checkpoint (\`checkpoint update api --context_primer.generated_files.0='demo/src/a.ts (deleted)'\`) or restore the file`]);
    }
    const refused = await judgedPush(dir);
    expect(refused.status, refused.out).not.toBe(0);
    expect(refused.out).toMatch(/demo\/src\/a\.ts is missing: deleted in [0-9a-f]{7} "drop the demo app"; update the checkpoint \(`checkpoint update [\w-]+ --[\w.]+='.+'`\) or restore the file \[blocks push\]/);
  });
});

describe('untracked and ignored files in generated_files (r11 #4)', () => {
  const OLD = new Date('2026-01-01T00:00:00Z');

  /** Published listing src/a.ts; then dist/ ignored, a built bundle and a file never added, both months older than the checkpoint. */
  function withArtifacts(): string {
    const dir = published('api', handKept(['src/a.ts']), { ...SOURCES, '.gitignore': 'dist/\n*.log\n' });
    write(dir, 'dist/bundle.js', 'bundle\n');
    listFiles(dir, ['src/a.ts', 'dist/bundle.js (built by `npm run build`)', 'dist/never-built.js', 'src/scratch.ts'], { updated_at: '2026-03-20T09:00:00.5Z' });
    commitAll(dir, 'cp: list the bundle', '2026-03-20T09:01:00Z');
    write(dir, 'src/scratch.ts', 'export {};\n'); // written, never added
    for (const f of ['dist/bundle.js', 'src/scratch.ts']) utimesSync(join(dir, f), OLD, OLD);
    return dir;
  }

  it('an ignored build output and a never-added file are notes, not "uncommitted edits made after the checkpoint"', async () => {
    const dir = withArtifacts();
    for (const engine of ENGINES) {
      const found = await fileFindings(dir, engine);
      expect(found.filter((f) => f.path !== 'context_primer.generated_files[2]').map((f) => `${f.level}: ${f.message}`), engine).toEqual([
        'info: dist/bundle.js is ignored by git (a build output?); not checked',
        'info: src/scratch.ts is not tracked by git (never added: commit it if the work needs it); not checked',
      ]);
      expect((await runCli(dir, ['doctor', '--engine', engine, '--fail-on-warnings'])).stdout, engine).not.toMatch(/made after the checkpoint/);
    }
  });

  it('a tracked file\'s uncommitted edits are "made after the checkpoint" only when its mtime is after updated_at', async () => {
    const dir = withArtifacts();
    write(dir, 'src/a.ts', 'export const a = 9;\n');
    utimesSync(join(dir, 'src/a.ts'), OLD, OLD);
    for (const engine of ENGINES) {
      expect((await fileFindings(dir, engine)).find((f) => f.path === 'context_primer.generated_files[0]'), engine).toMatchObject({
        level: 'info', message: 'src/a.ts has uncommitted edits, last modified 2026-01-01T00:00:00.000Z, before the checkpoint was written',
      });
    }
    const now = new Date();
    utimesSync(join(dir, 'src/a.ts'), now, now);
    for (const engine of ENGINES) {
      expect((await fileFindings(dir, engine)).find((f) => f.path === 'context_primer.generated_files[0]'), engine).toMatchObject({
        level: 'warning', message: 'src/a.ts has uncommitted edits made after the checkpoint; re-read it',
      });
    }
  });

  it('the push carrying the checkpoint is not refused for an ignored file (built or not); a never-added one is named as such', async () => {
    const dir = withArtifacts();
    const refused = push(dir);
    expect(refused.status, refused.out).not.toBe(0);
    expect(refused.out).not.toMatch(/dist\/[^\n]*blocks push/);
    expect(refused.out).toMatch(/src\/scratch\.ts is not committed \(the work tree has it untracked\); commit it or drop it from the checkpoint \(as pushed in [0-9a-f]{7}\) \[blocks push\]/);
    // One line for the entry: the work tree's "not tracked by git" note is the pushed line's to say.
    expect(refused.out.split('\n').filter((l) => l.includes('src/scratch.ts'))).toHaveLength(1);
    const range = `${git(dir, ['rev-parse', 'origin/main']).trim()}..${headSha(dir)}`;
    for (const engine of ENGINES) {
      const blocking = (await runCli(dir, ['doctor', '--json', '--fail-on-warnings', '--engine', engine, '--pushed', range])).stdout;
      expect((JSON.parse(blocking).findings as F[]).filter((f) => f.blocks).map((f) => f.message), engine).toEqual([expect.stringContaining('src/scratch.ts is not committed')]);
    }
    // Dropped from the checkpoint: the ignored entries alone block nothing.
    listFiles(dir, ['src/a.ts', 'dist/bundle.js (built by `npm run build`)', 'dist/never-built.js'], { updated_at: new Date().toISOString() });
    commitAll(dir, 'cp: scratch is not part of the work');
    const r = await judgedPush(dir);
    expect(r.status, r.out).toBe(0);
  });

  it('the embedded engine follows info/exclude and core.excludesFile as git check-ignore does', async () => {
    const dir = published('api', handKept(['src/a.ts']), SOURCES);
    write(dir, '.git/info/exclude', 'out/\n');
    write(dir, '.git/my-excludes', '*.gen.ts\n');
    git(dir, ['config', 'core.excludesFile', join(dir, '.git/my-excludes')]);
    write(dir, 'out/x.js', 'x\n');
    write(dir, 'src/api.gen.ts', 'x\n');
    write(dir, 'src/new.ts', 'x\n');
    listFiles(dir, ['out/x.js', 'src/api.gen.ts', 'src/new.ts'], { updated_at: new Date(Date.now() + 3_600_000).toISOString() });
    const checked = git(dir, ['check-ignore', 'out/x.js', 'src/api.gen.ts', 'src/new.ts'].concat([]), {}).trim().split('\n');
    expect(checked).toEqual(['out/x.js', 'src/api.gen.ts']);
    for (const engine of ENGINES) {
      expect((await fileFindings(dir, engine)).map((f) => f.message), engine).toEqual([
        'out/x.js is ignored by git (a build output?); not checked',
        'src/api.gen.ts is ignored by git (a build output?); not checked',
        'src/new.ts is not tracked by git (never added: commit it if the work needs it); not checked',
      ]);
    }
  });

  it('a relative core.excludesFile is read from the work tree\'s top by both engines, as git run there reads it, wherever checkpoint runs', async () => {
    const dir = published('api', handKept(['src/a.ts']), SOURCES);
    write(dir, '.git/rel-excludes', '*.gen.ts\n');
    git(dir, ['config', 'core.excludesFile', '.git/rel-excludes']);
    write(dir, 'src/api.gen.ts', 'x\n');
    listFiles(dir, ['src/api.gen.ts'], { updated_at: new Date(Date.now() + 3_600_000).toISOString() });
    expect(git(dir, ['check-ignore', 'src/api.gen.ts']).trim()).toBe('src/api.gen.ts');
    // Run from a subfolder: the path is not taken from where checkpoint runs.
    for (const engine of ENGINES) {
      const r = await runCli(join(dir, 'src'), ['doctor', '--json', '--engine', engine]);
      const found = (JSON.parse(r.stdout).findings as F[]).filter((f) => f.path.startsWith('context_primer.generated_files'));
      expect(found.map((f) => f.message), engine).toEqual(['src/api.gen.ts is ignored by git (a build output?); not checked']);
    }
  });
});

describe('hostile ignore files', () => {
  it('a .gitignore linked to /dev/zero is not read (git does not follow it either); doctor answers', async () => {
    const dir = published('api', handKept(['src/a.ts']), SOURCES);
    symlinkSync('/dev/zero', join(dir, '.gitignore'));
    write(dir, 'gen/out.js', 'x\n');
    listFiles(dir, ['gen/out.js'], { updated_at: new Date(Date.now() + 3_600_000).toISOString() });
    for (const engine of ENGINES) {
      expect((await fileFindings(dir, engine)).map((f) => f.message), engine).toEqual(['gen/out.js is not tracked by git (never added: commit it if the work needs it); not checked']);
    }
  });
});

describe('a Windows-style entry whose file was deleted (r11 #9)', () => {
  it('is looked up by the path it reads as, in the work tree and at the pushed tip', async () => {
    const dir = published('api', handKept(['.\\src\\a.ts', 'src\\b.ts (PR 3)']), SOURCES);
    git(dir, ['rm', '-q', 'src/a.ts', 'src/b.ts']);
    commitAll(dir, 'rm a');
    for (const engine of ENGINES) {
      expect((await fileFindings(dir, engine)).map((f) => f.message), engine).toEqual([
        expect.stringMatching(/^src\/a\.ts is missing: deleted in [0-9a-f]{7} "rm a"; update the checkpoint \(`checkpoint update api --context_primer\.generated_files\.0='\.\\src\\a\.ts \(deleted\)'`\) or restore the file$/),
        expect.stringMatching(/^src\/b\.ts is missing: deleted in [0-9a-f]{7} "rm a"; update the checkpoint \(`checkpoint update api --context_primer\.generated_files\.1='src\\b\.ts \(PR 3; deleted\)'`\) or restore the file$/),
      ]);
    }
    const r = await judgedPush(dir);
    expect(r.status, r.out).not.toBe(0);
    expect(r.out).toMatch(/src\/a\.ts is missing: deleted in [0-9a-f]{7} "rm a"; update the checkpoint \(`checkpoint update [\w-]+ --[\w.]+='.+'`\) or restore the file \[blocks push\]/);
    expect(r.out).toMatch(/src\/b\.ts is missing: deleted in [0-9a-f]{7} "rm a"; update the checkpoint \(`checkpoint update [\w-]+ --[\w.]+='.+'`\) or restore the file \[blocks push\]/);
  });

  it('a Windows-style entry whose file exists does not block a push carrying its checkpoint', async () => {
    const dir = published('api', handKept(['src/a.ts']), SOURCES);
    listFiles(dir, ['.\\src\\a.ts', 'src\\b.ts (PR 3)']);
    commitAll(dir, 'cp: windows paths');
    const r = await judgedPush(dir);
    expect(r.status, r.out).toBe(0);
  });
});

describe('files the checkpoint itself says were deleted on purpose', () => {
  it('an entry whose note says the file was deleted, removed or renamed is a note when the file is gone, in doctor and in the pushed tip', async () => {
    const dir = published('api', handKept(['src/a.ts']), { ...SOURCES, 'src/c.ts': 'c\n', 'src/d.ts': 'd\n' });
    git(dir, ['rm', '-q', 'src/a.ts', 'src/b.ts', 'src/c.ts']);
    git(dir, ['mv', 'src/d.ts', 'src/d2.ts']);
    commitAll(dir, 'Remove the legacy handlers (#40)', '2026-03-15T10:00:00Z');
    listFiles(dir, ['src/a.ts (deleted)', 'src/b.ts — removed in PR 40', 'src/c.ts [deleted on purpose]', 'src/d.ts (renamed to src/d2.ts)', 'docs/guide/x.md'], { updated_at: '2026-03-15T11:00:00Z' });
    commitAll(dir, 'cp: record the removal', '2026-03-15T11:00:30Z');
    for (const engine of ENGINES) {
      const found = await fileFindings(dir, engine, ['--fail-on-warnings']);
      expect(found.filter((f) => f.level !== 'info'), engine).toEqual([]);
      expect(found.map((f) => f.message), engine).toEqual([
        'src/a.ts is missing, as its entry says (deleted); not checked',
        'src/b.ts is missing, as its entry says (removed in PR 40); not checked',
        'src/c.ts is missing, as its entry says (deleted on purpose); not checked',
        'src/d.ts is missing, as its entry says (renamed to src/d2.ts); not checked',
      ]);
    }
    const r = await judgedPush(dir);
    expect(r.out).not.toMatch(/blocks push/);
    expect(r.status, r.out).toBe(0);
  });

  it("a missing file's finding names the update that says so in its entry: pasted as printed into a shell, it clears the refused push (red team 62d, 08)", async () => {
    const kept = ['src/a.ts', 'src/b.ts (PR 12, 4cb0b09)', 'src/gen/*.ts (generated)', 'src/e.ts — codegen', 'Makefile'];
    const dir = published('api', handKept(kept), { ...SOURCES, 'src/gen/client.ts': 'c\n', 'src/e.ts': 'e\n', Makefile: 'all:\n' });
    git(dir, ['rm', '-q', 'src/b.ts', 'src/gen/client.ts', 'Makefile']);
    git(dir, ['mv', 'src/e.ts', 'src/e2.ts']);
    commitAll(dir, 'Drop b, the generated client and make; rename e');
    const refused = push(dir);
    expect(refused.status, refused.out).not.toBe(0);
    const blocking = refused.out.split('\n').filter((l) => l.endsWith('[blocks push]'));
    const commands = blocking.map((l) => /; update the checkpoint \(`(checkpoint update [^`]+)`\)/.exec(l)?.[1]);
    // Each entry marked as the note doctor reads (goneNote), its own note kept; the other entries untouched.
    expect(commands).toEqual([
      "checkpoint update api --context_primer.generated_files.1='src/b.ts (PR 12, 4cb0b09; deleted)'",
      "checkpoint update api --context_primer.generated_files.2='src/gen/*.ts (generated; deleted)'",
      "checkpoint update api --context_primer.generated_files.3='src/e.ts — codegen — renamed to src/e2.ts'",
      "checkpoint update api --context_primer.generated_files.4='Makefile (deleted)'",
    ]);
    // The same command as `fix` in --json.
    const json = JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout) as { findings: (F & { fix?: string })[] };
    expect(json.findings.filter((f) => f.fix !== undefined && f.path.startsWith('context_primer.')).map((f) => f.fix)).toEqual(commands);
    // Pasted into sh as printed, `checkpoint` on PATH as an install puts it.
    const bin = join(tempDir('cp-bin-'), 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'checkpoint'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, { mode: 0o755 });
    const pasted = spawnSync('/bin/sh', ['-c', commands.join('\n')], { cwd: dir, env: { ...GIT_ENV, PATH: `${bin}:${GIT_ENV.PATH}` }, encoding: 'utf8' });
    expect(pasted.status, pasted.stderr).toBe(0);
    const doc = JSON.parse(read(dir, FILE)) as { context_primer: { generated_files: string[] } };
    expect(doc.context_primer.generated_files).toEqual(['src/a.ts', 'src/b.ts (PR 12, 4cb0b09; deleted)', 'src/gen/*.ts (generated; deleted)', 'src/e.ts — codegen — renamed to src/e2.ts', 'Makefile (deleted)']);
    commitAll(dir, 'cp: b, the client and make are gone, e renamed');
    expect((await runCli(dir, ['doctor', '--fail-on-warnings'])).code).toBe(0);
    const pushed = push(dir);
    expect(pushed.out).not.toMatch(/blocks push/);
    expect(pushed.status, pushed.out).toBe(0);
  });

  it('an entry listing several files names the update that splits the one gone off as an entry of its own: pasted as printed, doctor is clean and a later deletion of a file still listed is drift (stop 62 known limit)', async () => {
    const kept = ['src/a.ts, src/b.ts (PR 12, 4cb0b09)', 'src/c.ts and src/a.ts', 'src/x.ts,src/d.ts', 'src/a.ts; src/e.ts (codegen)', 'src/a.ts & src/f.ts & src/g.ts'];
    const dir = published('api', handKept(kept), { ...SOURCES, 'src/c.ts': 'c\n', 'src/d.ts': 'd\n', 'src/x.ts': 'x\n', 'src/e.ts': 'e\n', 'src/f.ts': 'f\n', 'src/g.ts': 'g\n' });
    git(dir, ['rm', '-q', 'src/b.ts', 'src/c.ts', 'src/d.ts', 'src/f.ts', 'src/g.ts']);
    git(dir, ['mv', 'src/e.ts', 'src/e2.ts']);
    commitAll(dir, 'Drop b, c, d, f and g; rename e');
    const refused = push(dir);
    expect(refused.status, refused.out).not.toBe(0);
    const lines = refused.out.split('\n').filter((l) => l.endsWith('[blocks push]'));
    const commands = lines.map((l) => /; update the checkpoint \(`(checkpoint update [^`]+)`\)/.exec(l)?.[1]);
    // The others' text as written, in the entry left; the note kept with the file it follows. Two
    // files of one entry gone (f and g): no command, as one would undo the other's when both are pasted.
    expect(commands).toEqual([
      "checkpoint update api --context_primer.generated_files.0='src/a.ts' --context_primer.generated_files+='src/b.ts (PR 12, 4cb0b09; deleted)'",
      "checkpoint update api --context_primer.generated_files.1='src/a.ts' --context_primer.generated_files+='src/c.ts (deleted)'",
      "checkpoint update api --context_primer.generated_files.2='src/x.ts' --context_primer.generated_files+='src/d.ts (deleted)'",
      "checkpoint update api --context_primer.generated_files.3='src/a.ts' --context_primer.generated_files+='src/e.ts (codegen; renamed to src/e2.ts)'",
      undefined,
      undefined,
    ]);
    const json = JSON.parse((await runCli(dir, ['doctor', '--json'])).stdout) as { findings: (F & { fix?: string })[] };
    expect(json.findings.filter((f) => f.fix !== undefined && f.path.startsWith('context_primer.')).map((f) => f.fix)).toEqual(commands.slice(0, 4));
    // Pasted into sh as printed, `checkpoint` on PATH as an install puts it.
    const bin = join(tempDir('cp-bin-'), 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'checkpoint'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, { mode: 0o755 });
    const pasted = spawnSync('/bin/sh', ['-c', commands.slice(0, 4).join('\n')], { cwd: dir, env: { ...GIT_ENV, PATH: `${bin}:${GIT_ENV.PATH}` }, encoding: 'utf8' });
    expect(pasted.status, pasted.stderr).toBe(0);
    const doc = JSON.parse(read(dir, FILE)) as { context_primer: { generated_files: string[] } };
    expect(doc.context_primer.generated_files).toEqual(['src/a.ts', 'src/a.ts', 'src/x.ts', 'src/a.ts', 'src/a.ts & src/f.ts & src/g.ts', 'src/b.ts (PR 12, 4cb0b09; deleted)', 'src/c.ts (deleted)', 'src/d.ts (deleted)', 'src/e.ts (codegen; renamed to src/e2.ts)']);
    listFiles(dir, [...doc.context_primer.generated_files.slice(0, 4), 'src/a.ts', ...doc.context_primer.generated_files.slice(5)]);
    commitAll(dir, 'cp: b, c, d and f, g are gone, e renamed');
    for (const engine of ENGINES) {
      const found = await fileFindings(dir, engine, ['--fail-on-warnings']);
      expect(found.filter((f) => f.level !== 'info'), engine).toEqual([]);
    }
    const pushed = push(dir);
    expect(pushed.out).not.toMatch(/blocks push/);
    expect(pushed.status, pushed.out).toBe(0);
    // The mark speaks for its own file only: src/x.ts, listed beside d.ts, deleted now is drift.
    git(dir, ['rm', '-q', 'src/x.ts']);
    commitAll(dir, 'Drop x');
    expect((await fileFindings(dir, 'native')).filter((f) => f.level !== 'info').map((f) => `${f.level} ${f.message}`)).toEqual([
      expect.stringMatching(/^warning src\/x\.ts is missing: deleted in [0-9a-f]{7} "Drop x"; update the checkpoint \(`checkpoint update api --context_primer\.generated_files\.2='src\/x\.ts \(deleted\)'`\) or restore the file$/),
    ]);
  });

  it("a side branch pushed while main is checked out: a missing file's line says to check it out and names the update there; followed, the push goes through (stop 62 known limit)", async () => {
    const dir = published('api', handKept(['src/a.ts, src/b.ts (PR 12)', 'src/c.ts']), { ...SOURCES, 'src/c.ts': 'c\n' });
    git(dir, ['checkout', '-q', '-b', 'feature']);
    git(dir, ['rm', '-q', 'src/b.ts', 'src/c.ts']);
    commitAll(dir, 'Drop b and c');
    git(dir, ['checkout', '-q', 'main']);
    const refused = gitTry(dir, ['push', 'origin', 'feature']);
    const out = refused.stdout + refused.stderr;
    expect(refused.status, out).not.toBe(0);
    const lines = out.split('\n').filter((l) => l.endsWith('[blocks push]'));
    const commands = lines.map((l) => /; update the checkpoint on the branch you pushed \(check it out first, then: `(checkpoint update [^`]+)`\) \(as pushed in [0-9a-f]{7}\) \[blocks push\]$/.exec(l)?.[1]);
    expect(commands, out).toEqual([
      "checkpoint update api --context_primer.generated_files.0='src/a.ts' --context_primer.generated_files+='src/b.ts (PR 12; deleted)'",
      "checkpoint update api --context_primer.generated_files.1='src/c.ts (deleted)'",
    ]);
    // Not pasteable on main: no `fix` for it in --json, which names commands for this checkout.
    const json = JSON.parse((await runCli(dir, ['doctor', '--json', `--pushed=${git(dir, ['rev-parse', 'feature']).trim()}`])).stdout) as { findings: (F & { fix?: string })[] };
    expect(json.findings.filter((f) => f.path.startsWith('context_primer.') && f.level === 'warning').map((f) => f.fix)).toEqual([undefined, undefined]);
    git(dir, ['checkout', '-q', 'feature']);
    const bin = join(tempDir('cp-bin-'), 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'checkpoint'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, { mode: 0o755 });
    const pasted = spawnSync('/bin/sh', ['-c', commands.join('\n')], { cwd: dir, env: { ...GIT_ENV, PATH: `${bin}:${GIT_ENV.PATH}` }, encoding: 'utf8' });
    expect(pasted.status, pasted.stderr).toBe(0);
    commitAll(dir, 'cp: b and c are gone');
    git(dir, ['checkout', '-q', 'main']);
    const pushed = gitTry(dir, ['push', 'origin', 'feature']);
    expect(pushed.stdout + pushed.stderr).not.toMatch(/blocks push/);
    expect(pushed.status, pushed.stderr).toBe(0);
  });

  it('an entry listing several files, every one of them gone, names the update that marks the entry: pasted as printed through sh, doctor --fail-on-warnings is clean and the push goes through (f4 3)', async () => {
    const kept = ['src/b.ts, src/c.ts', 'src/d.ts and src/e.ts (codegen)', 'src/a.ts', 'src/f.ts, src/g.ts'];
    const dir = published('api', handKept(kept), { ...SOURCES, 'src/c.ts': 'c\n', 'src/d.ts': 'd\n', 'src/e.ts': 'e\n', 'src/f.ts': 'export const f = "a file long enough to be read as renamed";\n', 'src/g.ts': 'g\n' });
    git(dir, ['rm', '-q', 'src/b.ts', 'src/c.ts', 'src/d.ts', 'src/e.ts', 'src/g.ts']);
    git(dir, ['mv', 'src/f.ts', 'src/f2.ts']);
    commitAll(dir, 'Drop b, c, d, e and g; rename f');
    const refused = push(dir);
    expect(refused.status, refused.out).not.toBe(0);
    const lines = refused.out.split('\n').filter((l) => l.endsWith('[blocks push]'));
    const commands = lines.map((l) => /; update the checkpoint \(`(checkpoint update [^`]+)`\)/.exec(l)?.[1]);
    // Each file's line names the same update: pasting one or both marks the entry once. One file
    // renamed, the other deleted: none, as the entry's one note would say "deleted" of both.
    expect(commands).toEqual([
      "checkpoint update api --context_primer.generated_files.0='src/b.ts, src/c.ts (deleted)'",
      "checkpoint update api --context_primer.generated_files.0='src/b.ts, src/c.ts (deleted)'",
      "checkpoint update api --context_primer.generated_files.1='src/d.ts and src/e.ts (codegen; deleted)'",
      "checkpoint update api --context_primer.generated_files.1='src/d.ts and src/e.ts (codegen; deleted)'",
      undefined,
      undefined,
    ]);
    listFiles(dir, ['src/b.ts, src/c.ts', 'src/d.ts and src/e.ts (codegen)', 'src/a.ts', 'src/f2.ts', 'src/g.ts (deleted)']);
    commitAll(dir, 'cp: f and g by hand');
    const bin = join(tempDir('cp-bin-'), 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'checkpoint'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, { mode: 0o755 });
    const pasted = spawnSync('/bin/sh', ['-c', commands.filter(Boolean).join('\n')], { cwd: dir, env: { ...GIT_ENV, PATH: `${bin}:${GIT_ENV.PATH}` }, encoding: 'utf8' });
    expect(pasted.status, pasted.stderr).toBe(0);
    const doc = JSON.parse(read(dir, FILE)) as { context_primer: { generated_files: string[] } };
    expect(doc.context_primer.generated_files).toEqual(['src/b.ts, src/c.ts (deleted)', 'src/d.ts and src/e.ts (codegen; deleted)', 'src/a.ts', 'src/f2.ts', 'src/g.ts (deleted)']);
    commitAll(dir, 'cp: b, c, d and e are gone');
    for (const engine of ENGINES) {
      const r = await runCli(dir, ['doctor', '--engine', engine, '--fail-on-warnings']);
      expect(r.code, r.stdout).toBe(0);
      expect(r.stdout, engine).toMatch(/0 warnings/);
    }
    const pushed = push(dir);
    expect(pushed.out).not.toMatch(/blocks push/);
    expect(pushed.status, pushed.out).toBe(0);
  });

  it("a side branch pushed while main is checked out, a glob's only matches deleted on it: the line says to check it out and names the update there; followed, the push goes through (f4 4)", async () => {
    const dir = published('api', handKept(['src/api/*.ts', 'src/a.ts']), { ...SOURCES, 'src/api/users.ts': 'u\n', 'src/api/orders.ts': 'o\n' });
    git(dir, ['checkout', '-q', '-b', 'feature']);
    git(dir, ['rm', '-q', 'src/api/users.ts', 'src/api/orders.ts']);
    commitAll(dir, 'Drop the api handlers');
    git(dir, ['checkout', '-q', 'main']);
    const refused = gitTry(dir, ['push', 'origin', 'feature']);
    const out = refused.stdout + refused.stderr;
    expect(refused.status, out).not.toBe(0);
    const lines = out.split('\n').filter((l) => l.endsWith('[blocks push]'));
    expect(lines, out).toEqual([
      expect.stringMatching(/: src\/api\/\*\.ts matches no file \(its last match src\/api\/(?:users|orders)\.ts was deleted in [0-9a-f]{7} "Drop the api handlers"\); update the checkpoint on the branch you pushed \(check it out first, then: `checkpoint update api --context_primer\.generated_files\.0='src\/api\/\*\.ts \(deleted\)'`\) \(as pushed in [0-9a-f]{7}\) \[blocks push\]$/),
    ]);
    const command = /then: `(checkpoint update [^`]+)`/.exec(lines[0]!)![1]!;
    // Not pasteable on main: no `fix` for it in --json, which names commands for this checkout.
    const json = JSON.parse((await runCli(dir, ['doctor', '--json', `--pushed=${git(dir, ['rev-parse', 'feature']).trim()}`])).stdout) as { findings: (F & { fix?: string })[] };
    expect(json.findings.filter((f) => f.path.startsWith('context_primer.') && f.level === 'warning').map((f) => f.fix)).toEqual([undefined]);
    git(dir, ['checkout', '-q', 'feature']);
    const bin = join(tempDir('cp-bin-'), 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'checkpoint'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, { mode: 0o755 });
    const pasted = spawnSync('/bin/sh', ['-c', command], { cwd: dir, env: { ...GIT_ENV, PATH: `${bin}:${GIT_ENV.PATH}` }, encoding: 'utf8' });
    expect(pasted.status, pasted.stderr).toBe(0);
    commitAll(dir, 'cp: the api handlers are gone');
    git(dir, ['checkout', '-q', 'main']);
    const pushed = gitTry(dir, ['push', 'origin', 'feature']);
    expect(pushed.stdout + pushed.stderr).not.toMatch(/blocks push/);
    expect(pushed.status, pushed.stderr).toBe(0);
  });

  it('a note about the content ("src/a.ts — removed the v1 handler") still reads a deleted file as drift', async () => {
    const dir = published('api', handKept(['src/a.ts — removed the v1 handler', 'src/b.ts (to be deleted)']), SOURCES);
    git(dir, ['rm', '-q', 'src/a.ts', 'src/b.ts']);
    commitAll(dir, 'Drop a and b');
    for (const engine of ENGINES) {
      const found = await fileFindings(dir, engine);
      expect(found.map((f) => `${f.level} ${f.message}`), engine).toEqual([
        expect.stringMatching(/^warning src\/a\.ts is missing: deleted in [0-9a-f]{7} "Drop a and b"; update the checkpoint \(`checkpoint update api --context_primer\.generated_files\.0='src\/a\.ts — removed the v1 handler — deleted'`\) or restore the file$/),
        expect.stringMatching(/^warning src\/b\.ts is missing: deleted in [0-9a-f]{7} "Drop a and b"; update the checkpoint \(`checkpoint update api --context_primer\.generated_files\.1='src\/b\.ts \(to be deleted; deleted\)'`\) or restore the file$/),
      ]);
    }
  });
});

describe('entries as a session writes them, red team 12-06', () => {
  const FILES = { ...SOURCES, 'src/a.test.ts': 't\n', 'src/c.ts': 'c\n', 'src/new.ts': 'n\n', 'src/moved.ts': 'm\n' };

  it('a note on where a file came from ("renamed from src/old.ts") is no word that it is gone: its deletion is drift and the push is refused', async () => {
    const dir = published('api', handKept(['src/new.ts (renamed from src/old.ts)', 'src/moved.ts (moved from lib/)', 'src/a.ts (renamed to src/a2.ts)']), FILES);
    git(dir, ['rm', '-q', 'src/new.ts', 'src/moved.ts', 'src/a.ts']);
    commitAll(dir, 'Drop new and moved');
    for (const engine of ENGINES) {
      const found = await fileFindings(dir, engine);
      expect(found.map((f) => `${f.level} ${f.message}`), engine).toEqual([
        expect.stringMatching(/^warning src\/new\.ts is missing: deleted in [0-9a-f]{7} "Drop new and moved"; update the checkpoint \(`checkpoint update api --context_primer\.generated_files\.0='src\/new\.ts \(renamed from src\/old\.ts; deleted\)'`\) or restore the file$/),
        expect.stringMatching(/^warning src\/moved\.ts is missing: deleted in [0-9a-f]{7} "Drop new and moved"; update the checkpoint \(`checkpoint update api --context_primer\.generated_files\.1='src\/moved\.ts \(moved from lib\/; deleted\)'`\) or restore the file$/),
        'info src/a.ts is missing, as its entry says (renamed to src/a2.ts); not checked',
      ]);
    }
    const r = await judgedPush(dir);
    expect(r.out).toMatch(/src\/new\.ts is missing/);
    expect(r.status, r.out).not.toBe(0);
  });

  it('lists joined by " + " or trailing off ("etc", "…") are checked part by part; a trailing ellipsis is no part of a path', async () => {
    const dir = published('api', handKept(['src/a.ts + src/a.test.ts', 'src/b.ts, src/c.ts etc', 'docs/guide/x.md\u2026', 'app/[id]/page.tsx...']), FILES);
    for (const engine of ENGINES) expect(await fileFindings(dir, engine, ['--fail-on-warnings']), engine).toEqual([]);
    git(dir, ['rm', '-q', 'src/a.test.ts', 'src/c.ts']);
    commitAll(dir, 'Drop a test and c');
    for (const engine of ENGINES) {
      const found = await fileFindings(dir, engine);
      expect(found.map((f) => `${f.level} ${f.path}: ${f.message}`), engine).toEqual([
        // The file gone split off its list as an entry of its own, marked (stop 62 known limit); a list
        // trailing off ("etc") gets no command: the entry left ("src/b.ts etc") would read otherwise.
        expect.stringMatching(/^warning context_primer\.generated_files\[0\]: src\/a\.test\.ts is missing: deleted in [0-9a-f]{7} "Drop a test and c"; update the checkpoint \(`checkpoint update api --context_primer\.generated_files\.0='src\/a\.ts' --context_primer\.generated_files\+='src\/a\.test\.ts \(deleted\)'`\) or restore the file$/),
        expect.stringMatching(/^warning context_primer\.generated_files\[1\]: src\/c\.ts is missing: deleted in [0-9a-f]{7} "Drop a test and c"; update the checkpoint \(or restore the file\)$/),
      ]);
    }
    const r = await judgedPush(dir);
    expect(r.out).toMatch(/src\/c\.ts is missing/);
    expect(r.status, r.out).not.toBe(0);
  });
});

describe('files the checkpoint says are not made yet', () => {
  it('an entry noted "to write", "planned", "not yet created" is a note while no commit made it; one a commit made and a pushed commit deleted is still drift', async () => {
    const dir = published('api', handKept(['src/a.ts']), SOURCES);
    listFiles(dir, ['src/a.ts', 'docs/api.md — to write', 'src/orders.ts (planned for sprint 2)', 'docs/adr/0001.md: not yet created', 'src/b.ts (pending review)'], { updated_at: '2026-03-20T09:00:00Z' });
    commitAll(dir, 'cp: plan the docs', '2026-03-20T09:01:00Z');
    for (const engine of ENGINES) {
      const found = await fileFindings(dir, engine, ['--fail-on-warnings']);
      expect(found.map((f) => `${f.level} ${f.message}`), engine).toEqual([
        'info docs/api.md is not made yet, as its entry says (to write); not checked',
        'info src/orders.ts is not made yet, as its entry says (planned for sprint 2); not checked',
        'info docs/adr/0001.md is not made yet, as its entry says (not yet created); not checked',
      ]);
    }
    expect((await judgedPush(dir)).status).toBe(0);
    // Written, then deleted (and a file under review deleted): the note no longer excuses it.
    write(dir, 'docs/api.md', '# api\n');
    commitAll(dir, 'Write the API doc', '2026-03-21T09:00:00Z');
    git(dir, ['rm', '-q', 'docs/api.md', 'src/b.ts']);
    commitAll(dir, 'Drop the API doc and b', '2026-03-22T09:00:00Z');
    for (const engine of ENGINES) {
      const found = await fileFindings(dir, engine);
      expect(found.filter((f) => f.level === 'warning').map((f) => f.message), engine).toEqual([
        expect.stringMatching(/^docs\/api\.md is missing: deleted in [0-9a-f]{7} "Drop the API doc and b"; update the checkpoint \(`checkpoint update api --context_primer\.generated_files\.1='docs\/api\.md — to write — deleted'`\) or restore the file$/),
        expect.stringMatching(/^src\/b\.ts is missing: deleted in [0-9a-f]{7} "Drop the API doc and b"; update the checkpoint \(`checkpoint update api --context_primer\.generated_files\.4='src\/b\.ts \(pending review; deleted\)'`\) or restore the file$/),
      ]);
    }
    const r = await judgedPush(dir);
    expect(r.out).toMatch(/blocks push/);
    expect(r.status).not.toBe(0);
  });
});

describe('files the checkpoint says are not made at all (red team 64 r10)', () => {
  // "(not needed)" and "(TBD)" were notes while "(N/A)", "(skipped)", "(won't do)"... were missing files.
  const NOTES = ['N/A', 'skipped', "won't do", 'cancelled', 'not applicable', 'never created', 'optional', 'out of scope', 'N/A for this repo'];
  it('an entry noted "N/A", "skipped", "won\'t do"... is a note while no commit made it; "(deferred)" is a plan; a note that says no such thing on a file git deleted is drift', async () => {
    const dir = published('api', handKept(['src/a.ts']), SOURCES);
    listFiles(dir, ['src/a.ts', ...NOTES.map((n, i) => `ci/${i}.yml (${n})`), 'ci/later.yml (deferred)', 'src/b.ts (generated)', 'ci/made.yml (skipped)'], { updated_at: '2026-03-20T09:00:00Z' });
    commitAll(dir, 'cp: list the CI files', '2026-03-20T09:01:00Z');
    // Made after all, then deleted: the note no longer excuses it.
    write(dir, 'ci/made.yml', 'on: push\n');
    commitAll(dir, 'Add the made workflow', '2026-03-20T10:00:00Z');
    git(dir, ['rm', '-q', 'src/b.ts', 'ci/made.yml']);
    commitAll(dir, 'Drop b', '2026-03-21T09:00:00Z');
    for (const engine of ENGINES) {
      const found = await fileFindings(dir, engine);
      expect(found.map((f) => `${f.level} ${f.message}`), engine).toEqual([
        ...NOTES.map((n, i) => `info ci/${i}.yml is not made, as its entry says (${n}); not checked`),
        'info ci/later.yml is not made yet, as its entry says (deferred); not checked',
        expect.stringMatching(/^warning src\/b\.ts is missing: deleted in [0-9a-f]{7} "Drop b"/),
        expect.stringMatching(/^warning ci\/made\.yml is missing: deleted in [0-9a-f]{7} "Drop b"/),
      ]);
    }
  });
});

describe('a path from the repository\'s top written with a leading slash (red team 64 r12)', () => {
  it('"/src/a.ts" outside this checkout is src/a.ts when git knows it: its deletion is drift, here and pushed; a real path outside, or one git never knew, is still not checked', async () => {
    const dir = published('api', handKept(['src/a.ts']), SOURCES);
    listFiles(dir, ['/src/a.ts', '/src/b.ts', '/etc/hosts', '/src/never.ts', '/.git/config'], { updated_at: '2026-03-20T09:00:00Z' });
    commitAll(dir, 'cp: list from the top', '2026-03-20T09:01:00Z');
    for (const engine of ENGINES) {
      const found = await fileFindings(dir, engine, ['--fail-on-warnings']);
      expect(found.map((f) => `${f.level} ${f.message}`), engine).toEqual([
        'info "/etc/hosts" names a path outside the repository; not checked',
        'info "/src/never.ts" names a path outside the repository; not checked',
        'info "/.git/config" names a path outside the repository; not checked',
      ]);
    }
    git(dir, ['rm', '-q', 'src/a.ts']);
    commitAll(dir, 'Drop a', '2026-03-21T09:00:00Z');
    for (const engine of ENGINES) {
      const found = await fileFindings(dir, engine);
      expect(found.filter((f) => f.level === 'warning').map((f) => f.message), engine).toEqual([
        expect.stringMatching(/^src\/a\.ts is missing: deleted in [0-9a-f]{7} "Drop a"; update the checkpoint \(`checkpoint update api --context_primer\.generated_files\.0='\/src\/a\.ts \(deleted\)'`\) or restore the file$/),
      ]);
    }
    const r = await judgedPush(dir);
    expect(r.out).toMatch(/src\/a\.ts is missing.*\[blocks push\]/);
    expect(r.status).not.toBe(0);
  });
});

describe('ignored build outputs not built here (a fresh clone, CI)', () => {
  it('a listed file or folder git ignores that the work tree lacks is a note, not missing; a push carrying the checkpoint is not refused', async () => {
    const dir = published('api', handKept(['src/a.ts']), { ...SOURCES, '.gitignore': 'dist/\nbuild/\n*.log\n' });
    listFiles(dir, ['src/a.ts', 'dist/bundle.js (built by `npm run build`)', 'build/', 'logs/run.log', 'docs/gone.md'], { updated_at: '2026-03-20T09:00:00Z' });
    commitAll(dir, 'cp: list the build outputs', '2026-03-20T09:01:00Z');
    for (const engine of ENGINES) {
      const found = await fileFindings(dir, engine);
      expect(found.map((f) => `${f.level} ${f.message}`), engine).toEqual([
        'info dist/bundle.js is ignored by git (a build output?) and not built here; not checked',
        'info build/ is ignored by git (a build output?) and not built here; not checked',
        'info logs/run.log is ignored by git (a build output?) and not built here; not checked',
        expect.stringMatching(/^warning docs\/gone\.md is missing/),
      ]);
    }
    listFiles(dir, ['src/a.ts', 'dist/bundle.js (built by `npm run build`)', 'build/', 'logs/run.log'], { updated_at: '2026-03-20T09:00:00Z' });
    commitAll(dir, 'cp: drop the gone doc', '2026-03-20T09:02:00Z');
    for (const engine of ENGINES) expect((await runCli(dir, ['doctor', '--engine', engine, '--fail-on-warnings'])).stdout, engine).not.toMatch(/^\s+warning .*generated_files/m);
    const r = await judgedPush(dir);
    expect(r.out).not.toMatch(/blocks push/);
    expect(r.status, r.out).toBe(0);
  });
});

describe('struck-out and pinned entries, and files a glob gained (red team, 12-03)', () => {
  /** A finding's message, its commit date (the time of the run) left out. */
  const undated = (f: F) => [f.level, f.message.replace(/, \d{4}-\d\d-\d\dT[\d:.]+Z\)/, ', <date>)')];

  it('a struck-out entry is a note; one pinned at a revision is its file, checked as the plain path would be', async () => {
    const entries = ['~~src/old.ts~~ (replaced by src/a.ts)', 'src/a.ts@4cb0b09', 'src/b.ts@HEAD~1 (as reviewed)'];
    const dir = published('api', handKept(entries), SOURCES);
    for (const engine of ENGINES) {
      expect((await fileFindings(dir, engine, ['--fail-on-warnings'])).map(undated), engine).toEqual([
        ['info', '"~~src/old.ts~~ (replaced by src/a.ts)" is struck out (crossed off the list); read as a note, not checked'],
      ]);
    }
    expect((await judgedPush(dir)).status).toBe(0);
    write(dir, 'src/a.ts', 'export const a = 2;\n');
    git(dir, ['rm', '-q', 'src/b.ts']);
    const sha = commitAll(dir, 'Rework a, drop b').slice(0, 7);
    for (const engine of ENGINES) {
      expect((await fileFindings(dir, engine)).filter((f) => f.level === 'warning').map(undated), engine).toEqual([
        ['warning', `src/a.ts changed after the checkpoint was written (${sha} "Rework a, drop b", <date>); re-read it`],
        ['warning', `src/b.ts is missing: deleted in ${sha} "Rework a, drop b"; update the checkpoint (\`checkpoint update api --context_primer.generated_files.2='src/b.ts@HEAD~1 (as reviewed; deleted)'\`) or restore the file`],
      ]);
    }
    const r = await judgedPush(dir);
    expect(r.status, r.out).not.toBe(0);
    expect(r.out).toMatch(/src\/b\.ts is missing[^\n]*\[blocks push\]/);
  });

  it('a file added under a listed glob after the save is new to the checkpoint, not drift: a note, and the push goes through', async () => {
    const dir = published('api', handKept(['src/*.ts', 'docs/**/*.md']), SOURCES);
    write(dir, 'src/c.ts', 'export const c = 3;\n');
    const added = commitAll(dir, 'Add c').slice(0, 7);
    write(dir, 'src/c.ts', 'export const c = 4;\n');
    git(dir, ['mv', 'app/[id]/page.tsx', 'docs/guide/page.md']);
    const moved = commitAll(dir, 'Tune c, move the page into the guide').slice(0, 7);
    for (const engine of ENGINES) {
      expect((await fileFindings(dir, engine, ['--fail-on-warnings'])).map(undated), engine).toEqual([
        ['info', `src/c.ts (matched by src/*.ts) was added after the checkpoint was written (${added} "Add c", <date>); new to it, not drift`],
        ['info', `docs/guide/page.md (matched by docs/**/*.md) was added after the checkpoint was written (${moved} "Tune c, move the page into the guide", <date>); new to it, not drift`],
      ]);
    }
    const r = await judgedPush(dir);
    expect(r.out).not.toMatch(/blocks push/);
    expect(r.status, r.out).toBe(0);
    // An edit to a file the checkpoint knew is still drift.
    write(dir, 'src/a.ts', 'export const a = 9;\n');
    const edit = commitAll(dir, 'Change a').slice(0, 7);
    for (const engine of ENGINES) {
      expect((await fileFindings(dir, engine)).filter((f) => f.level === 'warning').map(undated), engine).toEqual([
        ['warning', `src/a.ts (matched by src/*.ts) changed after the checkpoint was written (${edit} "Change a", <date>); re-read it`],
      ]);
    }
  });
});

describe('a glob whose last match is deleted', () => {
  const GEN = { ...SOURCES, 'src/gen/one.ts': 'export const one = 1;\n' };

  it('a push deleting it is refused, naming the commit, as a literal entry\'s deletion is', async () => {
    const dir = published('api', handKept(['src/gen/*.ts (generated)', 'src/a.ts']), GEN);
    git(dir, ['rm', '-q', 'src/gen/one.ts']);
    commitAll(dir, 'drop the generated client');
    for (const engine of ENGINES) {
      expect((await fileFindings(dir, engine)).map((f) => f.message), engine).toEqual([
        expect.stringMatching(/^src\/gen\/\*\.ts matches no file \(its last match src\/gen\/one\.ts was deleted in [0-9a-f]{7} "drop the generated client"\); update the checkpoint \(`checkpoint update api --context_primer\.generated_files\.0='src\/gen\/\*\.ts \(generated; deleted\)'`\)$/),
      ]);
    }
    const r = await judgedPush(dir);
    expect(r.status, r.out).not.toBe(0);
    expect(r.out).toMatch(/src\/gen\/\*\.ts matches no file \(.*\); update the checkpoint \(`.+`\) \[blocks push\]/);
  });

  it('a folder renamed (git mv src/gen src/generated) is said to be renamed, for a glob and a listed file, on both engines and at push', async () => {
    const dir = published('api', handKept(['src/gen/*.ts (generated)', 'src/gen/one.ts']), GEN);
    git(dir, ['mv', 'src/gen', 'src/generated']);
    const sha = commitAll(dir, 'Rename src/gen to src/generated').slice(0, 7);
    const said = [
      `src/gen/*.ts matches no file (its last match src/gen/one.ts was renamed to src/generated/one.ts in ${sha} "Rename src/gen to src/generated"); update the checkpoint (\`checkpoint update api --context_primer.generated_files.0='src/gen/*.ts (generated; renamed to src/generated/one.ts)'\`)`,
      `src/gen/one.ts is missing: renamed to src/generated/one.ts in ${sha}; update the checkpoint (\`checkpoint update api --context_primer.generated_files.1='src/gen/one.ts (renamed to src/generated/one.ts)'\`)`,
    ];
    for (const engine of ENGINES) expect((await fileFindings(dir, engine)).map((f) => f.message), engine).toEqual(said);
    const r = await judgedPush(dir);
    expect(r.status, r.out).not.toBe(0);
    expect(r.out.split('\n').filter((l) => /\[blocks push\]$/.test(l)).map((l) => l.replace(/^\s+warning context_primer\.generated_files\[\d\]: /, '').replace(/ \[blocks push\]$/, ''))).toEqual(said);
  });

  it('a push that did not delete it is not refused for it', async () => {
    const dir = published('api', handKept(['src/gen/*.ts (generated)', 'src/a.ts']), GEN);
    git(dir, ['rm', '-q', 'src/gen/one.ts']);
    commitAll(dir, 'drop the generated client');
    expect(gitTry(dir, ['push', '-q', '--no-verify', 'origin', 'main']).status).toBe(0);
    write(dir, 'README.md', '# demo\n');
    commitAll(dir, 'readme');
    const r = await judgedPush(dir);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toMatch(/src\/gen\/\*\.ts matches no file \(its last match src\/gen\/one\.ts was deleted in [0-9a-f]{7} "drop the generated client"\); update the checkpoint \(`.+`\)\n/);
  });
});
