// HEAD's root tree, read once per HEAD, and what git's index says of HEAD's files: when the
// index's valid cached root tree is HEAD's tree, its stage-0 entries are HEAD's blobs exactly
// (git writes that tree on every commit), so a file's blob at HEAD is one index read away.
import { join } from 'node:path';
import { cachedAtHead, headFiles, storeAtHead } from './commit-cache.js';
import { indexBlobs } from './index-status.js';

const HEAD_TREE_FILE = 'head-tree.json';

/** HEAD's root tree (kept per HEAD in the git dir); null when unborn or unsure. */
export async function headTree(root: string): Promise<string | null> {
  const files = headFiles(root);
  if (!files?.sha) return null;
  const kept = cachedAtHead<unknown>(root, HEAD_TREE_FILE, 'tree');
  if (typeof kept === 'string' && /^[0-9a-f]{40}$/.test(kept)) return kept;
  const tree = await readCommitTree(files.commonDir, files.sha);
  if (tree !== null) storeAtHead(root, HEAD_TREE_FILE, 'tree', tree);
  return tree;
}

/**
 * Each of `paths`' blob at HEAD, which is commit `head` ('' where it has no such file), from the
 * index; null when HEAD is another commit by now or the index does not hold HEAD's tree exactly.
 */
export async function headBlobsFromIndex(root: string, head: string, paths: readonly string[]): Promise<Map<string, string> | null> {
  const files = headFiles(root);
  if (files?.sha !== head) return null;
  const staged = indexBlobs(files.gitdir, paths);
  if (staged === null) return null;
  return staged.tree === (await headTree(root)) ? staged.blobs : null;
}

/** A commit's root tree read from the object files (zlib loaded only then); null when unsure. */
async function readCommitTree(commonDir: string, sha: string): Promise<string | null> {
  try {
    const { ObjectStore } = await import('./object-store.js');
    const store = new ObjectStore(join(commonDir, 'objects'));
    try {
      const commit = await store.read(sha, 1 << 20);
      const match = commit?.type === 'commit' && commit.data ? /^tree ([0-9a-f]{40})\n/.exec(commit.data.toString('latin1')) : null;
      return match?.[1] ?? null;
    } finally {
      store.close();
    }
  } catch {
    return null;
  }
}
