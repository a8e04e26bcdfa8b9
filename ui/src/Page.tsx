// Reading a page: breadcrumbs, properties, tags, the rendered body with links resolved by the
// server, table of contents and backlinks.
import { useEffect, useState } from 'preact/hooks';
import { api, type Backlink, type Peek } from './api';
import { collectLinks, pageHref, renderMarkdown, splitFrontmatter, type Resolutions } from './markdown';
import { href } from './router';
import { ErrorNote } from './ui';

export interface Loaded {
  path: string;
  etag: string;
  html: string;
  peek: Peek;
  backlinks: Backlink[];
  tags: string[];
}

/** Everything a page view shows, in two round trips (file, peek and backlinks together, then links). */
export async function loadPage(path: string): Promise<Loaded> {
  const [file, peek, backlinks] = await Promise.all([api.read(path), api.peek(path), api.backlinks(path)]);
  const { body } = splitFrontmatter(file.text);
  const { links, tags } = collectLinks(body);
  const resolved: Resolutions = links.length ? (await api.resolve(path, links)).resolved : {};
  const html = renderMarkdown(body, resolved, peek.headings.map((h) => h.slug));
  const fmTags = peek.frontmatter.tags;
  const all = new Set<string>([...(Array.isArray(fmTags) ? fmTags.map(String) : typeof fmTags === 'string' ? fmTags.split(/[,\s]+/).filter(Boolean) : []), ...tags]);
  return { path, etag: file.etag, html, peek, backlinks, tags: [...all] };
}

function propertyValue(v: unknown): string {
  if (Array.isArray(v)) return v.map(propertyValue).join(', ');
  if (v !== null && typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function Breadcrumbs({ path }: { path: string }) {
  const parts = path.split('/');
  return (
    <nav aria-label="Breadcrumbs" class="crumbs">
      <ol>
        <li><a href="/">Home</a></li>
        {parts.slice(0, -1).map((p, i) => <li key={i}><span>{p}</span></li>)}
        <li aria-current="page">{parts[parts.length - 1].replace(/\.md$/, '')}</li>
      </ol>
    </nav>
  );
}

export function PageView({ path, version, onRename }: { path: string; version: number; onRename: () => void }) {
  const [page, setPage] = useState<Loaded | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let live = true;
    const started = performance.now();
    loadPage(path).then(
      (p) => {
        if (!live) return;
        setPage(p);
        setError(null);
        // The page-open time of docs/PERFORMANCE.md: from navigation to rendered.
        requestAnimationFrame(() => performance.measure('quire:page-open', { start: started, end: performance.now() }));
        document.title = `${p.peek.title} · quire`;
      },
      (e) => { if (live) { setError(e); setPage(null); } },
    );
    return () => { live = false; };
  }, [path, version]);

  useEffect(() => {
    if (page && location.hash) document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
  }, [page]);

  if (error) return <main id="main" class="page"><Breadcrumbs path={path} /><ErrorNote error={error} /></main>;
  if (!page || page.path !== path) return <main id="main" class="page" aria-busy="true"><Breadcrumbs path={path} /><p class="muted">Loading…</p></main>;

  const props = Object.entries(page.peek.frontmatter).filter(([k]) => k !== 'tags' && k !== 'title');
  return (
    <div class="page-layout">
      <main id="main" class="page">
        <Breadcrumbs path={path} />
        <header class="page-head">
          <h1 class="page-title">{page.peek.title}</h1>
          <div class="page-actions" role="toolbar" aria-label="Page actions">
            <a class="button" href={href({ view: 'edit', path })}>Edit</a>
            <a class="button" href={href({ view: 'history', path })}>History</a>
            <button onClick={onRename}>Move / Rename…</button>
          </div>
        </header>
        {props.length > 0 && (
          <table class="properties" aria-label="Properties">
            <tbody>{props.map(([k, v]) => <tr key={k}><th scope="row">{k}</th><td>{propertyValue(v)}</td></tr>)}</tbody>
          </table>
        )}
        {page.tags.length > 0 && (
          <ul class="tags" aria-label="Tags">
            {page.tags.map((t) => <li key={t}><a href={href({ view: 'search', q: t })}>#{t}</a></li>)}
          </ul>
        )}
        <article class="markdown" dangerouslySetInnerHTML={{ __html: page.html }} />
      </main>
      <aside class="page-side" aria-label="About this page">
        {page.peek.headings.length > 1 && (
          <nav aria-label="Table of contents" class="toc">
            <h2>Contents</h2>
            <ul>{page.peek.headings.map((h, i) => <li key={i} style={{ paddingLeft: `${(h.level - 1) * 0.75}rem` }}><a href={`#${encodeURIComponent(h.slug)}`}>{h.text}</a></li>)}</ul>
          </nav>
        )}
        <section class="backlinks" aria-labelledby="backlinks-title">
          <h2 id="backlinks-title">Backlinks ({page.backlinks.length})</h2>
          {page.backlinks.length === 0 ? <p class="muted">No page links here.</p> : (
            <ul>
              {page.backlinks.map((b, i) => (
                <li key={`${b.path}:${b.line}:${i}`}>
                  <a href={pageHref(b.path)}>{b.title}</a>
                  {b.context && <p class="context">{b.context}</p>}
                </li>
              ))}
            </ul>
          )}
        </section>
        <p class="muted small">{page.peek.word_count} words</p>
      </aside>
    </div>
  );
}
