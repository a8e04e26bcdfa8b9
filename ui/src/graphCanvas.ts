// The whole-vault graph of a large space, drawn on a 2D canvas instead of cytoscape: folders
// as clusters on a grid, each folder's pages on a sunflower spiral (O(n), no simulation);
// edges in one stroked path, left out while panning or zooming (level of detail) and drawn
// again when the view rests; labels once they are readable, only those that do not overlap a
// better-linked one. Click opens a page (the nearest node within a few pixels).
import { labelsThatFit, type Subset } from './graphModel';

export interface Drawn { x: Float32Array; y: Float32Array; r: Float32Array; ids: string[] }

/** Positions: each folder a cluster (sized by its page count) on a square grid. */
export function clusterLayout(s: Subset): Drawn {
  const n = s.nodes.length;
  const byFolder = new Map<string, number[]>();
  s.nodes.forEach((node, i) => {
    const f = node.id.split('/').slice(0, -1).join('/');
    const list = byFolder.get(f);
    if (list) list.push(i); else byFolder.set(f, [i]);
  });
  const folders = [...byFolder.entries()].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
  const spacing = 9;
  const radiusOf = (count: number) => Math.sqrt(count) * spacing * 0.62 + spacing;
  const cellSize = 2 * radiusOf(folders[0]?.[1].length ?? 1) + 40;
  const cols = Math.max(1, Math.ceil(Math.sqrt(folders.length)));
  const x = new Float32Array(n), y = new Float32Array(n), r = new Float32Array(n);
  const golden = Math.PI * (3 - Math.sqrt(5));
  folders.forEach(([, members], k) => {
    const cx = (k % cols) * cellSize;
    const cy = Math.floor(k / cols) * cellSize;
    // Best-linked pages at the centre of their cluster.
    members.sort((a, b) => (s.degree.get(s.nodes[b].id) ?? 0) - (s.degree.get(s.nodes[a].id) ?? 0));
    members.forEach((i, j) => {
      const d = Math.sqrt(j + 0.5) * spacing * 0.62;
      x[i] = cx + d * Math.cos(j * golden);
      y[i] = cy + d * Math.sin(j * golden);
      r[i] = 1.6 + Math.min(5, Math.sqrt(s.degree.get(s.nodes[i].id) ?? 0) * 0.8);
    });
  });
  return { x, y, r, ids: s.nodes.map((node) => node.id) };
}

export interface CanvasGraph { destroy(): void; zoomBy(f: number): void }

