// What a rendered page gets after it is in the DOM: embedded pages (`![[page]]`,
// `![[page#heading]]`, up to three levels deep, never a page inside itself), images fetched
// with the API key, and code highlighting (loaded only when there is code to highlight).
import { api, call, settings } from './api';
import { collectLinks, fileUrl, renderMarkdown, splitFrontmatter } from './markdown';

export const MAX_EMBED_DEPTH = 3;

/** Everything below; resolves when all is in (a newer call for the same root may overtake). */
export async function enhance(root: HTMLElement, path: string): Promise<void> {
  await expandEmbeds(root, 1, new Set([path]));
  await Promise.all([loadImages(root), highlight(root)]);
}

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
 * Images of the knowledge base. Without a key the browser loads them itself; with one they
 * are fetched with it and shown as `data:` URLs (the page's CSP allows those, not `blob:`).
 */
export async function loadImages(root: HTMLElement): Promise<void> {
  const images = [...root.querySelectorAll<HTMLImageElement>('img[data-asset]:not([src])')];
  await Promise.all(images.map(async (img) => {
    const path = img.dataset.asset!;
    if (!settings.key()) { img.src = fileUrl(path); return; }
    let url = dataUrls.get(path);
    if (!url) {
      url = call('GET', `/file?path=${encodeURIComponent(path)}`).then((r) => r.blob()).then(asDataUrl);
      dataUrls.set(path, url);
      url.catch(() => dataUrls.delete(path));
    }
    try { img.src = await url; } catch { img.replaceWith(Object.assign(document.createElement('span'), { className: 'unresolved', textContent: img.alt || path })); }
  }));
}

async function highlight(root: HTMLElement): Promise<void> {
  if (!root.querySelector('pre > code[class*="language-"]')) return;
  const { highlightBelow } = await import('./highlight');
  highlightBelow(root);
}
