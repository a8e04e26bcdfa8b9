// The sidebar: a virtualised tree (only the rows in view are in the DOM, so 10,000 pages
// scroll smoothly), keyboard navigation as the WAI-ARIA tree pattern, and drag-and-drop
// moves that go through the planner (see MoveDialog).
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { TreeNode } from './api';
import { pageHref } from './markdown';
import { navigate } from './router';
import { ancestors, flatten, windowOf, type Row } from './tree';

export const ROW_HEIGHT = 28;

interface Props {
  nodes: TreeNode[];
  current: string | null;
  onMove: (from: string, toDir: string, isDir: boolean) => void;
}

export function Tree({ nodes, current, onMove }: Props) {
  const [open, setOpen] = useState<Set<string>>(() => new Set());
  const [focused, setFocused] = useState(0);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const [dropTarget, setDropTarget] = useState<string | null>(null);
  const box = useRef<HTMLDivElement>(null);

  // Reveal the page being read.
  useEffect(() => {
    if (!current) return;
    setOpen((o) => {
      const up = ancestors(current).filter((a) => !o.has(a));
      return up.length ? new Set([...o, ...up]) : o;
    });
  }, [current]);

  const rows = useMemo(() => flatten(nodes, open), [nodes, open]);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setHeight(el.clientHeight || 600);
    measure();
    const ro = typeof ResizeObserver !== 'undefined' ? new ResizeObserver(measure) : null;
    ro?.observe(el);
    return () => ro?.disconnect();
  }, []);

  useEffect(() => {
    if (!current) return;
    const i = rows.findIndex((r) => r.node.path === current);
    if (i >= 0) {
      setFocused(i);
      const el = box.current;
      if (el && (i * ROW_HEIGHT < el.scrollTop || (i + 1) * ROW_HEIGHT > el.scrollTop + el.clientHeight)) {
        el.scrollTop = Math.max(0, i * ROW_HEIGHT - el.clientHeight / 2);
      }
    }
  }, [current, rows]);

  const toggle = (path: string) => setOpen((o) => {
    const n = new Set(o);
    if (n.has(path)) n.delete(path); else n.add(path);
    return n;
  });

  const activate = (row: Row) => {
    if (row.node.isDir) toggle(row.node.path);
    else navigate(pageHref(row.node.path));
  };

  const focusRow = (i: number) => {
    const clamped = Math.max(0, Math.min(rows.length - 1, i));
    setFocused(clamped);
    const el = box.current;
    if (!el) return;
    const top = clamped * ROW_HEIGHT;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_HEIGHT - el.clientHeight;
    requestAnimationFrame(() => el.querySelector<HTMLElement>(`[data-index="${clamped}"]`)?.focus());
  };

  const onKey = (e: KeyboardEvent) => {
    const row = rows[focused];
    if (!row) return;
    const page = Math.max(1, Math.floor(height / ROW_HEIGHT) - 1);
    switch (e.key) {
      case 'ArrowDown': focusRow(focused + 1); break;
      case 'ArrowUp': focusRow(focused - 1); break;
      case 'PageDown': focusRow(focused + page); break;
      case 'PageUp': focusRow(focused - page); break;
      case 'Home': focusRow(0); break;
      case 'End': focusRow(rows.length - 1); break;
      case 'ArrowRight':
        if (row.node.isDir && !row.expanded) toggle(row.node.path);
        else if (row.expanded) focusRow(focused + 1);
        break;
      case 'ArrowLeft':
        if (row.expanded) toggle(row.node.path);
        else {
          const parent = row.node.path.split('/').slice(0, -1).join('/');
          const p = rows.findIndex((r) => r.node.path === parent);
          if (p >= 0) focusRow(p);
        }
        break;
      case 'Enter': case ' ': activate(row); break;
      default: return;
    }
    e.preventDefault();
  };

  const { first, last } = windowOf(rows.length, ROW_HEIGHT, scrollTop, height);
  const dirOf = (row: Row) => (row.node.isDir ? row.node.path : row.node.path.split('/').slice(0, -1).join('/'));

  return (
    <div
      ref={box}
      class="tree"
      role="tree"
      aria-label="Pages"
      tabIndex={-1}
      onScroll={(e) => setScrollTop((e.currentTarget as HTMLElement).scrollTop)}
      onKeyDown={onKey}
      onDragOver={(e) => { if (e.target === e.currentTarget) { e.preventDefault(); setDropTarget(''); } }}
      onDrop={(e) => {
        if (e.target !== e.currentTarget) return;
        e.preventDefault();
        const data = e.dataTransfer?.getData('application/x-quire-path');
        setDropTarget(null);
        if (data) { const { path, isDir } = JSON.parse(data); onMove(path, '', isDir); }
      }}
    >
      <div style={{ height: `${rows.length * ROW_HEIGHT}px`, position: 'relative' }}>
        {rows.slice(first, last).map((row, k) => {
          const i = first + k;
          const { node } = row;
          const target = dirOf(row);
          return (
            <div
              key={node.path}
              data-index={i}
              data-path={node.path}
              role="treeitem"
              aria-level={row.depth + 1}
              aria-expanded={node.isDir ? row.expanded : undefined}
              aria-selected={node.path === current}
              aria-setsize={rows.length}
              aria-posinset={i + 1}
              tabIndex={i === focused ? 0 : -1}
              class={`row${node.isDir ? ' dir' : ''}${node.path === current ? ' current' : ''}${dropTarget !== null && dropTarget === target && node.isDir ? ' drop' : ''}`}
              style={{ transform: `translateY(${i * ROW_HEIGHT}px)`, paddingLeft: `${0.5 + row.depth * 0.9}rem` }}
              draggable
              onClick={() => { setFocused(i); activate(row); }}
              onFocus={() => setFocused(i)}
              onDragStart={(e) => {
                e.dataTransfer?.setData('application/x-quire-path', JSON.stringify({ path: node.path, isDir: node.isDir }));
                if (e.dataTransfer) e.dataTransfer.effectAllowed = 'move';
              }}
              onDragOver={(e) => { e.preventDefault(); if (dropTarget !== target) setDropTarget(target); }}
              onDragLeave={() => setDropTarget(null)}
              onDrop={(e) => {
                e.preventDefault();
                e.stopPropagation();
                setDropTarget(null);
                const data = e.dataTransfer?.getData('application/x-quire-path');
                if (!data) return;
                const { path, isDir } = JSON.parse(data) as { path: string; isDir: boolean };
                if (path === target || target.startsWith(`${path}/`)) return;
                onMove(path, target, isDir);
              }}
            >
              <span aria-hidden="true" class="twisty">{node.isDir ? (row.expanded ? '▾' : '▸') : ''}</span>
              <span class="name">{node.isDir ? node.name : node.name.replace(/\.md$/, '')}</span>
            </div>
          );
        })}
      </div>
    </div>
  );
}
