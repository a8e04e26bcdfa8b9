// The Restructure view: write or upload a manifest, see the plan, apply it with its digest.
// Also the pending approvals (a person approves an agent's plan) and link health.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, freshPlan, rewrittenLinks, type BrokenLink, type MoveEntry, type FixBrokenResult, type PendingApproval, type Plan, type RawMove, type RawMoves } from './api';
import type { Editor } from './editor/codemirror';
import { subscribe } from './events';
import { pageHref } from './markdown';
import { PlanView } from './PlanView';
import { pagePaths } from './tree';
import { ErrorNote, useLoad, when } from './ui';

const EXAMPLE = `# Move pages and folders; every link that works now keeps working.
moves:
  - from: notes/old-name.md
    to: notes/new-name.md
`;

async function parseManifest(text: string): Promise<unknown> {
  const { parse } = await import('yaml');
  return parse(text);
}

export function RestructureView() {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<Editor | null>(null);
  const [plan, setPlan] = useState<Plan | null>(null);
  const [manifest, setManifest] = useState<unknown>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [applied, setApplied] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    import('./editor/codemirror').then((cm) => {
      if (!live || !host.current) return;
      // The pages for path completion: read once, when a path is first completed.
      let pages: Promise<string[]> | null = null;
      const paths = () => (pages ??= api.tree().then((t) => pagePaths(t), () => { pages = null; return []; }));
      editor.current = cm.createEditor(host.current, EXAMPLE, { language: 'manifest', paths, label: 'Manifest (YAML or JSON)', onChange: () => setPlan(null) });
    });
    return () => { live = false; editor.current?.destroy(); };
  }, []);

  const review = async () => {
    setBusy(true); setError(null); setPlan(null); setApplied(null);
    try {
      const text = editor.current?.text() ?? '';
      const m = await parseManifest(text);
      setManifest(m);
      setPlan(await api.planJson(m));
    } catch (e) { setError(e); }
    setBusy(false);
  };

  const apply = async () => {
    if (!plan) return;
    setBusy(true); setError(null);
    try {
      const r = await api.apply(manifest, plan.digest);
      setApplied(r.applied.commit ?? 'applied');
      setPlan(null);
    } catch (e) { setError(e); setPlan(freshPlan(e) ?? plan); }
    setBusy(false);
  };

  const upload = async (file: File | undefined) => {
    if (!file) return;
    editor.current?.setText(await file.text());
    setPlan(null);
  };

  return (
    <main id="main" class="restructure">
      <h1>Restructure</h1>
      <p class="muted">Describe moves, merges and edits in a manifest. Planning writes nothing; applying writes one commit that keeps every link working, and can be reverted from the page history.</p>
      <div class="manifest">
        <div ref={host} class="cm-host small" />
        <div class="actions">
          <label class="button">Upload manifest<input type="file" accept=".yaml,.yml,.json" class="visually-hidden" onChange={(e) => void upload(e.currentTarget.files?.[0])} /></label>
          <button class="primary" disabled={busy} onClick={() => void review()}>Plan</button>
        </div>
      </div>
      <ErrorNote error={error} />
      {applied && <p class="success" role="status">Applied as commit <code>{applied.slice(0, 12)}</code>.</p>}
      {plan && (
        <>
          <PlanView plan={plan} />
          <div class="actions">
            <button class="primary" disabled={busy || plan.errors.length > 0 || plan.plan_only.length > 0} onClick={() => void apply()}>Apply plan</button>
          </div>
        </>
      )}
      <RawMovesPanel />
    </main>
  );
}

/** The manifest repairing the links to one raw move: its `relinks` entry from the server's manifest. */
export function relinkManifest(raw: RawMoves, move: RawMove) {
  const entry = raw.manifest?.relinks.find((r) => r.from === move.from) ?? { from: move.from, to: move.to };
  return { relinks: [entry] };
}

const VIA: Record<string, string> = { watcher: 'moved on disk', rename: 'renamed keeping links', 'links-kept': 'moved keeping links' };

