// What a folder holds, down to each entry's inode, size, mtime and content hash: equal before and
// after a command only if it wrote nothing there (a rewrite with the same bytes still shows).
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every entry under `dir` (`skip`: top-level names left out), by relative path. FIFOs and devices are never read. */
export function dirState(dir: string, skip: readonly string[] = []): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      if (!rel && skip.includes(name)) continue;
      const path = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(dir, path), { bigint: true });
      const hash = st.isFile() ? createHash('sha256').update(readFileSync(join(dir, path))).digest('hex') : '';
      out.set(path, `${st.mode} ${st.ino} ${st.size} ${st.mtimeNs} ${hash}`);
      if (st.isDirectory()) walk(path);
    }
  };
  walk('');
  return out;
}
