// Ctrl/Cmd+K search: results as you type, highlighted snippets (only the server's <mark>
// survives), arrow keys to choose, Enter to open. While a query is pending the previous
// results stay (marked busy) and "No results." shows only for an answered query. When no
// page has every word, the server answers the pages with some of them, and the status says so;
// with vector search on, results are ranked by words and meaning together, and it says that too.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type SearchHit } from './api';
import { pageHref, snippetHtml } from './markdown';
import { navigate } from './router';
import { ErrorNote, Modal } from './ui';

export function SearchResultsList({ hits, active, onPick }: { hits: SearchHit[]; active: number; onPick: (h: SearchHit) => void }) {
  return (
    <ul class="results" role="listbox" id="search-results" aria-label="Search results">
      {hits.map((h, i) => (
        <li key={h.path} id={`hit-${i}`} role="option" aria-selected={i === active} class={i === active ? 'active' : ''} onMouseDown={(e) => { e.preventDefault(); onPick(h); }}>
          <span class="hit-title">{h.title}</span> <span class="hit-path">{h.path}</span>
          <p class="snippet" dangerouslySetInnerHTML={{ __html: snippetHtml(h.snippet) }} />
        </li>
      ))}
    </ul>
  );
}

export function SearchPalette({ onClose, initial = '' }: { onClose: () => void; initial?: string }) {
  const [q, setQ] = useState(initial);
  const [hits, setHits] = useState<SearchHit[]>([]);
  const [active, setActive] = useState(0);
  const [error, setError] = useState<unknown>(null);
  // The query the shown results answer ('' for none yet).
  const [answered, setAnswered] = useState('');
  // No page had every word: the hits have some of them.
  const [some, setSome] = useState(false);
  // Ranked by words and meaning together (vector search is on).
  const [hybrid, setHybrid] = useState(false);
  const seq = useRef(0);

  useEffect(() => {
    const text = q.trim();
    const mine = ++seq.current;
    if (!text) { setHits([]); setError(null); setAnswered(''); return; }
    const timer = setTimeout(() => {
      api.search(text, 20).then(
        (r) => { if (mine === seq.current) { setHits(r.results); setSome(r.matching === 'any'); setHybrid(r.mode === 'hybrid'); setActive(0); setError(null); setAnswered(text); } },
        (e) => { if (mine === seq.current) { setHits([]); setError(e); setAnswered(text); } },
      );
    }, 120);
    return () => clearTimeout(timer);
  }, [q]);
  const pending = q.trim() !== '' && answered !== q.trim();

  const pick = (h: SearchHit) => { onClose(); navigate(pageHref(h.path)); };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown') { setActive((a) => Math.min(hits.length - 1, a + 1)); e.preventDefault(); }
    else if (e.key === 'ArrowUp') { setActive((a) => Math.max(0, a - 1)); e.preventDefault(); }
    else if (e.key === 'Enter' && hits[active]) { pick(hits[active]); e.preventDefault(); }
  };

  return (
    <Modal title="Search" onClose={onClose}>
      <input
        type="search"
        class="search-input"
        aria-label="Search pages"
        placeholder="Words, “phrases”, prefix*, OR, NOT"
        role="combobox"
        aria-expanded={hits.length > 0}
        aria-controls="search-results"
        aria-activedescendant={hits.length ? `hit-${active}` : undefined}
        value={q}
        onInput={(e) => setQ(e.currentTarget.value)}
        onKeyDown={onKey}
      />
      <ErrorNote error={error} />
      <p class="muted small search-state" role="status">{pending ? 'Searching…' : answered && !error ? `${hits.length === 0 ? 'No results.' : `${hits.length} result${hits.length === 1 ? '' : 's'}${some ? ' — no page has every word; these have some of them' : ''}${hybrid ? ' — ranked by words and meaning' : ''}`}` : ''}</p>
      {hits.length > 0 && <div aria-busy={pending}><SearchResultsList hits={hits} active={active} onPick={pick} /></div>}
    </Modal>
  );
}
