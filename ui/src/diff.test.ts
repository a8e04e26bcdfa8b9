import { describe, expect, it } from 'vitest';
import { movedTo } from './History';
import { parseDiff, splitRows, wordDiff } from './diff';
import type { Plan } from './api';

const DIFF = '--- a/p.md\n+++ b/p.md\n@@ -1,4 +1,5 @@\n---\n title: x\n-See [[old/b]] for more.\n+See [[new/b]] for more.\n+A new line.\n tail\n';

describe('diffs', () => {
  it('drop file headers but keep a frontmatter fence inside a hunk, numbering both sides', () => {
    const rows = parseDiff(DIFF);
    expect(rows[0].kind).toBe('hunk');
    expect(rows[1]).toMatchObject({ kind: 'del', text: '--', old: 1 });
    expect(rows.find((r) => r.kind === 'add' && r.text === 'A new line.')).toMatchObject({ new: 3 });
  });
  it('highlight only the words that changed inside a changed line', () => {
    const [before, after] = wordDiff('See [[old/b]] for more.', 'See [[new/b]] for more.');
    expect(before.filter((p) => p.changed).map((p) => p.text)).toEqual(['old']);
    expect(after.filter((p) => p.changed).map((p) => p.text)).toEqual(['new']);
    const rows = parseDiff(DIFF);
    const changed = rows.find((r) => r.kind === 'add' && r.text.startsWith('See'))!;
    expect(changed.pieces!.filter((p) => p.changed).map((p) => p.text)).toEqual(['new']);
  });
  it('put consecutive added lines one under another, next to what they replace', () => {
    const split = splitRows(parseDiff('@@ -1,1 +1,3 @@\n-one\n+uno\n+dos\n+tres\n'));
    expect(split.slice(1).map((r) => [r.left?.text ?? null, r.right?.text ?? null])).toEqual([['one', 'uno'], [null, 'dos'], [null, 'tres']]);
  });
  it('after a revert that moves a page back, its history is at the old path', () => {
    const plan = { moves: [{ from: 'new/p.md', to: 'old/p.md' }] } as unknown as Plan;
    expect(movedTo(plan, 'new/p.md')).toBe('old/p.md');
    expect(movedTo(plan, 'other.md')).toBeNull();
  });
});
