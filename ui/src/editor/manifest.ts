// Completion of restructuring-manifest keys in the YAML editor of the Restructure view. The
// schema mirrors `quire_api::Manifest` (spec "Manifest"): which keys a manifest, each kind of
// entry and an edit's `select` and `replace` accept. The place in the document is found from
// the indentation of the lines above, so half-written YAML still completes.
import type { Completion, CompletionContext, CompletionResult } from '@codemirror/autocomplete';

type Shape = 'scalar' | 'list' | 'map';
interface Key { shape: Shape; info: string }
type Keys = Record<string, Key>;

const scalar = (info: string): Key => ({ shape: 'scalar', info });
const list = (info: string): Key => ({ shape: 'list', info });
const map = (info: string): Key => ({ shape: 'map', info });

const MOVE: Keys = {
  from: scalar('A file, a folder (`a/`) or a glob'),
  from_regex: scalar('A regular expression on paths; `to` may use $1…'),
  to: scalar('Where it goes (a folder ends with `/`)'),
};

/** The keys accepted at each place of a manifest, by the dotted path of parent keys. */
export const MANIFEST_SCHEMA: Record<string, Keys> = {
  '': {
    moves: list('Move files or folders; links to them are rewritten'),
    merges: list('Fold a page into another; the first is deleted'),
    edits: list('Frontmatter and text changes on selected pages'),
    rename_tags: list('Rename a tag in frontmatter and inline #tags'),
    relinks: list('Repair links after moves made outside quire; moves nothing'),
    split: map('Break a page into one page per heading'),
    delete_empty_dirs: scalar('Remove folders the moves leave empty (true/false)'),
    now: scalar('RFC 3339 time that clock expressions see'),
  },
  moves: MOVE,
  relinks: MOVE,
  merges: {
    from: scalar('The page folded in (deleted)'),
    into: scalar('The page that receives it'),
  },
  edits: {
    select: map('Which pages: paths, glob, query'),
    when: scalar('A condition on each selected page'),
    set: map('Frontmatter fields to set'),
    compute: map('Frontmatter fields computed from expressions'),
    unset: list('Frontmatter fields to remove'),
    add_tags: list('Tags to add'),
    remove_tags: list('Tags to remove'),
    replace: list('Text replacements (find, with, regex)'),
    move_to: scalar('Move each selected page (a template path)'),
    on_conflict: scalar('`error` (default) or `suffix("-%d")`'),
    force: scalar('Apply even where a page changed since planning (true/false)'),
  },
  'edits.select': {
    paths: list('Page paths'),
    glob: scalar('A glob on paths'),
    query: scalar('A DQL query'),
  },
  'edits.replace': {
    find: scalar('Text (or a pattern) to find'),
    with: scalar('Its replacement'),
    regex: scalar('`find` is a regular expression (true/false)'),
  },
  rename_tags: {
    from: scalar('The tag now'),
    to: scalar('Its new name'),
  },
  split: {
    from: scalar('The page to split'),
    level: scalar('Heading level to split at (default 2)'),
    into: scalar('Folder for the new pages'),
    confirm: scalar('Confirm a split that writes many pages (true/false)'),
  },
};

interface Line { column: number; key: string | null; hasValue: boolean }

/** Where a line's key starts (after indentation and `- ` markers), the key and whether a value follows. */
function parseLine(text: string): Line | null {
  const m = /^(\s*)((?:-\s+)*)(.*)$/.exec(text)!;
  const rest = m[3];
  if (!m[2] && (rest === '' || rest.startsWith('#'))) return null;
  const key = /^([A-Za-z_][\w-]*)\s*:(.*)$/.exec(rest);
  return {
    column: m[1].length + m[2].length,
    key: key ? key[1] : null,
    hasValue: key ? key[2].trim() !== '' && !key[2].trim().startsWith('#') : true,
  };
}

/** The parent keys of a key written at `column` on line `lineNo` (1-based) of `lines`. */
export function parentPath(lines: string[], lineNo: number, column: number): string[] {
  const path: string[] = [];
  let col = column;
  for (let i = lineNo - 2; i >= 0 && col > 0; i--) {
    const line = parseLine(lines[i]);
    if (!line || line.column >= col) continue;
    if (!line.key || line.hasValue) return ['?'];
    path.unshift(line.key);
    col = line.column;
  }
  return path;
}

/**
 * The parent keys of the JSON object `text` ends inside, or null when `text` is not inside an
 * object (arrays take the key that opened them, so an entry of `moves` is under `moves`).
 */
export function jsonPath(text: string): string[] | null {
  const stack: { kind: '{' | '['; name: string | null }[] = [];
  let lastString: string | null = null;
  let pendingKey: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      lastString = text.slice(i + 1, j);
      i = j;
    } else if (c === ':') {
      pendingKey = lastString;
    } else if (c === '{' || c === '[') {
      const top = stack[stack.length - 1];
      stack.push({ kind: c, name: top?.kind === '[' ? top.name : pendingKey });
      pendingKey = null;
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      pendingKey = null;
    }
  }
  const top = stack[stack.length - 1];
  if (!top || top.kind !== '{') return null;
  return stack.filter((s, i) => i > 0 && s.kind === '{').map((s) => s.name ?? '?');
}

