// A fixture history written straight into a repository from makeRepo(): the blob, tree and
// commit objects `git add -A && git commit` would write (loose, the same ids), branch refs, then
// HEAD's files and one `git reset` for the index. A history of ten commits, branches and merges
// is then two processes, not thirty. For histories a test only reads; what git itself must do (a
// merge that runs the merge driver, a conflict) is still done by git, after done().
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { gitEach, write } from './repo.js';

type Files = Map<string, string>;

/** When a commit is made: an ISO instant as dateEnv() gives git (whole seconds, UTC), or now in this machine's zone, as git without one. */
function stamp(iso?: string): string {
  if (iso !== undefined) {
    const ms = Date.parse(iso);
    if (Number.isNaN(ms) || !/(?:Z|[+-]00:?00)$/.test(iso)) throw new Error(`history: ${iso} is not a UTC instant`);
    return `${Math.floor(ms / 1000)} +0000`;
  }
  const minutes = -new Date().getTimezoneOffset();
  const abs = Math.abs(minutes);
  return `${Math.floor(Date.now() / 1000)} ${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}

export class History {
  private readonly commits = new Map<string, { parents: string[]; files: Files }>();
  private readonly branches = new Map<string, string>();
  private branch = 'main';
  /** The next commit's files, as the index would hold them after `git add -A`. */
  private staged: Files = new Map();

  /** `dir`: a repository fresh from makeRepo() (main at its root commit), nothing written to it yet. */
  constructor(private readonly dir: string) {
    const root = readFileSync(join(dir, '.git/refs/heads/main'), 'utf8').trim();
    this.commits.set(root, { parents: [], files: new Map() });
    this.branches.set('main', root);
  }

  /** The current branch's tip. */
  get head(): string {
    return this.branches.get(this.branch)!;
  }

  write(path: string, content: string): this {
    this.staged.set(path, content);
    return this;
  }

  /** `git rm`: the file (or every file under the folder) gone from the next commit. */
  rm(path: string): this {
    for (const p of [...this.staged.keys()]) if (p === path || p.startsWith(`${path}/`)) this.staged.delete(p);
    return this;
  }

  /** `git mv` of a file or a folder. */
  mv(from: string, to: string): this {
    for (const [p, content] of [...this.staged]) {
      if (p !== from && !p.startsWith(`${from}/`)) continue;
      this.staged.delete(p);
      this.staged.set(to + p.slice(from.length), content);
    }
    return this;
  }

  /** `git commit --allow-empty -m message` (dated `iso`, else now): its id. */
  commit(message: string, iso?: string): string {
    return this.record([this.head], new Map(this.staged), message, iso);
  }

  /** `git checkout [-b] name`: a new branch starts at the current tip. */
  checkout(name: string, create = false): this {
    if (create === this.branches.has(name)) throw new Error(`history: branch ${name} ${create ? 'exists' : 'does not exist'}`);
    if (create) this.branches.set(name, this.head);
    this.branch = name;
    this.staged = new Map(this.commits.get(this.head)!.files);
    return this;
  }

  /** `git merge --no-ff name -m message` (dated `iso`) of a branch whose changes do not overlap the current one's: the merge commit. */
  merge(name: string, message: string, iso?: string): string {
    const theirs = this.branches.get(name)!;
    const base = this.commits.get(this.mergeBase(this.head, theirs))!.files;
    const [ours, other] = [this.commits.get(this.head)!.files, this.commits.get(theirs)!.files];
    const files: Files = new Map();
    for (const path of new Set([...ours.keys(), ...other.keys()])) {
      const [b, o, t] = [base.get(path), ours.get(path), other.get(path)];
      const kept = o === t || t === b ? o : o === b ? t : null;
      if (kept === null) throw new Error(`history: ${path} changed on both sides of the merge of ${name}: let git merge it`);
      if (kept !== undefined) files.set(path, kept);
    }
    const sha = this.record([this.head, theirs], files, message, iso);
    this.staged = new Map(files);
    return sha;
  }

  /** `git merge --ff-only name`. */
  fastForward(name: string): this {
    const theirs = this.branches.get(name)!;
    if (this.mergeBase(this.head, theirs) !== this.head) throw new Error(`history: ${name} is not ahead of ${this.branch}`);
    this.branches.set(this.branch, theirs);
    this.staged = new Map(this.commits.get(theirs)!.files);
    return this;
  }

  /**
   * The repository as git would have left it: branch refs, HEAD on the current branch, its files
   * in the work tree (none other of the history's), the index refreshed to them (`git reset`).
   * Refuses a history that commits a file git ignores (`git add -A` would have left it out).
   */
  done(): void {
    for (const [name, sha] of this.branches) {
      mkdirSync(dirname(join(this.dir, '.git/refs/heads', name)), { recursive: true });
      writeFileSync(join(this.dir, '.git/refs/heads', name), `${sha}\n`);
    }
    writeFileSync(join(this.dir, '.git/HEAD'), `ref: refs/heads/${this.branch}\n`);
    const files = this.commits.get(this.head)!.files;
    for (const commit of this.commits.values()) for (const path of commit.files.keys()) if (!files.has(path) && existsSync(join(this.dir, path))) rmSync(join(this.dir, path));
    for (const [path, content] of files) write(this.dir, path, content);
    const ignored = gitEach(this.dir, [['reset', '-q'], ['ls-files', '-ci', '--exclude-standard']]);
    if (ignored !== '') throw new Error(`history: git ignores ${ignored.trim()}; git add -A would not have committed it`);
  }

  private record(parents: string[], files: Files, message: string, iso?: string): string {
    const when = stamp(iso);
    const body = [`tree ${this.tree(files)}`, ...parents.map((p) => `parent ${p}`), `author Test <test@example.com> ${when}`, `committer Test <test@example.com> ${when}`, '', `${message}\n`].join('\n');
    const sha = this.object('commit', Buffer.from(body));
    this.commits.set(sha, { parents, files });
    this.branches.set(this.branch, sha);
    return sha;
  }

  /** The tree object of `files` (paths under `prefix`), written with its subtrees: its id. */
  private tree(files: Files, prefix = ''): string {
    const entries = new Map<string, { mode: string; sha: string }>();
    for (const [path, content] of files) {
      if (!path.startsWith(prefix)) continue;
      const [name, ...rest] = path.slice(prefix.length).split('/');
      if (rest.length === 0) entries.set(name!, { mode: '100644', sha: this.object('blob', Buffer.from(content)) });
      else if (!entries.has(name!)) entries.set(name!, { mode: '40000', sha: this.tree(files, `${prefix}${name}/`) });
    }
    // git's order: a tree sorts as its name followed by '/'.
    const key = (name: string) => (entries.get(name)!.mode === '40000' ? `${name}/` : name);
    const names = [...entries.keys()].sort((a, b) => Buffer.compare(Buffer.from(key(a)), Buffer.from(key(b))));
    return this.object('tree', Buffer.concat(names.flatMap((name) => [Buffer.from(`${entries.get(name)!.mode} ${name}\0`), Buffer.from(entries.get(name)!.sha, 'hex')])));
  }

  /** A loose object, as git writes one: its id. */
  private object(type: string, body: Buffer): string {
    const data = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
    const sha = createHash('sha1').update(data).digest('hex');
    const file = join(this.dir, '.git/objects', sha.slice(0, 2), sha.slice(2));
    if (!existsSync(file)) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, deflateSync(data), { mode: 0o444 });
    }
    return sha;
  }

  /** The nearest commit both `a` and `b` descend from (the histories built here have one). */
  private mergeBase(a: string, b: string): string {
    const ofB = new Set<string>();
    for (const pending = [b]; pending.length > 0; ) {
      const sha = pending.pop()!;
      if (!ofB.has(sha)) ofB.add(sha), pending.push(...this.commits.get(sha)!.parents);
    }
    for (const queue = [a], seen = new Set<string>(); queue.length > 0; ) {
      const sha = queue.shift()!;
      if (ofB.has(sha)) return sha;
      if (!seen.has(sha)) seen.add(sha), queue.push(...this.commits.get(sha)!.parents);
    }
    throw new Error('history: no common ancestor');
  }
}
