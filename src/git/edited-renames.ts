// A file renamed with edits in one commit (`git mv` plus an edit: git says R098), found from that
// commit's raw diff by the rule both engines share (similarity.ts). Asked only about a listed
// file a commit deleted, never by a walk: the walks pair exact renames alone, so the common path
// reads no blob.
import { pairExactRenames, type RawChange } from './renames.js';
import { pairSimilarFiles } from './similarity.js';

/**
 * A blob larger than this is not compared (the deleted file stays deleted): each candidate is
 * read whole into memory and hashed, and a hostile history may hold huge ones. A generated
 * source file is well under it.
 */
export const MAX_RENAME_BLOB_BYTES = 1024 * 1024;
/**
 * A commit that deletes or adds more files than this pairs no edited rename (exact ones still
 * pair): every candidate is a blob read, and git itself gives up past `diff.renameLimit`. Such a
 * commit is an import or a regeneration, not a move of a few files.
 */
export const MAX_RENAME_CANDIDATES = 100;

/** Reads blobs' bytes; one over `maxBytes`, or no blob, is left out. */
export type BlobBytesReader = (oids: readonly string[], maxBytes: number) => Promise<Map<string, Uint8Array>>;

/**
 * Of `paths`, those the commit whose raw diff against its first parent is `raw` deleted and added
 * again elsewhere with edits, as git's rename detection pairs them: old path -> new path. Regular
 * files only (git renames a link or a submodule only when exact); the pairs exact renames took
 * are not candidates.
 */
export async function editedRenames(raw: readonly RawChange[], paths: readonly string[], readBytes: BlobBytesReader): Promise<Map<string, string>> {
  const paired = pairExactRenames(raw);
  const left = new Set(paired.flatMap((ch) => (ch.status === 'D' || ch.status === 'A' ? [`${ch.status}\0${ch.path}`] : [])));
  const candidates = (status: 'D' | 'A') => raw.filter((ch) => ch.status === status && left.has(`${status}\0${ch.path}`) && isRegularFile(ch.mode));
  const deleted = candidates('D');
  const added = candidates('A');
  const asked = new Set(paths);
  if (!added.length || !deleted.some((ch) => asked.has(ch.path))) return new Map();
  if (deleted.length > MAX_RENAME_CANDIDATES || added.length > MAX_RENAME_CANDIDATES) return new Map();
  const bytes = await readBytes([...new Set([...deleted, ...added].map((ch) => ch.oid))], MAX_RENAME_BLOB_BYTES);
  const files = (changes: readonly RawChange[]) => changes.flatMap((ch) => {
    const b = bytes.get(ch.oid);
    return b === undefined ? [] : [{ path: ch.path, bytes: b }];
  });
  const pairs = pairSimilarFiles(files(deleted), files(added));
  return new Map([...pairs].filter(([from]) => asked.has(from)));
}

/** A plain or executable file's mode (a raw change that does not say is no candidate). */
function isRegularFile(mode: string | undefined): boolean {
  return mode === '100644' || mode === '100755';
}
