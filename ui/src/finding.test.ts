import { describe, expect, it } from 'vitest';
import type { Backlink } from './api';
import { fileKind } from './FileView';
import { renderSnippet, snippetHtml } from './markdown';
import { groupBacklinks } from './Page';
import { pagesOfRows } from './pageIndex';
import { homePage } from './recent';
import { tagTree } from './TagsView';

describe('search snippets', () => {
  it('show the server-escaped text once, with only <mark> as markup', () => {
    const server = 'He said &quot;don&#39;t&quot; &amp; 3 &gt; 2 <mark>quoted</mark> &lt;script&gt;';
    expect(snippetHtml(server)).toBe('He said &quot;don&#39;t&quot; &amp; 3 &gt; 2 <mark>quoted</mark> &lt;script&gt;');
    const div = document.createElement('div');
    div.innerHTML = snippetHtml(server);
    expect(div.textContent).toBe('He said "don\'t" & 3 > 2 quoted <script>');
    expect(div.querySelectorAll('mark')).toHaveLength(1);
    expect(div.querySelector('script')).toBeNull();
    // Markup that is not the server's <mark> stays text.
    expect(snippetHtml('<b>x</b> <mark>y</mark>')).toBe('&lt;b&gt;x&lt;/b&gt; <mark>y</mark>');
  });
});

describe('backlinks', () => {
  it('come one entry per page, each with its distinct lines rendered without links', () => {
    const b = (path: string, context: string, line: number): Backlink => ({ path, title: path.toUpperCase(), context, line });
    const groups = groupBacklinks([b('a.md', 'See [[Target]] here', 3), b('a.md', 'See [[Target]] here', 3), b('a.md', '- And **[[Target|it]]** again', 9), b('b.md', 'x', 1)]);
    expect(groups.map((g) => [g.path, g.contexts.length])).toEqual([['a.md', 2], ['b.md', 1]]);
    expect(renderSnippet(groups[0].contexts[1])).toBe('And <strong><span class="link-ref">it</span></strong> again');
    expect(renderSnippet('<img src=x onerror=alert(1)> [[T]]')).not.toContain('<img');
  });
});

describe('tags', () => {
  it('nest by slash and count each page once per tag', () => {
    const pages = pagesOfRows([
      ['a.md', 'A', null, ['#project/alpha', '#project']],
      ['b.md', 'B', ['Bee'], ['#project/beta']],
      ['c.md', null, null, ['#solo']],
    ]);
    expect(pages[1].aliases).toEqual(['Bee']);
    expect(pages[2].title).toBe('c');
    const tree = tagTree(pages);
    expect(tree.map((n) => [n.full, n.pages.size])).toEqual([['project', 2], ['solo', 1]]);
    expect(tree[0].children.map((n) => [n.full, n.pages.size])).toEqual([['project/alpha', 1], ['project/beta', 1]]);
  });
});

describe('start page', () => {
  it('is the chosen page, else Home.md, index.md or README.md', () => {
    expect(homePage(['a.md', 'Home.md', 'index.md'], '')).toBe('Home.md');
    expect(homePage(['a.md', 'index.md'], '')).toBe('index.md');
    expect(homePage(['notes/start.md', 'index.md'], 'notes/start')).toBe('notes/start.md');
    expect(homePage(['a.md'], 'missing')).toBeNull();
  });
});

describe('files', () => {
  it('open in the viewer their kind needs', () => {
    expect(['n.md', 'p.png', 'd.pdf', 's.mp3', 'v.webm', 'app.js', 'style.css', 'c.canvas', 'x.bin'].map(fileKind))
      .toEqual(['page', 'image', 'pdf', 'audio', 'video', 'text', 'text', 'canvas', 'other']);
  });
});
