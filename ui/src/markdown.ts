// Markdown → HTML for the page view. Links are resolved by the server (POST /resolve-links,
// one batch per page): this module only finds them, asks, and renders what it was told.
// Raw HTML in pages is shown as text, never run; only http(s)/mailto URLs become links.
import { Marked, type Tokens, type TokenizerAndRendererExtension } from 'marked';

export interface WikiParts {
  raw: string;
  target: string;
  fragment: string;
  alias: string;
  embed: boolean;
}
export interface WikiToken extends Tokens.Generic, WikiParts {
  type: 'wiki';
}

export interface Resolution { path: string; title: string }
export type Resolutions = Record<string, Resolution>;

const WIKI = /^(!?)\[\[([^\[\]\n]+?)\]\]/;

export function parseWiki(raw: string): WikiParts | null {
  const m = WIKI.exec(raw);
  if (!m) return null;
  const inner = m[2];
  const bar = inner.indexOf('|');
  const ref = bar >= 0 ? inner.slice(0, bar) : inner;
  const alias = bar >= 0 ? inner.slice(bar + 1).trim() : '';
  const hash = ref.indexOf('#');
  return {
    raw: m[0],
    embed: m[1] === '!',
    target: (hash >= 0 ? ref.slice(0, hash) : ref).trim(),
    fragment: hash >= 0 ? ref.slice(hash + 1).trim() : '',
    alias,
  };
}

const wikiExtension: TokenizerAndRendererExtension = {
  name: 'wiki',
  level: 'inline',
  start(src: string) {
    const i = src.indexOf('[[');
    if (i < 0) return undefined;
    return i > 0 && src[i - 1] === '!' ? i - 1 : i;
  },
  tokenizer(src: string) {
    const w = parseWiki(src);
    return w ? ({ type: 'wiki', ...w } as WikiToken) : undefined;
  },
};

/** Whether a markdown destination is a link into the knowledge base (not a URL or fragment). */
export function isLocalDestination(href: string): boolean {
  return href !== '' && !href.startsWith('#') && !/^[a-z][a-z0-9+.-]*:/i.test(href);
}

/** The form in which a markdown link is sent to /resolve-links (and looked up afterwards). */
export function markdownKey(href: string): string {
  return `[](<${href}>)`;
}

export interface Frontmatter { yaml: string | null; body: string; bodyLine: number }

const newlines = (s: string) => s.split('\n').length - 1;

/**
 * Splits `---` frontmatter from the body (the server parses it; this only hides it).
 * `bodyLine` is the 1-based line of the file the body starts on.
 */
export function splitFrontmatter(text: string): Frontmatter {
  const m = /^---\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) return { yaml: null, body: text, bodyLine: 1 };
  return { yaml: m[1], body: text.slice(m[0].length), bodyLine: 1 + newlines(m[0]) };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** A search snippet: everything escaped except the server's `<mark>` highlights. */
export function snippetHtml(snippet: string): string {
  return escapeHtml(snippet).replace(/&lt;(\/?)mark&gt;/g, '<$1mark>');
}

export function pageHref(path: string, fragment = ''): string {
  const enc = path.split('/').map(encodeURIComponent).join('/');
  return `/page/${enc}${fragment ? `#${encodeURIComponent(fragment)}` : ''}`;
}

/** `to` relative to the folder of the page `from` (both root-relative), as a link destination. */
export function relativePath(from: string, to: string): string {
  const a = from.split('/').slice(0, -1);
  const b = to.split('/');
  let i = 0;
  while (i < a.length && i < b.length - 1 && a[i] === b[i]) i++;
  const rel = [...a.slice(i).map(() => '..'), ...b.slice(i)].join('/');
  return rel.split('/').map((p) => (p === '..' ? p : encodeURIComponent(p))).join('/');
}

/** The markdown that shows an uploaded file in the page `page`: an image or a link. */
export function assetMarkdown(page: string, asset: string, name: string): string {
  const label = name.replace(/[\[\]]/g, '');
  const dest = relativePath(page, asset);
  return IMAGE.test(asset) ? `![${label}](${dest})` : `[${label}](${dest})`;
}

export function fileUrl(path: string): string {
  return `/api/quire/file?path=${encodeURIComponent(path)}`;
}

/**
 * An image of the knowledge base. Its bytes are fetched by enhance.ts (with the API key when
 * there is one, so images show when auth is on), not by the browser from `src`.
 */
function assetImage(path: string, alt: string): string {
  return `<img data-asset="${escapeHtml(path)}" alt="${escapeHtml(alt)}">`;
}

