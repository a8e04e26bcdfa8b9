import { afterEach, describe, expect, it, vi } from 'vitest';
import { expandEmbeds } from './enhance';
import { renderMarkdown } from './markdown';

// A tiny knowledge base behind a stubbed fetch: GET /file and POST /resolve-links.
const PAGES: Record<string, string> = {
  'a.md': '# A\n\n![[b]]\n',
  'b.md': '# B\n\n![[c]] and ![[a]]\n',
  'c.md': '# C\n\n![[d]]\n',
  'd.md': '# D\n\n![[e]]\n',
  'e.md': '# E\n',
};

function stubServer() {
  vi.stubGlobal('fetch', async (input: string, init: RequestInit) => {
    const url = new URL(input, 'http://x');
    if (url.pathname.endsWith('/file')) {
      const text = PAGES[url.searchParams.get('path')!];
      return text ? new Response(text, { headers: { ETag: '"1"' } }) : new Response('{"error":"no"}', { status: 404 });
    }
    const { links } = JSON.parse(String(init.body)) as { links: string[] };
    const resolved: Record<string, { path: string; title: string }> = {};
    for (const l of links) {
      const name = /\[\[([^\]#|]+)/.exec(l)?.[1];
      if (name && PAGES[`${name}.md`]) resolved[l] = { path: `${name}.md`, title: name };
    }
    return new Response(JSON.stringify({ resolved, unresolved: [] }));
  });
}

afterEach(() => { vi.unstubAllGlobals(); });

describe('transclusion', () => {
  it('embeds up to three levels and never a page inside itself', async () => {
    stubServer();
    const root = document.createElement('article');
    root.innerHTML = renderMarkdown('![[b]]', { '![[b]]': { path: 'b.md', title: 'b' } });
    await expandEmbeds(root, 1, new Set(['a.md']));
    const states = [...root.querySelectorAll<HTMLElement>('.transclusion')].map((s) => `${s.dataset.embed}:${s.dataset.state}`);
    // b (1) → c (2) → d (3) → e would be a fourth level; b → a is the page itself.
    expect(states).toEqual(['b.md:done', 'c.md:done', 'd.md:done', 'e.md:skipped', 'a.md:skipped']);
    expect(root.textContent).toContain('D');
    expect(root.querySelectorAll('.embedded')).toHaveLength(3);
  });
});
