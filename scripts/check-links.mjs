#!/usr/bin/env node
// Checks every relative markdown link `](path#anchor)` in README.md and docs/*.md:
// the file must exist, and an anchor must match a GitHub-style heading slug in it.
// Usage: node scripts/check-links.mjs   (exit 1 when a link is broken)
import { readFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const files = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

function slugs(text) {
  const seen = new Map();
  const out = new Set();
  let fence = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (fence) continue;
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    let s = m[1].replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    out.add(n ? `${s}-${n}` : s);
  }
  return out;
}

let bad = 0, checked = 0;
for (const file of files) {
  const text = readFileSync(join(root, file), 'utf8');
  const body = text.replace(/^\s*```[\s\S]*?^\s*```/gm, '').replace(/(`+)[\s\S]*?\1/g, '');
  for (const m of body.matchAll(/\]\(([^)\s]+)\)/g)) {
    const link = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // http:, mailto:, ...
    checked++;
    const [path, anchor] = link.split('#');
    const target = path ? resolve(dirname(join(root, file)), path) : join(root, file);
    if (!existsSync(target)) { console.log(`${file}: ${link}: no such file`); bad++; continue; }
    if (anchor === undefined) continue;
    if (statSync(target).isDirectory() || !target.endsWith('.md')) { console.log(`${file}: ${link}: anchor into a non-markdown target`); bad++; continue; }
    if (!slugs(readFileSync(target, 'utf8')).has(decodeURIComponent(anchor))) { console.log(`${file}: ${link}: no heading #${anchor}`); bad++; }
  }
}
console.log(`${checked} relative links checked in ${files.length} files, ${bad} broken`);
process.exit(bad ? 1 : 0);
