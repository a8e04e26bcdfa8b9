// History of a page: its commits, the diff each made, and revert (planned first); or the blame
// (who last changed each line).
import { useEffect, useState } from 'preact/hooks';
import { api, type BlameLine, type Plan, type VersionEntry } from './api';
import { pageHref } from './markdown';
import { href, navigate } from './router';
import { DiffView } from './DiffView';
import { PlanView } from './PlanView';
import { Breadcrumbs } from './Page';
import { ErrorNote, shortHash, useLoad, when } from './ui';

export function HistoryView({ path }: { path: string }) {
  const versions = useLoad(() => api.versions(path), [path]);
  // The selection follows a commit, not a position: a revert adds a commit on top.
  const [selectedHash, setSelectedHash] = useState<string | null>(null);
  const [mode, setMode] = useState<'changes' | 'blame'>('changes');
  const list: VersionEntry[] = versions.data ?? [];
  const found = list.findIndex((v) => v.hash === selectedHash);
  const selected = found >= 0 ? found : 0;
  const setSelected = (i: number) => setSelectedHash(list[i]?.hash ?? null);
  return (
    <main id="main" class="history">
      <Breadcrumbs path={path} />
      <h1>History of <a href={pageHref(path)}>{path}</a></h1>
      <div class="tabs" role="group" aria-label="Show">
        <button aria-pressed={mode === 'changes'} onClick={() => setMode('changes')}>Changes</button>
        <button aria-pressed={mode === 'blame'} onClick={() => setMode('blame')}>Blame</button>
      </div>
      {mode === 'blame' ? <Blame path={path} onCommit={(hash) => {
        if (list.some((v) => v.hash === hash)) { setSelectedHash(hash); setMode('changes'); }
      }} /> : <>
      <ErrorNote error={versions.error} />
      <div class="history-layout">
        <ol class="versions" aria-label="Versions">
          {list.map((v, i) => (
            <li key={v.hash}>
              <button aria-pressed={i === selected} class={i === selected ? 'selected' : ''} onClick={() => setSelected(i)}>
                <span class="msg">{v.message.split('\n')[0]}</span>
                <span class="muted small">{v.author} · {when(v.timestamp)} · <code>{shortHash(v.hash)}</code></span>
              </button>
            </li>
          ))}
        </ol>
        {list[selected] && <VersionDiff path={path} version={list[selected]} previous={list[selected + 1]} onReverted={() => { setSelectedHash(list[selected].hash); versions.reload(); }} />}
      </div>
      </>}
    </main>
  );
}

function VersionDiff({ path, version, previous, onReverted }: { path: string; version: VersionEntry; previous?: VersionEntry; onReverted: () => void }) {
  const [diff, setDiff] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [plan, setPlan] = useState<Plan | null>(null);
  const [reverted, setReverted] = useState<string | null>(null);
  useEffect(() => {
    setDiff(null); setPlan(null); setError(null); setReverted(null);
    // The first version: all of its text, as added lines of one hunk.
    if (!previous) { api.versionText(path, version.hash).then((t) => { const lines = t.replace(/\n$/, '').split('\n'); setDiff(`@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}`).join('\n')}`); }, setError); return; }
    api.diff(path, previous.hash, version.hash).then(setDiff, setError);
  }, [version.hash]);
  const planRevert = async () => {
    setError(null);
    try { setPlan(await api.revertPlan(version.hash)); } catch (e) { setError(e); }
  };
  const revert = async () => {
    if (!plan) return;
    setError(null);
    try {
      const r = await api.revert(version.hash, plan.digest);
      setReverted(r.applied.commit ?? 'done');
      setPlan(null);
      // A revert that moves this page back: its history is where the page now is.
      const back = movedTo(r.plan, path);
      if (back) { navigate(href({ view: 'history', path: back })); return; }
      onReverted();
    } catch (e) { setError(e); }
  };
  return (
    <section class="version" aria-label="Changes of this version">
      <h2>{version.message.split('\n')[0]}</h2>
      <p class="muted">{version.author} · {when(version.timestamp)} · <code>{version.hash}</code></p>
      <ErrorNote error={error} />
      {diff === null ? <p class="muted">Loading…</p> : <DiffView diff={diff} label={`Changes of ${shortHash(version.hash)}`} />}
      {reverted && <p class="success" role="status">Reverted as commit <code>{shortHash(reverted)}</code>.</p>}
      {!reverted && !plan && <button onClick={() => void planRevert()}>Revert this commit…</button>}
      {plan && (
        <>
          <PlanView plan={plan} />
          <div class="actions">
            <button onClick={() => setPlan(null)}>Cancel</button>
            <button class="primary danger" disabled={plan.errors.length > 0} onClick={() => void revert()}>Revert</button>
          </div>
        </>
      )}
    </section>
  );
}

/** Where a revert plan moves `path` (undoing the move that brought it here), if it does. */
export function movedTo(plan: Plan, path: string): string | null {
  return plan.moves.find((m) => m.from === path)?.to ?? null;
}

/** Who last changed each line: the commit, author and date shown once per run of lines. */
export function Blame({ path, onCommit }: { path: string; onCommit: (hash: string) => void }) {
  const blame = useLoad(() => api.blame(path), [path]);
  const lines: BlameLine[] = blame.data ?? [];
  if (blame.error) return <ErrorNote error={blame.error} />;
  if (blame.loading && !blame.data) return <p class="muted">Loading…</p>;
  return (
    <table class="blame" aria-label={`Blame of ${path}`}>
      <thead><tr><th scope="col">Commit</th><th scope="col">Author</th><th scope="col">Date</th><th scope="col">Line</th><th scope="col">Text</th></tr></thead>
      <tbody>
        {lines.map((l, i) => {
          const first = i === 0 || lines[i - 1].hash !== l.hash;
          return (
            <tr key={l.line} class={first ? 'run' : ''}>
              <td>{first && <button class="link" title={`Show the changes of ${l.hash}`} onClick={() => onCommit(l.hash)}><code>{shortHash(l.hash)}</code></button>}</td>
              <td>{first && l.author}</td>
              <td>{first && when(l.timestamp)}</td>
              <td class="num">{l.line}</td>
              <td><code class="line">{l.content}</code></td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