export function drawLarge(host: HTMLElement, s: Subset, opts: { dark: boolean; onOpen: (id: string) => void; onFirstFrame: () => void }): CanvasGraph {
  const canvas = document.createElement('canvas');
  canvas.className = 'graph-2d';
  host.append(canvas);
  const ctx = canvas.getContext('2d')!;
  const d = clusterLayout(s);
  const index = new Map(d.ids.map((id, i) => [id, i]));
  const edges = new Int32Array(s.edges.length * 2);
  s.edges.forEach((e, k) => { edges[2 * k] = index.get(e.source)!; edges[2 * k + 1] = index.get(e.target)!; });
  const title = new Map(s.nodes.map((node) => [node.id, node.title]));
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (let i = 0; i < d.ids.length; i++) { minX = Math.min(minX, d.x[i]); maxX = Math.max(maxX, d.x[i]); minY = Math.min(minY, d.y[i]); maxY = Math.max(maxY, d.y[i]); }
  const ratio = window.devicePixelRatio || 1;
  let w = 0, h = 0, scale = 1, tx = 0, ty = 0;
  const resize = () => {
    w = host.clientWidth; h = host.clientHeight;
    canvas.width = Math.round(w * ratio); canvas.height = Math.round(h * ratio);
    canvas.style.width = `${w}px`; canvas.style.height = `${h}px`;
  };
  resize();
  const fit = () => {
    const sw = Math.max(1, maxX - minX), sh = Math.max(1, maxY - minY);
    scale = Math.min(w / sw, h / sh) * 0.92;
    tx = w / 2 - ((minX + maxX) / 2) * scale;
    ty = h / 2 - ((minY + maxY) / 2) * scale;
  };
  fit();
  const colors = opts.dark ? { edge: 'rgba(140,150,165,0.18)', node: '#7fb0ff', label: '#e6e8eb', halo: '#16181c' } : { edge: 'rgba(90,100,115,0.16)', node: '#1d5fbf', label: '#1d1f23', halo: '#ffffff' };
  let moving = false;
  let frame = 0;
  let first = true;
  const draw = () => {
    frame = 0;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.setTransform(ratio * scale, 0, 0, ratio * scale, ratio * tx, ratio * ty);
    if (!moving) {
      ctx.beginPath();
      for (let k = 0; k < edges.length; k += 2) {
        ctx.moveTo(d.x[edges[k]], d.y[edges[k]]);
        ctx.lineTo(d.x[edges[k + 1]], d.y[edges[k + 1]]);
      }
      ctx.lineWidth = 0.6 / scale;
      ctx.strokeStyle = colors.edge;
      ctx.stroke();
    }
    ctx.beginPath();
    const minR = 1.2 / scale;
    for (let i = 0; i < d.ids.length; i++) {
      const rr = Math.max(d.r[i], minR);
      ctx.moveTo(d.x[i] + rr, d.y[i]);
      ctx.arc(d.x[i], d.y[i], rr, 0, Math.PI * 2);
    }
    ctx.fillStyle = colors.node;
    ctx.fill();
    // Labels once readable (the spiral spacing is 9 units: 1.4 px per unit and up).
    if (!moving && scale >= 1.4) {
      const boxes = [];
      for (let i = 0; i < d.ids.length; i++) {
        const sx = d.x[i] * scale + tx, sy = d.y[i] * scale + ty;
        if (sx < -50 || sy < -20 || sx > w + 50 || sy > h + 20) continue;
        const text = title.get(d.ids[i]) ?? d.ids[i];
        const bw = Math.min(200, text.length * 6.2);
        boxes.push({ id: String(i), x: sx - bw / 2, y: sy + 4, w: bw, h: 13, rank: s.degree.get(d.ids[i]) ?? 0 });
      }
      const fitting = labelsThatFit(boxes, 250);
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.font = '11px system-ui, sans-serif';
      ctx.textAlign = 'center';
      ctx.textBaseline = 'top';
      ctx.lineWidth = 3;
      ctx.strokeStyle = colors.halo;
      ctx.fillStyle = colors.label;
      for (const b of boxes) {
        if (!fitting.has(b.id)) continue;
        const i = Number(b.id);
        const text = (title.get(d.ids[i]) ?? '').slice(0, 32);
        ctx.strokeText(text, b.x + b.w / 2, b.y);
        ctx.fillText(text, b.x + b.w / 2, b.y);
      }
    }
    if (first) { first = false; opts.onFirstFrame(); }
  };
  const request = () => { if (!frame) frame = requestAnimationFrame(draw); };
  let rest: ReturnType<typeof setTimeout> | undefined;
  const interact = () => { moving = true; clearTimeout(rest); rest = setTimeout(() => { moving = false; request(); }, 150); request(); };
  const zoomAt = (f: number, px: number, py: number) => {
    const next = Math.max(0.02, Math.min(40, scale * f));
    tx = px - ((px - tx) * next) / scale;
    ty = py - ((py - ty) * next) / scale;
    scale = next;
    interact();
  };
  const onWheel = (e: WheelEvent) => {
    e.preventDefault();
    const box = canvas.getBoundingClientRect();
    zoomAt(Math.exp(-e.deltaY * 0.0015), e.clientX - box.left, e.clientY - box.top);
  };
  let drag: { x: number; y: number; moved: boolean } | null = null;
  const onDown = (e: PointerEvent) => { drag = { x: e.clientX, y: e.clientY, moved: false }; canvas.setPointerCapture(e.pointerId); };
  const onMove = (e: PointerEvent) => {
    if (!drag) return;
    const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 2) drag.moved = true;
    tx += dx; ty += dy; drag.x = e.clientX; drag.y = e.clientY;
    if (drag.moved) interact();
  };
  const onUp = (e: PointerEvent) => {
    const was = drag;
    drag = null;
    if (!was || was.moved) return;
    const box = canvas.getBoundingClientRect();
    const mx = (e.clientX - box.left - tx) / scale, my = (e.clientY - box.top - ty) / scale;
    let best = -1, bestD = (8 / scale) ** 2;
    for (let i = 0; i < d.ids.length; i++) {
      const dd = (d.x[i] - mx) ** 2 + (d.y[i] - my) ** 2;
      if (dd < bestD) { bestD = dd; best = i; }
    }
    if (best >= 0) opts.onOpen(d.ids[best]);
  };
  canvas.addEventListener('wheel', onWheel, { passive: false });
  canvas.addEventListener('pointerdown', onDown);
  canvas.addEventListener('pointermove', onMove);
  canvas.addEventListener('pointerup', onUp);
  const ro = typeof ResizeObserver !== 'undefined' ? new ResizeObserver(() => { resize(); request(); }) : null;
  ro?.observe(host);
  request();
  return {
    destroy() { cancelAnimationFrame(frame); clearTimeout(rest); ro?.disconnect(); canvas.remove(); },
    zoomBy(f: number) { zoomAt(f, w / 2, h / 2); },
  };
}
