// Pages this browser opened lately (for the start page when the space has no home page) and
// the reader's chosen start page, both kept in localStorage.
const RECENT = 'quire.recent';
const START = 'quire.startPage';
const MAX = 12;

export interface Recent { path: string; title: string }

export function recentPages(): Recent[] {
  try { return (JSON.parse(localStorage.getItem(RECENT) ?? '[]') as Recent[]).filter((r) => typeof r.path === 'string'); } catch { return []; }
}

export function rememberRecent(path: string, title: string) {
  const list = [{ path, title }, ...recentPages().filter((r) => r.path !== path)].slice(0, MAX);
  localStorage.setItem(RECENT, JSON.stringify(list));
}

export function startPage(): string { return localStorage.getItem(START) ?? ''; }
export function setStartPage(path: string) {
  if (path.trim()) localStorage.setItem(START, path.trim()); else localStorage.removeItem(START);
}

/**
 * The page the start screen opens: the reader's chosen one when it exists, else `Home.md`,
 * `index.md` or `README.md` at the root (any case), else none.
 */
export function homePage(paths: string[], chosen = startPage()): string | null {
  if (chosen) {
    const wanted = chosen.endsWith('.md') ? chosen : `${chosen}.md`;
    const hit = paths.find((p) => p === wanted) ?? paths.find((p) => p.toLowerCase() === wanted.toLowerCase());
    if (hit) return hit;
  }
  for (const name of ['home.md', 'index.md', 'readme.md']) {
    const hit = paths.find((p) => p.toLowerCase() === name);
    if (hit) return hit;
  }
  return null;
}
