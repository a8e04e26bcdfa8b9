// The quick switcher's keystroke-to-results time over 10,000 pages (docs/PERFORMANCE.md):
// `npx vitest bench --run src/fuzzy.bench.ts`.
import { bench, describe } from 'vitest';
import { prepare, search, type Entry } from './fuzzy';

const WORDS = ['alpha', 'canvas', 'project', 'meeting', 'notes', 'design', 'review', 'garden', 'recipe', 'journal', 'travel', 'budget', 'reading', 'ideas', 'physics', 'history'];
const entries: Entry[] = Array.from({ length: 10_000 }, (_, i) => {
  const w = (k: number) => WORDS[(i * 7 + k * 13) % WORDS.length];
  return { path: `${w(1)}/${w(2)}-${i}.md`, title: `${w(3)} ${w(4)} ${i}`, aliases: i % 5 === 0 ? [`${w(5)} ${i}`] : [] };
});
const items = prepare(entries);

describe('quick switcher over 10,000 pages', () => {
  for (const q of ['c', 'canvs', 'proj meet', 'jrnl 42', 'zzzz']) {
    bench(`"${q}"`, () => { search(items, q, 50); });
  }
});
