// The REST client: every call goes to /api/quire with the web UI's client name, the key the
// user typed (kept in sessionStorage) and the user's name as X-Actor.

export const BASE = '/api/quire';
const KEY_STORAGE = 'quire.apiKey';
const NAME_STORAGE = 'quire.name';

export interface TreeNode {
  path: string;
  name: string;
  isDir: boolean;
  size: number;
  children?: TreeNode[];
}
export interface Heading { level: number; text: string; slug: string }
export interface ResolvedLinks {
  resolved: Record<string, { path: string; title: string }>;
  unresolved: string[];
}
export interface Backlink { path: string; title: string; context: string; line: number }
export interface PeekLink { target: string; path: string | null }
export interface Peek {
  path: string;
  title: string;
  snippet: string;
  frontmatter: Record<string, unknown>;
  links_out: PeekLink[];
  links_in: string[];
  headings: Heading[];
  word_count: number;
}
export interface SearchHit { path: string; title: string; score: number; snippet: string }
export interface SearchResults {
  query: string; total: number; limit: number; offset: number; engine: string; results: SearchHit[];
  /** `any`: no page has every word; these have some of them. */
  matching?: 'all' | 'any';
  /** `hybrid`: ranked by words (BM25) and meaning (vectors) together. */
  mode?: 'bm25' | 'hybrid' | 'grep';
}
export interface Suggestion { target: string; title: string; similarity: number; snippet: string }
export interface WriteResult { path: string; etag: string; created: boolean; commit?: string }
export interface VersionEntry { hash: string; author: string; message: string; timestamp: string }
export interface PathChange { from: string; to: string }
export interface LinkChange { line: number; old: string; new: string }
export interface PageEdit { path: string; from?: string | null; links: LinkChange[] }
export interface Conflict { path: string; detail: string; code: string; from?: string; with?: string }
export interface FileDiff { path: string; diff: string }
export interface Plan {
  digest: string;
  moves: PathChange[];
  merges: PathChange[];
  edits: PageEdit[];
  content_edits: { path: string; changes: string[] }[];
  errors: string[];
  rejected: { path: string; error: string }[];
  conflicts: Conflict[];
  plan_only: string[];
  warnings: string[];
  approval?: { required: boolean; reason: string } | null;
  integrity: { unresolved: { source: string; target: string }[]; orphaned: { path: string }[]; complete: boolean };
  stats: { pages: number; links: number; rewritten: number; unresolved: number };
  diffs?: FileDiff[];
  reverts?: string;
}
export interface Applied {
  applied: { written: number; deleted: number; side_files: number; removed_dirs: number; commit?: string };
  plan: Plan;
}
export interface PendingApproval {
  digest: string; manifest: unknown; actor: string; client: string; reason: string; at: string;
}
export interface BrokenLink {
  source: string; line: number; target: string; best_match?: string | null; candidates: string[];
}
export interface FixBrokenResult {
  fixes: { source: string; old_target: string; new_target: string }[];
  count: number; dry_run: boolean; ambiguous: BrokenLink[];
}
/** A file moved without relinking (`via`: `rename`, `links-kept` or `watcher`, seen on disk). */
export interface RawMove { from: string; to: string; actor: string; at: string; via: string }
export interface MoveEntry { from?: string; from_regex?: string; to: string }
/** `GET /refactor/raw-moves`: the raw moves still referenced, and a `relinks` manifest repairing them. */
export interface RawMoves { moves: RawMove[]; manifest?: { relinks: MoveEntry[] } | null }
export interface GraphData {
  nodes: { id: string; title: string; group: string }[];
  edges: { source: string; target: string }[];
}

export interface Comment {
  id: string; path: string; line: number; author: string; body: string; resolved: boolean;
  created: string; anchor?: string | null; detached?: boolean;
}
export interface ShareLink {
  id: string; path: string; createdBy: string; createdAt: string; expiresAt?: string | null;
  viewCount: number; hasPassword: boolean; token?: string | null; url?: string | null;
}
export interface Publication {
  path: string; published: boolean; published_at?: string | null; url?: string | null; etag?: string | null; title?: string | null;
}
export interface BlameLine { line: number; content: string; hash: string; author: string; timestamp: string }
export interface Theme { primary: string; mode: string }

