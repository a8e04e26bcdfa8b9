import { describe, expect, it } from 'vitest';
import { labelsThatFit, subset, type GraphFilter } from './graphModel';

const g = {
  nodes: ['a.md', 'b.md', 'c.md', 'd.md', 'x/e.md', 'lone.md'].map((id) => ({ id, title: id.replace('.md', '').toUpperCase(), group: '' })),
  edges: [{ source: 'a.md', target: 'b.md' }, { source: 'c.md', target: 'b.md' }, { source: 'c.md', target: 'd.md' }, { source: 'd.md', target: 'x/e.md' }],
};
const all: GraphFilter = { center: '', depth: 1, folder: '', tag: '', search: '', orphans: true };
const ids = (f: Partial<GraphFilter>, tags?: (p: string) => string[]) => subset(g, { ...all, ...f }, tags).nodes.map((n) => n.id);

describe('graph subsets', () => {
  it('local graphs reach depth 1 to 3 along links either way', () => {
    expect(ids({ center: 'a.md', depth: 1 })).toEqual(['a.md', 'b.md']);
    expect(ids({ center: 'a.md', depth: 2 })).toEqual(['a.md', 'b.md', 'c.md']);
    expect(ids({ center: 'a.md', depth: 3 })).toEqual(['a.md', 'b.md', 'c.md', 'd.md']);
  });
  it('filter by folder, tag, search and orphans', () => {
    expect(ids({ folder: 'x' })).toEqual(['x/e.md']);
    expect(ids({ tag: '#proj' }, (p) => (p === 'c.md' ? ['proj/alpha'] : []))).toEqual(['c.md']);
    expect(ids({ search: 'lone' })).toEqual(['lone.md']);
    expect(ids({ orphans: false })).not.toContain('lone.md');
  });
});

describe('labels', () => {
  it('keep the best-linked label where two would overlap', () => {
    const fit = labelsThatFit([
      { id: 'hub', x: 0, y: 0, w: 50, h: 12, rank: 9 },
      { id: 'leaf', x: 30, y: 5, w: 50, h: 12, rank: 1 },
      { id: 'far', x: 300, y: 0, w: 50, h: 12, rank: 1 },
    ]);
    expect([...fit].sort()).toEqual(['far', 'hub']);
  });
});

describe('the large-graph layout', () => {
  it('places every page, each folder as its own cluster', async () => {
    const { clusterLayout } = await import('./graphCanvas');
    const nodes = Array.from({ length: 300 }, (_, i) => ({ id: `f${i % 3}/p${i}.md`, title: `P${i}`, group: '' }));
    const d = clusterLayout({ nodes, edges: [], degree: new Map() });
    expect([...d.x, ...d.y].every(Number.isFinite)).toBe(true);
    const centre = (f: number) => { const xs = nodes.map((n, i) => (n.id.startsWith(`f${f}/`) ? d.x[i] : NaN)).filter((v) => !Number.isNaN(v)); return xs.reduce((a, b) => a + b, 0) / xs.length; };
    expect(Math.abs(centre(0) - centre(1))).toBeGreaterThan(50);
  });
});
