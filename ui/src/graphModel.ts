// Which part of the link graph the graph view draws: the whole vault or the pages around one
// (depth 1–3, links either way), narrowed by folder, tag and a search over titles and paths,
// with or without orphans (pages with no link either way).
import type { GraphData } from './api';

export interface GraphFilter {
  /** The page a local graph is centred on ('' for the whole vault). */
  center: string;
  depth: number;
  folder: string;
  tag: string;
  search: string;
  orphans: boolean;
}

export interface Subset { nodes: GraphData['nodes']; edges: GraphData['edges']; degree: Map<string, number> }

export function subset(g: GraphData, f: GraphFilter, tagsOf: (path: string) => string[] = () => []): Subset {
  const nodeSet = new Set(g.nodes.map((n) => n.id));
  const edges = g.edges.filter((e) => e.source !== e.target && nodeSet.has(e.source) && nodeSet.has(e.target));
  const near = new Map<string, Set<string>>();
  const link = (a: string, b: string) => { let s = near.get(a); if (!s) { s = new Set(); near.set(a, s); } s.add(b); };
  for (const e of edges) { link(e.source, e.target); link(e.target, e.source); }
  let keep: Set<string>;
  if (f.center && nodeSet.has(f.center)) {
    keep = new Set([f.center]);
    let frontier = [f.center];
    for (let d = 0; d < Math.max(1, Math.min(3, f.depth)); d++) {
      const next: string[] = [];
      for (const id of frontier) for (const n of near.get(id) ?? []) if (!keep.has(n)) { keep.add(n); next.push(n); }
      frontier = next;
    }
  } else keep = new Set(nodeSet);
  const folder = f.folder.replace(/\/+$/, '');
  const tag = f.tag.replace(/^#/, '').toLowerCase();
  const words = f.search.toLowerCase().split(/\s+/).filter(Boolean);
  const nodes = g.nodes.filter((n) => {
    if (!keep.has(n.id)) return false;
    if (n.id === f.center) return true;
    if (folder && !n.id.startsWith(`${folder}/`)) return false;
    if (tag && !tagsOf(n.id).some((t) => t.toLowerCase() === tag || t.toLowerCase().startsWith(`${tag}/`))) return false;
    if (words.length && !words.every((w) => `${n.title} ${n.id}`.toLowerCase().includes(w))) return false;
    if (!f.orphans && !near.has(n.id)) return false;
    return true;
  });
  const shown = new Set(nodes.map((n) => n.id));
  const kept = edges.filter((e) => shown.has(e.source) && shown.has(e.target));
  const degree = new Map<string, number>();
  for (const e of kept) { degree.set(e.source, (degree.get(e.source) ?? 0) + 1); degree.set(e.target, (degree.get(e.target) ?? 0) + 1); }
  return { nodes, edges: kept, degree };
}

/** Top-level folders of the graph's pages, for the folder filter. */
export function folders(g: GraphData): string[] {
  return [...new Set(g.nodes.map((n) => n.id.split('/').slice(0, -1).join('/')).filter(Boolean))].sort();
}

export interface Box { id: string; x: number; y: number; w: number; h: number; rank: number }

/**
 * The labels that fit: by rank (most links first), each kept only if its box overlaps no
 * label kept before it. Boxes are in screen pixels.
 */
export function labelsThatFit(boxes: Box[], max = 400): Set<string> {
  const kept: Box[] = [];
  const cell = 64;
  const grid = new Map<string, Box[]>();
  const keys = (b: Box) => {
    const out: string[] = [];
    for (let x = Math.floor(b.x / cell); x <= Math.floor((b.x + b.w) / cell); x++) {
      for (let y = Math.floor(b.y / cell); y <= Math.floor((b.y + b.h) / cell); y++) out.push(`${x},${y}`);
    }
    return out;
  };
  for (const b of [...boxes].sort((p, q) => q.rank - p.rank)) {
    if (kept.length >= max) break;
    const ks = keys(b);
    const clash = ks.some((k) => (grid.get(k) ?? []).some((o) => b.x < o.x + o.w && o.x < b.x + b.w && b.y < o.y + o.h && o.y < b.y + b.h));
    if (clash) continue;
    kept.push(b);
    for (const k of ks) { const l = grid.get(k); if (l) l.push(b); else grid.set(k, [b]); }
  }
  return new Set(kept.map((b) => b.id));
}
