// Builds a repository with a long old history and a short recent one in a single
// `git fast-import` run, so that 20,000 commits take seconds. Every commit touches a
// few files; every tenth is a GitHub-style merge of a one-commit pull-request branch,
// and about a third of the others carry squash-merge subjects like `fix thing (#N)`.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';

const FILE_COUNT = 300;
const FILES_PER_COMMIT = 3;
const MINUTE = 60;
/** Old history ends a year before the recent part starts. */
const OLD_GAP = 365 * 24 * 3600;

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

/**
 * `commits` old commits dated before `recentSince - 1 year`, then `recentCommits` commits
 * dated from `recentSince` on, `spacingMinutes` apart (default one); HEAD is main.
 * `extra` adds file operations to chosen commits, as `{ at: index, ops: [fast-import lines] }`
 * (e.g. a generated file created early and renamed deep in history). Returns the commit
 * count reachable from HEAD.
 */
export function makeHistoryRepo(dir, { commits, recentCommits, recentSince, spacingMinutes = 1, extra = [] }) {
  mkdirSync(dir, { recursive: true });
  const git = (args, input) => execFileSync('git', args, { cwd: dir, env: GIT_ENV, input, stdio: ['pipe', 'pipe', 'pipe'] });
  git(['init', '-q', '-b', 'main']);
  git(['config', 'gc.auto', '0']);

  const total = commits + recentCommits;
  const timeOf = (i) => (i < commits ? recentSince - OLD_GAP - (commits - i) * MINUTE : recentSince + (i - commits) * spacingMinutes * MINUTE);
  const extraAt = new Map(extra.map((e) => [e.at, e]));
  const lines = [];
  let mainTip = 0;
  let pullRequest = 0;
  for (let i = 0; i < total; i++) {
    const mark = i + 1;
    const isMerge = i % 10 === 9 && mainTip > 0;
    const isPullRequestBranch = i % 10 === 8 && mainTip > 0 && i + 1 < total;
    const touched = touchedFiles(isMerge ? i - 1 : i);
    if (isPullRequestBranch) pullRequest++;
    const special = isPullRequestBranch ? undefined : extraAt.get(i);
    const message = special?.message ? `${special.message}\n` : isMerge
      ? `Merge pull request #${pullRequest} from dev/topic-${pullRequest}\n\nTopic ${pullRequest}\n`
      : isPullRequestBranch
        ? `topic ${pullRequest} work\n`
        : i % 3 === 0
          ? `fix thing (#${1000 + i})\n\n* squashed commit\n`
          : `update module ${i % 20}\n`;
    lines.push(`commit refs/heads/${isPullRequestBranch ? 'pr' : 'main'}`, `mark :${mark}`);
    lines.push(`committer Bench <bench@example.com> ${timeOf(i)} +0000`);
    lines.push(`data ${Buffer.byteLength(message)}`, message);
    if (mainTip > 0) lines.push(`from :${mainTip}`);
    if (isMerge) lines.push(`merge :${mark - 1}`);
    // A merge carries the branch's changes onto main: same paths, same contents.
    for (const path of touched) {
      const content = `// ${path}, revision ${isMerge ? i - 1 : i}\n`;
      lines.push(`M 100644 inline ${path}`, `data ${Buffer.byteLength(content)}`, content);
    }
    if (special) lines.push(...special.ops);
    lines.push('');
    if (!isPullRequestBranch) mainTip = mark;
  }
  lines.push('done', '');
  git(['fast-import', '--quiet', '--done', '--force'], lines.join('\n'));
  git(['reset', '-q', '--hard']);
  return Number(git(['rev-list', '--count', 'HEAD']).toString().trim());
}

function touchedFiles(i) {
  const paths = [];
  for (let j = 0; j < FILES_PER_COMMIT; j++) {
    const file = (i * 7 + j * 101) % FILE_COUNT;
    paths.push(`src/module${file % 20}/file${file}.ts`);
  }
  return paths;
}
