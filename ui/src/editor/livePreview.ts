// Live preview for the markdown editor: outside the lines the cursor is on, the markup of
// headings, emphasis, code, links, wiki links, embeds and highlights is hidden and the text
// styled as it reads; on the cursor's lines the source shows, so editing is always of the
// text itself. Decorations only: the document is never changed.
import { syntaxTree } from '@codemirror/language';
import { RangeSetBuilder, type EditorState, type Range } from '@codemirror/state';
import { Decoration, type DecorationSet, EditorView, ViewPlugin, type ViewUpdate, WidgetType } from '@codemirror/view';

const hide = Decoration.replace({});
const mark = (cls: string) => Decoration.mark({ class: cls });
const line = (cls: string) => Decoration.line({ class: cls });

/** An embed (`![[…]]`) shown as a chip naming what it embeds. */
class EmbedChip extends WidgetType {
  constructor(readonly target: string) { super(); }
  eq(other: EmbedChip) { return other.target === this.target; }
  toDOM() {
    const el = document.createElement('span');
    el.className = 'cm-lp-embed';
    el.textContent = `⧉ ${this.target}`;
    el.title = `Embeds ${this.target}`;
    return el;
  }
}

/** The lines (their starts) that hold a selection or the cursor: their source shows. */
function activeLines(state: EditorState): Set<number> {
  const out = new Set<number>();
  for (const r of state.selection.ranges) {
    for (let pos = state.doc.lineAt(r.from).from; pos <= r.to;) {
      const l = state.doc.lineAt(pos);
      out.add(l.from);
      pos = l.to + 1;
    }
  }
  return out;
}

export function previewDecorations(view: EditorView): DecorationSet {
  const { state } = view;
  const active = activeLines(state);
  const ranges: Range<Decoration>[] = [];
  const inactive = (pos: number) => !active.has(state.doc.lineAt(pos).from);
  for (const { from, to } of view.visibleRanges) {
    syntaxTree(state).iterate({
      from, to,
      enter: (node) => {
        const name = node.name;
        const heading = /^ATXHeading(\d)$/.exec(name);
        if (heading) {
          ranges.push(line(`cm-lp-h${heading[1]}`).range(state.doc.lineAt(node.from).from));
          return;
        }
        if (!inactive(node.from)) return;
        if (name === 'HeaderMark') {
          const after = state.sliceDoc(node.to, node.to + 1) === ' ' ? node.to + 1 : node.to;
          if (state.doc.lineAt(node.from).from === node.from) ranges.push(hide.range(node.from, after));
        } else if (name === 'EmphasisMark' || name === 'CodeMark' || name === 'StrikethroughMark') {
          ranges.push(hide.range(node.from, node.to));
        } else if (name === 'StrongEmphasis') ranges.push(mark('cm-lp-strong').range(node.from, node.to));
        else if (name === 'Emphasis') ranges.push(mark('cm-lp-em').range(node.from, node.to));
        else if (name === 'InlineCode') ranges.push(mark('cm-lp-code').range(node.from, node.to));
        else if (name === 'Link') {
          // [text](url): the text styled as a link, the brackets and the URL hidden.
          const marks: { from: number; to: number }[] = [];
          let url: { from: number; to: number } | null = null;
          const cursor = node.node.cursor();
          if (cursor.firstChild()) {
            do {
              if (cursor.name === 'LinkMark') marks.push({ from: cursor.from, to: cursor.to });
              if (cursor.name === 'URL') url = { from: cursor.from, to: cursor.to };
            } while (cursor.nextSibling());
          }
          // Only inline links with a destination; `[[wiki]]` is handled below.
          if (marks.length >= 2 && url && state.sliceDoc(node.from - 1, node.from) !== '[' && state.sliceDoc(node.from, node.from + 2) !== '[[') {
            ranges.push(hide.range(marks[0].from, marks[0].to));
            ranges.push(mark('cm-lp-link').range(marks[0].to, marks[1].from));
            ranges.push(hide.range(marks[1].from, url ? Math.max(url.to + 1, marks[marks.length - 1].to) : marks[marks.length - 1].to));
          }
          return false;
        }
      },
    });
    // What the markdown grammar does not know: wiki links, embeds, highlights.
    for (let pos = from; pos <= to;) {
      const l = state.doc.lineAt(pos);
      if (!active.has(l.from)) {
        for (const m of l.text.matchAll(/(!?)\[\[([^\[\]\n|#]*)(#[^\[\]\n|]*)?(?:\|([^\[\]\n]*))?\]\]/g)) {
          const start = l.from + m.index!;
          const end = start + m[0].length;
          if (m[1]) { ranges.push(Decoration.replace({ widget: new EmbedChip(`${m[2]}${m[3] ?? ''}`) }).range(start, end)); continue; }
          const shown = m[4] ?? `${m[2]}${m[3] ?? ''}`;
          const textFrom = m[4] !== undefined ? end - 2 - m[4].length : start + 2;
          ranges.push(hide.range(start, textFrom));
          ranges.push(mark('cm-lp-link').range(textFrom, textFrom + shown.length));
          ranges.push(hide.range(end - 2, end));
        }
        for (const m of l.text.matchAll(/==(?=\S)([^=\n]*?\S)==/g)) {
          const start = l.from + m.index!;
          ranges.push(hide.range(start, start + 2));
          ranges.push(mark('cm-lp-mark').range(start + 2, start + 2 + m[1].length));
          ranges.push(hide.range(start + 2 + m[1].length, start + m[0].length));
        }
      }
      pos = l.to + 1;
    }
  }
  // Overlapping hidden ranges (a wiki link inside emphasis…) are dropped, not merged.
  ranges.sort((a, b) => a.from - b.from || a.value.startSide - b.value.startSide);
  const builder = new RangeSetBuilder<Decoration>();
  let hiddenTo = -1;
  for (const r of ranges) {
    const isReplace = r.from !== r.to && (r.value.spec.widget !== undefined || r.value === hide);
    if (isReplace && r.from < hiddenTo) continue;
    try { builder.add(r.from, r.to, r.value); } catch { continue; }
    if (isReplace) hiddenTo = r.to;
  }
  return builder.finish();
}

export const livePreview = ViewPlugin.fromClass(class {
  decorations: DecorationSet;
  constructor(view: EditorView) { this.decorations = previewDecorations(view); }
  update(u: ViewUpdate) {
    if (u.docChanged || u.selectionSet || u.viewportChanged || syntaxTree(u.startState) !== syntaxTree(u.state)) this.decorations = previewDecorations(u.view);
  }
}, { decorations: (v) => v.decorations });
