// The markdown editor (CodeMirror 6), loaded only when a page is edited. `[[` completes page
// names and, after `#`, the headings of the page named.
import { autocompletion, closeBrackets, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { markdown } from '@codemirror/lang-markdown';
import { yaml } from '@codemirror/lang-yaml';
import { syntaxHighlighting } from '@codemirror/language';
import { classHighlighter } from '@lezer/highlight';
import { Compartment, EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers, placeholder } from '@codemirror/view';
import { livePreview } from './livePreview';
import { manifestCompletion, manifestPathCompletion } from './manifest';

export interface Completions {
  /** Page paths of the knowledge base. */
  pages: () => string[];
  /** Headings of the page a target names (resolved by the server). */
  headings: (target: string) => Promise<{ text: string; level: number }[]>;
}

/** What to insert for a page: its bare name when no other page shares it, else its path. */
export function linkTargets(paths: string[]): { label: string; detail: string }[] {
  const count = new Map<string, number>();
  const stem = (p: string) => p.split('/').pop()!.replace(/\.md$/, '');
  for (const p of paths) count.set(stem(p).toLowerCase(), (count.get(stem(p).toLowerCase()) ?? 0) + 1);
  return paths.map((p) => ({
    label: count.get(stem(p).toLowerCase())! > 1 ? p.replace(/\.md$/, '') : stem(p),
    detail: p,
  }));
}

/**
 * Inserts a link target and puts the cursor after the link's closing `]]` (added unless it
 * already follows, as when `[[` was auto-closed).
 */
export function closeLink(label: string) {
  return (view: EditorView, _c: unknown, from: number, to: number) => {
    const closed = view.state.sliceDoc(to, to + 2) === ']]';
    const end = from + label.length + 2;
    view.dispatch({ changes: { from, to: closed ? to + 2 : to, insert: `${label}]]` }, selection: { anchor: end } });
  };
}

export function wikiCompletion(c: Completions) {
  return async (ctx: CompletionContext): Promise<CompletionResult | null> => {
    const before = ctx.matchBefore(/\[\[[^\[\]|\n]*/);
    if (!before) return null;
    const inner = before.text.slice(2);
    const hash = inner.indexOf('#');
    if (hash >= 0) {
      const target = inner.slice(0, hash);
      const heads = await c.headings(target);
      return {
        from: before.from + 2 + hash + 1,
        options: heads.map((h) => ({ label: h.text, type: 'property', detail: `h${h.level}` })),
        validFor: /^[^\]|#\n]*$/,
      };
    }
    return {
      from: before.from + 2,
      options: linkTargets(c.pages()).map((t) => ({ label: t.label, detail: t.detail, type: 'text', apply: closeLink(t.label) })),
      validFor: /^[^\]|#\n]*$/,
    };
  };
}

export interface Editor {
  view: EditorView;
  /** Live preview on (markup hidden off the cursor's lines) or off (source). */
  setPreview(on: boolean): void;
  text(): string;
  setText(text: string): void;
  destroy(): void;
}

/**
 * Files dropped on or pasted into the editor: `upload` stores each and answers the text to
 * insert (a link), which goes where they were dropped, or at the cursor when pasted.
 */
export function fileDrop(upload: (file: File) => Promise<string>) {
  const insert = async (view: EditorView, files: File[], at: number) => {
    let pos = at;
    for (const file of files) {
      const text = await upload(file);
      if (!text) continue;
      view.dispatch({ changes: { from: pos, insert: text }, selection: { anchor: pos + text.length } });
      pos += text.length;
    }
  };
  return EditorView.domEventHandlers({
    drop(e, view) {
      const files = [...(e.dataTransfer?.files ?? [])];
      if (!files.length) return false;
      e.preventDefault();
      const at = view.posAtCoords({ x: e.clientX, y: e.clientY }) ?? view.state.selection.main.head;
      void insert(view, files, at);
      return true;
    },
    paste(e, view) {
      const files = [...(e.clipboardData?.files ?? [])];
      if (!files.length) return false;
      e.preventDefault();
      const { from, to } = view.state.selection.main;
      if (to > from) view.dispatch({ changes: { from, to } });
      void insert(view, files, from);
      return true;
    },
  });
}

/**
 * `manifest` is the YAML (or JSON) of a restructuring manifest, with its keys completed, and
 * the paths it names when `paths` gives the pages.
 */
export function createEditor(parent: HTMLElement, doc: string, opts: { completions?: Completions; paths?: () => Promise<string[]>; language?: 'markdown' | 'manifest'; label: string; onChange?: () => void; onSave?: () => void; upload?: (file: File) => Promise<string>; preview?: boolean }): Editor {
  const preview = new Compartment();
  const extensions = [
    preview.of(opts.preview && opts.language !== 'manifest' ? livePreview : []),
    lineNumbers(),
    history(),
    closeBrackets(),
    // Token classes (`tok-…`) coloured by styles.css in the theme's light and dark palettes.
    syntaxHighlighting(classHighlighter),
    opts.language === 'manifest' ? yaml() : markdown(),
    EditorView.lineWrapping,
    placeholder(opts.language === 'manifest' ? 'moves:\n  - from: notes/a.md\n    to: archive/' : 'Write markdown…'),
    EditorView.contentAttributes.of({ 'aria-label': opts.label }),
    keymap.of([
      { key: 'Mod-s', preventDefault: true, run: () => { opts.onSave?.(); return true; } },
      ...defaultKeymap, ...historyKeymap,
    ]),
    EditorView.updateListener.of((u) => { if (u.docChanged) opts.onChange?.(); }),
  ];
  if (opts.upload) extensions.push(fileDrop(opts.upload));
  if (opts.completions) extensions.push(autocompletion({ override: [wikiCompletion(opts.completions)] }));
  if (opts.language === 'manifest') {
    extensions.push(autocompletion({ override: opts.paths ? [manifestCompletion, manifestPathCompletion(opts.paths)] : [manifestCompletion] }));
  }
  const view = new EditorView({ parent, state: EditorState.create({ doc, extensions }) });
  return {
    view,
    text: () => view.state.doc.toString(),
    setPreview: (on) => view.dispatch({ effects: preview.reconfigure(on ? livePreview : []) }),
    setText: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
    destroy: () => view.destroy(),
  };
}
