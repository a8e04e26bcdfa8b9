// Canvases, read-only (`GET /canvases`, `GET /canvas?path=`): an SVG of the nodes as boxes —
// text (markdown, its links resolved from the canvas in one batch), the title of a file (a
// link to its page), a URL, a group's label — and the edges as lines (arrows where the canvas
// says so, by default at the target, as in JSON Canvas). It fits the width at first; the zoom
// buttons (or Ctrl + wheel, around the pointer) scale it, and dragging the background pans.
import { useRef, useState } from 'preact/hooks';
import { api, type CanvasData, type CanvasEdge, type CanvasNode } from './api';
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

function NodeBox({ n, resolved }: { n: CanvasNode; resolved: Resolutions }) {
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
      <g class="group" data-testid="canvas-node" data-type="group">
        <rect x={n.x} y={n.y} width={n.width} height={n.height} rx={12} fill="none" stroke={color ?? 'var(--line)'} stroke-width={2} stroke-dasharray="6 4" />
        {n.label && <text x={n.x + 10} y={n.y - 8} class="group-label">{n.label}</text>}
      </g>
    );
  }
  return (
    <g class="node" data-testid="canvas-node" data-type={n.type}>
      <rect x={n.x} y={n.y} width={n.width} height={n.height} rx={8} fill="var(--bg)" stroke={color ?? 'var(--line)'} stroke-width={2} />
      <foreignObject x={n.x} y={n.y} width={n.width} height={n.height}>
        <div class="canvas-node-body">{body}</div>
      </foreignObject>
    </g>
  );
}

/** The canvas and the resolutions of the links in its text nodes. */
async function loadCanvas(path: string): Promise<CanvasData & { resolved: Resolutions }> {
  const canvas = await api.canvas(path);
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
  if (canvas.error) return <ErrorNote error={canvas.error} />;
  const c = canvas.data;
  if (!c) return <p class="muted">Loading…</p>;
  const byId = new Map(c.nodes.map((n) => [n.id, n]));
  const box = bounds(c.nodes);
  // Groups first, so boxes and lines are drawn over them.
  const nodes = [...c.nodes.filter((n) => n.type === 'group'), ...c.nodes.filter((n) => n.type !== 'group')];
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
  const size = zoom === null
    ? { width: Math.min(box.width, 4000), style: { maxWidth: '100%', height: 'auto' } }
    : { width: box.width * zoom, height: box.height * zoom, style: {} };
  return (
    <section class="canvas-view" aria-labelledby="canvas-title">
      <h2 id="canvas-title">{path}</h2>
      <div class="canvas-bar">
        <p class="muted small" role="status">{c.nodes.length} nodes, {c.edges.length} edges</p>
        <div role="toolbar" aria-label="Zoom" class="canvas-tools">
          <button type="button" aria-label="Zoom out" onClick={() => zoomBy(1 / 1.25)}>−</button>
          <output aria-label="Zoom level" data-testid="zoom-level">{zoom === null ? 'Fit' : `${Math.round(zoom * 100)} %`}</output>
          <button type="button" aria-label="Zoom in" onClick={() => zoomBy(1.25)}>+</button>
          <button type="button" onClick={() => setZoom(null)} disabled={zoom === null}>Fit</button>
        </div>
      </div>
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
          const view = scroller.current!;
          drag.current = { x: e.clientX, y: e.clientY, left: view.scrollLeft, top: view.scrollTop, id: e.pointerId };
          view.setPointerCapture?.(e.pointerId);
          setPanning(true);
        }}
        onPointerMove={(e) => {
          const d = drag.current;
          if (!d || d.id !== e.pointerId) return;
          const view = scroller.current!;
          view.scrollLeft = d.left - (e.clientX - d.x);
          view.scrollTop = d.top - (e.clientY - d.y);
        }}
        onPointerUp={() => { drag.current = null; setPanning(false); }}
        onPointerCancel={() => { drag.current = null; setPanning(false); }}
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
          {nodes.filter((n) => n.type === 'group').map((n) => <NodeBox key={n.id} n={n} resolved={c.resolved} />)}
          {c.edges.map((e) => <Edge key={e.id} e={e} byId={byId} />)}
          {nodes.filter((n) => n.type !== 'group').map((n) => <NodeBox key={n.id} n={n} resolved={c.resolved} />)}
        </svg>
      </div>
    </section>
  );
}
