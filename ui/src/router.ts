// Client routes (history API). Every one starts with a prefix that no host route uses
// (DECISIONS §1: /api, /health*, /readyz, /metrics, /p/, /mcp stay the server's); the server
// answers index.html for exactly these prefixes, see crates/quire-ui.
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { view: 'home' }
  | { view: 'page'; path: string }
  | { view: 'edit'; path: string }
  | { view: 'new' }
  | { view: 'history'; path: string }
  | { view: 'search'; q: string }
  | { view: 'restructure' }
  | { view: 'approvals' }
  | { view: 'links' }
  | { view: 'graph'; path?: string; depth?: number }
  | { view: 'views'; name: string }
  | { view: 'board'; workflow: string }
  | { view: 'canvas'; path: string }
  | { view: 'tags'; tag: string };

/** First path segments of client routes; kept in step with `CLIENT_ROUTES` in quire-ui. */
export const CLIENT_PREFIXES = ['page', 'edit', 'new', 'history', 'search', 'restructure', 'approvals', 'links', 'graph', 'views', 'board', 'canvas', 'tags'];

function decodePath(rest: string): string {
  return rest.split('/').map(decodeURIComponent).join('/');
}

export function parseRoute(pathname: string, search = ''): Route {
  const [, first = '', ...rest] = pathname.split('/');
  const tail = rest.join('/');
  switch (first) {
    case 'page': return tail ? { view: 'page', path: decodePath(tail) } : { view: 'home' };
    case 'edit': return tail ? { view: 'edit', path: decodePath(tail) } : { view: 'home' };
    case 'history': return tail ? { view: 'history', path: decodePath(tail) } : { view: 'home' };
    case 'new': return { view: 'new' };
    case 'search': return { view: 'search', q: new URLSearchParams(search).get('q') ?? '' };
    case 'restructure': return { view: 'restructure' };
    case 'approvals': return { view: 'approvals' };
    case 'links': return { view: 'links' };
    case 'graph': { const p = new URLSearchParams(search); return { view: 'graph', path: p.get('path') ?? '', depth: Number(p.get('depth') ?? 1) || 1 }; }
    case 'views': return { view: 'views', name: new URLSearchParams(search).get('name') ?? '' };
    case 'board': return { view: 'board', workflow: new URLSearchParams(search).get('workflow') ?? '' };
    case 'canvas': return { view: 'canvas', path: new URLSearchParams(search).get('path') ?? '' };
    case 'tags': return { view: 'tags', tag: new URLSearchParams(search).get('tag') ?? '' };
    default: return { view: 'home' };
  }
}

const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

export function href(route: Route): string {
  switch (route.view) {
    case 'home': return '/';
    case 'page': return `/page/${encodePath(route.path)}`;
    case 'edit': return `/edit/${encodePath(route.path)}`;
    case 'history': return `/history/${encodePath(route.path)}`;
    case 'search': return `/search?q=${encodeURIComponent(route.q)}`;
    case 'views': return route.name ? `/views?name=${encodeURIComponent(route.name)}` : '/views';
    case 'board': return route.workflow ? `/board?workflow=${encodeURIComponent(route.workflow)}` : '/board';
    case 'canvas': return route.path ? `/canvas?path=${encodeURIComponent(route.path)}` : '/canvas';
    case 'graph': return route.path ? `/graph?path=${encodeURIComponent(route.path)}&depth=${route.depth ?? 1}` : '/graph';
    case 'tags': return route.tag ? `/tags?tag=${encodeURIComponent(route.tag)}` : '/tags';
    default: return `/${route.view}`;
  }
}

const CHANGE = 'quire:navigate';

export function navigate(to: string | Route, replace = false) {
  const url = typeof to === 'string' ? to : href(to);
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  window.dispatchEvent(new Event(CHANGE));
}

export function currentRoute(): Route {
  return parseRoute(location.pathname, location.search);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    window.addEventListener('popstate', update);
    window.addEventListener(CHANGE, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(CHANGE, update);
    };
  }, []);
  return route;
}

/** Same-origin clicks on links to client routes navigate without reloading. */
export function interceptLinks(root: HTMLElement) {
  root.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = (e.target as Element).closest?.('a');
    if (!a || a.target || !a.hasAttribute('href')) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin) return;
    const first = url.pathname.split('/')[1] ?? '';
    if (url.pathname !== '/' && !CLIENT_PREFIXES.includes(first)) return;
    e.preventDefault();
    if (url.pathname === location.pathname && url.search === location.search && url.hash) {
      document.getElementById(decodeURIComponent(url.hash.slice(1)))?.scrollIntoView();
      history.replaceState(null, '', url.href);
      return;
    }
    navigate(url.pathname + url.search + url.hash);
  });
}
