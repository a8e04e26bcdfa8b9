// Saved DQL views (`GET /views`) and one executed as a table (`/views/{name}/execute`), a page
// of rows at a time, grouped when the view groups. The `File` column links to its page. Both
// reload when pages or saved views change (`version`, from the live events).
import { useState } from 'preact/hooks';
import { api, type ViewResult } from './api';
import { pageHref } from './markdown';
import { href } from './router';
import { ErrorNote, useLoad } from './ui';

const PAGE = 50;

export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map(cellText).join(', ');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function Cell({ header, value }: { header: string; value: unknown }) {
  if (typeof value === 'string' && (header === 'File' || /\.md$/.test(value)) && !value.includes('\n')) {
    return <a href={pageHref(value)}>{value.replace(/\.md$/, '')}</a>;
  }
  return <>{cellText(value)}</>;
}

export function ViewsView({ name, version = 0 }: { name: string; version?: number }) {
  const list = useLoad(() => api.views(), [version]);
  const views = list.data?.views ?? [];
  return (
    <main id="main" class="views-page">
      <h1>Views</h1>
      <ErrorNote error={list.error} />
      <div class="split">
        <nav aria-label="Saved views" class="side-list">
          {views.length === 0 && !list.loading && <p class="muted">No saved view yet (<code>PUT /views/{'{name}'}</code> or the MCP tools save one).</p>}
          <ul>
            {views.map((v) => (
              <li key={v.name}><a href={href({ view: 'views', name: v.name })} aria-current={v.name === name ? 'page' : undefined}>{v.name}</a></li>
            ))}
          </ul>
        </nav>
        {name ? <ViewTable key={name} name={name} version={version} /> : <p class="muted">Choose a view.</p>}
      </div>
    </main>
  );
}

function ViewTable({ name, version }: { name: string; version: number }) {
  const [offset, setOffset] = useState(0);
  const result = useLoad<ViewResult>(() => api.executeView(name, offset, PAGE), [name, offset, version]);
  const r = result.data;
  return (
    <section class="view-result" aria-labelledby="view-title">
      <h2 id="view-title">{name}</h2>
      {r && <pre class="query"><code>{r.view.query}</code></pre>}
      <ErrorNote error={result.error} />
      {r && (
        <>
          <p class="muted small" role="status">{r.total} {r.total === 1 ? 'row' : 'rows'}{r.total > r.limit ? `, ${r.offset + 1}–${Math.min(r.offset + r.limit, r.total)} shown` : ''}</p>
          <table aria-label={`Rows of ${name}`} data-testid="view-table">
            <thead><tr>{r.headers.map((h) => <th key={h} scope="col">{h}</th>)}</tr></thead>
            <tbody>
              {r.rows.map((row, i) => {
                const group = r.groups?.find((g) => g.offset === r.offset + i);
                return [
                  group && <tr key={`g${i}`} class="group-row"><th scope="rowgroup" colSpan={r.headers.length}>{cellText(group.key) || '(none)'} <span class="muted">({group.total})</span></th></tr>,
                  <tr key={i}>{row.map((v, j) => <td key={j}><Cell header={r.headers[j] ?? ''} value={v} /></td>)}</tr>,
                ];
              })}
            </tbody>
          </table>
          {r.total > r.limit && (
            <div class="actions">
              <button disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>Previous</button>
              <button disabled={offset + PAGE >= r.total} onClick={() => setOffset(offset + PAGE)}>Next</button>
            </div>
          )}
        </>
      )}
    </section>
  );
}
