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

/** `%%comments%%`: hidden, in a line or over several lines (an unclosed one hides the rest). */
const commentBlock: TokenizerAndRendererExtension = {
  name: 'commentBlock',
  level: 'block',
  start(src: string) { const i = src.search(/(^|\n)%%/); return i < 0 ? undefined : i === 0 ? 0 : i + 1; },
  tokenizer(src: string) {
    const m = /^%%[\s\S]*?(?:%%[^\n]*(?:\n+|$)|$)/.exec(src);
    return m ? { type: 'commentBlock', raw: m[0] } : undefined;
  },
  renderer: () => '',
};
const commentInline: TokenizerAndRendererExtension = {
  name: 'commentInline',
  level: 'inline',
  start(src: string) { const i = src.indexOf('%%'); return i < 0 ? undefined : i; },
  tokenizer(src: string) {
    const m = /^%%[\s\S]*?(?:%%|$)/.exec(src);
    return m ? { type: 'commentInline', raw: m[0] } : undefined;
  },
  renderer: () => '',
};

/** `==highlighted==` text. */
const highlightExtension: TokenizerAndRendererExtension = {
  name: 'highlight',
  level: 'inline',
  start(src: string) { const i = src.indexOf('=='); return i < 0 ? undefined : i; },
  tokenizer(src: string) {
    const m = /^==(?=\S)([\s\S]*?\S)==/.exec(src);
    if (!m) return undefined;
    return { type: 'highlight', raw: m[0], text: m[1], tokens: this.lexer.inlineTokens(m[1]) };
  },
  renderer(t) { return `<mark>${this.parser.parseInline((t as Tokens.Generic).tokens ?? [])}</mark>`; },
  childTokens: ['tokens'],
};

/** Math as TeX in `span.math`, typeset by KaTeX after rendering (enhance.ts), as the server writes it. */
const mathBlock: TokenizerAndRendererExtension = {
  name: 'mathBlock',
  level: 'block',
  start(src: string) { const i = src.search(/(^|\n)\$\$/); return i < 0 ? undefined : i === 0 ? 0 : i + 1; },
  tokenizer(src: string) {
    const m = /^\$\$([\s\S]+?)\$\$[ \t]*(?:\n+|$)/.exec(src);
    return m ? { type: 'mathBlock', raw: m[0], text: m[1] } : undefined;
  },
  renderer(t) { return `<p><span class="math math-display">${escapeHtml((t as Tokens.Generic).text)}</span></p>\n`; },
};
const mathInline: TokenizerAndRendererExtension = {
  name: 'mathInline',
  level: 'inline',
  start(src: string) { const i = src.indexOf('$'); return i < 0 ? undefined : i; },
  tokenizer(src: string) {
    const display = /^\$\$([\s\S]+?)\$\$/.exec(src);
    if (display) return { type: 'mathInline', raw: display[0], text: display[1], display: true };
    const m = /^\$(?![\s$])((?:\\.|[^\\$\n])+?)(?<!\s)\$(?!\d)/.exec(src);
    return m ? { type: 'mathInline', raw: m[0], text: m[1], display: false } : undefined;
  },
  renderer(t) {
    const g = t as Tokens.Generic;
    return `<span class="math ${g.display ? 'math-display' : 'math-inline'}">${escapeHtml(g.text)}</span>`;
  },
};

/** The id a footnote's name gets (letters and digits kept, the rest as `-`). */
export function footnoteSlug(name: string): string {
  return name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '');
}

/** A footnote definition `[^name]: text` (indented lines continue it). */
const footnoteDef: TokenizerAndRendererExtension = {
  name: 'footnoteDef',
  level: 'block',
  start(src: string) { const i = src.search(/(^|\n)\[\^[^\]\s]+\]:/); return i < 0 ? undefined : i === 0 ? 0 : i + 1; },
  tokenizer(src: string) {
    const m = /^\[\^([^\]\s]+)\]:[ \t]*([^\n]*(?:\n(?:[ \t]*\n)*(?: {2,}|\t)[^\n]*)*)(?:\n+|$)/.exec(src);
    if (!m) return undefined;
    const text = m[2].replace(/\n(?: {2,4}|\t)/g, '\n');
    return { type: 'footnoteDef', raw: m[0], name: m[1], text, tokens: this.lexer.blockTokens(text, []) };
  },
  renderer: () => '',
  childTokens: ['tokens'],
};
const footnoteRef: TokenizerAndRendererExtension = {
  name: 'footnoteRef',
  level: 'inline',
  start(src: string) { const i = src.indexOf('[^'); return i < 0 ? undefined : i; },
  tokenizer(src: string) {
    const m = /^\[\^([^\]\s]+)\]/.exec(src);
    return m ? { type: 'footnoteRef', raw: m[0], name: m[1] } : undefined;
  },
};

