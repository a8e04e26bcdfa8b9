// What a rendered page gets after it is in the DOM: embedded pages (`![[page]]`,
// `![[page#heading]]`, `![[page#^block]]`, up to three levels deep, never a page inside
// itself), images, PDFs, audio and video fetched with the API key, code highlighting, math
// (KaTeX) and mermaid diagrams — each library loaded only when a page needs it — and wide
// tables and code made scrollable by keyboard.
import { api, call, settings } from './api';
import { collectLinks, fileUrl, renderMarkdown, splitFrontmatter } from './markdown';

export const MAX_EMBED_DEPTH = 3;

/** Everything below; resolves when all is in (a newer call for the same root may overtake). */
export async function enhance(root: HTMLElement, path: string): Promise<void> {
  await expandEmbeds(root, 1, new Set([path]));
  scrollables(root);
  await Promise.all([loadImages(root), highlight(root), typeset(root), diagrams(root)]);
}

/**
 * Tables and code blocks scroll inside themselves rather than widening the page; a region
 * that scrolls is reachable by keyboard (Tab, then the arrow keys) and says what it is.
 */
export function scrollables(root: HTMLElement) {
  for (const table of root.querySelectorAll<HTMLTableElement>('table')) {
    if (table.parentElement?.classList.contains('table-scroll')) continue;
    const box = document.createElement('div');
    box.className = 'table-scroll';
    box.tabIndex = 0;
    box.setAttribute('role', 'region');
    box.setAttribute('aria-label', 'Table (scrolls sideways)');
    table.replaceWith(box);
    box.append(table);
  }
  for (const pre of root.querySelectorAll<HTMLElement>('pre:not(.mermaid)')) {
    if (pre.hasAttribute('tabindex')) continue;
    pre.tabIndex = 0;
    const lang = /language-([\w+#-]+)/.exec(pre.querySelector('code')?.className ?? '')?.[1];
    pre.setAttribute('aria-label', lang ? `Code (${lang})` : 'Code');
  }
}

/** Math in `span.math` typeset by KaTeX (its script and fonts load with the first formula). */
async function typeset(root: HTMLElement): Promise<void> {
  const spans = [...root.querySelectorAll<HTMLElement>('span.math:not([data-typeset])')];
  if (!spans.length) return;
  const { renderMath } = await import('./math');
  await renderMath(spans);
}

/** Mermaid diagrams drawn as SVG (mermaid loads with the first diagram). */
async function diagrams(root: HTMLElement): Promise<void> {
  const blocks = [...root.querySelectorAll<HTMLElement>('pre.mermaid:not([data-drawn])')];
  if (!blocks.length) return;
  const { drawDiagram } = await import('./diagram');
  for (const el of blocks) await drawDiagram(el);
}

/** The text an embed shows: the page's body, or the section (`#Heading`) or block (`#^id`) it names. */
async function embeddedBody(path: string, fragment: string): Promise<string> {
  if (fragment) return (await api.section(path, fragment)).content;
  return splitFrontmatter((await api.read(path)).text).body;
}

/** Puts the embedded pages of `root` in, each rendered with its links resolved from itself. */
export async function expandEmbeds(root: HTMLElement, depth: number, seen: Set<string>): Promise<void> {
  const slots = [...root.querySelectorAll<HTMLElement>('span.transclusion[data-embed]:not([data-state])')]
    .filter((el) => el.parentElement?.closest('.embedded') === root.closest('.embedded'));
  await Promise.all(slots.map(async (slot) => {
    const path = slot.dataset.embed!;
    const fragment = slot.dataset.fragment ?? '';
    const key = `${path}#${fragment}`;
    if (seen.has(path) || seen.has(key) || depth > MAX_EMBED_DEPTH) {
      slot.dataset.state = 'skipped';
      slot.title = seen.has(path) || seen.has(key) ? 'Not embedded: it would embed itself' : `Not embedded: more than ${MAX_EMBED_DEPTH} levels deep`;
      return;
    }
    slot.dataset.state = 'loading';
    try {
      const body = await embeddedBody(path, fragment);
      const { links } = collectLinks(body);
      const resolved = links.length ? (await api.resolve(path, links)).resolved : {};
      const box = document.createElement('div');
      box.className = 'embedded';
      box.setAttribute('role', 'group');
      box.setAttribute('aria-label', `Embedded from ${path}${fragment ? ` › ${fragment}` : ''}`);
      // No heading ids inside embeds: the page's own anchors stay unique.
      box.innerHTML = renderMarkdown(body, resolved);
      slot.append(box);
      slot.dataset.state = 'done';
      await expandEmbeds(box, depth + 1, new Set([...seen, path, key]));
    } catch (e) {
      slot.dataset.state = 'failed';
      slot.title = `Not embedded: ${e instanceof Error ? e.message : String(e)}`;
    }
  }));
}

const dataUrls = new Map<string, Promise<string>>();

function asDataUrl(blob: Blob): Promise<string> {
  return new Promise((ok, fail) => {
    const reader = new FileReader();
    reader.onload = () => ok(String(reader.result));
    reader.onerror = () => fail(reader.error);
    reader.readAsDataURL(blob);
  });
}

/**
 * Files of the knowledge base shown in a page (images, PDFs, audio, video). Without a key the
 * browser loads them itself; with one they are fetched with it: images as `data:` URLs,
 * the others as `blob:` URLs (the page's CSP allows both for these).
 */
export async function loadImages(root: HTMLElement): Promise<void> {
  const items = [...root.querySelectorAll<HTMLElement>('img[data-asset]:not([src]), iframe[data-asset]:not([src]), audio[data-asset]:not([src]), video[data-asset]:not([src])')];
  await Promise.all(items.map(async (el) => {
    const path = el.dataset.asset!;
    const target = el as HTMLImageElement;
    if (!settings.key()) { target.src = fileUrl(path); return; }
    const image = el.tagName === 'IMG';
    const cache = image ? dataUrls : blobUrls;
    let url = cache.get(path);
    if (!url) {
      const blob = call('GET', `/file?path=${encodeURIComponent(path)}`).then((r) => r.blob());
      url = image ? blob.then(asDataUrl) : blob.then((b) => URL.createObjectURL(b));
      cache.set(path, url);
      url.catch(() => cache.delete(path));
    }
    try { target.src = await url; } catch { el.replaceWith(Object.assign(document.createElement('span'), { className: 'unresolved', textContent: (el as HTMLImageElement).alt || path })); }
  }));
}

const blobUrls = new Map<string, Promise<string>>();

async function highlight(root: HTMLElement): Promise<void> {
  if (!root.querySelector('pre > code[class*="language-"]')) return;
  const { highlightBelow } = await import('./highlight');
  highlightBelow(root);
}
