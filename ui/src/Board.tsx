// The workflow board: a column per state, a card per page (`/workflow/board/{name}`). A card
// moves by drag and drop onto another column or with its "Move to" select (keyboard), to the
// states the definition's transitions allow from its own (any other state when it lists none);
// either calls `POST /workflow/advance`, and a refusal of the server is shown as it says it.
// The board reloads when pages or workflow definitions change (`version`, from the live events).
import { useState } from 'preact/hooks';
import { api, type BoardCard, type WorkflowDef } from './api';
import { pageHref } from './markdown';
import { href, navigate } from './router';
import { cellText } from './Views';
import { ErrorNote, useLoad } from './ui';

/** The states a page in `from` may move to: the transitions', or every other state without any. */
export function targets(def: WorkflowDef | undefined, states: string[], from: string): string[] {
  const ts = def?.transitions ?? [];
  if (!ts.length) return states.filter((s) => s !== from);
  return ts.filter((t) => t.from === from).map((t) => t.to);
}

export function BoardView({ workflow, version = 0 }: { workflow: string; version?: number }) {
  const defs = useLoad(() => api.workflows(), [version]);
  const list = defs.data?.workflows ?? [];
  const chosen = workflow || list[0]?.name || '';
  return (
    <main id="main" class="board-page">
      <header class="page-head">
        <h1>Workflow board</h1>
        {list.length > 0 && (
          <label class="inline">Workflow{' '}
            <select value={chosen} onChange={(e) => navigate(href({ view: 'board', workflow: e.currentTarget.value }))}>
              {list.map((w) => <option key={w.name} value={w.name}>{w.name}</option>)}
            </select>
          </label>
        )}
      </header>
      <ErrorNote error={defs.error} />
      {!defs.loading && !list.length && !defs.error && <p class="muted">No workflow is defined yet (<code>.quire/workflows/</code>).</p>}
      {chosen && <Board key={chosen} name={chosen} def={list.find((w) => w.name === chosen)} version={version} />}
    </main>
  );
}

function Board({ name, def, version }: { name: string; def?: WorkflowDef; version: number }) {
  const board = useLoad(() => api.board(name), [name, version]);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState('');
  const [dragging, setDragging] = useState<{ path: string; from: string } | null>(null);
  const [over, setOver] = useState('');
  const b = board.data;
  const columns = b ? [...b.states, ...Object.keys(b.board).filter((s) => !b.states.includes(s))] : [];

  const move = async (card: BoardCard, from: string, to: string) => {
    if (!to || to === from) return;
    setError(null); setStatus('');
    try {
      await api.advance(card.path, to);
      setStatus(`Moved ${card.title} from ${from} to ${to}.`);
      board.reload();
    } catch (e) { setError(e); }
  };

  return (
    <>
      <ErrorNote error={board.error ?? error} />
      <p class="success small" role="status">{status}</p>
      <div class="board" data-testid="board">
        {columns.map((state) => {
          const cards = b?.board[state] ?? [];
          return (
            <section
              key={state}
              class={`column${over === state ? ' drop' : ''}`}
              aria-labelledby={`col-${state}`}
              data-state={state}
              onDragOver={(e) => { if (dragging && targets(def, columns, dragging.from).includes(state)) { e.preventDefault(); setOver(state); } }}
              onDragLeave={() => setOver('')}
              onDrop={(e) => {
                e.preventDefault(); setOver('');
                const d = dragging; setDragging(null);
                const card = d && b?.board[d.from]?.find((c) => c.path === d.path);
                if (d && card) void move(card, d.from, state);
              }}
            >
              <h2 id={`col-${state}`}>{state} <span class="muted">({cards.length})</span></h2>
              <ul>
                {cards.map((c) => {
                  const to = targets(def, columns, state);
                  return (
                    <li
                      key={c.path}
                      class="board-card"
                      data-testid="card"
                      draggable
                      onDragStart={(e) => { e.dataTransfer?.setData('text/plain', c.path); setDragging({ path: c.path, from: state }); }}
                      onDragEnd={() => { setDragging(null); setOver(''); }}
                    >
                      <a href={pageHref(c.path)}>{c.title}</a>
                      {c.fields && Object.keys(c.fields).length > 0 && (
                        <p class="muted small">{Object.entries(c.fields).map(([k, v]) => `${k}: ${cellText(v)}`).join(' · ')}</p>
                      )}
                      {to.length > 0 && (
                        <label class="small move-to">Move to{' '}
                          <select value="" onChange={(e) => void move(c, state, e.currentTarget.value)} aria-label={`Move ${c.title} to`}>
                            <option value="">…</option>
                            {to.map((t) => <option key={t} value={t}>{t}</option>)}
                          </select>
                        </label>
                      )}
                    </li>
                  );
                })}
              </ul>
            </section>
          );
        })}
      </div>
    </>
  );
}