/** Completes a quoted key of a manifest written as JSON. */
function jsonCompletion(ctx: CompletionContext): CompletionResult | null {
  const before = ctx.state.sliceDoc(0, ctx.pos);
  const m = /[{,]\s*"([A-Za-z_]*)$/.exec(before);
  if (!m) return null;
  const path = jsonPath(before.slice(0, m.index + 1));
  const keys = path && MANIFEST_SCHEMA[path.join('.')];
  if (!keys) return null;
  const closing = ctx.state.sliceDoc(ctx.pos, ctx.pos + 1) === '"';
  return {
    from: ctx.pos - m[1].length,
    to: ctx.pos + (closing ? 1 : 0),
    options: Object.entries(keys).map(([k, key]) => ({
      label: k,
      type: 'property',
      info: key.info,
      detail: key.shape === 'scalar' ? undefined : key.shape,
      apply: `${k}": ${key.shape === 'list' ? '[' : key.shape === 'map' ? '{' : ''}`,
    })),
    validFor: /^[A-Za-z_]*$/,
  };
}

/** Completes manifest keys where a key is being written (not after `key:`), in YAML or JSON. */
export function manifestCompletion(ctx: CompletionContext): CompletionResult | null {
  if (/^\s*[{[]/.test(ctx.state.sliceDoc(0, Math.min(ctx.state.doc.length, 200)))) return jsonCompletion(ctx);
  const line = ctx.state.doc.lineAt(ctx.pos);
  const before = line.text.slice(0, ctx.pos - line.from);
  const m = /^(\s*)((?:-\s+)*)([A-Za-z_]*)$/.exec(before);
  if (!m) return null;
  if (!m[3] && !ctx.explicit) return null;
  const column = m[1].length + m[2].length;
  const lines = ctx.state.doc.toString().split('\n');
  const keys = MANIFEST_SCHEMA[parentPath(lines, line.number, column).join('.')];
  if (!keys) return null;
  // Keys already written at this level (in the same list item) are not offered again.
  const taken = new Set<string>();
  const startsItem = (text: string) => /^\s*-\s/.test(text);
  const siblings = (from: number, step: number) => {
    for (let i = from; i >= 0 && i < lines.length; i += step) {
      const l = parseLine(lines[i]);
      if (!l) continue;
      if (l.column < column) break;
      if (l.column > column) continue;
      // Going down, a new list item ends this one; going up, this item's first line ends it.
      if (step > 0 && startsItem(lines[i])) break;
      if (l.key) taken.add(l.key);
      if (step < 0 && startsItem(lines[i])) break;
    }
  };
  if (!m[2]) siblings(line.number - 2, -1);
  siblings(line.number, 1);
  const indent = ' '.repeat(column + 2);
  const options: Completion[] = Object.entries(keys)
    .filter(([k]) => !taken.has(k))
    .map(([k, key]) => ({
      label: k,
      type: 'property',
      info: key.info,
      detail: key.shape === 'scalar' ? undefined : key.shape,
      apply: key.shape === 'scalar' ? `${k}: ` : key.shape === 'list' ? `${k}:\n${indent}- ` : `${k}:\n${indent}`,
    }));
  return { from: ctx.pos - m[3].length, options, validFor: /^[A-Za-z_]*$/ };
}

/** What a value of a manifest names, by the dotted path of its key (a list item: its list's). */
export const PATH_VALUES: Record<string, 'file' | 'folder' | 'any'> = {
  'moves.from': 'any',
  'moves.to': 'any',
  'relinks.from': 'any',
  'relinks.to': 'any',
  'merges.from': 'file',
  'merges.into': 'file',
  'split.from': 'file',
  'split.into': 'folder',
  'edits.select.paths': 'file',
};

/** The folders (ending in `/`) holding `files`, each once, in order of first appearance. */
export function foldersOf(files: string[]): string[] {
  const seen = new Set<string>();
  for (const f of files) {
    const parts = f.split('/');
    for (let i = 1; i < parts.length; i++) seen.add(`${parts.slice(0, i).join('/')}/`);
  }
  return [...seen];
}

/** Where a path value is being written on a YAML line: its kind, where it starts, what is typed. */
export function pathValueAt(lines: string[], lineNo: number, before: string): { kind: 'file' | 'folder' | 'any'; typed: string } | null {
  const keyed = /^(\s*)((?:-\s+)*)([A-Za-z_][\w-]*):\s+(["']?)([^"'#\s]*)$/.exec(before);
  if (keyed) {
    const path = [...parentPath(lines, lineNo, keyed[1].length + keyed[2].length), keyed[3]].join('.');
    const kind = PATH_VALUES[path];
    return kind ? { kind, typed: keyed[5] } : null;
  }
  const item = /^(\s*)-\s+(["']?)([^"'#\s]*)$/.exec(before);
  if (item) {
    const kind = PATH_VALUES[parentPath(lines, lineNo, item[1].length).join('.')];
    return kind ? { kind, typed: item[3] } : null;
  }
  return null;
}

/**
 * Completes the paths a YAML manifest names (`from`, `to`, `into`, `select.paths` items) from
 * the pages of the knowledge base, and their folders; `pages` is asked once per completion.
 */
export function manifestPathCompletion(pages: () => Promise<string[]>) {
  return async (ctx: CompletionContext): Promise<CompletionResult | null> => {
    if (/^\s*[{[]/.test(ctx.state.sliceDoc(0, Math.min(ctx.state.doc.length, 200)))) return null;
    const line = ctx.state.doc.lineAt(ctx.pos);
    const at = pathValueAt(ctx.state.doc.toString().split('\n'), line.number, line.text.slice(0, ctx.pos - line.from));
    if (!at || (!at.typed && !ctx.explicit)) return null;
    const files = await pages();
    const folders = foldersOf(files);
    const values = at.kind === 'file' ? files : at.kind === 'folder' ? folders : [...folders, ...files];
    return {
      from: ctx.pos - at.typed.length,
      options: values.map((v) => ({ label: v, type: v.endsWith('/') ? 'namespace' : 'text' })),
      validFor: /^[^\s"'#]*$/,
    };
  };
}
