// Files that are not pages: images in an image viewer, PDFs in the browser's viewer, audio
// and video in players, text and code read-only with highlighting, anything else offered as
// a download. None of them has an Edit button.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, call, settings } from './api';
import { loadImages } from './enhance';
import { escapeHtml, fileUrl } from './markdown';
import { Breadcrumbs } from './Page';
import { href } from './router';
import { ErrorNote } from './ui';

export type FileKind = 'page' | 'canvas' | 'image' | 'pdf' | 'audio' | 'video' | 'text' | 'other';

const TEXT = /\.(txt|text|js|mjs|cjs|jsx|ts|tsx|css|scss|less|json|jsonc|ya?ml|toml|ini|cfg|conf|py|rs|go|java|kt|c|h|cc|cpp|hpp|cs|rb|php|sh|bash|zsh|fish|sql|html?|xml|csv|tsv|log|lua|swift|r|pl|diff|patch|tex|bib|env|gitignore|org|rst|adoc|mdx)$/i;

/** What a file of the knowledge base is shown as, by its name. */
export function fileKind(path: string): FileKind {
  const p = path.toLowerCase();
  if (p.endsWith('.md')) return 'page';
  if (p.endsWith('.canvas') || p.endsWith('.canvas.json')) return 'canvas';
  if (/\.(png|jpe?g|gif|webp|svg|avif|bmp|ico)$/.test(p)) return 'image';
  if (p.endsWith('.pdf')) return 'pdf';
  if (/\.(mp3|wav|ogg|oga|m4a|flac|opus)$/.test(p)) return 'audio';
  if (/\.(mp4|webm|ogv|mov|mkv)$/.test(p)) return 'video';
  if (TEXT.test(p) || /(^|\/)(readme|license|makefile|dockerfile)$/i.test(p)) return 'text';
  return 'other';
}

/** The highlight.js language of a text file (its extension; highlight.js knows the aliases). */
export function languageOf(path: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? '';
  return ({ mjs: 'js', cjs: 'js', jsonc: 'json', htm: 'html', cfg: 'ini', conf: 'ini', toml: 'ini', zsh: 'bash', h: 'c', cc: 'cpp', hpp: 'cpp' } as Record<string, string>)[ext] ?? ext;
}

const sizeText = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);

/** Downloads a file (with the API key when there is one). */
async function download(path: string) {
  const name = path.split('/').pop()!;
  let url = fileUrl(path);
  if (settings.key()) url = URL.createObjectURL(await (await call('GET', `/file?path=${encodeURIComponent(path)}`)).blob());
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
}

export function FileView({ path }: { path: string }) {
  const kind = fileKind(path);
  const name = path.split('/').pop()!;
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [fit, setFit] = useState(true);
  const [size, setSize] = useState<string>('');
  const body = useRef<HTMLDivElement>(null);

  useEffect(() => { document.title = `${name} · quire`; }, [path]);
  useEffect(() => {
    setText(null); setError(null); setSize('');
    if (kind !== 'text') return;
    let live = true;
    api.read(path).then((f) => { if (live) setText(f.text); }, (e) => live && setError(e));
    return () => { live = false; };
  }, [path]);
  // The viewer's media element gets its bytes as the page's embeds do.
  useEffect(() => { if (body.current) void loadImages(body.current); }, [path, kind]);
  useEffect(() => {
    if (text === null || !body.current) return;
    void import('./highlight').then(({ highlightBelow }) => body.current && highlightBelow(body.current));
  }, [text]);

  const asset = escapeHtml(path);
  const viewer = (() => {
    switch (kind) {
      case 'image':
        return <figure class={`image-viewer${fit ? ' fit' : ''}`}>
          <div class="image-frame" tabIndex={0} role="region" aria-label={`Image ${name}`}
            dangerouslySetInnerHTML={{ __html: `<img data-asset="${asset}" alt="${escapeHtml(name)}">` }}
            onLoadCapture={(e) => { const img = e.target as HTMLImageElement; setSize(`${img.naturalWidth} × ${img.naturalHeight} px`); }} />
          <figcaption class="muted small">{size}</figcaption>
        </figure>;
      case 'pdf':
        return <div dangerouslySetInnerHTML={{ __html: `<iframe class="file-pdf" data-asset="${asset}" title="PDF ${escapeHtml(name)}"></iframe>` }} />;
      case 'audio':
        return <div dangerouslySetInnerHTML={{ __html: `<audio class="embed-audio" controls data-asset="${asset}" title="${escapeHtml(name)}"></audio>` }} />;
      case 'video':
        return <div dangerouslySetInnerHTML={{ __html: `<video class="embed-video" controls data-asset="${asset}" title="${escapeHtml(name)}"></video>` }} />;
      case 'text':
        return text === null ? <p class="muted">Loading…</p> : (
          <pre class="code file-text" tabIndex={0} aria-label={`Contents of ${name}`}><code class={`language-${languageOf(path)}`}>{text}</code></pre>
        );
      default:
        return <p>This file cannot be shown here. <button onClick={() => void download(path).catch(setError)}>Download {name}</button></p>;
    }
  })();

  return (
    <main id="main" class="page file-page">
      <Breadcrumbs path={path} />
      <header class="page-head">
        <h1 class="page-title">{name}</h1>
        <div class="page-actions" role="toolbar" aria-label="File actions">
          {kind === 'image' && <button aria-pressed={!fit} onClick={() => setFit((f) => !f)}>{fit ? 'Actual size' : 'Fit to window'}</button>}
          <button onClick={() => void download(path).catch(setError)}>Download</button>
          <a class="button" href={href({ view: 'history', path })}>History</a>
        </div>
      </header>
      <p class="muted small">{kind === 'text' ? 'Read-only' : kind === 'other' ? 'File' : kind.toUpperCase()}{text !== null ? ` · ${sizeText(new TextEncoder().encode(text).length)}` : ''}</p>
      <ErrorNote error={error} />
      <div ref={body} class="file-body">{viewer}</div>
    </main>
  );
}
