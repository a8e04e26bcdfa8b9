// The folder tree as rows: only what is expanded, in display order (folders first).
import type { TreeNode } from './api';

export interface Row { node: TreeNode; depth: number; expanded: boolean }

export function sortNodes(nodes: TreeNode[]): TreeNode[] {
  return [...nodes].sort((a, b) => (a.isDir === b.isDir ? a.name.localeCompare(b.name) : a.isDir ? -1 : 1));
}

/** Hidden entries (`.quire/`, dot files) are not shown. */
export function visible(node: TreeNode): boolean {
  return !node.name.startsWith('.');
}

export function flatten(nodes: TreeNode[], open: Set<string>, depth = 0, out: Row[] = []): Row[] {
  for (const node of sortNodes(nodes.filter(visible))) {
    const expanded = node.isDir && open.has(node.path);
    out.push({ node, depth, expanded });
    if (expanded && node.children) flatten(node.children, open, depth + 1, out);
  }
  return out;
}

/** Folders containing `path`, so it can be revealed. */
export function ancestors(path: string): string[] {
  const parts = path.split('/');
  const out: string[] = [];
  for (let i = 1; i < parts.length; i++) out.push(parts.slice(0, i).join('/'));
  return out;
}

/** The visible window of a virtual list. */
export function windowOf(count: number, rowHeight: number, scrollTop: number, height: number, overscan = 8) {
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((scrollTop + height) / rowHeight) + overscan);
  return { first, last };
}

/** Every page path of the tree (for `[[` completion and quick checks). */
export function pagePaths(nodes: TreeNode[], out: string[] = []): string[] {
  for (const n of nodes) {
    if (n.isDir) { if (n.children && visible(n)) pagePaths(n.children, out); }
    else if (n.path.endsWith('.md')) out.push(n.path);
  }
  return out;
}

/** A manifest destination that moves `from` into folder `dir` ('' is the root). */
export function moveManifest(from: string, dir: string, isDir: boolean) {
  const name = from.split('/').pop()!;
  const to = dir ? `${dir}/${name}` : name;
  return { moves: [{ from: isDir ? `${from}/` : from, to: isDir ? `${to}/` : to }] };
}

/** Every file of the tree (pages and other files), hidden ones left out. */
export function filePaths(nodes: TreeNode[], out: string[] = []): string[] {
  for (const n of nodes) {
    if (!visible(n)) continue;
    if (n.isDir) { if (n.children) filePaths(n.children, out); } else out.push(n.path);
  }
  return out;
}