const EXTENSIONS = [commentBlock, commentInline, highlightExtension, mathBlock, mathInline, footnoteDef, footnoteRef];

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

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&#x27;': "'", '&apos;': "'" };

/**
 * A search snippet as HTML. The server sends its text HTML-escaped with `<mark>` around the
 * matches; the text is unescaped once and escaped again (so nothing shows as `&quot;` and
 * nothing but `<mark>` can be markup).
 */
export function snippetHtml(snippet: string): string {
  return snippet.split(/(<\/?mark>)/).map((part) => {
    if (part === '<mark>' || part === '</mark>') return part;
    return escapeHtml(part.replace(/&(?:amp|lt|gt|quot|#39|#x27|apos);/g, (e) => ENTITIES[e]));
  }).join('');
}

/**
 * A line of markdown (a backlink's context) as inline HTML without links: formatting kept,
 * wiki links shown by their label, raw HTML as text.
 */
export function renderSnippet(text: string): string {
  const md = new Marked({
    gfm: true,
    extensions: [
      { ...wikiExtension, renderer(t) { const w = t as WikiToken; return `<span class="link-ref">${escapeHtml(w.alias || w.target || w.fragment)}</span>`; } },
      ...EXTENSIONS,
    ],
    renderer: {
      html({ text: raw }) { return escapeHtml(raw); },
      link({ tokens }) { return `<span class="link-ref">${this.parser.parseInline(tokens)}</span>`; },
      image({ text: alt }) { return escapeHtml(alt); },
    },
  });
  return md.parseInline(text.replace(/^\s*(?:[-*+]|\d+[.)])\s+(?:\[.\]\s+)?|^\s*#{1,6}\s+|^\s*>\s?/, ''), { async: false }) as string;
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

const IMAGE = /\.(png|jpe?g|gif|webp|svg|avif)$/i;
const TAG = /(^|[\s(])#([\p{L}\p{N}_][\p{L}\p{N}_/-]*)/gu;

/** Links of a page body as the keys /resolve-links is asked about, and inline tags. */
export function collectLinks(body: string): { links: string[]; tags: string[] } {
  const md = new Marked({ extensions: [wikiExtension, ...EXTENSIONS] });
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

const AUDIO = /\.(mp3|wav|ogg|oga|m4a|flac|opus)$/i;
const VIDEO = /\.(mp4|webm|ogv|mov|mkv)$/i;
const PDF = /\.pdf$/i;

/** `300` or `300x200`: the size an image embed asks for. */
export function embedSize(alias: string): { width: number; height?: number } | null {
  const m = /^\s*(\d+)(?:x(\d+))?\s*$/.exec(alias);
  return m ? { width: Number(m[1]), height: m[2] ? Number(m[2]) : undefined } : null;
}

/**
 * A file of the knowledge base shown in a page: an image (sized by `|300` or `|300x200`), a
 * PDF in the browser's viewer, an audio or video player. Their bytes are fetched by
 * enhance.ts (with the API key when there is one), not by the browser from `src`. Anything
 * else is `null` (the caller links to it).
 */
export function mediaHtml(path: string, alias: string): string | null {
  const name = escapeHtml(path.split('/').pop()!);
  const size = embedSize(alias);
  if (IMAGE.test(path)) {
    const dims = size ? ` width="${size.width}"${size.height ? ` height="${size.height}"` : ''}` : '';
    return `<img data-asset="${escapeHtml(path)}" alt="${size ? '' : escapeHtml(alias)}"${dims}>`;
  }
  const label = alias && !size ? escapeHtml(alias) : name;
  if (PDF.test(path)) return `<iframe class="embed-pdf" data-asset="${escapeHtml(path)}" title="${label}"></iframe>`;
  if (AUDIO.test(path)) return `<audio class="embed-audio" controls data-asset="${escapeHtml(path)}" title="${label}"></audio>`;
  if (VIDEO.test(path)) return `<video class="embed-video" controls data-asset="${escapeHtml(path)}" title="${label}"></video>`;
  return null;
}

/** The names task states go by (`[/]` in progress …); `[ ]` and `[x]` are checkboxes. */
const TASK_NAMES: Record<string, string> = {
  ' ': 'to do', x: 'done', X: 'done', '/': 'in progress', '-': 'cancelled', '>': 'forwarded', '<': 'scheduled',
  '?': 'question', '!': 'important', '*': 'star', '"': 'quote', i: 'information', I: 'idea', b: 'bookmark', p: 'pro', c: 'con',
};

export function taskBox(state: string): string {
  if (state === ' ') return '<input type="checkbox" disabled aria-label="to do"> ';
  if (state === 'x' || state === 'X') return '<input type="checkbox" disabled checked aria-label="done"> ';
  return `<span class="task-box" role="img" aria-label="${TASK_NAMES[state] ?? 'other state'}">${escapeHtml(state)}</span> `;
}

const unescapeChar = (s: string) => ({ '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" } as Record<string, string>)[s] ?? s;

/** A callout's type, cleaned for an attribute, and its title when it has none. */
export function calloutTitle(kind: string): string {
  return kind.charAt(0).toUpperCase() + kind.slice(1);
}

/**
 * Renders a page body. `resolved` holds the server's answers by the keys of
 * [`collectLinks`]; `slugs` are the server's heading slugs in document order (anchors of the
 * table of contents). With `firstLine` (the file line the body starts on), each top-level
 * block's element carries `data-line`, its first line in the file: comments anchor there.
 * What it writes for Obsidian's constructs (callouts, tasks, block ids, footnotes, math,
 * mermaid, embeds) is what the server's renderer (quire-render) writes, so one stylesheet
 * serves both.
 */
export function renderMarkdown(body: string, resolved: Resolutions, slugs: string[] = [], firstLine?: number): string {
  let heading = 0;
  // Footnotes: numbered by their first reference, listed at the end.
  const notes: { name: string; refs: number }[] = [];
  const defs = new Map<string, Tokens.Generic>();
  const noteNumber = (name: string) => {
    let i = notes.findIndex((n) => n.name === name);
    if (i < 0) { notes.push({ name, refs: 0 }); i = notes.length - 1; }
    return i;
  };
  const md: Marked = new Marked({
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
          if (w.embed) {
            const media = mediaHtml(r.path, w.alias);
            if (media) return media;
          }
          const link = `<a class="${w.embed ? 'wiki embed' : 'wiki'}" href="${escapeHtml(pageHref(r.path, w.fragment))}" title="${escapeHtml(r.path)}">${label}</a>`;
          // Transclusion: the page (or its section, or its block) is put in by enhance.ts.
          if (w.embed && /\.md$/i.test(r.path)) {
            return `<span class="transclusion" data-embed="${escapeHtml(r.path)}" data-fragment="${escapeHtml(w.fragment)}">${link}</span>`;
          }
          return link;
        },
      },
      ...EXTENSIONS.filter((e) => e.name !== 'footnoteDef' && e.name !== 'footnoteRef'),
      {
        ...footnoteDef,
        renderer(t) { defs.set((t as Tokens.Generic).name, t as Tokens.Generic); return ''; },
      },
      {
        ...footnoteRef,
        renderer(t) {
          const name = (t as Tokens.Generic).name as string;
          const i = noteNumber(name);
          const refs = ++notes[i].refs;
          const slug = escapeHtml(footnoteSlug(name));
          return `<sup class="footnote-ref"><a href="#fn-${slug}" id="fnref-${slug}${refs > 1 ? `-${refs}` : ''}">${i + 1}</a></sup>`;
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
      code({ text, lang }) {
        const language = (lang ?? '').split(/\s/)[0];
        if (language === 'mermaid') return `<pre class="mermaid">${escapeHtml(text)}\n</pre>\n`;
        const cls = language ? ` class="language-${escapeHtml(language)}"` : '';
        return `<pre class="code"><code${cls}>${escapeHtml(text)}\n</code></pre>\n`;
      },
      blockquote({ tokens, text }) {
        const m = /^\[!([\w-]+)\]([+-]?)[ \t]*([^\n]*)(?:\n|$)/.exec(text);
        if (!m) return `<blockquote>\n${this.parser.parse(tokens)}</blockquote>\n`;
        const kind = escapeHtml(m[1].toLowerCase());
        const title = m[3].trim() ? md.parseInline(m[3].trim(), { async: false }) as string : escapeHtml(calloutTitle(m[1].toLowerCase()));
        const rest = text.slice(m[0].length);
        const content = rest.trim() ? md.parser(md.lexer(rest)) : '';
        const [open, tag, close] = m[2]
          ? [`<details class="callout" data-callout="${kind}"${m[2] === '+' ? ' open' : ''}>`, 'summary', '</details>']
          : [`<div class="callout" data-callout="${kind}">`, 'div', '</div>'];
        return `${open}\n<${tag} class="callout-title">${title}</${tag}>\n<div class="callout-content">\n${content}</div>\n${close}\n`;
      },
      paragraph({ tokens }) {
        const inner = this.parser.parseInline(tokens);
        const alone = /^\^([A-Za-z0-9-]+)$/.exec(inner.trim());
        if (alone) return `<div class="block-anchor" id="^${alone[1]}"></div>\n`;
        const marked = /[ \t]\^([A-Za-z0-9-]+)\s*$/.exec(inner);
        if (marked) return `<p id="^${marked[1]}">${inner.slice(0, marked.index)}</p>\n`;
        return `<p>${inner}</p>\n`;
      },
      listitem(item) {
        let state: string | null = item.task ? (item.checked ? 'x' : ' ') : null;
        let inner = this.parser.parse(item.tokens, !!item.loose);
        if (state === null) {
          const m = /^(<p>)?\[(&[a-z]+;|&#\d+;|[^\[\]&<])\](?: |$)/.exec(inner);
          if (m) { state = unescapeChar(m[2]); inner = (m[1] ?? '') + inner.slice(m[0].length); }
        }
        // A block id ends the item's own text (before a nested list).
        const cut = inner.search(/<(ul|ol)[\s>]/);
        const own = cut < 0 ? inner : inner.slice(0, cut);
        const idm = /[ \t]\^([A-Za-z0-9-]+)[ \t]*(?=(<\/p>)?\s*$)/.exec(own);
        let attrs = '';
        if (idm) { inner = own.slice(0, idm.index) + own.slice(idm.index + idm[0].length) + inner.slice(own.length); attrs += ` id="^${idm[1]}"`; }
        if (state !== null) {
          attrs += ` class="task" data-task="${escapeHtml(state)}"`;
          inner = inner.startsWith('<p>') ? `<p>${taskBox(state)}${inner.slice(3)}` : taskBox(state) + inner;
        }
        return `<li${attrs}>${inner}</li>\n`;
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
          if (!r) return `<span class="unresolved">${alt}</span>`;
          return mediaHtml(r.path, text) ?? `<a class="embed-file" href="${escapeHtml(pageHref(r.path))}">${alt || escapeHtml(r.path)}</a>`;
        }
        // Images from other origins are not loaded (the page's CSP allows this origin only).
        return `<span class="external-image" title="${escapeHtml(title ?? href)}">${alt || 'image'}</span>`;
      },
    },
  });
  const footer = () => {
    for (const name of defs.keys()) noteNumber(name);
    const items = notes.filter((n) => defs.has(n.name)).map((n) => {
      const slug = escapeHtml(footnoteSlug(n.name));
      const back = n.refs > 0 ? ` <a class="footnote-back" href="#fnref-${slug}" aria-label="Back to the text">↩</a>` : '';
      return `<li id="fn-${slug}">\n${md.parser(defs.get(n.name)!.tokens ?? []).trimEnd()}${back}</li>\n`;
    });
    return items.length ? `<section class="footnotes" aria-label="Footnotes">\n<ol>\n${items.join('')}</ol>\n</section>\n` : '';
  };
  if (firstLine === undefined) return (md.parse(body, { async: false }) as string) + footer();
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
  return html + footer();
}
