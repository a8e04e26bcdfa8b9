// Ctrl/Cmd+O: open any page or file by a few letters of its title, an alias or its path,
// matched fuzzily (fuzzy.ts) on every keystroke, in the browser.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { prepare, search, type Entry, type Match } from './fuzzy';
import { fileKind } from './FileView';
import { pageHref } from './markdown';
import { pageIndex } from './pageIndex';
import { recentPages } from './recent';
import { navigate } from './router';
import { Modal } from './ui';

/** Entries for every file of the tree: pages with their index title and aliases. */
export function switcherEntries(paths: string[], index: { path: string; title: string; aliases: string[] }[]): Entry[] {
  const byPath = new Map(index.map((p) => [p.path, p]));
  return paths.map((path) => {
    const known = byPath.get(path);
    return { path, title: known?.title ?? path.split('/').pop()!.replace(/\.md$/, ''), aliases: known?.aliases ?? [] };
  });
}

function Highlighted({ text, positions }: { text: string; positions: number[] }) {
  const at = new Set(positions);
  const parts: preact.JSX.Element[] = [];
  let run = '';
  let marked = false;
  const flush = (key: number) => { if (run) parts.push(marked ? <mark key={key}>{run}</mark> : <span key={key}>{run}</span>); run = ''; };
  for (let i = 0; i < text.length; i++) {
    if (at.has(i) !== marked) { flush(i); marked = at.has(i); }
    run += text[i];
  }
  flush(text.length);
  return <>{parts}</>;
}

export function QuickSwitcher({ files, onClose }: { files: () => string[]; onClose: () => void }) {
  const [q, setQ] = useState('');
  const [entries, setEntries] = useState<Entry[]>(() => switcherEntries(files(), []));
  const [active, setActive] = useState(0);
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    let live = true;
    pageIndex().then((index) => { if (live) setEntries(switcherEntries(files(), index)); }, () => {});
    return () => { live = false; };
  }, []);
  const prepared = useMemo(() => prepare(entries), [entries]);
  const matches: Match[] = useMemo(() => {
    if (q.trim()) {
      const started = performance.now();
      const out = search(prepared, q, 50);
      performance.measure('quire:switcher', { start: started, end: performance.now() });
      return out;
    }
    // Nothing typed: the pages opened lately.
    const known = new Map(entries.map((e) => [e.path, e]));
    return recentPages().filter((r) => known.has(r.path)).map((r) => ({ entry: known.get(r.path)!, score: 0, field: 'title' as const, text: known.get(r.path)!.title, positions: [] }));
  }, [prepared, q]);
  useEffect(() => { setActive(0); }, [q]);
  useEffect(() => { list.current?.querySelector(`#switch-${active}`)?.scrollIntoView({ block: 'nearest' }); }, [active]);

  const open = (m: Match) => { onClose(); navigate(pageHref(m.entry.path)); };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown') { setActive((a) => Math.min(matches.length - 1, a + 1)); e.preventDefault(); }
    else if (e.key === 'ArrowUp') { setActive((a) => Math.max(0, a - 1)); e.preventDefault(); }
    else if (e.key === 'Enter' && matches[active]) { open(matches[active]); e.preventDefault(); }
  };
  return (
    <Modal title="Open a page" onClose={onClose}>
      <input
        class="search-input"
        aria-label="Page name, alias or path"
        placeholder="Type a few letters of a title, alias or path"
        role="combobox"
        aria-expanded={matches.length > 0}
        aria-controls="switch-results"
        aria-activedescendant={matches.length ? `switch-${active}` : undefined}
        aria-autocomplete="list"
        value={q}
        onInput={(e) => setQ(e.currentTarget.value)}
        onKeyDown={onKey}
      />
      {!q.trim() && matches.length > 0 && <p class="muted small">Recently opened</p>}
      {q.trim() && matches.length === 0 ? <p class="muted" role="status">No page matches “{q}”.</p> : (
        <ul class="results switcher" role="listbox" id="switch-results" aria-label="Matching pages" ref={list}>
          {matches.map((m, i) => (
            <li key={m.entry.path} id={`switch-${i}`} role="option" aria-selected={i === active} class={i === active ? 'active' : ''}
              onMouseDown={(e) => { e.preventDefault(); open(m); }}>
              <span class="hit-title">{m.field === 'title' ? <Highlighted text={m.entry.title} positions={m.positions} /> : m.entry.title}</span>
              {m.field === 'alias' && <span class="hit-alias"> ← <Highlighted text={m.text} positions={m.positions} /></span>}
              {fileKind(m.entry.path) !== 'page' && <span class="hit-kind"> {fileKind(m.entry.path)}</span>}
              {' '}<span class="hit-path">{m.field === 'path' ? <Highlighted text={m.entry.path} positions={m.positions} /> : m.entry.path}</span>
            </li>
          ))}
        </ul>
      )}
    </Modal>
  );
}
