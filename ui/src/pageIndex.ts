// Every page's path, title, aliases and tags in one DQL query (`GET /query`), for the quick
// switcher and the tags pane. Cached until the tree changes (`invalidatePageIndex`).
import { api } from './api';

export interface IndexedPage { path: string; title: string; aliases: string[]; tags: string[] }

const QUERY = 'TABLE WITHOUT ID file.path, title, aliases, file.etags FROM ""';
let cached: Promise<IndexedPage[]> | null = null;

const list = (v: unknown): string[] =>
  Array.isArray(v) ? v.flatMap(list) : typeof v === 'string' && v.trim() ? [v.trim()] : [];

/** The rows of the index query as pages (tags without `#`). */
export function pagesOfRows(rows: unknown[][]): IndexedPage[] {
  return rows
    .filter((r) => typeof r[0] === 'string')
    .map((r) => ({
      path: r[0] as string,
      title: typeof r[1] === 'string' && r[1] ? r[1] : (r[0] as string).split('/').pop()!.replace(/\.md$/, ''),
      aliases: list(r[2]),
      tags: list(r[3]).map((t) => t.replace(/^#/, '')),
    }));
}

export function pageIndex(): Promise<IndexedPage[]> {
  if (!cached) {
    cached = api.query(QUERY).then((r) => pagesOfRows(r.rows));
    cached.catch(() => { cached = null; });
  }
  return cached;
}

export function invalidatePageIndex() { cached = null; }
