// Editing a page: CodeMirror (loaded on first use), save with If-Match. A 409 means someone
// saved in between: both versions are shown, and the user merges before saving again. Files
// dropped on or pasted into the editor are uploaded (`POST /assets`) and linked at that place.
// A new page may start from a template (`?template=`).
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from './api';
import type { Editor as CodeEditor } from './editor/codemirror';
import { assetMarkdown, pageHref } from './markdown';
import { navigate } from './router';
import { ErrorNote, useLoad } from './ui';

export interface ConflictState { mine: string; theirs: string; theirEtag: string }

export function EditorView({ path, pages, isNew }: { path: string; pages: () => string[]; isNew?: boolean }) {
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<CodeEditor | null>(null);
  const etag = useRef<string | undefined>(undefined);
  const [ready, setReady] = useState(false);
  const [dirty, setDirty] = useState(false);
  const [status, setStatus] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [conflict, setConflict] = useState<ConflictState | null>(null);
  const [preview, setPreview] = useState(() => localStorage.getItem('quire.livePreview') !== 'off');

  useEffect(() => {
    let live = true;
    const title = path.split('/').pop()!.replace(/\.md$/, '');
    const template = new URLSearchParams(location.search).get('template');
    const load = !isNew ? api.read(path)
      : template ? api.template(template, title).then((text) => ({ text, etag: undefined as string | undefined }))
      : Promise.resolve({ text: `# ${title}\n\n`, etag: undefined as string | undefined });
    Promise.all([load, import('./editor/codemirror')]).then(([file, cm]) => {
      if (!live || !host.current) return;
      etag.current = file.etag;
      editor.current = cm.createEditor(host.current, file.text, {
        label: `Markdown of ${path}`,
        preview,
        completions: {
          pages,
          headings: async (target) => {
            const r = await api.resolve(path, [`[[${target}]]`]);
            const hit = r.resolved[`[[${target}]]`];
            return hit ? (await api.peek(hit.path)).headings : [];
          },
        },
        onChange: () => setDirty(true),
        onSave: () => void save(),
        upload: async (file) => {
          setError(null);
          setStatus(`Uploading ${file.name}…`);
          try {
            const stored = await api.upload(file);
            setStatus(`Uploaded ${stored.path}`);
            return assetMarkdown(path, stored.path, file.name || stored.path.split('/').pop()!);
          } catch (e) { setStatus(''); setError(e); return ''; }
        },
      });
      setReady(true);
      if (isNew) setDirty(true);
      editor.current.view.focus();
    }, (e) => live && setError(e));
    return () => { live = false; editor.current?.destroy(); editor.current = null; };
  }, [path]);

  const save = async (text = editor.current?.text(), ifMatch = etag.current) => {
    if (text === undefined) return;
    setError(null);
    setStatus('Saving…');
    try {
      if (isNew && !ifMatch) {
        // A new page must not replace one that exists.
        const exists = await api.read(path).then(() => true, (e) => (e instanceof ApiError && e.status === 404 ? false : Promise.reject(e)));
        if (exists) throw new Error(`${path} already exists; choose another name`);
      }
      const r = await api.write(path, text, ifMatch);
      etag.current = r.etag;
      setDirty(false);
      setConflict(null);
      setStatus('Saved');
      if (isNew) navigate(`/edit/${path.split('/').map(encodeURIComponent).join('/')}`, true);
    } catch (e) {
      setStatus('');
      if (e instanceof ApiError && e.status === 409) {
        const theirs = await api.read(path);
        setConflict({ mine: text, theirs: theirs.text, theirEtag: theirs.etag });
      } else setError(e);
    }
  };

  return (
    <main id="main" class="editor-page">
      <header class="page-head">
        <h1 class="page-title">{isNew ? 'New page' : 'Editing'} <code>{path}</code></h1>
        <div class="page-actions" role="toolbar" aria-label="Editor actions">
          <span class="status" role="status">{status}{dirty ? ' (unsaved changes)' : ''}</span>
          <button aria-pressed={preview} disabled={!ready} title="Live preview hides the markup off the cursor's line; off shows the source" onClick={() => {
            const on = !preview;
            setPreview(on);
            localStorage.setItem('quire.livePreview', on ? 'on' : 'off');
            editor.current?.setPreview(on);
          }}>Live preview</button>
          <button class="primary" disabled={!ready} onClick={() => void save()}>Save</button>
          {!isNew && <a class="button" href={pageHref(path)}>Done</a>}
        </div>
      </header>
      <ErrorNote error={error} />
      {conflict && (
        <ConflictPanel
          conflict={conflict}
          onResolve={(merged) => { editor.current?.setText(merged); void save(merged, conflict.theirEtag); }}
          onCancel={() => setConflict(null)}
        />
      )}
      <div ref={host} class="cm-host" />
    </main>
  );
}

/** Both versions side by side, and a merged text the user edits (starting from theirs plus mine). */
export function ConflictPanel({ conflict, onResolve, onCancel }: { conflict: ConflictState; onResolve: (merged: string) => void; onCancel: () => void }) {
  const [merged, setMerged] = useState(conflict.mine);
  return (
    <section class="conflict" aria-labelledby="conflict-title" role="region">
      <h2 id="conflict-title">Someone saved this page while you were editing</h2>
      <p>Your save was refused so nothing was overwritten. Merge the two versions below, then save the result.</p>
      <div class="versions">
        <label>Their version (saved)<textarea readOnly value={conflict.theirs} rows={12} /></label>
        <label>Your version<textarea readOnly value={conflict.mine} rows={12} /></label>
      </div>
      <label>Merged result<textarea value={merged} rows={12} onInput={(e) => setMerged(e.currentTarget.value)} /></label>
      <div class="actions">
        <button onClick={() => setMerged(conflict.theirs)}>Start from theirs</button>
        <button onClick={() => setMerged(conflict.mine)}>Start from mine</button>
        <button onClick={onCancel}>Keep editing</button>
        <button class="primary" onClick={() => onResolve(merged)}>Save merged version</button>
      </div>
    </section>
  );
}

export function NewPage() {
  const [path, setPath] = useState('');
  const [template, setTemplate] = useState('');
  const templates = useLoad(() => api.templates(), []);
  const clean = path.trim().replace(/^\/+/, '');
  const full = clean && !clean.endsWith('.md') ? `${clean}.md` : clean;
  const names = templates.data ?? [];
  return (
    <main id="main" class="narrow">
      <h1>New page</h1>
      <form onSubmit={(e) => {
        e.preventDefault();
        if (full) navigate(`/edit/${full.split('/').map(encodeURIComponent).join('/')}?new=1${template ? `&template=${encodeURIComponent(template)}` : ''}`);
      }}>
        <label>Path of the new page <input value={path} placeholder="notes/My page" onInput={(e) => setPath(e.currentTarget.value)} required /></label>
        <label>Template
          <select value={template} onChange={(e) => setTemplate(e.currentTarget.value)} disabled={!names.length}>
            <option value="">{names.length ? 'None (a heading only)' : 'None (no templates in .quire/templates/)'}</option>
            {names.map((n) => <option key={n} value={n}>{n}</option>)}
          </select>
        </label>
        <ErrorNote error={templates.error} />
        <button class="primary" type="submit" disabled={!full}>Create</button>
      </form>
    </main>
  );
}