/** Files moved outside quire (or without relinking) whose old paths are still linked to. */
function RawMovesPanel() {
  const raw = useLoad(() => api.rawMoves(), []);
  const [message, setMessage] = useState('');
  // A file moved on disk shows up once the watcher has recorded it: reload on changes.
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = subscribe((e) => {
      if (e.kind === 'write' && e.paths.every((p) => p.startsWith('.quire/'))) return;
      clearTimeout(timer);
      timer = setTimeout(raw.reload, 300);
    });
    return () => { stop(); clearTimeout(timer); };
  }, []);
  const list = raw.data?.moves ?? [];
  return (
    <section class="raw-moves" aria-labelledby="raw-moves-title">
      <h2 id="raw-moves-title">Raw moves</h2>
      <p class="muted">Files moved outside quire, or without rewriting links, whose old paths are still linked to. Fixing plans a repair of those links; nothing moves.</p>
      <ErrorNote error={raw.error} />
      {message && <p class="success" role="status">{message}</p>}
      {raw.data && list.length === 0 && <p>No raw moves: every link to a moved file has been repaired.</p>}
      {list.length > 1 && raw.data?.manifest && raw.data.manifest.relinks.length > 1 && (
        <div class="card" data-testid="raw-moves-all">
          <p>All {raw.data.manifest.relinks.length} moves at once: one plan, one commit.</p>
          <RelinkRepair
            key={raw.data.manifest.relinks.map((r) => r.from).join('\u0000')}
            manifest={raw.data.manifest}
            label="Fix links to every raw move"
            text="Fix all"
            what={`${raw.data.manifest.relinks.length} moved files`}
            onDone={(text) => { setMessage(text); raw.reload(); }}
          />
        </div>
      )}
      <ul class="cards">
        {list.map((m) => <RawMoveCard key={`${m.from}\u0000${m.at}`} raw={raw.data!} move={m} onDone={(text) => { setMessage(text); raw.reload(); }} />)}
      </ul>
      <div class="actions"><button onClick={raw.reload}>Refresh</button></div>
    </section>
  );
}

function RawMoveCard({ raw, move, onDone }: { raw: RawMoves; move: RawMove; onDone: (message: string) => void }) {
  const manifest = relinkManifest(raw, move);
  return (
    <li class="card" data-testid="raw-move">
      <p><code>{move.from}</code> → <code>{move.to}</code></p>
      <p class="muted">{VIA[move.via] ?? move.via} by {move.actor}, {when(move.at)}</p>
      <RelinkRepair manifest={manifest} label={`Fix links to ${move.from}`} what={manifest.relinks[0].to} onDone={onDone} />
    </li>
  );
}

/** Plans a `relinks` manifest when asked, shows the plan, applies it once reviewed. */
function RelinkRepair({ manifest, label, text = 'Fix links', what, onDone }: {
  manifest: { relinks: MoveEntry[] };
  label: string;
  text?: string;
  what: string;
  onDone: (message: string) => void;
}) {
  const [plan, setPlan] = useState<Plan | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const review = async () => {
    setBusy(true); setError(null);
    try { setPlan(await api.planJson(manifest)); } catch (e) { setError(e); }
    setBusy(false);
  };
  const apply = async () => {
    if (!plan) return;
    setBusy(true); setError(null);
    try {
      const r = await api.apply(manifest, plan.digest);
      const n = rewrittenLinks(r.plan);
      setPlan(null);
      onDone(`Repaired ${n} link${n === 1 ? '' : 's'} to ${what}${r.applied.commit ? ` (commit ${r.applied.commit.slice(0, 12)})` : ''}.`);
    } catch (e) { setError(e); setPlan(freshPlan(e) ?? plan); }
    setBusy(false);
  };
  return (
    <>
      <ErrorNote error={error} />
      {plan && <PlanView plan={plan} />}
      <div class="actions">
        {!plan && <button class="primary" disabled={busy} aria-label={label} onClick={() => void review()}>{text}</button>}
        {plan && (
          <>
            <button class="primary" disabled={busy || plan.errors.length > 0 || plan.plan_only.length > 0} onClick={() => void apply()}>Apply repair</button>
            <button disabled={busy} onClick={() => setPlan(null)}>Cancel</button>
          </>
        )}
      </div>
    </>
  );
}

