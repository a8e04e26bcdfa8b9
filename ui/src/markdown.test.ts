import { describe, expect, it } from 'vitest';
import { collectLinks, markdownKey, renderMarkdown, snippetHtml, splitFrontmatter, parseWiki } from './markdown';

describe('collectLinks', () => {
  it('finds wiki and markdown links outside code, once each', () => {
    const body = 'See [[Note]], [[Note]], [[dir/x#Head|alias]] and [t](../a.md#s).\n\n`[[code]]`\n\n```\n[[fenced]]\n```\n\n[web](https://x.org) [[#local]]';
    const { links } = collectLinks(body);
    expect(links).toEqual(['[[Note]]', '[[dir/x#Head|alias]]', markdownKey('../a.md')]);
  });
  it('finds inline tags but not numbers or headings', () => {
    expect(collectLinks('# Title\n\nA #tag and #nested/tag, issue #12.').tags).toEqual(['tag', 'nested/tag']);
  });
});

describe('renderMarkdown', () => {
  it('links resolved wiki links to their page and marks unresolved ones', () => {
    const html = renderMarkdown('[[Note#Part|the note]] and [[Missing]]', {
      '[[Note#Part|the note]]': { path: 'dir/Note.md', title: 'Note' },
    });
    expect(html).toContain('<a class="wiki" href="/page/dir/Note.md#Part" title="dir/Note.md">the note</a>');
    expect(html).toContain('class="wiki unresolved"');
  });
  it('renders markdown links by the server answer and keeps external ones', () => {
    const html = renderMarkdown('[a](../x%20y.md) [b](https://e.org) [c](javascript:alert(1))', {
      [markdownKey('../x%20y.md')]: { path: 'x y.md', title: 'X' },
    });
    expect(html).toContain('href="/page/x%20y.md"');
    expect(html).toContain('href="https://e.org"');
    expect(html).not.toContain('javascript');
  });
  it('never passes raw HTML through', () => {
    const html = renderMarkdown('<script>alert(1)</script>\n\nText <img src=x onerror=alert(1)>', {});
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
  });
  it('gives headings the server slugs in order', () => {
    const html = renderMarkdown('# One\n\n## Two', {}, ['one', 'two-x']);
    expect(html).toContain('<h1 id="one">One</h1>');
    expect(html).toContain('<h2 id="two-x">Two</h2>');
  });
});

describe('snippets and frontmatter', () => {
  it('keeps only <mark> from a search snippet', () => {
    expect(snippetHtml('a <mark>b</mark> <img src=x onerror=1>')).toBe('a <mark>b</mark> &lt;img src=x onerror=1&gt;');
  });
  it('splits frontmatter', () => {
    expect(splitFrontmatter('---\ntitle: A\n---\n# A\n')).toEqual({ yaml: 'title: A', body: '# A\n', bodyLine: 4 });
    expect(splitFrontmatter('# A\n').yaml).toBeNull();
  });
  it('parses wiki link parts', () => {
    expect(parseWiki('![[img.png|alt]]')).toMatchObject({ embed: true, target: 'img.png', alias: 'alt', fragment: '' });
  });
});

describe('block lines', () => {
  it('marks each top-level block with its first line in the file', () => {
    const text = '---\ntitle: T\n---\n# Head\n\nPara one\ncontinued.\n\n- a\n- b\n\n```\ncode\n```\n';
    const { body, bodyLine } = splitFrontmatter(text);
    expect(bodyLine).toBe(4);
    const html = renderMarkdown(body, {}, ['head'], bodyLine);
    expect(html).toContain('<h1 data-line="4" id="head">');
    expect(html).toContain('<p data-line="6">');
    expect(html).toContain('<ul data-line="9">');
    expect(html).toContain('<pre data-line="12">');
  });
});

describe('asset links', () => {
  it('points from the page to the asset, relative', async () => {
    const { relativePath, assetMarkdown } = await import('./markdown');
    expect(relativePath('notes/a.md', 'assets/x y.png')).toBe('../assets/x%20y.png');
    expect(relativePath('a.md', 'assets/x.png')).toBe('assets/x.png');
    expect(relativePath('assets/sub/p.md', 'assets/x.png')).toBe('../x.png');
    expect(assetMarkdown('notes/a.md', 'assets/shot.png', 'shot.png')).toBe('![shot.png](../assets/shot.png)');
    expect(assetMarkdown('a.md', 'assets/doc.pdf', 'doc [1].pdf')).toBe('[doc 1.pdf](assets/doc.pdf)');
  });
});
