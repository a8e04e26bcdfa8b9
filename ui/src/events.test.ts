import { describe, expect, it } from 'vitest';
import { parseSse, toChange } from './events';

describe('SSE parsing', () => {
  it('parses complete events and keeps the rest', () => {
    const { events, rest } = parseSse('event: write\ndata: {"path":"a.md","actor":"x","timestamp":"t"}\n\n: keep-alive\n\nevent: bulk\ndata: {"pa');
    expect(events).toEqual([{ event: 'write', data: '{"path":"a.md","actor":"x","timestamp":"t"}' }]);
    expect(rest).toBe('event: bulk\ndata: {"pa');
  });
  it('turns events into changes', () => {
    expect(toChange('bulk', '{"paths":["a","b"],"actor":"y"}')).toEqual({ kind: 'bulk', paths: ['a', 'b'], actor: 'y' });
    expect(toChange('other', '{}')).toBeNull();
    expect(toChange('write', 'not json')).toBeNull();
  });
});