export function ApprovalsView() {
  const pending = useLoad(() => api.pending(), []);
  const [message, setMessage] = useState('');
  return (
    <main id="main">
      <h1>Pending approvals</h1>
      <p class="muted">Plans an agent tried to apply that exceed the workspace limits. Approving lets that agent apply exactly this plan once, within the hour.</p>
      <ErrorNote error={pending.error} />
      {message && <p class="success" role="status">{message}</p>}
      {pending.data && pending.data.pending.length === 0 && <p>Nothing waits for approval.</p>}
      <ul class="cards">
        {pending.data?.pending.map((p) => <PendingCard key={p.digest} entry={p} onDone={(m) => { setMessage(m); pending.reload(); }} />)}
      </ul>
    </main>
  );
}

function PendingCard({ entry, onDone }: { entry: PendingApproval; onDone: (message: string) => void }) {
  const [plan, setPlan] = useState<Plan | null>(null);
  const [error, setError] = useState<unknown>(null);
  const review = async () => {
    setError(null);
    try { setPlan(await api.planJson(entry.manifest)); } catch (e) { setError(e); }
  };
  const approve = async () => {
    setError(null);
    try {
      const r = await api.approve(entry.manifest, entry.digest);
      onDone(`Approved the plan of ${entry.actor} (${r.approved.slice(0, 12)}): it may be applied once within ${r.expires_in}.`);
    } catch (e) { setError(e); }
  };
  return (
    <li class="card" data-testid="pending">
      <p><strong>{entry.actor}</strong> via <code>{entry.client}</code>, {when(entry.at)}</p>
      <p>{entry.reason}</p>
      <details><summary>Manifest</summary><pre>{JSON.stringify(entry.manifest, null, 2)}</pre></details>
      <ErrorNote error={error} />
      {plan && <PlanView plan={plan} />}
      <div class="actions">
        <button onClick={() => void review()}>Review plan</button>
        <button class="primary" onClick={() => void approve()}>Approve</button>
      </div>
    </li>
  );
}

export function LinksView() {
  const broken = useLoad(() => api.broken(), []);
  const [preview, setPreview] = useState<FixBrokenResult | null>(null);
  const [done, setDone] = useState<FixBrokenResult | null>(null);
  const [error, setError] = useState<unknown>(null);
  const run = async (dryRun: boolean) => {
    setError(null);
    try {
      const r = await api.fixBroken(dryRun);
      if (dryRun) setPreview(r); else { setDone(r); setPreview(null); broken.reload(); }
    } catch (e) { setError(e); }
  };
  const list: BrokenLink[] = broken.data?.broken ?? [];
  return (
    <main id="main">
      <h1>Broken links</h1>
      <ErrorNote error={broken.error ?? error} />
      {done && <p class="success" role="status">Repaired {done.count} link{done.count === 1 ? '' : 's'}.</p>}
      {broken.data && list.length === 0 && <p>Every link resolves.</p>}
      {list.length > 0 && (
        <>
          <table>
            <thead><tr><th scope="col">Page</th><th scope="col">Line</th><th scope="col">Link</th><th scope="col">Closest page</th></tr></thead>
            <tbody>
              {list.map((b, i) => (
                <tr key={i}>
                  <td><a href={pageHref(b.source)}>{b.source}</a></td>
                  <td>{b.line}</td>
                  <td><code>{b.target}</code></td>
                  <td>{b.best_match ?? <span class="muted">none</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div class="actions">
            <button onClick={() => void run(true)}>Preview repairs</button>
            <button class="primary" onClick={() => void run(false)}>Repair all</button>
          </div>
        </>
      )}
      {preview && (
        <section aria-label="Repairs">
          <h2>{preview.count} repair{preview.count === 1 ? '' : 's'} possible</h2>
          <ul>{preview.fixes.map((f, i) => <li key={i}>{f.source}: <code>{f.old_target}</code> → <code>{f.new_target}</code></li>)}</ul>
          {preview.ambiguous.length > 0 && <p class="muted">{preview.ambiguous.length} ambiguous link(s) left for a person to choose.</p>}
        </section>
      )}
    </main>
  );
}
