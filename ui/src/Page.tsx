// Reading a page: breadcrumbs, properties, tags, the rendered body with links resolved by the
// server, table of contents and backlinks.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Backlink, type Comment, type Peek } from './api';
import { articleBlocks, blockOf, CommentsPanel, type Block } from './Comments';
import { enhance } from './enhance';
import { collectLinks, pageHref, renderMarkdown, splitFrontmatter, type Resolutions } from './markdown';
import { href } from './router';
import { ShareDialog } from './ShareDialog';
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
  const { body, bodyLine } = splitFrontmatter(file.text);
  const { links, tags } = collectLinks(body);
  const resolved: Resolutions = links.length ? (await api.resolve(path, links)).resolved : {};
  const html = renderMarkdown(body, resolved, peek.headings.map((h) => h.slug), bodyLine);
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

/** Where a published page is read without credentials. */
export function publicPageUrl(path: string): string {
  return `/p/${path.replace(/\.md$/, '').split('/').map(encodeURIComponent).join('/')}`;
}

/** The "More actions" menu of a page: a disclosure with plain buttons (Escape closes it). */
function MoreActions({ items }: { items: { label: string; run: () => void }[] }) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    box.current?.querySelector<HTMLElement>('.menu-items button')?.focus();
    const away = (e: MouseEvent) => { if (!box.current?.contains(e.target as Node)) setOpen(false); };
    document.addEventListener('mousedown', away);
    return () => document.removeEventListener('mousedown', away);
  }, [open]);
  return (
    <div class="more" ref={box} onKeyDown={(e) => {
      if (e.key === 'Escape' && open) { e.stopPropagation(); setOpen(false); box.current?.querySelector<HTMLElement>('button')?.focus(); }
    }}>
      <button aria-expanded={open} aria-controls="more-actions" onClick={() => setOpen((o) => !o)}>More actions ▾</button>
      {open && (
        <ul id="more-actions" class="menu-items" aria-label="More actions">
          {items.map((i) => <li key={i.label}><button onClick={() => { setOpen(false); i.run(); }}>{i.label}</button></li>)}
        </ul>
      )}
    </div>
  );
}

export function PageView({ path, version, onRename }: { path: string; version: number; onRename: () => void }) {
  const [page, setPage] = useState<Loaded | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  const [sharing, setSharing] = useState(false);
  const [actionError, setActionError] = useState<unknown>(null);
  const [blocks, setBlocks] = useState<Block[]>([]);
  const [line, setLine] = useState(0);
  const [comments, setComments] = useState<Comment[]>([]);
  const article = useRef<HTMLElement>(null);

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
  }, [path, version, tick]);

  useEffect(() => { setLine(0); setActionError(null); }, [path]);

  useEffect(() => {
    if (page && location.hash) document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
  }, [page]);

  // Once rendered: embeds, images, highlighting; the blocks a comment can point at.
  useEffect(() => {
    if (!article.current || !page) return;
    setBlocks(articleBlocks(article.current));
    void enhance(article.current, page.path);
  }, [page?.html]);

  // Marks the picked block and the blocks that have open comments.
  useEffect(() => {
    const el = article.current;
    if (!el) return;
    for (const b of el.querySelectorAll('.picked, .commented')) {
      b.classList.remove('picked', 'commented');
      b.removeAttribute('data-comments');
    }
    const counts = new Map<HTMLElement, number>();
    for (const c of comments) {
      if (c.resolved || c.line === 0) continue;
      const b = blockOf(el, c.line);
      if (b) counts.set(b, (counts.get(b) ?? 0) + 1);
    }
    for (const [b, n] of counts) { b.classList.add('commented'); b.dataset.comments = String(n); }
    if (line > 0) blockOf(el, line)?.classList.add('picked');
  }, [page?.html, comments, line]);

  const pick = (e: MouseEvent) => {
    if ((e.target as Element).closest('a, button, input')) return;
    if (window.getSelection()?.toString()) return;
    const block = (e.target as Element).closest<HTMLElement>('.markdown > [data-line]');
    if (block) setLine(Number(block.dataset.line));
  };
  const show = (n: number) => {
    setLine(n);
    if (article.current) blockOf(article.current, n)?.scrollIntoView({ block: 'center' });
  };

  if (error) return <main id="main" class="page"><Breadcrumbs path={path} /><ErrorNote error={error} /></main>;
  if (!page || page.path !== path) return <main id="main" class="page" aria-busy="true"><Breadcrumbs path={path} /><p class="muted">Loading…</p></main>;

  const published = page.peek.frontmatter.published === true;
  const togglePublish = async () => {
    setActionError(null);
    try {
      await (published ? api.unpublish(path) : api.publish(path));
      setTick((t) => t + 1);
    } catch (e) { setActionError(e); }
  };
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
            <MoreActions items={[
              { label: 'Move / Rename…', run: onRename },
              { label: 'Share…', run: () => setSharing(true) },
              { label: published ? 'Unpublish' : 'Publish', run: () => void togglePublish() },
            ]} />
          </div>
        </header>
        <ErrorNote error={actionError} />
        {published && (
          <p class="published" role="status">Published: readable by anyone at <a href={publicPageUrl(path)} target="_blank" rel="noopener">{publicPageUrl(path)}</a></p>
        )}
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
        <article ref={article} class="markdown" onClick={pick} dangerouslySetInnerHTML={{ __html: page.html }} />
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
        <CommentsPanel path={path} version={version + tick} blocks={blocks} line={line} onLine={setLine} onComments={setComments} onShow={show} />
        <p class="muted small">{page.peek.word_count} words</p>
      </aside>
      {sharing && <ShareDialog path={path} onClose={() => setSharing(false)} />}
    </div>
  );
}