export interface SavedView { name: string; query: string; layout?: string; [k: string]: unknown }
export interface ViewResult {
  view: SavedView; mode: string; headers: string[]; rows: unknown[][]; total: number; limit: number; offset: number;
  groups?: { key: unknown; total: number; offset: number }[] | null;
}
export interface WorkflowDef {
  name: string; initial?: string | null;
  states: { name: string; color?: string | null; terminal?: boolean }[];
  transitions?: { from: string; to: string; required_role?: string | null }[];
}
export interface BoardCard { path: string; title: string; fields?: Record<string, unknown> }
export interface WorkflowBoard { workflow: string; board: Record<string, BoardCard[]>; states: string[] }
/** A node as stored: JSON Canvas's shape, or the spec's (`id`, `type`, `x`, `y`, `data`, no size). */
export interface StoredCanvasNode {
  id: string; type: string; x: number; y: number; width?: number | null; height?: number | null;
  text?: string | null; file?: string | null; url?: string | null; label?: string | null; color?: string | null; subpath?: string | null;
  data?: unknown;
}
/** A node as drawn: with a size and, for the spec's shape, the text its `data` holds. */
export interface CanvasNode extends StoredCanvasNode { width: number; height: number }
export interface CanvasEdge {
  id: string; fromNode: string; toNode: string; fromSide?: string | null; toSide?: string | null;
  fromEnd?: string | null; toEnd?: string | null; label?: string | null; color?: string | null;
}
export interface CanvasData { nodes: CanvasNode[]; edges: CanvasEdge[] }
export interface StoredCanvas { nodes: StoredCanvasNode[]; edges: CanvasEdge[] }

/** An error answer of the API: its status and the `error` text of its body. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string, readonly body: Record<string, unknown> = {}) {
    super(message);
  }
}

/**
 * The plan a refused apply carries when the workspace changed since the review (409 with
 * `plan`): shown in place of the stale one, to be reviewed and applied again.
 */
export function freshPlan(e: unknown): Plan | null {
  if (!(e instanceof ApiError) || e.status !== 409) return null;
  const plan = e.body.plan as Plan | undefined;
  return plan && typeof plan.digest === 'string' ? plan : null;
}

export const settings = {
  key(): string { return sessionStorage.getItem(KEY_STORAGE) ?? ''; },
  setKey(key: string) {
    if (key) sessionStorage.setItem(KEY_STORAGE, key);
    else sessionStorage.removeItem(KEY_STORAGE);
  },
  name(): string { return localStorage.getItem(NAME_STORAGE) ?? ''; },
  setName(name: string) {
    if (name.trim()) localStorage.setItem(NAME_STORAGE, name.trim());
    else localStorage.removeItem(NAME_STORAGE);
  },
};

/** Called with every 401, so the shell can ask for a key. */
let onUnauthorized: () => void = () => {};
export function whenUnauthorized(handler: () => void) { onUnauthorized = handler; }

export function headers(extra: Record<string, string> = {}): Record<string, string> {
  const h: Record<string, string> = { 'X-Quire-Client': 'web-ui', ...extra };
  const key = settings.key();
  if (key) h.Authorization = `Bearer ${key}`;
  const name = settings.name();
  if (name) h['X-Actor'] = name;
  return h;
}

