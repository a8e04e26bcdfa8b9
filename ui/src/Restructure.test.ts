import { describe, expect, it } from 'vitest';
import type { RawMoves } from './api';
import { relinkManifest } from './Restructure';

const move = (from: string, to: string) => ({ from, to, actor: 'quire', at: '2026-11-24T10:00:00Z', via: 'watcher' });

describe('relinkManifest', () => {
  it('repairs one raw move with its relinks entry from the server', () => {
    // The file moved twice: the server's entry points at where it is now.
    const raw: RawMoves = {
      moves: [move('a.md', 'b/a.md'), move('c.md', 'd/c.md')],
      manifest: { relinks: [{ from: 'a.md', to: 'e/a.md' }, { from: 'c.md', to: 'd/c.md' }] },
    };
    expect(relinkManifest(raw, raw.moves[0])).toEqual({ relinks: [{ from: 'a.md', to: 'e/a.md' }] });
    expect(relinkManifest(raw, raw.moves[1])).toEqual({ relinks: [{ from: 'c.md', to: 'd/c.md' }] });
  });

  it('falls back to the move itself when the server gives no entry for it', () => {
    const raw: RawMoves = { moves: [move('x.md', 'y/x.md')] };
    expect(relinkManifest(raw, raw.moves[0])).toEqual({ relinks: [{ from: 'x.md', to: 'y/x.md' }] });
  });
});
