import { describe, expect, it } from 'vitest';
import { targets } from './Board';
import { anchor, bounds, DEFAULT_SIZE, drawable, MAX_ZOOM, MIN_ZOOM, nodeColor, nodeName, nudge, zoomed } from './Canvas';
import { articleBlocks, blockOf } from './Comments';
import { renderMarkdown, splitFrontmatter } from './markdown';
import { cellText } from './Views';

describe('comment anchors', () => {
  const text = '---\ntitle: T\n---\n# Head\n\nOne\ntwo.\n\n- a\n- b\n';
  const article = document.createElement('article');
  const { body, bodyLine } = splitFrontmatter(text);
  article.innerHTML = renderMarkdown(body, {}, ['head'], bodyLine);
  it('offers each block with its line', () => {
    expect(articleBlocks(article).map((b) => b.line)).toEqual([4, 6, 9]);
    expect(articleBlocks(article)[1].label).toBe('Line 6: One two.');
  });
  it('finds the block holding a line', () => {
    expect(blockOf(article, 7)?.tagName).toBe('P');
    expect(blockOf(article, 10)?.tagName).toBe('UL');
    expect(blockOf(article, 2)).toBeNull();
  });
});

describe('workflow board', () => {
  const def = { name: 'w', states: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], transitions: [{ from: 'a', to: 'b' }] };
  it('offers the transitions out of a state, or every other state without any', () => {
    expect(targets(def, ['a', 'b', 'c'], 'a')).toEqual(['b']);
    expect(targets(def, ['a', 'b', 'c'], 'c')).toEqual([]);
    expect(targets({ ...def, transitions: [] }, ['a', 'b', 'c'], 'b')).toEqual(['a', 'c']);
  });
});

describe('canvas geometry', () => {
  const n = { id: 'n', type: 'text', x: 0, y: 0, width: 100, height: 50 };
  it('anchors edges on named sides or toward the other end', () => {
    expect(anchor(n, 'top', { x: 0, y: 0 })).toEqual({ x: 50, y: 0 });
    expect(anchor(n, null, { x: 500, y: 25 })).toEqual({ x: 100, y: 25 });
    expect(anchor(n, undefined, { x: 50, y: -500 })).toEqual({ x: 50, y: 0 });
  });
  it('frames every node with a margin', () => {
    expect(bounds([n, { ...n, x: 200, y: 100 }])).toEqual({ x: -40, y: -40, width: 380, height: 230 });
  });
  it('maps preset colours and refuses anything but hex', () => {
    expect(nodeColor('1')).toBe('#e5484d');
    expect(nodeColor('#abcdef')).toBe('#abcdef');
    expect(nodeColor('red;x')).toBeUndefined();
  });
});

describe('canvas node moves', () => {
  it('moves by 10 units per arrow key, 50 with Shift, and ignores other keys', () => {
    expect(nudge('ArrowRight', false)).toEqual({ dx: 10, dy: 0 });
    expect(nudge('ArrowUp', true)).toEqual({ dx: 0, dy: -50 });
    expect(nudge('Enter', false)).toBeNull();
  });

  it('names a node by its file, URL, label or first words', () => {
    const node = { id: 'n', type: 'text', x: 0, y: 0, width: 1, height: 1 };
    expect(nodeName({ ...node, text: 'A **bold** [[link]] idea with more words than six' })).toBe('A bold link idea with more');
    expect(nodeName({ ...node, type: 'file', file: 'notes/a.md' })).toBe('notes/a.md');
    expect(nodeName({ ...node, text: '' })).toBe('n');
  });
});

describe('canvas nodes in the spec\'s shape', () => {
  it('draws a node without a size at the default size, showing what its data holds', () => {
    const n = drawable({ id: 'n1', type: 'note', x: 10.5, y: 20, data: { title: 'Plan', tags: ['q3'] } });
    expect(n.width).toBe(DEFAULT_SIZE.width);
    expect(n.height).toBe(DEFAULT_SIZE.height);
    expect(n.text).toBe('Plan');
    expect(nodeName(n)).toBe('Plan');
    expect(drawable({ id: 't', type: 'text', x: 0, y: 0, data: { text: 'Ship it' } }).text).toBe('Ship it');
  });
  it('leaves a JSON Canvas node as it is', () => {
    const stored = { id: 'a', type: 'text', x: 0, y: 0, width: 300, height: 90, text: 'Hi' };
    expect(drawable(stored)).toEqual(stored);
  });
});

describe('canvas zoom', () => {
  it('scales by the factor and stays within its limits', () => {
    expect(zoomed(1, 1.25)).toBe(1.25);
    expect(zoomed(MAX_ZOOM, 1.25)).toBe(MAX_ZOOM);
    expect(zoomed(MIN_ZOOM, 0.8)).toBe(MIN_ZOOM);
    expect(zoomed(0.05, 1)).toBe(MIN_ZOOM);
  });
});

describe('view cells', () => {
  it('shows lists, objects and nothing', () => {
    expect(cellText(['a', 1])).toBe('a, 1');
    expect(cellText(null)).toBe('');
    expect(cellText({ a: 1 })).toBe('{"a":1}');
  });
});

describe('page title before /peek answers', () => {
  it('takes the frontmatter title, else the first h1, else the file name', async () => {
    const { quickTitle, pageTags } = await import('./Page');
    const h = [{ level: 2, text: 'Sub', slug: 'sub' }, { level: 1, text: 'Main', slug: 'main' }];
    expect(quickTitle('title: "Quoted"\nx: 1', h, 'a/b.md')).toBe('Quoted');
    expect(quickTitle('x: 1', h, 'a/b.md')).toBe('Main');
    expect(quickTitle(null, [], 'a/b c.md')).toBe('b c');
    expect(pageTags(null, ['x'])).toEqual(['x']);
  });
});
