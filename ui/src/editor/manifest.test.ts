import { CompletionContext } from '@codemirror/autocomplete';
import { EditorState } from '@codemirror/state';
import { describe, expect, it } from 'vitest';
import { foldersOf, jsonPath, manifestCompletion, manifestPathCompletion, parentPath } from './manifest';

/** The labels offered where `|` stands in `doc`. */
function complete(doc: string, explicit = false): string[] | null {
  const pos = doc.indexOf('|');
  const state = EditorState.create({ doc: doc.replace('|', '') });
  const result = manifestCompletion(new CompletionContext(state, pos, explicit));
  return result ? result.options.map((o) => o.label) : null;
}

describe('manifest key completion', () => {
  it('offers the top-level keys of a manifest', () => {
    expect(complete('m|')).toEqual(['moves', 'merges', 'edits', 'rename_tags', 'relinks', 'split', 'delete_empty_dirs', 'now']);
  });

  it('leaves out keys already written at the same level', () => {
    const keys = complete('moves:\n  - from: a.md\n    to: b.md\n|', true)!;
    expect(keys).not.toContain('moves');
    expect(keys).toContain('edits');
  });

  it('offers the keys of a move entry, without those the item already has', () => {
    expect(complete('moves:\n  - |', true)).toEqual(['from', 'from_regex', 'to']);
    expect(complete('moves:\n  - from: a.md\n    t|')).toEqual(['from_regex', 'to']);
    // A second item starts afresh.
    expect(complete('moves:\n  - from: a.md\n    to: b/\n  - f|')).toEqual(['from', 'from_regex', 'to']);
  });

  it('knows the entries of merges, rename_tags, split and relinks', () => {
    expect(complete('merges:\n  - |', true)).toEqual(['from', 'into']);
    expect(complete('rename_tags:\n  - |', true)).toEqual(['from', 'to']);
    expect(complete('split:\n  |', true)).toEqual(['from', 'level', 'into', 'confirm']);
    expect(complete('relinks:\n  - |', true)).toEqual(['from', 'from_regex', 'to']);
  });

  it('completes the keys of an edit, its select and its replacements', () => {
    expect(complete('edits:\n  - select:\n      glob: "a/*"\n    s|')).toEqual(['when', 'set', 'compute', 'unset', 'add_tags', 'remove_tags', 'replace', 'move_to', 'on_conflict', 'force']);
    expect(complete('edits:\n  - select:\n      glob: "a/*"\n    |', true)).not.toContain('select');
    expect(complete('edits:\n  - select:\n      q|')).toEqual(['paths', 'glob', 'query']);
    expect(complete('edits:\n  - select: {glob: "*"}\n    replace:\n      - find: x\n        |', true)).toEqual(['with', 'regex']);
  });

  it('inserts a list or a map below a container key', () => {
    const pos = 1;
    const state = EditorState.create({ doc: 'm' });
    const result = manifestCompletion(new CompletionContext(state, pos, false))!;
    const moves = result.options.find((o) => o.label === 'moves')!;
    expect(moves.apply).toBe('moves:\n  - ');
    expect(result.options.find((o) => o.label === 'now')!.apply).toBe('now: ');
    expect(result.options.find((o) => o.label === 'split')!.apply).toBe('split:\n  ');
  });

  it('stays quiet after a colon, inside free maps, and on empty lines unless asked', () => {
    expect(complete('moves:\n  - from: a|')).toBeNull();
    expect(complete('edits:\n  - select: {glob: "*"}\n    set:\n      st|')).toBeNull();
    expect(complete('moves:\n  - |')).toBeNull();
  });

  it('finds the parent keys from indentation', () => {
    const lines = ['edits:', '  - select:', '      glob: x', '      '];
    expect(parentPath(lines, 4, 6)).toEqual(['edits', 'select']);
    expect(parentPath(['# comment', 'moves:', '', '  - to: x'], 4, 4)).toEqual(['moves']);
    expect(parentPath(['moves:'], 2, 0)).toEqual([]);
  });

  it('completes quoted keys of a manifest written as JSON', () => {
    expect(complete('{"m|"}')).toEqual(['moves', 'merges', 'edits', 'rename_tags', 'relinks', 'split', 'delete_empty_dirs', 'now']);
    expect(complete('{"moves": [{"from": "a.md", "t|"}]}')).toEqual(['from', 'from_regex', 'to']);
    expect(complete('{"edits": [{"select": {"g|"}}]}')).toEqual(['paths', 'glob', 'query']);
    expect(complete('{"moves": [{"from": "a|"}]}')).toBeNull();
    const state = EditorState.create({ doc: '{"m"}' });
    const result = manifestCompletion(new CompletionContext(state, 3, false))!;
    // The closing quote is replaced along with the word.
    expect([result.from, result.to]).toEqual([2, 4]);
    expect(result.options.find((o) => o.label === 'moves')!.apply).toBe('moves": [');
  });

  it('finds the parent keys of a JSON object', () => {
    expect(jsonPath('{')).toEqual([]);
    expect(jsonPath('{"edits": [{"select": {')).toEqual(['edits', 'select']);
    expect(jsonPath('{"moves": [{"from": "x"}, {')).toEqual(['moves']);
    expect(jsonPath('{"moves": [')).toBeNull();
    expect(jsonPath('{"a": "b\\"c", "split": {')).toEqual(['split']);
  });
});

describe('manifest path completion', () => {
  const pages = ['notes/a.md', 'notes/deep/b.md', 'top.md'];
  async function values(doc: string, explicit = false): Promise<string[] | null> {
    const pos = doc.indexOf('|');
    const state = EditorState.create({ doc: doc.replace('|', '') });
    const result = await manifestPathCompletion(async () => pages)(new CompletionContext(state, pos, explicit));
    return result ? result.options.map((o) => o.label) : null;
  }

  it('offers folders and pages where a move names a path', async () => {
    expect(await values('moves:\n  - from: n|')).toEqual(['notes/', 'notes/deep/', ...pages]);
    expect(await values('moves:\n  - from: notes/a.md\n    to: |', true)).toEqual(['notes/', 'notes/deep/', ...pages]);
  });

  it('offers pages only where a page is meant, folders only where a folder is', async () => {
    expect(await values('merges:\n  - from: a|')).toEqual(pages);
    expect(await values('split:\n  from: top.md\n  into: n|')).toEqual(['notes/', 'notes/deep/']);
    expect(await values('edits:\n  - select:\n      paths:\n        - no|')).toEqual(pages);
  });

  it('stays quiet elsewhere: keys, other values, JSON', async () => {
    expect(await values('moves:\n  - fro|')).toBeNull();
    expect(await values('now: 2|')).toBeNull();
    expect(await values('rename_tags:\n  - from: pro|')).toBeNull();
    expect(await values('{"moves": [{"from": "n|"}]}')).toBeNull();
    expect(foldersOf(['a/b/c.md', 'a/d.md'])).toEqual(['a/', 'a/b/']);
  });
});
