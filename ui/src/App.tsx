// The shell: header, sidebar tree, the routed view, search palette, key prompt, live updates.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, settings, whenUnauthorized, type Theme, type TreeNode } from './api';
import { EditorView, NewPage } from './Editor';
import { subscribe } from './events';
import { BoardView } from './Board';
import { CanvasView } from './Canvas';
import { GraphView } from './Graph';
import { HistoryView } from './History';
import { pageHref } from './markdown';
import { MoveDialog } from './MoveDialog';
import { PageView } from './Page';
import { ApprovalsView, LinksView, RestructureView } from './Restructure';
import { navigate, useRoute } from './router';
import { SearchPalette } from './Search';
import { SettingsDialog } from './Settings';
import { applyTheme, effectiveMode, type Mode, savedMode, saveMode } from './theme';
import { filePaths, pagePaths } from './tree';
import { ViewsView } from './Views';
import { FileView, fileKind } from './FileView';
import { invalidatePageIndex } from './pageIndex';
import { QuickSwitcher } from './QuickSwitcher';
import { homePage, recentPages } from './recent';
import { TagsView } from './TagsView';
import { Tree } from './Tree';
import { ErrorNote, Modal, useLoad, when } from './ui';

const prefersDark = () => window.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false;

interface Move { from: string; isDir: boolean; to: string | null; keepLinks: boolean }

