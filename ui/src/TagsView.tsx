// The tags pane: every tag of the space as a tree (`#a/b` under `#a`), each with the number of
// pages carrying it or a tag below it; choosing one lists those pages. Read from the page
// index (one DQL query), so it follows the frontmatter and inline tags the server indexed.
import { useMemo, useState } from 'preact/hooks';
import { pageHref } from './markdown';
import { invalidatePageIndex, pageIndex, type IndexedPage } from './pageIndex';
import { href } from './router';
import { ErrorNote, useLoad } from './ui';

export interface TagNode { name: string; full: string; pages: Set<string>; children: TagNode[] }

/** The tag tree of some pages: a page with `#a/b` counts for `a/b` and for `a`. */
export function tagTree(pages: IndexedPage[]): TagNode[] {
  const root: TagNode = { name: '', full: '', pages: new Set(), children: [] };
  const byFull = new Map<string, TagNode>();
  for (const page of pages) {
    for (const tag of page.tags) {
      let parent = root;
      const parts = tag.split('/').filter(Boolean);
      parts.forEach((part, i) => {
        const full = parts.slice(0, i + 1).join('/');
        let node = byFull.get(full.toLowerCase());
        if (!node) {
          node = { name: part, full, pages: new Set(), children: [] };
          byFull.set(full.toLowerCase(), node);
          parent.children.push(node);
        }
        node.pages.add(page.path);
        parent = node;
      });
    }
  }
  const sort = (nodes: TagNode[]) => { nodes.sort((a, b) => a.name.localeCompare(b.name)); nodes.forEach((n) => sort(n.children)); };
  sort(root.children);
  return root.children;
}

function find(nodes: TagNode[], full: string): TagNode | null {
  for (const n of nodes) {
    if (n.full.toLowerCase() === full.toLowerCase()) return n;
    const inner = find(n.children, full);
    if (inner) return inner;
  }
  return null;
}

function TagList({ nodes, current }: { nodes: TagNode[]; current: string }) {
  return (
    <ul class="tag-tree">
      {nodes.map((n) => (
        <li key={n.full}>
          <a href={href({ view: 'tags', tag: n.full })} aria-current={n.full.toLowerCase() === current.toLowerCase() ? 'page' : undefined}>
            #{n.name}
          </a> <span class="count" aria-label={`${n.pages.size} pages`}>{n.pages.size}</span>
          {n.children.length > 0 && <TagList nodes={n.children} current={current} />}
        </li>
      ))}
    </ul>
  );
}

export function TagsView({ tag }: { tag: string }) {
  const index = useLoad(() => { invalidatePageIndex(); return pageIndex(); }, []);
  const pages = index.data ?? [];
  const tree = useMemo(() => tagTree(pages), [index.data]);
  const [filter, setFilter] = useState('');
  const chosen = tag ? find(tree, tag) : null;
  const titles = new Map(pages.map((p) => [p.path, p.title]));
  const shown = filter ? tree.filter((n) => n.full.toLowerCase().includes(filter.toLowerCase()) || n.children.some((c) => c.full.toLowerCase().includes(filter.toLowerCase()))) : tree;
  return (
    <main id="main" class="tags-view">
      <h1>Tags</h1>
      <ErrorNote error={index.error} />
      <div class="split">
        <nav aria-label="All tags" class="side-list">
          <label>Filter tags <input type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} /></label>
          {index.loading && !index.data ? <p class="muted">Loading…</p> : tree.length === 0 ? <p class="muted">No page has tags yet.</p> : <TagList nodes={shown} current={tag} />}
        </nav>
        <section aria-labelledby="tag-pages">
          {chosen ? (
            <>
              <h2 id="tag-pages">#{chosen.full} <span class="muted small">({chosen.pages.size} pages)</span></h2>
              <ul class="page-list">
                {[...chosen.pages].sort((a, b) => (titles.get(a) ?? a).localeCompare(titles.get(b) ?? b)).map((p) => (
                  <li key={p}><a href={pageHref(p)}>{titles.get(p) ?? p}</a> <span class="hit-path">{p}</span></li>
                ))}
              </ul>
            </>
          ) : <h2 id="tag-pages" class="muted">{tag ? `No page is tagged #${tag}.` : 'Choose a tag to list its pages.'}</h2>}
        </section>
      </div>
    </main>
  );
}
