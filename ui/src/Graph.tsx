// The link graph, drawn by cytoscape (loaded only when this view opens).
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from './api';
import { pageHref } from './markdown';
import { navigate } from './router';
import { ErrorNote } from './ui';

/** Largest graph drawn in full; a bigger one shows the best-connected pages. */
const MAX_NODES = 1500;

export function GraphView() {
  const host = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<unknown>(null);
  const [info, setInfo] = useState('');
  useEffect(() => {
    let cy: { destroy(): void } | null = null;
    let live = true;
    Promise.all([api.graph(), import('cytoscape')]).then(([g, mod]) => {
      if (!live || !host.current) return;
      const degree = new Map<string, number>();
      for (const e of g.edges) {
        degree.set(e.source, (degree.get(e.source) ?? 0) + 1);
        degree.set(e.target, (degree.get(e.target) ?? 0) + 1);
      }
      const nodes = [...g.nodes].sort((a, b) => (degree.get(b.id) ?? 0) - (degree.get(a.id) ?? 0)).slice(0, MAX_NODES);
      const keep = new Set(nodes.map((n) => n.id));
      const edges = g.edges.filter((e) => keep.has(e.source) && keep.has(e.target));
      setInfo(`${g.nodes.length} pages, ${g.edges.length} links${nodes.length < g.nodes.length ? ` (showing the ${nodes.length} best connected)` : ''}`);
      const dark = document.documentElement.dataset.theme === 'dark';
      const instance = mod.default({
        container: host.current,
        elements: [
          ...nodes.map((n) => ({ data: { id: n.id, label: n.title } })),
          ...edges.map((e, i) => ({ data: { id: `e${i}`, source: e.source, target: e.target } })),
        ],
        style: [
          { selector: 'node', style: { label: 'data(label)', 'font-size': 10, color: dark ? '#ddd' : '#222', 'background-color': '#4a7bd0', width: 10, height: 10 } },
          { selector: 'edge', style: { width: 1, 'line-color': dark ? '#555' : '#bbb', 'curve-style': 'haystack' } },
        ],
        layout: { name: nodes.length > 300 ? 'grid' : 'cose', animate: false },
      });
      instance.on('tap', 'node', (evt) => navigate(pageHref(evt.target.id())));
      cy = instance;
    }, (e) => live && setError(e));
    return () => { live = false; cy?.destroy(); };
  }, []);
  return (
    <main id="main" class="graph">
      <h1>Graph</h1>
      <p class="muted" role="status">{info}</p>
      <ErrorNote error={error} />
      <div ref={host} class="graph-canvas" role="img" aria-label="Link graph of the pages; select a node to open its page" />
    </main>
  );
}