export function App() {
  const route = useRoute();
  const [tree, setTree] = useState<TreeNode[]>([]);
  const [treeError, setTreeError] = useState<unknown>(null);
  const [userMode, setUserMode] = useState<Mode | null>(savedMode);
  const [spaceTheme, setSpaceTheme] = useState<Theme | null>(null);
  const [showSettings, setShowSettings] = useState(false);
  const theme = effectiveMode(userMode, spaceTheme, prefersDark());
  const [searching, setSearching] = useState<string | null>(null);
  const [switching, setSwitching] = useState(false);
  const [askKey, setAskKey] = useState(false);
  const [askName, setAskName] = useState(false);
  const [live, setLive] = useState(false);
  const [pageVersion, setPageVersion] = useState(0);
  const [commentsVersion, setCommentsVersion] = useState(0);
  // Bumped (at most every 300 ms) when pages or saved views and workflows change: the board
  // and the views reload with it.
  const [contentVersion, setContentVersion] = useState(0);
  const [move, setMove] = useState<Move | null>(null);
  const [navOpen, setNavOpen] = useState(false);
  const paths = useRef<string[]>([]);
  const files = useRef<string[]>([]);

  const current = route.view === 'page' || route.view === 'edit' || route.view === 'history' ? route.path : null;

  const loadTree = useCallback(() => {
    api.tree().then((t) => { setTree(t); paths.current = pagePaths(t); files.current = filePaths(t); invalidatePageIndex(); setTreeError(null); }, setTreeError);
  }, []);

  const loadTheme = useCallback(() => { api.theme().then(setSpaceTheme, () => setSpaceTheme(null)); }, []);
  useEffect(() => { whenUnauthorized(() => setAskKey(true)); loadTree(); loadTheme(); }, []);

  useEffect(() => { applyTheme(spaceTheme, theme); }, [spaceTheme, theme]);

  // Live updates: the tree on creations and deletions, the open page when it changed.
  const currentRef = useRef(current);
  currentRef.current = current;
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let contentTimer: ReturnType<typeof setTimeout> | undefined;
    const contentChanged = () => {
      if (contentTimer) return;
      contentTimer = setTimeout(() => { contentTimer = undefined; setContentVersion((v) => v + 1); }, 300);
    };
    const stop = subscribe((e) => {
      const open = currentRef.current;
      // Comments of the open page: only the margin reloads.
      if (open && e.paths.length === 1 && e.paths[0] === `.quire/comments/${open}.json`) { setCommentsVersion((v) => v + 1); return; }
      if (e.paths.length > 0 && e.paths.every((p) => p.startsWith('.quire/'))) {
        if (e.paths.some((p) => p.startsWith('.quire/views/') || p.startsWith('.quire/workflows/'))) contentChanged();
        return;
      }
      contentChanged();
      const known = new Set(paths.current);
      if (e.kind !== 'write' || e.paths.some((p) => !known.has(p))) {
        clearTimeout(timer);
        timer = setTimeout(loadTree, 150);
      }
      if (open && e.paths.includes(open) && route.view === 'page') setPageVersion((v) => v + 1);
    }, setLive);
    return () => { stop(); clearTimeout(timer); clearTimeout(contentTimer); };
  }, [route.view]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') { e.preventDefault(); setSwitching(false); setSearching(''); }
      if ((e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === 'o') { e.preventDefault(); setSearching(null); setSwitching(true); }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  useEffect(() => { setNavOpen(false); if (route.view !== 'page') document.title = 'quire'; }, [route]);

  const view = (() => {
    switch (route.view) {
      case 'page':
        if (fileKind(route.path) === 'canvas') return <CanvasView path={route.path} />;
        if (fileKind(route.path) !== 'page') return <FileView path={route.path} />;
        return <PageView path={route.path} version={pageVersion} commentsVersion={commentsVersion} onRename={() => setMove({ from: route.path, isDir: false, to: null, keepLinks: true })} />;
      case 'edit': return <EditorView key={route.path} path={route.path} pages={() => paths.current} isNew={new URLSearchParams(location.search).has('new')} />;
      case 'new': return <NewPage />;
      case 'history': return <HistoryView path={route.path} />;
      case 'search': return <SearchPage q={route.q} onOpen={(q) => setSearching(q)} />;
      case 'restructure': return <RestructureView />;
      case 'approvals': return <ApprovalsView />;
      case 'links': return <LinksView />;
      case 'graph': return <GraphView path={route.path} depth={route.depth} />;
      case 'views': return <ViewsView name={route.name} version={contentVersion} />;
      case 'board': return <BoardView workflow={route.workflow} version={contentVersion} />;
      case 'canvas': return <CanvasView path={route.path} />;
      case 'tags': return <TagsView tag={route.tag} />;
      default: return <Home tree={tree} />;
    }
  })();

  return (
    <div class={`shell${navOpen ? ' nav-open' : ''}`}>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <button class="menu" aria-label="Pages" aria-expanded={navOpen} onClick={() => setNavOpen((o) => !o)}>☰</button>
        <a class="brand" href="/">quire</a>
        <button class="search-button" onClick={() => setSearching('')} aria-keyshortcuts="Control+K Meta+K">
          Search <kbd>Ctrl K</kbd>
        </button>
        <button class="switch-button" onClick={() => setSwitching(true)} aria-keyshortcuts="Control+O Meta+O" title="Open a page by name (Ctrl O)">
          Open <kbd>Ctrl O</kbd>
        </button>
        <nav aria-label="Views" class="views"><ViewLinks /></nav>
        <span class={`live${live ? ' on' : ''}`} title={live ? 'Live updates on' : 'Live updates reconnecting'} aria-label={live ? 'Live updates on' : 'Live updates off'} role="img">●</span>
        <button class="name-button" onClick={() => setAskName(true)} aria-label="Your name">{settings.name() || 'Your name'}</button>
        <button onClick={() => { const next = theme === 'dark' ? 'light' : 'dark'; saveMode(next); setUserMode(next); }} aria-label={`Switch to ${theme === 'dark' ? 'light' : 'dark'} mode`}>
          {theme === 'dark' ? '☀' : '☾'}
        </button>
        <button onClick={() => setShowSettings(true)} aria-label="Settings">⚙</button>
      </header>
      <nav class="side" aria-label="Page tree">
        {navOpen && <nav aria-label="Views (menu)" class="side-views"><ViewLinks /></nav>}
        <ErrorNote error={treeError} />
        <Tree nodes={tree} current={current} onMove={(from, dir, isDir) => setMove({ from, isDir, to: dir ? `${dir}/${from.split('/').pop()}` : from.split('/').pop()!, keepLinks: false })} />
      </nav>
      {view}
      {searching !== null && <SearchPalette initial={searching} onClose={() => setSearching(null)} />}
      {switching && <QuickSwitcher files={() => files.current} onClose={() => setSwitching(false)} />}
      {move && (
        <MoveDialog
          from={move.from}
          isDir={move.isDir}
          to={move.to}
          allowKeepLinks={move.keepLinks}
          onClose={() => setMove(null)}
          onDone={(to) => {
            setMove(null);
            loadTree();
            if (current === move.from && !move.isDir) navigate(pageHref(to), true);
            else setPageVersion((v) => v + 1);
          }}
        />
      )}
      {showSettings && <SettingsDialog theme={spaceTheme} onSaved={setSpaceTheme} onClose={() => setShowSettings(false)} />}
      {askKey && <KeyPrompt onDone={() => { setAskKey(false); loadTree(); loadTheme(); setPageVersion((v) => v + 1); }} />}
      {askName && <NamePrompt onDone={() => setAskName(false)} />}
    </div>
  );
}

