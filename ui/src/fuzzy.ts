// Fuzzy matching for the quick switcher: the letters typed must appear in order (not next to
// each other); matches at the start, after a separator or a case change, and runs of
// consecutive letters score higher, long gaps and long names lower. Each entry is prepared
// once (lowercased), so a keystroke over 10,000 pages is one pass of cheap comparisons.

export interface Entry {
  /** What opens: a page or file path. */
  path: string;
  title: string;
  aliases: string[];
}

interface Field { text: string; lower: string; weight: number }
export interface Prepared { entry: Entry; fields: Field[] }
export interface Match { entry: Entry; score: number; field: 'title' | 'alias' | 'path'; text: string; positions: number[] }

const FIELD_NAMES = ['title', 'alias', 'path'] as const;

export function prepare(entries: Entry[]): Prepared[] {
  return entries.map((entry) => ({
    entry,
    fields: [
      { text: entry.title, lower: entry.title.toLowerCase(), weight: 1 },
      ...entry.aliases.map((a) => ({ text: a, lower: a.toLowerCase(), weight: 0.95 })),
      { text: entry.path, lower: entry.path.toLowerCase(), weight: 0.8 },
    ],
  }));
}

const isBoundary = (text: string, i: number) => {
  if (i === 0) return true;
  const before = text[i - 1];
  if (' /-_.#'.includes(before)) return true;
  return before === before.toLowerCase() && text[i] !== text[i].toLowerCase();
};

/**
 * The score of `query` (lowercased, no spaces) in `text`, or -1 when its letters are not all
 * there in order; `positions` (when given) receives the matched indexes. Greedy from the
 * left, preferring a boundary match for each letter when one comes before the next plain one
 * runs out.
 */
export function score(query: string, text: string, lower: string, positions?: number[]): number {
  if (!query) return 0;
  // Quick rejection: every letter in order at all?
  let at = -1;
  for (let q = 0; q < query.length; q++) {
    at = lower.indexOf(query[q], at + 1);
    if (at < 0) return -1;
  }
  let total = 0;
  let prev = -2;
  let from = 0;
  for (let q = 0; q < query.length; q++) {
    const c = query[q];
    let i = lower.indexOf(c, from);
    // A boundary occurrence close by is worth more than a plain one (if the rest still fits).
    if (i >= 0 && i !== prev + 1 && !isBoundary(text, i)) {
      for (let j = lower.indexOf(c, i + 1); j >= 0 && j < i + 24; j = lower.indexOf(c, j + 1)) {
        if (isBoundary(text, j) && fits(query, q + 1, lower, j + 1)) { i = j; break; }
      }
    }
    if (i < 0) return -1;
    let s = 1;
    if (i === prev + 1) s += 5;
    if (isBoundary(text, i)) s += i === 0 ? 8 : 4;
    if (prev >= 0 && i > prev + 1) s -= Math.min(3, (i - prev - 1) * 0.2);
    total += s;
    positions?.push(i);
    prev = i;
    from = i + 1;
  }
  // Whole-word and exact matches first; shorter names before longer ones.
  if (lower === query) total += 20;
  else if (lower.startsWith(query)) total += 10;
  return total - lower.length * 0.02;
}

function fits(query: string, q: number, lower: string, from: number): boolean {
  let at = from - 1;
  for (let k = q; k < query.length; k++) {
    at = lower.indexOf(query[k], at + 1);
    if (at < 0) return false;
  }
  return true;
}

/** The best `limit` matches of `query` (spaces ignored) over `items`, best first. */
export function search(items: Prepared[], query: string, limit = 50): Match[] {
  const q = query.toLowerCase().replace(/\s+/g, '');
  const best: { item: Prepared; score: number; field: number }[] = [];
  let floor = -Infinity;
  for (const item of items) {
    let top = -1;
    let field = 0;
    for (let f = 0; f < item.fields.length; f++) {
      const fl = item.fields[f];
      const s = score(q, fl.text, fl.lower);
      if (s < 0) continue;
      const weighted = s * fl.weight;
      if (weighted > top) { top = weighted; field = f; }
    }
    if (top < 0 || (best.length >= limit && top <= floor)) continue;
    best.push({ item, score: top, field });
    if (best.length > limit * 2) {
      best.sort((a, b) => b.score - a.score);
      best.length = limit;
      floor = best[limit - 1].score;
    }
  }
  best.sort((a, b) => b.score - a.score || a.item.entry.path.localeCompare(b.item.entry.path));
  return best.slice(0, limit).map(({ item, score: s, field }) => {
    const fl = item.fields[field];
    const positions: number[] = [];
    score(q, fl.text, fl.lower, positions);
    const kind = field === 0 ? 'title' : field === item.fields.length - 1 ? 'path' : 'alias';
    return { entry: item.entry, score: s, field: FIELD_NAMES[FIELD_NAMES.indexOf(kind)], text: fl.text, positions };
  });
}
