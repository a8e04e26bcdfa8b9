// Settings: the space's theme (`PUT /theme`, for every reader) — refused with 403 while the
// server locks it (`[ui] theme_locked`), which is said as such.
import { useState } from 'preact/hooks';
import { api, ApiError, type Theme } from './api';
import { setStartPage, startPage } from './recent';
import { ErrorNote, Modal } from './ui';

export function SettingsDialog({ theme, onSaved, onClose }: { theme: Theme | null; onSaved: (t: Theme) => void; onClose: () => void }) {
  const [primary, setPrimary] = useState(theme?.primary && /^#[0-9a-f]{6}$/i.test(theme.primary) ? theme.primary : '#4f46e5');
  const [mode, setMode] = useState(theme?.mode ?? 'system');
  const [error, setError] = useState<unknown>(null);
  const [locked, setLocked] = useState('');
  const [status, setStatus] = useState('');
  const [start, setStart] = useState(startPage());
  const save = async (e: Event) => {
    e.preventDefault();
    setError(null); setStatus('');
    try {
      const saved = await api.setTheme({ primary, mode });
      onSaved(saved);
      setStatus('Theme saved for every reader of this space.');
    } catch (err) {
      if (err instanceof ApiError && err.status === 403) setLocked(err.message);
      else setError(err);
    }
  };
  return (
    <Modal title="Settings" onClose={onClose}>
      <form onSubmit={(e) => void save(e)}>
        <h3>Theme of this space</h3>
        <p class="muted small">Everyone reading this space sees it. Your own light or dark choice (the ☾ button) stays yours.</p>
        <label>Accent colour <input type="color" value={primary} onInput={(e) => setPrimary(e.currentTarget.value)} /></label>
        <label>Default mode
          <select value={mode} onChange={(e) => setMode(e.currentTarget.value)}>
            <option value="system">Follow the reader's device</option>
            <option value="light">Light</option>
            <option value="dark">Dark</option>
          </select>
        </label>
        {locked && <p class="error" role="alert">The theme is locked by the server's configuration ({locked}).</p>}
        <ErrorNote error={error} />
        <p class="success" role="status">{status}</p>
        <div class="actions">
          <button type="button" onClick={onClose}>Done</button>
          <button class="primary" type="submit" disabled={!!locked}>Save theme</button>
        </div>
      </form>
      <form onSubmit={(e) => { e.preventDefault(); setStartPage(start); setStatus(start.trim() ? `Start page: ${start.trim()}` : 'Start page: Home.md or index.md'); }}>
        <h3>Start page (this browser)</h3>
        <label>Page opened at <code>/</code>
          <input value={start} placeholder="Home.md or index.md when empty" onInput={(e) => setStart(e.currentTarget.value)} />
        </label>
        <div class="actions"><button type="submit">Save start page</button></div>
      </form>
    </Modal>
  );
}
