// First-load JavaScript of the build, gzipped: the scripts index.html loads (entry and module
// preloads). Lazy chunks (editor, graph, YAML) are listed apart. Fails over the budget of
// docs/PERFORMANCE.md (300 KB).
import { readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';

const dist = new URL('../dist/', import.meta.url).pathname;
const BUDGET = 300 * 1024;
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const first = new Set([...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]));
const gz = (file) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
let total = 0;
for (const f of first) { const n = gz(f); total += n; console.log(`first load  ${f}  ${kb(n)} gzipped`); }
for (const f of readdirSync(join(dist, 'assets')).map((f) => `assets/${f}`).filter((f) => !first.has(f))) {
  console.log(`lazy/other  ${f}  ${kb(gz(f))} gzipped`);
}
console.log(`first-load JavaScript: ${kb(total)} gzipped (budget ${kb(BUDGET)})`);
if (total > BUDGET) { console.error('over budget'); process.exit(1); }
