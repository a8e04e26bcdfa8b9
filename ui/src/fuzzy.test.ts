import { describe, expect, it } from 'vitest';
import { prepare, score, search, type Entry } from './fuzzy';

const entry = (path: string, title: string, aliases: string[] = []): Entry => ({ path, title, aliases });

describe('fuzzy matching', () => {
  it('finds letters in order with gaps (canvs → Canvas), not out of order', () => {
    const items = prepare([entry('Canvas.md', 'Canvas'), entry('notes/vacs.md', 'Vacs')]);
    expect(search(items, 'canvs').map((m) => m.entry.path)).toEqual(['Canvas.md']);
    expect(score('svnac', 'Canvas', 'canvas')).toBe(-1);
  });
  it('ranks prefix and word-start matches above scattered ones', () => {
    const items = prepare([
      entry('misc/grab-bag.md', 'A grab bag of things'),
      entry('graph.md', 'Graph view'),
      entry('ideas/geography.md', 'Geography'),
    ]);
    expect(search(items, 'graph')[0].entry.path).toBe('graph.md');
    expect(search(items, 'gv')[0].entry.path).toBe('graph.md');
  });
  it('matches aliases and paths, and says which matched', () => {
    const items = prepare([entry('people/ada.md', 'Ada Lovelace', ['Countess of Lovelace']), entry('x/y/deep-file.md', 'Other')]);
    const byAlias = search(items, 'countess')[0];
    expect(byAlias.field).toBe('alias');
    expect(byAlias.entry.path).toBe('people/ada.md');
    const byPath = search(items, 'xydeep')[0];
    expect(byPath.field).toBe('path');
    expect(byPath.positions.length).toBe(6);
  });
  it('keeps the best results only, best first', () => {
    const many = prepare(Array.from({ length: 500 }, (_, i) => entry(`p/${i}.md`, `Page ${i}`)));
    const out = search(many, 'page 42', 10);
    expect(out).toHaveLength(10);
    expect(out[0].entry.title).toBe('Page 42');
  });
});
