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
