// Runs the CLI in this process and reports its peak resident set size on exit:
//   node bench/lib/peak-rss.mjs <bin> <args...>   (prints peak-rss-kib=N on stderr)
const [bin, ...args] = process.argv.slice(2);
process.argv = [process.argv[0], bin, ...args];
process.on('exit', () => process.stderr.write(`peak-rss-kib=${process.resourceUsage().maxRSS}\n`));
await import(bin);
