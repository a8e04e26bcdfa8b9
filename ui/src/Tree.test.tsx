import { cleanup, fireEvent, render } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TreeNode } from './api';
import { Tree } from './Tree';
import { flatten, moveManifest, windowOf } from './tree';

function bigTree(folders: number, pages: number): TreeNode[] {
  return Array.from({ length: folders }, (_, f) => ({
    path: `f${f}`, name: `f${f}`, isDir: true, size: 0,
    children: Array.from({ length: pages }, (_, p) => ({ path: `f${f}/p${p}.md`, name: `p${p}.md`, isDir: false, size: 10 })),
  }));
}

describe('tree rows', () => {
  it('lists folders first, hides dot entries, expands only open folders', () => {
    const nodes: TreeNode[] = [
      { path: 'b.md', name: 'b.md', isDir: false, size: 1 },
      { path: '.quire', name: '.quire', isDir: true, size: 0, children: [] },
      { path: 'a', name: 'a', isDir: true, size: 0, children: [{ path: 'a/x.md', name: 'x.md', isDir: false, size: 1 }] },
    ];
    expect(flatten(nodes, new Set()).map((r) => r.node.path)).toEqual(['a', 'b.md']);
    expect(flatten(nodes, new Set(['a'])).map((r) => [r.node.path, r.depth])).toEqual([['a', 0], ['a/x.md', 1], ['b.md', 0]]);
  });
  it('windows a long list', () => {
    expect(windowOf(10000, 28, 2800, 560, 8)).toEqual({ first: 92, last: 128 });
    expect(windowOf(5, 28, 0, 560)).toEqual({ first: 0, last: 5 });
  });
  it('builds move manifests into a folder or the root', () => {
    expect(moveManifest('a/x.md', 'b', false)).toEqual({ moves: [{ from: 'a/x.md', to: 'b/x.md' }] });
    expect(moveManifest('a/x.md', '', false)).toEqual({ moves: [{ from: 'a/x.md', to: 'x.md' }] });
    expect(moveManifest('a', 'b', true)).toEqual({ moves: [{ from: 'a/', to: 'b/a/' }] });
  });
});

afterEach(cleanup);

describe('<Tree>', () => {
  it('renders only the rows in view of 10,000 pages', () => {
    const nodes = bigTree(1, 10000);
    const { container } = render(<Tree nodes={nodes} current="f0/p5000.md" onMove={() => {}} />);
    const rows = container.querySelectorAll('[role=treeitem]');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(100);
    expect(container.querySelector('[role=treeitem][aria-setsize]')?.getAttribute('aria-setsize')).toBe('10001');
  });
  it('expands a folder with the keyboard', () => {
    const { container, getByText } = render(<Tree nodes={bigTree(2, 3)} current={null} onMove={() => {}} />);
    const tree = container.querySelector('[role=tree]')!;
    expect(container.querySelectorAll('[role=treeitem]').length).toBe(2);
    getByText('f0').closest('[role=treeitem]')!.dispatchEvent(new FocusEvent('focus'));
    fireEvent.keyDown(tree, { key: 'ArrowRight' });
    expect(container.querySelectorAll('[role=treeitem]').length).toBe(5);
    fireEvent.keyDown(tree, { key: 'ArrowLeft' });
    expect(container.querySelectorAll('[role=treeitem]').length).toBe(2);
  });
  it('asks to move a page dropped on a folder', () => {
    const onMove = vi.fn();
    const { getByText } = render(<Tree nodes={bigTree(2, 1)} current="f0/p0.md" onMove={onMove} />);
    const data = new Map<string, string>();
    const dataTransfer = { setData: (k: string, v: string) => data.set(k, v), getData: (k: string) => data.get(k) ?? '', effectAllowed: '' };
    fireEvent.dragStart(getByText('p0').closest('[role=treeitem]')!, { dataTransfer });
    fireEvent.drop(getByText('f1').closest('[role=treeitem]')!, { dataTransfer });
    expect(onMove).toHaveBeenCalledWith('f0/p0.md', 'f1', false);
  });
});