const IMAGE = /\.(png|jpe?g|gif|webp|svg|avif)$/i;
const TAG = /(^|[\s(])#([\p{L}\p{N}_][\p{L}\p{N}_/-]*)/gu;

/** Links of a page body as the keys /resolve-links is asked about, and inline tags. */
export function collectLinks(body: string): { links: string[]; tags: string[] } {
  const md = new Marked({ extensions: [wikiExtension] });
  const links = new Set<string>();
  const tags = new Set<string>();
  md.walkTokens(md.lexer(body), (t) => {
    if (t.type === 'wiki') {
      const w = t as WikiToken;
      if (w.target) links.add(w.raw);
    } else if ((t.type === 'link' || t.type === 'image') && isLocalDestination((t as Tokens.Link).href)) {
      links.add(markdownKey(stripFragment((t as Tokens.Link).href)));
    } else if (t.type === 'text' && !('tokens' in t && t.tokens?.length)) {
      for (const m of (t as Tokens.Text).text.matchAll(TAG)) {
        if (!/^\d+$/.test(m[2])) tags.add(m[2]);
      }
    }
  });
  return { links: [...links], tags: [...tags] };
}

function stripFragment(href: string): string {
  const i = href.indexOf('#');
  return i >= 0 ? href.slice(0, i) : href;
}

export interface Rendered { html: string }

/**
 * Renders a page body. `resolved` holds the server's answers by the keys of
 * [`collectLinks`]; `slugs` are the server's heading slugs in document order (anchors of the
 * table of contents). With `firstLine` (the file line the body starts on), each top-level
 * block's element carries `data-line`, its first line in the file: comments anchor there.
 */
export function renderMarkdown(body: string, resolved: Resolutions, slugs: string[] = [], firstLine?: number): string {
  let heading = 0;
  const md = new Marked({
    gfm: true,
    extensions: [
      {
        ...wikiExtension,
        renderer(t) {
          const w = t as WikiToken;
          const r = w.target ? resolved[w.raw] : undefined;
          const label = escapeHtml(w.alias || (w.target + (w.fragment ? ` › ${w.fragment}` : '')) || w.fragment);
          if (!w.target) return `<a class="wiki" href="#${encodeURIComponent(w.fragment)}">${label}</a>`;
          if (!r) return `<a class="wiki unresolved" title="No page ${escapeHtml(w.target)} yet" aria-disabled="true">${label}</a>`;
          if (w.embed && IMAGE.test(r.path)) return assetImage(r.path, w.alias || r.title);
          const link = `<a class="${w.embed ? 'wiki embed' : 'wiki'}" href="${escapeHtml(pageHref(r.path, w.fragment))}" title="${escapeHtml(r.path)}">${label}</a>`;
          // Transclusion: the page (or its section) is put in by enhance.ts after rendering.
          if (w.embed && /\.md$/i.test(r.path)) {
            return `<span class="transclusion" data-embed="${escapeHtml(r.path)}" data-fragment="${escapeHtml(w.fragment)}">${link}</span>`;
          }
          return link;
        },
      },
    ],
    renderer: {
      html({ text }) {
        return escapeHtml(text);
      },
      heading({ tokens, depth }) {
        const slug = slugs[heading++] ?? '';
        const id = slug ? ` id="${escapeHtml(slug)}"` : '';
        return `<h${depth}${id}>${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
      link({ href, title, tokens }) {
        const text = this.parser.parseInline(tokens);
        const t = title ? ` title="${escapeHtml(title)}"` : '';
        if (href.startsWith('#')) return `<a href="${escapeHtml(href)}"${t}>${text}</a>`;
        if (isLocalDestination(href)) {
          const hash = href.indexOf('#');
          const r = resolved[markdownKey(stripFragment(href))];
          if (!r) return `<a class="unresolved" aria-disabled="true"${t}>${text}</a>`;
          return `<a href="${escapeHtml(pageHref(r.path, hash >= 0 ? href.slice(hash + 1) : ''))}"${t}>${text}</a>`;
        }
        if (/^(https?|mailto):/i.test(href)) {
          return `<a href="${escapeHtml(href)}" rel="noopener noreferrer" target="_blank"${t}>${text}</a>`;
        }
        return text;
      },
      image({ href, title, text }) {
        const alt = escapeHtml(text);
        if (isLocalDestination(href)) {
          const r = resolved[markdownKey(stripFragment(href))];
          return r ? assetImage(r.path, text) : `<span class="unresolved">${alt}</span>`;
        }
        // Images from other origins are not loaded (the page's CSP allows this origin only).
        return `<span class="external-image" title="${escapeHtml(title ?? href)}">${alt || 'image'}</span>`;
      },
    },
  });
  if (firstLine === undefined) return md.parse(body, { async: false }) as string;
  const tokens = md.lexer(body);
  let line = firstLine;
  let html = '';
  for (const token of tokens) {
    let part = md.parser(Object.assign([token], { links: tokens.links }));
    const lead = /^\n*/.exec(token.raw)![0].length;
    if (token.type !== 'space') part = part.replace(/^<([a-z][a-z0-9]*)/i, `<$1 data-line="${line + lead}"`);
    html += part;
    line += newlines(token.raw);
  }
  return html;
}
