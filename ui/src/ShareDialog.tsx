// Share links of a page (More actions → Share…): make one (expiry, optional password), copy
// its public URL — shown once, the server keeps only a hash of the token — list the page's
// active links and revoke them.
import { useState } from 'preact/hooks';
import { api, BASE, type ShareLink } from './api';
import { ErrorNote, Modal, useLoad, when } from './ui';

/** Expiry choices as Go durations (what `expiresIn` takes). */
export const EXPIRIES: [string, string][] = [
  ['', 'Never'], ['1h', '1 hour'], ['24h', '1 day'], ['168h', '7 days'], ['720h', '30 days'],
];

export function ShareDialog({ path, onClose }: { path: string; onClose: () => void }) {
  const links = useLoad(() => api.shares(path), [path]);
  const [expires, setExpires] = useState('168h');
  const [password, setPassword] = useState('');
  const [made, setMade] = useState<ShareLink | null>(null);
  const [copied, setCopied] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const create = async (e: Event) => {
    e.preventDefault();
    setError(null); setBusy(true); setCopied('');
    try {
      setMade(await api.share(path, expires, password));
      setPassword('');
      links.reload();
    } catch (err) { setError(err); } finally { setBusy(false); }
  };
  const revoke = async (id: string) => {
    setError(null);
    try {
      await api.revokeShare(id);
      if (made?.id === id) setMade(null);
      links.reload();
    } catch (err) { setError(err); }
  };
  // The answer's `url` names the space; an answer without one is of the space this app uses.
  const publicUrl = made?.token
    ? new URL(made.url ?? `${BASE}/public/${made.token}`, location.origin).href
    : '';
  const copy = async () => {
    try { await navigator.clipboard.writeText(publicUrl); setCopied('Copied to the clipboard'); }
    catch {
      (document.getElementById('share-url') as HTMLInputElement | null)?.select();
      setCopied('Selected: press Ctrl+C to copy');
    }
  };
  const shares = links.data ?? [];
  return (
    <Modal title={`Share ${path}`} onClose={onClose} wide>
      <p>Anyone with a share link can read this page without an API key, until the link expires or is revoked.</p>
      <form onSubmit={(e) => void create(e)} class="share-form">
        <label>Expires after
          <select value={expires} onChange={(e) => setExpires(e.currentTarget.value)}>
            {EXPIRIES.map(([v, l]) => <option key={v} value={v}>{l}</option>)}
          </select>
        </label>
        <label>Password (optional)
          <input type="password" autoComplete="new-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </label>
        <div class="actions"><button class="primary" type="submit" disabled={busy}>Create link</button></div>
      </form>
      <ErrorNote error={error ?? links.error} />
      {made && (
        <section class="new-link" aria-labelledby="new-link-title">
          <h3 id="new-link-title">New link</h3>
          <p class="muted small">Copy it now: it is not shown again.</p>
          <div class="copy-row">
            <label class="grow">Public URL<input id="share-url" readOnly value={publicUrl} onFocus={(e) => e.currentTarget.select()} /></label>
            <button type="button" onClick={() => void copy()}>Copy</button>
          </div>
          <p role="status" class="success small">{copied}</p>
        </section>
      )}
      <h3>Active links ({shares.length})</h3>
      {shares.length === 0 ? <p class="muted">This page has no active share link.</p> : (
        <table aria-label="Active share links">
          <thead><tr><th scope="col">Made</th><th scope="col">Expires</th><th scope="col">Password</th><th scope="col">Views</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {shares.map((s) => (
              <tr key={s.id} data-testid="share">
                <td>{s.createdBy}, {when(s.createdAt)}</td>
                <td>{s.expiresAt ? when(s.expiresAt) : 'never'}</td>
                <td>{s.hasPassword ? 'yes' : 'no'}</td>
                <td>{s.viewCount}</td>
                <td><button class="danger" onClick={() => void revoke(s.id)} aria-label={`Revoke the link made ${when(s.createdAt)}`}>Revoke</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Modal>
  );
}
