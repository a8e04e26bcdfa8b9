// The Restructure view: write or upload a manifest, see the plan, apply it with its digest.
// Also the pending approvals (a person approves an agent's plan) and link health.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type BrokenLink, type FixBrokenResult, type PendingApproval, type Plan } from './api';
import type { Editor } from './editor/codemirror';
import { pageHref } from './markdown';
import { PlanView } from './PlanView';
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
      editor.current = cm.createEditor(host.current, EXAMPLE, { language: 'manifest', label: 'Manifest (YAML or JSON)', onChange: () => setPlan(null) });
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
    } catch (e) { setError(e); }
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
    </main>
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
