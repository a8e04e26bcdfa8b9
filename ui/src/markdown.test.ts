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
    expect(html).toContain('<pre data-line="12" class="code">');
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

describe('Obsidian-flavoured markdown', () => {
  it('renders callouts with their type and title, foldable ones as details, nested ones inside', () => {
    const html = renderMarkdown('> [!warning] Mind the **gap**\n> Body text.\n\n> [!tip]- Folded\n> Hidden at first.\n> > [!note]\n> > Inner.\n', {});
    expect(html).toContain('<div class="callout" data-callout="warning">\n<div class="callout-title">Mind the <strong>gap</strong></div>');
    expect(html).toContain('<p>Body text.</p>');
    expect(html).toContain('<details class="callout" data-callout="tip">\n<summary class="callout-title">Folded</summary>');
    expect(html).toContain('<div class="callout" data-callout="note">\n<div class="callout-title">Note</div>');
    expect(html).not.toContain('[!');
    expect(renderMarkdown('> [!faq]+ Open\n> Yes.', {})).toContain('<details class="callout" data-callout="faq" open>');
  });
  it('marks highlights, hides comments, keeps both in code', () => {
    const html = renderMarkdown('A ==bright== word %%secret%% here.\n\n%%\nhidden block\n%%\n\n`==code== %%kept%%`', {});
    expect(html).toContain('<mark>bright</mark>');
    expect(html).not.toContain('secret');
    expect(html).not.toContain('hidden block');
    expect(html).toContain('<code>==code== %%kept%%</code>');
  });
  it('numbers footnotes by reference and lists them at the end with a way back', () => {
    const html = renderMarkdown('Claim[^src] and more[^2].\n\n[^2]: Second note.\n[^src]: The source.\n', {});
    expect(html).toContain('<sup class="footnote-ref"><a href="#fn-src" id="fnref-src">1</a></sup>');
    expect(html).toContain('<sup class="footnote-ref"><a href="#fn-2" id="fnref-2">2</a></sup>');
    expect(html).toMatch(/<section class="footnotes" aria-label="Footnotes">\n<ol>\n<li id="fn-src">\n<p>The source.<\/p> <a class="footnote-back" href="#fnref-src"/);
    expect(html.indexOf('fn-src">')).toBeLessThan(html.indexOf('id="fn-2"'));
  });
  it('leaves math as TeX for KaTeX, inline and display, but not prices', () => {
    const html = renderMarkdown('Euler: $e^{i\\pi}+1=0$, costs $5 and $6.\n\n$$\n\\int_0^1 x\\,dx\n$$\n', {});
    expect(html).toContain('<span class="math math-inline">e^{i\\pi}+1=0</span>');
    expect(html).toContain('costs $5 and $6');
    expect(html).toContain('<span class="math math-display">\n\\int_0^1 x\\,dx\n</span>');
  });
  it('shows task states as boxes naming the state', () => {
    const html = renderMarkdown('- [ ] open\n- [x] done\n- [/] half\n- [-] dropped\n- [>] later\n', {});
    expect(html).toContain('<li class="task" data-task=" "><input type="checkbox" disabled aria-label="to do"> open</li>');
    expect(html).toContain('<li class="task" data-task="x"><input type="checkbox" disabled checked aria-label="done"> done</li>');
    expect(html).toContain('<li class="task" data-task="/"><span class="task-box" role="img" aria-label="in progress">/</span> half</li>');
    expect(html).toContain('data-task="-"');
    expect(html).toContain('<li class="task" data-task="&gt;"><span class="task-box" role="img" aria-label="forwarded">&gt;</span> later</li>');
  });
  it('moves block ids onto their block', () => {
    const html = renderMarkdown('A claim. ^claim-1\n\n- item ^it\n\n| a |\n| - |\n| 1 |\n\n^tbl\n', {});
    expect(html).toContain('<p id="^claim-1">A claim.</p>');
    expect(html).toContain('<li id="^it">item</li>');
    expect(html).toContain('<div class="block-anchor" id="^tbl"></div>');
    expect(html).not.toContain('^claim-1<');
  });
  it('draws mermaid later and keeps its source escaped', () => {
    expect(renderMarkdown('```mermaid\ngraph TD; A-->B\n```', {})).toContain('<pre class="mermaid">graph TD; A--&gt;B\n</pre>');
  });
  it('embeds sized images, PDFs, audio and video; block embeds are transclusions', () => {
    const res = (path: string) => ({ path, title: path });
    const html = renderMarkdown('![[p.png|300]] ![[p.png|40x30]] ![[d.pdf]] ![[s.mp3]] ![[v.mp4]] ![[n#^blk]]', {
      '![[p.png|300]]': res('a/p.png'), '![[p.png|40x30]]': res('a/p.png'), '![[d.pdf]]': res('d.pdf'),
      '![[s.mp3]]': res('s.mp3'), '![[v.mp4]]': res('v.mp4'), '![[n#^blk]]': res('n.md'),
    });
    expect(html).toContain('<img data-asset="a/p.png" alt="" width="300">');
    expect(html).toContain('<img data-asset="a/p.png" alt="" width="40" height="30">');
    expect(html).toContain('<iframe class="embed-pdf" data-asset="d.pdf" title="d.pdf"></iframe>');
    expect(html).toContain('<audio class="embed-audio" controls data-asset="s.mp3"');
    expect(html).toContain('<video class="embed-video" controls data-asset="v.mp4"');
    expect(html).toContain('data-embed="n.md" data-fragment="^blk"');
  });
});
