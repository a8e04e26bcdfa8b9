// The link graph, drawn by cytoscape (loaded only when this view opens): the whole vault or
// the local graph of one page (depth 1–3), filtered by folder, tag and search, orphans on or
// off. Labels never overlap: after each zoom or pan only the labels that fit are shown, the
// best-linked first. A whole vault of more than 800 pages is drawn on a canvas instead
// (graphCanvas.ts: folders as clusters, level of detail while moving).
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, type GraphData } from './api';
import { drawLarge, type CanvasGraph } from './graphCanvas';
import { folders, labelsThatFit, subset, type GraphFilter } from './graphModel';
import { pageHref } from './markdown';
import { pageIndex } from './pageIndex';
import { href, navigate } from './router';
import { ErrorNote } from './ui';

/** Above this many nodes the whole-vault graph is drawn on a canvas (graphCanvas.ts). */
const LARGE = 800;

export function GraphView({ path = '', depth = 1 }: { path?: string; depth?: number }) {
  const host = useRef<HTMLDivElement>(null);
  const [data, setData] = useState<GraphData | null>(null);
  const [tags, setTags] = useState<Map<string, string[]>>(new Map());
  const [error, setError] = useState<unknown>(null);
  const [filter, setFilter] = useState<GraphFilter>({ center: path, depth, folder: '', tag: '', search: '', orphans: true });
  const [info, setInfo] = useState('');
  const started = useRef(performance.now());
  const large = useRef<CanvasGraph | null>(null);

  useEffect(() => { setFilter((f) => ({ ...f, center: path, depth })); }, [path, depth]);
  useEffect(() => {
    let live = true;
    api.graph().then((g) => { if (!live) return; performance.mark('quire:graph-data'); setData(g); }, (e) => live && setError(e));
    pageIndex().then((pages) => live && setTags(new Map(pages.map((p) => [p.path, p.tags]))), () => {});
    return () => { live = false; };
  }, []);

  const shown = useMemo(() => (data ? subset(data, filter, (p) => tags.get(p) ?? []) : null), [data, filter, tags]);
  const folderList = useMemo(() => (data ? folders(data) : []), [data]);
  const tagList = useMemo(() => [...new Set([...tags.values()].flat())].sort(), [tags]);

  useEffect(() => {
    if (!shown || !host.current) return;
    let cy: import('cytoscape').Core | null = null;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const drawStart = performance.now();
    let canvasGraph: CanvasGraph | null = null;
    const firstFrame = () => {
      performance.measure('quire:graph-first-frame', { start: started.current, end: performance.now() });
      performance.measure('quire:graph-draw', { start: drawStart, end: performance.now() });
      host.current?.setAttribute('data-drawn', String(shown.nodes.length));
    };
    // The whole vault when large: the canvas renderer (graphCanvas.ts), no layout simulation.
    if (shown.nodes.length > LARGE && !filter.center) {
      canvasGraph = drawLarge(host.current, shown, { dark: document.documentElement.dataset.theme === 'dark', onOpen: (id) => navigate(pageHref(id)), onFirstFrame: firstFrame });
      large.current = canvasGraph;
      setInfo(`${shown.nodes.length} pages, ${shown.edges.length} links${data && shown.nodes.length < data.nodes.length ? ` (of ${data.nodes.length} pages)` : ''}; folders as clusters — scroll to zoom, drag to pan`);
      return () => { canvasGraph?.destroy(); large.current = null; };
    }
    void import('cytoscape').then((mod) => {
      if (!live || !host.current) return;
      const big = shown.nodes.length > LARGE;
      const dark = document.documentElement.dataset.theme === 'dark';
      const deg = (id: string) => shown.degree.get(id) ?? 0;
      cy = mod.default({
        container: host.current,
        elements: [
          ...shown.nodes.map((n) => ({ data: { id: n.id, label: n.title, size: 6 + Math.min(18, Math.sqrt(deg(n.id)) * 3) }, classes: n.id === filter.center ? 'center' : '' })),
          ...shown.edges.map((e, i) => ({ data: { id: `e${i}`, source: e.source, target: e.target } })),
        ],
        style: [
          { selector: 'node', style: { width: 'data(size)', height: 'data(size)', 'background-color': dark ? '#7fb0ff' : '#1d5fbf', label: '', 'font-size': 11, color: dark ? '#e6e8eb' : '#1d1f23', 'text-valign': 'bottom', 'text-margin-y': 3, 'min-zoomed-font-size': big ? 9 : 0 } },
          { selector: 'node.labelled', style: { label: 'data(label)' } },
          { selector: 'node.center', style: { 'background-color': dark ? '#ffb877' : '#b45309', label: 'data(label)', 'font-weight': 700 } },
          { selector: 'edge', style: { width: 1, 'line-color': dark ? '#4a5058' : '#c3c8cf', 'curve-style': 'haystack', opacity: 0.8 } },
        ],
        layout: big
          ? { name: 'grid', avoidOverlap: false, sort: (a: import('cytoscape').NodeSingular, b: import('cytoscape').NodeSingular) => a.id().localeCompare(b.id()) } as import('cytoscape').LayoutOptions
          : { name: 'cose', animate: false, randomize: false, nodeRepulsion: () => 9000, idealEdgeLength: () => 60, numIter: 800 } as import('cytoscape').LayoutOptions,
        hideEdgesOnViewport: big,
        textureOnViewport: big,
        pixelRatio: big ? 1 : 'auto',
        minZoom: 0.05,
        maxZoom: 4,
      });
      // Labels: only those that fit, best-linked first, over the nodes in view.
      const placeLabels = () => {
        if (!cy) return;
        const ext = cy.extent();
        const zoom = cy.zoom();
        if (big && zoom < 0.5) { cy.nodes('.labelled').removeClass('labelled'); return; }
        const inView = cy.nodes().filter((n: import('cytoscape').NodeSingular) => { const p = n.position(); return p.x >= ext.x1 && p.x <= ext.x2 && p.y >= ext.y1 && p.y <= ext.y2; });
        const boxes = inView.map((n: import('cytoscape').NodeSingular) => {
          const p = n.renderedPosition();
          const w = Math.min(220, (n.data('label') as string).length * 6.2);
          return { id: n.id(), x: p.x - w / 2, y: p.y + 4, w, h: 14, rank: deg(n.id()) + (n.id() === filter.center ? 1e6 : 0) };
        });
        const fit = labelsThatFit(boxes, 300);
        cy.batch(() => { cy!.nodes().forEach((n) => { if (fit.has(n.id())) n.addClass('labelled'); else n.removeClass('labelled'); }); });
      };
      cy.one('render', firstFrame);
      cy.on('zoom pan', () => { clearTimeout(timer); timer = setTimeout(placeLabels, 120); });
      placeLabels();
      cy.on('tap', 'node', (evt) => navigate(pageHref(evt.target.id())));
      setInfo(`${shown.nodes.length} pages, ${shown.edges.length} links${data && shown.nodes.length < data.nodes.length ? ` (of ${data.nodes.length} pages)` : ''}`);
    }, (e) => live && setError(e));
    return () => { live = false; clearTimeout(timer); cy?.destroy(); };
  }, [shown]);

  const set = (patch: Partial<GraphFilter>) => { started.current = performance.now(); setFilter((f) => ({ ...f, ...patch })); };
  return (
    <main id="main" class="graph">
      <h1>{filter.center ? <>Local graph of <a href={pageHref(filter.center)}>{filter.center}</a></> : 'Graph'}</h1>
      <form class="graph-filters" onSubmit={(e) => e.preventDefault()}>
        {filter.center && (
          <label class="inline">Depth
            <select value={filter.depth} onChange={(e) => set({ depth: Number(e.currentTarget.value) })}>
              {[1, 2, 3].map((d) => <option key={d} value={d}>{d}</option>)}
            </select>
          </label>
        )}
        <label class="inline">Folder
          <select value={filter.folder} onChange={(e) => set({ folder: e.currentTarget.value })}>
            <option value="">All</option>
            {folderList.map((f) => <option key={f} value={f}>{f}</option>)}
          </select>
        </label>
        <label class="inline">Tag
          <select value={filter.tag} onChange={(e) => set({ tag: e.currentTarget.value })}>
            <option value="">All</option>
            {tagList.map((t) => <option key={t} value={t}>#{t}</option>)}
          </select>
        </label>
        <label class="inline">Search <input type="search" value={filter.search} onInput={(e) => set({ search: e.currentTarget.value })} /></label>
        <label class="inline"><input type="checkbox" checked={filter.orphans} onChange={(e) => set({ orphans: e.currentTarget.checked })} /> Orphans</label>
        {filter.center && <a href={href({ view: 'graph' })}>Whole vault</a>}
      </form>
      <p class="muted" role="status">{data ? info : 'Loading…'}</p>
      <ErrorNote error={error} />
      {shown && shown.nodes.length > LARGE && !filter.center && (
        <div class="canvas-tools" role="group" aria-label="Zoom">
          <button onClick={() => large.current?.zoomBy(1.5)} aria-label="Zoom in">+</button>
          <button onClick={() => large.current?.zoomBy(1 / 1.5)} aria-label="Zoom out">−</button>
        </div>
      )}
      <div ref={host} class="graph-canvas" role="img" aria-label="Link graph of the pages; select a node to open its page" />
    </main>
  );
}
