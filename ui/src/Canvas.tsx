// Canvases (`GET /canvases`, `GET /canvas?path=`, `PATCH /canvas`): an SVG of the nodes as boxes —
// text (markdown, its links resolved from the canvas in one batch), the title of a file (a
// link to its page), a URL, a group's label — and the edges as lines (arrows where the canvas
// says so, by default at the target, as in JSON Canvas). It fits the width at first; the zoom
// buttons (or Ctrl + wheel, around the pointer) scale it, and dragging the background pans.
// Dragging a node moves it (or, focused, the arrow keys: 10 units, 50 with Shift); the new
// position is saved with `PATCH /canvas` (`update_node`, so others' changes are kept).
import { useRef, useState } from 'preact/hooks';
import { api, type CanvasData, type CanvasEdge, type CanvasNode, type StoredCanvasNode } from './api';
import { collectLinks, pageHref, renderMarkdown, type Resolutions } from './markdown';
import { href } from './router';
import { ErrorNote, useLoad } from './ui';

const PRESETS: Record<string, string> = { '1': '#e5484d', '2': '#f76b15', '3': '#d6a000', '4': '#30a46c', '5': '#0d9bb5', '6': '#8e4ec6' };
export const nodeColor = (c?: string | null) => (c ? PRESETS[c] ?? (/^#[0-9a-f]{3,6}$/i.test(c) ? c : undefined) : undefined);

type Point = { x: number; y: number };
const center = (n: CanvasNode): Point => ({ x: n.x + n.width / 2, y: n.y + n.height / 2 });

/** Where an edge leaves or meets a node: the named side's middle, or the border toward `other`. */
export function anchor(n: CanvasNode, side: string | null | undefined, other: Point): Point {
  switch (side) {
    case 'top': return { x: n.x + n.width / 2, y: n.y };
    case 'bottom': return { x: n.x + n.width / 2, y: n.y + n.height };
    case 'left': return { x: n.x, y: n.y + n.height / 2 };
    case 'right': return { x: n.x + n.width, y: n.y + n.height / 2 };
  }
  const c = center(n);
  const dx = other.x - c.x, dy = other.y - c.y;
  if (!dx && !dy) return c;
  const scale = Math.min(dx ? n.width / 2 / Math.abs(dx) : Infinity, dy ? n.height / 2 / Math.abs(dy) : Infinity);
  return { x: c.x + dx * scale, y: c.y + dy * scale };
}

export function bounds(nodes: CanvasNode[]) {
  if (!nodes.length) return { x: 0, y: 0, width: 100, height: 100 };
  const x = Math.min(...nodes.map((n) => n.x)), y = Math.min(...nodes.map((n) => n.y));
  const r = Math.max(...nodes.map((n) => n.x + n.width)), b = Math.max(...nodes.map((n) => n.y + n.height));
  return { x: x - 40, y: y - 40, width: r - x + 80, height: b - y + 80 };
}

export const MIN_ZOOM = 0.1;
export const MAX_ZOOM = 4;
/** `zoom` multiplied by `factor`, kept within [MIN_ZOOM, MAX_ZOOM]. */
export function zoomed(zoom: number, factor: number): number {
  return Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, zoom * factor));
}

export function CanvasView({ path }: { path: string }) {
  const list = useLoad(() => api.canvases(), []);
  const canvases = list.data?.canvases ?? [];
  return (
    <main id="main" class="canvas-page">
      <h1>Canvases</h1>
      <ErrorNote error={list.error} />
      <div class="split">
        <nav aria-label="Canvases" class="side-list">
          {!list.loading && !canvases.length && <p class="muted">No canvas yet (<code>*.canvas.json</code>).</p>}
          <ul>
            {canvases.map((c) => (
              <li key={c}><a href={href({ view: 'canvas', path: c })} aria-current={c === path ? 'page' : undefined}>{c.replace(/\.canvas\.json$/, '')}</a></li>
            ))}
          </ul>
        </nav>
        {path ? <CanvasDrawing key={path} path={path} /> : <p class="muted">Choose a canvas.</p>}
      </div>
    </main>
  );
}