/** The app's views, in the header (and in the menu at phone width). */
function ViewLinks() {
  return (
    <>
      <a href="/new">New page</a>
      <a href="/restructure">Restructure</a>
      <a href="/approvals">Approvals</a>
      <a href="/links">Links</a>
      <a href="/tags">Tags</a>
      <a href="/graph">Graph</a>
      <a href="/views">Views</a>
      <a href="/board">Board</a>
      <a href="/canvas">Canvases</a>
    </>
  );
}

/**
 * The start screen: opens the reader's start page, else `Home.md` / `index.md` / `README.md`;
 * without one, the pages this browser opened lately and the latest changes.
 */
function Home({ tree }: { tree: TreeNode[] }) {
  const home = tree.length ? homePage(pagePaths(tree)) : null;
  useEffect(() => { if (home) navigate(pageHref(home), true); }, [home]);
  const recent = recentPages();
  const changes = useLoad(() => api.timeline(15), []);
  const changed = [...new Map((changes.data?.events ?? []).filter((e) => !e.path.startsWith('.')).map((e) => [e.path, e])).values()];
  if (home) return <main id="main" class="narrow" aria-busy="true"><p class="muted">Opening {home}…</p></main>;
  return (
    <main id="main" class="narrow">
      <h1>quire</h1>
      <p>Choose a page in the tree, open one by name with <kbd>Ctrl O</kbd>, search with <kbd>Ctrl K</kbd>, or <a href="/new">write a new page</a>.</p>
      {recent.length > 0 && (
        <section aria-labelledby="recent-title">
          <h2 id="recent-title">Opened lately</h2>
          <ul class="page-list">{recent.map((r) => <li key={r.path}><a href={pageHref(r.path)}>{r.title}</a> <span class="hit-path">{r.path}</span></li>)}</ul>
        </section>
      )}
      {changed.length > 0 && (
        <section aria-labelledby="changed-title">
          <h2 id="changed-title">Changed lately</h2>
          <ul class="page-list">{changed.map((c) => <li key={c.path}><a href={pageHref(c.path)}>{c.path}</a> <span class="muted small">{c.action} by {c.actor}, {when(c.timestamp)}</span></li>)}</ul>
        </section>
      )}
    </main>
  );
}

function SearchPage({ q, onOpen }: { q: string; onOpen: (q: string) => void }) {
  useEffect(() => { onOpen(q); }, [q]);
  return <main id="main" class="narrow"><h1>Search</h1></main>;
}

function KeyPrompt({ onDone }: { onDone: () => void }) {
  const [key, setKey] = useState('');
  return (
    <Modal title="API key needed" onClose={onDone}>
      <form onSubmit={(e) => { e.preventDefault(); settings.setKey(key.trim()); onDone(); }}>
        <p>This server asks for an API key. It is kept for this browser tab only.</p>
        <label>API key <input type="password" autoComplete="off" value={key} onInput={(e) => setKey(e.currentTarget.value)} /></label>
        <div class="actions"><button class="primary" type="submit">Use key</button></div>
      </form>
    </Modal>
  );
}

function NamePrompt({ onDone }: { onDone: () => void }) {
  const [name, setName] = useState(settings.name());
  return (
    <Modal title="Your name" onClose={onDone}>
      <form onSubmit={(e) => { e.preventDefault(); settings.setName(name); onDone(); }}>
        <p>Your changes are committed under this name.</p>
        <label>Name <input value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
        <div class="actions"><button class="primary" type="submit">Save</button></div>
      </form>
    </Modal>
  );
}
