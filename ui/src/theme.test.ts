import { describe, expect, it } from 'vitest';
import { effectiveMode, themeVariables } from './theme';

describe('theme', () => {
  it('the reader wins, then the theme, then the device', () => {
    expect(effectiveMode('light', { primary: '#123456', mode: 'dark' }, true)).toBe('light');
    expect(effectiveMode(null, { primary: '#123456', mode: 'dark' }, false)).toBe('dark');
    expect(effectiveMode(null, { primary: '#123456', mode: 'system' }, true)).toBe('dark');
    expect(effectiveMode(null, null, false)).toBe('light');
  });
  it('sets the accent from the primary colour, lighter in dark mode, and ignores bad colours', () => {
    expect(themeVariables({ primary: '#0a7d32', mode: 'system' }, 'light')).toEqual({ '--accent': '#0a7d32', '--focus': '#0a7d32' });
    expect(themeVariables({ primary: '#0a7d32', mode: 'system' }, 'dark')['--accent']).toContain('color-mix');
    expect(themeVariables({ primary: 'red;x:y', mode: 'light' }, 'light')).toEqual({});
  });
});