function Edge({ e, byId }: { e: CanvasEdge; byId: Map<string, CanvasNode> }) {
  const from = byId.get(e.fromNode), to = byId.get(e.toNode);
  if (!from || !to) return null;
  const a = anchor(from, e.fromSide, center(to));
  const b = anchor(to, e.toSide, center(from));
  const color = nodeColor(e.color) ?? 'var(--muted)';
  return (
    <g class="edge" data-testid="canvas-edge">
      <line x1={a.x} y1={a.y} x2={b.x} y2={b.y} stroke={color} stroke-width={2}
        marker-end={(e.toEnd ?? 'arrow') === 'arrow' ? 'url(#arrow)' : undefined}
        marker-start={e.fromEnd === 'arrow' ? 'url(#arrow-start)' : undefined} />
      {e.label && <text x={(a.x + b.x) / 2} y={(a.y + b.y) / 2 - 6} text-anchor="middle" class="edge-label">{e.label}</text>}
    </g>
  );
}

function NodeBox({ n, resolved, onKey }: { n: CanvasNode; resolved: Resolutions; onKey: (e: KeyboardEvent, n: CanvasNode) => void }) {
  const color = nodeColor(n.color);
  const body = (() => {
    switch (n.type) {
      case 'file': {
        const title = (n.file ?? '').split('/').pop()!.replace(/\.md$/, '');
        return /\.md$/i.test(n.file ?? '')
          ? <a href={pageHref(n.file!, n.subpath?.replace(/^#/, '') ?? '')} class="canvas-file">{title}{n.subpath ? ` ${n.subpath}` : ''}</a>
          : <span class="canvas-file">{n.file}</span>;
      }
      case 'link': return /^https?:/i.test(n.url ?? '') ? <a href={n.url!} target="_blank" rel="noopener noreferrer">{n.url}</a> : <span>{n.url}</span>;
      case 'group': return null;
      default: return <div class="canvas-text markdown" dangerouslySetInnerHTML={{ __html: renderMarkdown(n.text ?? '', resolved) }} />;
    }
  })();
  if (n.type === 'group') {
    return (
      <g class="group" data-testid="canvas-node" data-type="group" data-node-id={n.id} tabindex={0}
        aria-label={`Group ${n.label ?? n.id}; arrow keys move it`} onKeyDown={(e) => onKey(e, n)}>
        <rect x={n.x} y={n.y} width={n.width} height={n.height} rx={12} fill="none" stroke={color ?? 'var(--line)'} stroke-width={2} stroke-dasharray="6 4" />
        {n.label && <text x={n.x + 10} y={n.y - 8} class="group-label">{n.label}</text>}
      </g>
    );
  }
  return (
    <g class="node" data-testid="canvas-node" data-type={n.type} data-node-id={n.id} tabindex={0}
      aria-label={`Node ${nodeName(n)}; arrow keys move it`} onKeyDown={(e) => onKey(e, n)}>
      <rect x={n.x} y={n.y} width={n.width} height={n.height} rx={8} fill="var(--bg)" stroke={color ?? 'var(--line)'} stroke-width={2} />
      <foreignObject x={n.x} y={n.y} width={n.width} height={n.height}>
        <div class="canvas-node-body">{body}</div>
      </foreignObject>
    </g>
  );
}

/** A short name of a node for its label: its file's, URL, label or first words. */
export function nodeName(n: CanvasNode): string {
  const text = n.file ?? n.url ?? n.label ?? (n.text ?? '').replace(/[#*_`>[\]]/g, '').trim();
  return text.split(/\s+/).slice(0, 6).join(' ') || n.id;
}

/** Where an arrow key moves a node: 10 canvas units, 50 with Shift; `null` for other keys. */
export function nudge(key: string, shift: boolean): { dx: number; dy: number } | null {
  const step = shift ? 50 : 10;
  switch (key) {
    case 'ArrowLeft': return { dx: -step, dy: 0 };
    case 'ArrowRight': return { dx: step, dy: 0 };
    case 'ArrowUp': return { dx: 0, dy: -step };
    case 'ArrowDown': return { dx: 0, dy: step };
    default: return null;
  }
}

/** The size a node without one is drawn with (the server lays such nodes out with it too). */
export const DEFAULT_SIZE = { width: 250, height: 60 };

/** A stored node as drawn: JSON Canvas's nodes as they are; a node of the spec's shape gets
 * the default size and shows the text, label or title its `data` holds. */
export function drawable(n: StoredCanvasNode): CanvasNode {
  const data = n.data && typeof n.data === 'object' && !Array.isArray(n.data) ? (n.data as Record<string, unknown>) : {};
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    ...n,
    width: n.width ?? DEFAULT_SIZE.width,
    height: n.height ?? DEFAULT_SIZE.height,
    text: n.text ?? str(data.text) ?? str(data.content) ?? str(data.title) ?? str(data.label) ?? (n.data === undefined ? undefined : n.type),
    label: n.label ?? str(data.label),
  };
}

/** The canvas and the resolutions of the links in its text nodes. */
async function loadCanvas(path: string): Promise<CanvasData & { resolved: Resolutions }> {
  const stored = await api.canvas(path);
  const canvas: CanvasData = { ...stored, nodes: stored.nodes.map(drawable) };
  const links = [...new Set(canvas.nodes.flatMap((n) => (n.type === 'text' && n.text ? collectLinks(n.text).links : [])))];
  const resolved = links.length ? (await api.resolve(path, links)).resolved : {};
  return { ...canvas, resolved };
}

function CanvasDrawing({ path }: { path: string }) {
  const canvas = useLoad(() => loadCanvas(path), [path]);
  // `null`: fit to the width of the view; else pixels per canvas unit.
  const [zoom, setZoom] = useState<number | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const svg = useRef<SVGSVGElement>(null);
  const drag = useRef<{ x: number; y: number; left: number; top: number; id: number } | null>(null);
  const [panning, setPanning] = useState(false);
  // Nodes moved here and not reloaded yet, by id; a node being dragged.
  const [moved, setMoved] = useState<Record<string, { x: number; y: number }>>({});
  const dragged = useRef<{ node: CanvasNode; x: number; y: number; id: number; moved: boolean } | null>(null);
  const saving = useRef<Record<string, ReturnType<typeof setTimeout>>>({});
  const [saveError, setSaveError] = useState<unknown>(null);
  const [status, setStatus] = useState('');
  if (canvas.error) return <ErrorNote error={canvas.error} />;
  const c = canvas.data;
  if (!c) return <p class="muted">Loading…</p>;
  const placed = c.nodes.map((n) => (moved[n.id] ? { ...n, ...moved[n.id] } : n));
  const byId = new Map(placed.map((n) => [n.id, n]));
  const box = bounds(c.nodes);
  // Groups first, so boxes and lines are drawn over them.
  const nodes = [...placed.filter((n) => n.type === 'group'), ...placed.filter((n) => n.type !== 'group')];
  const shown = () => zoom ?? (svg.current ? svg.current.getBoundingClientRect().width / box.width : 1);
  /** Zooms by `factor`, keeping the canvas point under (`px`, `py`) of the view where it is. */
  const zoomBy = (factor: number, px?: number, py?: number) => {
    const view = scroller.current;
    const from = shown();
    const to = zoomed(from, factor);
    setZoom(to);
    if (!view) return;
    const x = px ?? view.clientWidth / 2, y = py ?? view.clientHeight / 2;
    const ratio = to / from;
    const left = (view.scrollLeft + x) * ratio - x, top = (view.scrollTop + y) * ratio - y;
    requestAnimationFrame(() => { view.scrollLeft = left; view.scrollTop = top; });
  };
  /** Saves where node `id` is now (after `delay` ms, so that a run of key presses is one save). */
  const save = (node: CanvasNode, at: { x: number; y: number }, delay = 0) => {
    clearTimeout(saving.current[node.id]);
    saving.current[node.id] = setTimeout(async () => {
      delete saving.current[node.id];
      setSaveError(null);
      try {
        await api.patchCanvas(path, [{ op: 'update_node', id: node.id, node: { x: at.x, y: at.y } }]);
        setStatus(`Moved ${nodeName(node)} to ${at.x}, ${at.y}.`);
      } catch (e) {
        setSaveError(e);
        setMoved((m) => { const rest = { ...m }; delete rest[node.id]; return rest; });
      }
    }, delay);
  };
  const onKey = (e: KeyboardEvent, n: CanvasNode) => {
    const d = nudge(e.key, e.shiftKey);
    if (!d) return;
    e.preventDefault();
    const at = { x: n.x + d.dx, y: n.y + d.dy };
    setMoved((m) => ({ ...m, [n.id]: at }));
    save(n, at, 400);
  };
  const size = zoom === null
    ? { width: Math.min(box.width, 4000), style: { maxWidth: '100%', height: 'auto' } }
    : { width: box.width * zoom, height: box.height * zoom, style: {} };
  return (
    <section class="canvas-view" aria-labelledby="canvas-title">
      <h2 id="canvas-title">{path}</h2>
      <div class="canvas-bar">
        <p class="muted small" role="status">{c.nodes.length} nodes, {c.edges.length} edges{status ? `. ${status}` : ''}</p>
        <div role="toolbar" aria-label="Zoom" class="canvas-tools">
          <button type="button" aria-label="Zoom out" onClick={() => zoomBy(1 / 1.25)}>−</button>
          <output aria-label="Zoom level" data-testid="zoom-level">{zoom === null ? 'Fit' : `${Math.round(zoom * 100)} %`}</output>
          <button type="button" aria-label="Zoom in" onClick={() => zoomBy(1.25)}>+</button>
          <button type="button" onClick={() => setZoom(null)} disabled={zoom === null}>Fit</button>
        </div>
      </div>
      <ErrorNote error={saveError} />
      <div
        class={`canvas-scroll${panning ? ' panning' : ''}`}
        ref={scroller}
        data-testid="canvas-scroll"
        onWheel={(e) => {
          if (!e.ctrlKey && !e.metaKey) return;
          e.preventDefault();
          const r = scroller.current!.getBoundingClientRect();
          zoomBy(e.deltaY < 0 ? 1.1 : 1 / 1.1, e.clientX - r.left, e.clientY - r.top);
        }}
        onPointerDown={(e) => {
          if (e.button !== 0 || (e.target as Element).closest('a, button')) return;
          const nodeId = (e.target as Element).closest('[data-node-id]')?.getAttribute('data-node-id');
          const node = nodeId ? byId.get(nodeId) : undefined;
          if (node) {
            dragged.current = { node, x: e.clientX, y: e.clientY, id: e.pointerId, moved: false };
            scroller.current!.setPointerCapture?.(e.pointerId);
            return;
          }
          const view = scroller.current!;
          drag.current = { x: e.clientX, y: e.clientY, left: view.scrollLeft, top: view.scrollTop, id: e.pointerId };
          view.setPointerCapture?.(e.pointerId);
          setPanning(true);
        }}
        onPointerMove={(e) => {
          const n = dragged.current;
          if (n && n.id === e.pointerId) {
            const scale = shown();
            const dx = (e.clientX - n.x) / scale, dy = (e.clientY - n.y) / scale;
            if (!n.moved && Math.hypot(e.clientX - n.x, e.clientY - n.y) < 4) return;
            n.moved = true;
            setMoved((m) => ({ ...m, [n.node.id]: { x: Math.round(n.node.x + dx), y: Math.round(n.node.y + dy) } }));
            return;
          }
          const d = drag.current;
          if (!d || d.id !== e.pointerId) return;
          const view = scroller.current!;
          view.scrollLeft = d.left - (e.clientX - d.x);
          view.scrollTop = d.top - (e.clientY - d.y);
        }}
        onPointerUp={(e) => {
          const n = dragged.current;
          dragged.current = null;
          if (n && n.moved) {
            const scale = shown();
            save(n.node, { x: Math.round(n.node.x + (e.clientX - n.x) / scale), y: Math.round(n.node.y + (e.clientY - n.y) / scale) });
          }
          drag.current = null; setPanning(false);
        }}
        onPointerCancel={() => {
          const n = dragged.current;
          dragged.current = null;
          if (n) setMoved((m) => { const rest = { ...m }; delete rest[n.node.id]; return rest; });
          drag.current = null; setPanning(false);
        }}
      >
        <svg ref={svg} role="group" aria-label={`Canvas ${path}`} viewBox={`${box.x} ${box.y} ${box.width} ${box.height}`}
          width={size.width} height={size.height} style={size.style}>
          <defs>
            <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse">
              <path d="M0,0 L10,5 L0,10 z" fill="var(--muted)" />
            </marker>
            <marker id="arrow-start" viewBox="0 0 10 10" refX="1" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse">
              <path d="M0,0 L10,5 L0,10 z" fill="var(--muted)" />
            </marker>
          </defs>
          {nodes.filter((n) => n.type === 'group').map((n) => <NodeBox key={n.id} n={n} resolved={c.resolved} onKey={onKey} />)}
          {c.edges.map((e) => <Edge key={e.id} e={e} byId={byId} />)}
          {nodes.filter((n) => n.type !== 'group').map((n) => <NodeBox key={n.id} n={n} resolved={c.resolved} onKey={onKey} />)}
        </svg>
      </div>
    </section>
  );
}
