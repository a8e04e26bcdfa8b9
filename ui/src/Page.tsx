// Reading a page: breadcrumbs, properties, tags, the rendered body with links resolved by the
// server, table of contents and backlinks. The body is shown as soon as the file, its headings
// and its links are in (`/file`, `/toc`, `/resolve-links`); `/peek` (title, properties, word
// count) and `/backlinks`, which cost the server more, fill in when they answer.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, type Backlink, type Comment, type Heading, type Peek, type SearchHit, type Suggestion } from './api';
import { articleBlocks, blockOf, CommentsPanel, type Block } from './Comments';
import { enhance } from './enhance';
import { collectLinks, pageHref, renderMarkdown, renderSnippet, snippetHtml, splitFrontmatter, type Resolutions } from './markdown';
import { rememberRecent } from './recent';
import { href, navigate } from './router';
import { ShareDialog } from './ShareDialog';
import { ErrorNote } from './ui';

export interface Loaded {
  path: string;
  etag: string;
  html: string;
  headings: Heading[];
  /** Until `/peek` answers: the frontmatter's `title`, else the first level-1 heading, else the file name. */
  title: string;
  /** Tags written in the body (`#tag`). */
  inlineTags: string[];
}

export function quickTitle(yaml: string | null, headings: Heading[], path: string): string {
  const m = yaml ? /^title:[ \t]*(.+?)[ \t]*$/m.exec(yaml) : null;
  if (m) return m[1].replace(/^(["'])(.*)\1$/, '$2');
  const h1 = headings.find((h) => h.level === 1);
  return h1 ? h1.text : path.split('/').pop()!.replace(/\.md$/, '');
}

/** The page's body, rendered, in two round trips (file and headings together, then links). */
export async function loadPage(path: string): Promise<Loaded> {
  const [file, headings] = await Promise.all([api.read(path), api.toc(path)]);
  const { yaml, body, bodyLine } = splitFrontmatter(file.text);
  const { links, tags } = collectLinks(body);
  const resolved: Resolutions = links.length ? (await api.resolve(path, links)).resolved : {};
  const html = renderMarkdown(body, resolved, headings.map((h) => h.slug), bodyLine);
  return { path, etag: file.etag, html, headings, title: quickTitle(yaml, headings, path), inlineTags: tags };
}

export function pageTags(peek: Peek | null, inline: string[]): string[] {
  const fm = peek?.frontmatter.tags;
  const listed = Array.isArray(fm) ? fm.map(String) : typeof fm === 'string' ? fm.split(/[,\s]+/).filter(Boolean) : [];
  return [...new Set([...listed, ...inline])];
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

/** The "More actions" menu of a page: a disclosure with plain buttons (Tab or arrows move, Escape closes). */
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
      // Arrow keys, Home and End move between the items too.
      const items = [...(box.current?.querySelectorAll<HTMLElement>('.menu-items button') ?? [])];
      const at = items.indexOf(document.activeElement as HTMLElement);
      if (!items.length || at < 0) return;
      const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: items.length - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      items[(to + items.length) % items.length].focus();
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

export function PageView({ path, version, commentsVersion = 0, onRename }: { path: string; version: number; commentsVersion?: number; onRename: () => void }) {
  const [page, setPage] = useState<Loaded | null>(null);
  const [peek, setPeek] = useState<Peek | null>(null);
  const [backlinks, setBacklinks] = useState<{ path: string; list: Backlink[] } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  const [sharing, setSharing] = useState(false);
  const [actionError, setActionError] = useState<unknown>(null);
  const [blocks, setBlocks] = useState<Block[]>([]);
  const [line, setLine] = useState(0);
  const [comments, setComments] = useState<Comment[]>([]);
  const [sideOpen, setSideOpen] = useState(false);
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
      },
      (e) => { if (live) { setError(e); setPage(null); } },
    );
    api.peek(path).then((p) => { if (live) setPeek(p); }, () => { if (live) setPeek(null); });
    api.backlinks(path).then((list) => { if (live) setBacklinks({ path, list }); }, () => { if (live) setBacklinks({ path, list: [] }); });
    return () => { live = false; };
  }, [path, version, tick]);

  const current = peek?.path === path ? peek : null;
  const title = current?.title ?? (page?.path === path ? page.title : '');
  useEffect(() => { if (title) document.title = `${title} · quire`; }, [title]);

  useEffect(() => { setLine(0); setActionError(null); setSideOpen(false); }, [path]);
  useEffect(() => { if (title) rememberRecent(path, title); }, [path, title]);

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

  const published = current?.frontmatter.published === true;
  const togglePublish = async () => {
    setActionError(null);
    try {
      await (published ? api.unpublish(path) : api.publish(path));
      setTick((t) => t + 1);
    } catch (e) { setActionError(e); }
  };
  const props = Object.entries(current?.frontmatter ?? {}).filter(([k]) => k !== 'tags' && k !== 'title');
  const tags = pageTags(current, page.inlineTags);
  const links = backlinks?.path === path ? backlinks.list : null;
  return (
    <div class={`page-layout${sideOpen ? ' side-open' : ''}`} onKeyDown={(e) => { if (e.key === 'Escape' && sideOpen) setSideOpen(false); }}>
      <main id="main" class="page">
        <Breadcrumbs path={path} />
        <header class="page-head">
          <h1 class="page-title">{title}</h1>
          <div class="page-actions" role="toolbar" aria-label="Page actions">
            <a class="button" href={href({ view: 'edit', path })}>Edit</a>
            <a class="button" href={href({ view: 'history', path })}>History</a>
            <button class="side-toggle" aria-expanded={sideOpen} aria-controls="page-side" onClick={() => setSideOpen((o) => !o)}>Page info</button>
            <MoreActions items={[
              { label: 'Move / Rename…', run: onRename },
              { label: 'Share…', run: () => setSharing(true) },
              { label: 'Local graph', run: () => navigate(href({ view: 'graph', path, depth: 1 })) },
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
        {tags.length > 0 && (
          <ul class="tags" aria-label="Tags">
            {tags.map((t) => <li key={t}><a href={href({ view: 'tags', tag: t })}>#{t}</a></li>)}
          </ul>
        )}
        <article ref={article} class="markdown" onClick={pick} dangerouslySetInnerHTML={{ __html: page.html }} />
      </main>
      <aside class="page-side" id="page-side" aria-label="About this page">
        {sideOpen && <button class="side-close" onClick={() => setSideOpen(false)}>Close</button>}
        {page.headings.length > 1 && (
          <nav aria-label="Table of contents" class="toc">
            <h2>Contents</h2>
            <ul>{page.headings.map((h, i) => <li key={i} style={{ paddingLeft: `${(h.level - 1) * 0.75}rem` }}><a href={`#${encodeURIComponent(h.slug)}`}>{h.text}</a></li>)}</ul>
          </nav>
        )}
        <Backlinks path={path} title={title} links={links} />
        <Related path={path} />
        <CommentsPanel path={path} version={version + tick + commentsVersion} blocks={blocks} line={line} onLine={setLine} onComments={setComments} onShow={show} />
        {current && <p class="muted small">{current.word_count} words</p>}
      </aside>
      {sharing && <ShareDialog path={path} onClose={() => setSharing(false)} />}
    </div>
  );
}

/** Pages near in meaning that this page does not link to (`/suggestions`), asked for when
 * opened; a server without vector search says so. */
function Related({ path }: { path: string }) {
  const [found, setFound] = useState<Suggestion[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => { setFound(null); setError(null); }, [path]);
  const load = () => {
    if (found !== null) return;
    api.suggestions(path).then((r) => setFound(r.suggestions), (e) => { setError(e); setFound([]); });
  };
  const off = error instanceof ApiError && error.status === 503;
  return (
    <details class="related" onToggle={(e) => { if ((e.currentTarget as HTMLDetailsElement).open) load(); }}>
      <summary>Related pages</summary>
      {off ? <p class="muted">Related pages need vector search ([search.vector] enabled = true).</p>
        : error ? <ErrorNote error={error} />
        : found === null ? <p class="muted">Looking…</p>
        : found.length === 0 ? <p class="muted">No unlinked page is close in meaning.</p> : (
          <ul>
            {found.map((s) => (
              <li key={s.target}>
                <a href={pageHref(s.target)}>{s.title}</a> <span class="muted small">{Math.round(s.similarity * 100)}%</span>
                <p class="context">{s.snippet}</p>
              </li>
            ))}
          </ul>
        )}
    </details>
  );
}

/** Backlinks as one entry per linking page, each with the lines that link (rendered). */
export function groupBacklinks(list: Backlink[]): { path: string; title: string; contexts: string[] }[] {
  const groups = new Map<string, { path: string; title: string; contexts: string[] }>();
  for (const b of list) {
    let g = groups.get(b.path);
    if (!g) { g = { path: b.path, title: b.title, contexts: [] }; groups.set(b.path, g); }
    const c = b.context.trim();
    if (c && !g.contexts.includes(c)) g.contexts.push(c);
  }
  return [...groups.values()];
}

function Backlinks({ path, title, links }: { path: string; title: string; links: Backlink[] | null }) {
  const groups = links ? groupBacklinks(links) : null;
  const [mentions, setMentions] = useState<SearchHit[] | null>(null);
  useEffect(() => { setMentions(null); }, [path]);
  const loadMentions = () => {
    if (mentions !== null || !title) return;
    const linking = new Set((links ?? []).map((b) => b.path));
    // Mentions are the title's words, never pages near in meaning: BM25 alone.
    api.search(`"${title.replace(/"/g, '')}"`, 20, 'bm25').then(
      (r) => setMentions(r.results.filter((h) => h.path !== path && !linking.has(h.path))),
      () => setMentions([]),
    );
  };
  return (
    <section class="backlinks" aria-labelledby="backlinks-title" aria-busy={groups === null}>
      <h2 id="backlinks-title">Backlinks ({groups === null ? '…' : groups.length})</h2>
      {groups === null ? <p class="muted">Loading…</p> : groups.length === 0 ? <p class="muted">No page links here.</p> : (
        <ul>
          {groups.map((g) => (
            <li key={g.path} class="backlink">
              <a href={pageHref(g.path)}>{g.title}</a>
              {g.contexts.map((c, i) => <p key={i} class="context" dangerouslySetInnerHTML={{ __html: renderSnippet(c) }} />)}
            </li>
          ))}
        </ul>
      )}
      <details class="mentions" onToggle={(e) => { if ((e.currentTarget as HTMLDetailsElement).open) loadMentions(); }}>
        <summary>Unlinked mentions</summary>
        {mentions === null ? <p class="muted">Searching…</p> : mentions.length === 0 ? <p class="muted">No other page mentions “{title}”.</p> : (
          <ul>
            {mentions.map((h) => (
              <li key={h.path}>
                <a href={pageHref(h.path)}>{h.title}</a>
                <p class="context" dangerouslySetInnerHTML={{ __html: snippetHtml(h.snippet) }} />
              </li>
            ))}
          </ul>
        )}
      </details>
    </section>
  );
}
