import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { describe, expect, it } from 'vitest';
import { closeLink } from './codemirror';

const view = (doc: string) => new EditorView({ state: EditorState.create({ doc }), parent: document.createElement('div') });

describe('[[ completion', () => {
  it('leaves the cursor after the closing brackets that were already there', () => {
    const v = view('See [[Al]] now');
    closeLink('Alpha')(v, null, 6, 8);
    expect(v.state.doc.toString()).toBe('See [[Alpha]] now');
    expect(v.state.selection.main.head).toBe('See [[Alpha]]'.length);
  });
  it('closes an open link and puts the cursor after it', () => {
    const v = view('See [[Al');
    closeLink('Alpha')(v, null, 6, 8);
    expect(v.state.doc.toString()).toBe('See [[Alpha]]');
    expect(v.state.selection.main.head).toBe('See [[Alpha]]'.length);
  });
});

describe('live preview', () => {
  it('hides markup off the cursor line and shows the source on it', async () => {
    const { createEditor } = await import('./codemirror');
    const host = document.createElement('div');
    document.body.append(host);
    const doc = '# Title\n\nSome **bold**, [[Page|an alias]], ==lit== and ![[Emb]].\n\nlast line';
    const ed = createEditor(host, doc, { label: 'x', preview: true });
    ed.view.dispatch({ selection: { anchor: doc.length } });
    const lines = () => [...host.querySelectorAll('.cm-line')].map((l) => l.textContent);
    expect(lines()[2]).toBe('Some bold, an alias, lit and ⧉ Emb.');
    expect(host.querySelector('.cm-lp-h1')?.textContent).toBe('Title');
    // The cursor on that line: its source shows.
    ed.view.dispatch({ selection: { anchor: doc.indexOf('bold') } });
    expect(lines()[2]).toBe('Some **bold**, [[Page|an alias]], ==lit== and ![[Emb]].');
    ed.setPreview(false);
    ed.view.dispatch({ selection: { anchor: doc.length } });
    expect(lines()[0]).toBe('# Title');
    ed.destroy();
  });
});
