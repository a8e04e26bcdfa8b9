// Comments in the margin of a page. Each comment points at a line of the file (0: the whole
// page); the rendered blocks carry their first line (`data-line`, see markdown.ts), so a
// comment is shown beside the block holding its line, and clicking a block picks it for a new
// comment. The "On" select offers the same blocks for keyboard users.
import { useEffect, useState } from 'preact/hooks';
import { api, type Comment } from './api';
import { ErrorNote, useLoad, when } from './ui';

export interface Block { line: number; label: string }

/** The rendered blocks of an article, in order, as choices for a comment. */
export function articleBlocks(article: HTMLElement): Block[] {
  return [...article.querySelectorAll<HTMLElement>(':scope > [data-line]')].map((el) => {
    const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim();
    const line = Number(el.dataset.line);
    return { line, label: `Line ${line}: ${text.length > 48 ? `${text.slice(0, 47)}…` : text || el.tagName.toLowerCase()}` };
  });
}

/** The block element holding `line`: the last block starting at or before it. */
export function blockOf(article: HTMLElement, line: number): HTMLElement | null {
  let found: HTMLElement | null = null;
  for (const el of article.querySelectorAll<HTMLElement>(':scope > [data-line]')) {
    if (Number(el.dataset.line) <= line) found = el;
    else break;
  }
  return found;
}

export function CommentsPanel(props: {
  path: string;
  version: number;
  blocks: Block[];
  line: number;
  onLine: (line: number) => void;
  onComments: (comments: Comment[]) => void;
  onShow: (line: number) => void;
}) {
  const { path, blocks, line, onLine } = props;
  const list = useLoad(() => api.comments(path), [path, props.version]);
  const [text, setText] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const comments = list.data ?? [];
  useEffect(() => { props.onComments(comments); }, [list.data]);

  const act = async (work: () => Promise<unknown>) => {
    setError(null);
    setBusy(true);
    try { await work(); list.reload(); } catch (e) { setError(e); } finally { setBusy(false); }
  };
  const add = (e: Event) => {
    e.preventDefault();
    if (!text.trim()) return;
    void act(async () => { await api.comment(path, text.trim(), line); setText(''); });
  };
  const open = comments.filter((c) => !c.resolved);
  const resolved = comments.filter((c) => c.resolved);
  const item = (c: Comment) => (
    <li key={c.id} class={`comment${c.resolved ? ' resolved' : ''}`} data-testid="comment">
      <p class="comment-meta small">
        <strong>{c.author}</strong> · {when(c.created)}
        {c.line > 0
          ? <> · <button class="link" onClick={() => props.onShow(c.line)} aria-label={`Show line ${c.line}`}>line {c.line}</button></>
          : <> · the page</>}
        {c.detached && <> · <span class="muted">the line it was on is gone</span></>}
      </p>
      {c.anchor && <blockquote class="anchor small">{c.anchor}</blockquote>}
      <p class="comment-body">{c.body}</p>
      <div class="comment-actions">
        <button disabled={busy} onClick={() => void act(() => api.resolveComment(c.id, !c.resolved))}>{c.resolved ? 'Reopen' : 'Resolve'}</button>
        <button disabled={busy} onClick={() => void act(() => api.deleteComment(c.id))} aria-label={`Delete the comment of ${c.author}`}>Delete</button>
      </div>
    </li>
  );
  return (
    <section class="comments" aria-labelledby="comments-title">
      <h2 id="comments-title">Comments ({open.length})</h2>
      <ErrorNote error={list.error ?? error} />
      <form onSubmit={add} class="comment-form">
        <label>On
          <select value={String(line)} onChange={(e) => onLine(Number(e.currentTarget.value))}>
            <option value="0">The whole page</option>
            {blocks.map((b) => <option key={b.line} value={String(b.line)}>{b.label}</option>)}
          </select>
        </label>
        <label>Comment<textarea rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} /></label>
        <div class="actions"><button class="primary" type="submit" disabled={busy || !text.trim()}>Add comment</button></div>
      </form>
      {open.length > 0 && <ul class="comment-list" aria-label="Open comments">{open.map(item)}</ul>}
      {resolved.length > 0 && (
        <details>
          <summary>Resolved ({resolved.length})</summary>
          <ul class="comment-list" aria-label="Resolved comments">{resolved.map(item)}</ul>
        </details>
      )}
    </section>
  );
}