export async function call(method: string, path: string, init: { body?: BodyInit; headers?: Record<string, string> } = {}): Promise<Response> {
  const response = await fetch(BASE + path, { method, body: init.body, headers: headers(init.headers) });
  if (!response.ok) {
    let body: Record<string, unknown> = {};
    try { body = await response.json(); } catch { /* not JSON */ }
    if (response.status === 401) onUnauthorized();
    const message = typeof body.error === 'string' ? body.error : `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message, body);
  }
  return response;
}

async function json<T>(method: string, path: string, body?: unknown): Promise<T> {
  const init = body === undefined ? {} : { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } };
  return (await call(method, path, init)).json() as Promise<T>;
}

const q = (params: Record<string, string | number | boolean | undefined>) => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) s.set(k, String(v));
  return `?${s}`;
};

export const api = {
  tree: () => json<TreeNode[]>('GET', '/tree'),
  async read(path: string): Promise<{ text: string; etag: string }> {
    const r = await call('GET', `/file${q({ path })}`);
    return { text: await r.text(), etag: (r.headers.get('ETag') ?? '').replace(/"/g, '') };
  },
  async write(path: string, text: string, etag?: string): Promise<WriteResult> {
    const extra: Record<string, string> = { 'Content-Type': 'text/markdown' };
    if (etag) extra['If-Match'] = `"${etag}"`;
    return (await call('PUT', `/file${q({ path })}`, { body: text, headers: extra })).json();
  },
  peek: (path: string) => json<Peek>('GET', `/peek${q({ path })}`),
  resolve: (from: string, links: string[]) => json<ResolvedLinks>('POST', '/resolve-links', { from, links }),
  backlinks: (path: string) => json<Backlink[]>('GET', `/backlinks${q({ path })}`),
  search: (query: string, limit = 20, mode?: 'bm25' | 'hybrid') => json<SearchResults>('GET', `/search${q({ q: query, limit, mode })}`),
  suggestions: (path: string, limit = 8) => json<{ path: string; suggestions: Suggestion[] }>('GET', `/suggestions${q({ path, limit })}`),
  versions: (path: string) => json<VersionEntry[]>('GET', `/versions${q({ path })}`),
  async versionText(path: string, version: string): Promise<string> {
    return (await call('GET', `/version${q({ path, version })}`)).text();
  },
  async diff(path: string, from: string, to: string): Promise<string> {
    return (await call('GET', `/diff${q({ path, from, to })}`)).text();
  },
  async plan(manifest: string, yaml: boolean): Promise<Plan> {
    const r = await call('POST', '/refactor/plan?diffs=true', {
      body: manifest, headers: { 'Content-Type': yaml ? 'application/yaml' : 'application/json' },
    });
    return r.json();
  },
  planJson: (manifest: unknown) => json<Plan>('POST', '/refactor/plan?diffs=true', manifest),
  apply: (manifest: unknown, digest: string) => json<Applied>('POST', '/refactor/apply', { manifest, digest }),
  revertPlan: (commit: string) => json<Plan>('POST', '/refactor/revert', { commit, dry_run: true }),
  revert: (commit: string, digest: string) => json<Applied>('POST', '/refactor/revert', { commit, digest }),
  pending: () => json<{ pending: PendingApproval[] }>('GET', '/refactor/pending'),
  approve: (manifest: unknown, digest: string) => json<{ approved: string; expires_in: string }>('POST', '/refactor/approve', { manifest, digest }),
  broken: () => json<{ broken: BrokenLink[]; count: number }>('GET', '/links/broken'),
  fixBroken: (dryRun: boolean) => json<FixBrokenResult>('POST', '/refactor/fix-broken', { dry_run: dryRun }),
  rawMoves: () => json<RawMoves>('GET', '/refactor/raw-moves'),
  graph: () => json<GraphData>('GET', '/graph'),
  query: (dql: string) => json<{ mode: string; headers: string[]; rows: unknown[][] }>('GET', `/query${q({ q: dql })}`),
  timeline: (limit = 15) => json<{ events: { seq: string; path: string; action: string; actor: string; timestamp: string }[]; total: number }>('GET', `/timeline${q({ limit })}`),
  section: (path: string, heading: string) => json<{ path: string; heading: string; level: number; content: string; line_start: number; line_end: number }>('GET', `/section${q({ path, heading })}`),
  templates: () => json<string[]>('GET', '/templates'),
  async template(name: string, title: string): Promise<string> {
    return (await call('GET', `/template${q({ name, title })}`)).text();
  },
  async upload(file: File): Promise<{ path: string }> {
    const form = new FormData();
    form.append('file', file, file.name);
    return (await call('POST', '/assets', { body: form })).json();
  },
  views: () => json<{ views: SavedView[] }>('GET', '/views'),
  executeView: (name: string, offset = 0, limit = 50) => json<ViewResult>('GET', `/views/${encodeURIComponent(name)}/execute${q({ offset, limit })}`),
  workflows: () => json<{ workflows: WorkflowDef[] }>('GET', '/workflows'),
  board: (workflow: string) => json<WorkflowBoard>('GET', `/workflow/board/${encodeURIComponent(workflow)}`),
  advance: (path: string, target_state: string) => json<{ path: string; state: string; from?: string | null }>('POST', '/workflow/advance', { path, target_state }),
  canvases: () => json<{ canvases: string[] }>('GET', '/canvases'),
  canvas: (path: string) => json<StoredCanvas>('GET', `/canvas${q({ path })}`),
  /** `PATCH /canvas`: operations applied together (`update_node` moves a node). */
  patchCanvas: (path: string, operations: unknown[]) => json<{ path: string; etag?: string }>('PATCH', `/canvas${q({ path })}`, { operations }),
  toc: (path: string) => json<Heading[]>('GET', `/toc${q({ path })}`),
  blame: (path: string) => json<BlameLine[]>('GET', `/blame${q({ path })}`),
  comments: (path: string) => json<Comment[]>('GET', `/comments${q({ path })}`),
  comment: (path: string, body: string, line: number) => json<Comment>('POST', `/comments${q({ path })}`, { body, line }),
  resolveComment: (id: string, resolved: boolean) => json<Comment>('PATCH', `/comments/${encodeURIComponent(id)}`, { resolved }),
  deleteComment: (id: string) => json<{ deleted: string; path: string }>('DELETE', `/comments/${encodeURIComponent(id)}`),
  shares: (path: string) => json<ShareLink[]>('GET', `/share${q({ path })}`),
  share: (path: string, expiresIn?: string, password?: string) => json<ShareLink>('POST', '/share', { path, expiresIn: expiresIn || undefined, password: password || undefined }),
  revokeShare: (id: string) => json<{ revoked: string }>('DELETE', `/share/${encodeURIComponent(id)}`),
  publish: (path: string) => json<Publication>('POST', '/publish', { path }),
  unpublish: (path: string) => json<Publication>('POST', '/unpublish', { path }),
  theme: () => json<Theme>('GET', '/theme'),
  setTheme: (theme: Theme) => json<Theme>('PUT', '/theme', theme),
};

export const moves = {
  /** Move or rename without rewriting links (More actions → Move / Rename). */
  renameKeepingLinks: (from: string, to: string) =>
    json<{ from: string; to: string; etag: string; updated_links: number }>('POST', '/rename', { from, to, relink: false }),
};

/** Links a plan rewrites, over every page. */
export function rewrittenLinks(plan: Plan): number {
  return plan.edits.reduce((n, e) => n + e.links.length, 0);
}
