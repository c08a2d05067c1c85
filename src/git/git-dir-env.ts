// A repository used through GIT_DIR / GIT_WORK_TREE in the user's shell (a dotfiles layout, a
// separate git dir). checkpoint never follows them: git sets them for its hooks, where they would
// point at another repository than the folder asked about (git-sync.ts). Where that leaves a
// project without a .git, the message names them and the way in, instead of "no repository".

/** The note for a project with no .git while GIT_DIR or GIT_WORK_TREE is set, else null. */
export function gitDirEnvNote(env: Readonly<Record<string, string | undefined>>): string | null {
  const set = ['GIT_DIR', 'GIT_WORK_TREE'].filter((name) => env[name]);
  if (!set.length) return null;
  const link = env.GIT_DIR ? `echo "gitdir: ${env.GIT_DIR}" > .git` : 'a .git file naming the git dir ("gitdir: <path>")';
  return `${set.join(' and ')} ${set.length > 1 ? 'are' : 'is'} set, which checkpoint does not follow; it reads the repository from the project's own .git (a folder, or a file naming one: ${link})`;
}
