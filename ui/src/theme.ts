// The configured theme (`GET /theme`) as CSS variables, and light/dark mode: the reader's own
// choice (remembered in this browser) wins, then the theme's mode, then the device's setting.
import type { Theme } from './api';

export type Mode = 'light' | 'dark';
const MODE_STORAGE = 'quire.theme';

export function savedMode(): Mode | null {
  const saved = localStorage.getItem(MODE_STORAGE);
  return saved === 'light' || saved === 'dark' ? saved : null;
}

export function saveMode(mode: Mode | null) {
  if (mode) localStorage.setItem(MODE_STORAGE, mode);
  else localStorage.removeItem(MODE_STORAGE);
}

export function effectiveMode(saved: Mode | null, theme: Theme | null, prefersDark: boolean): Mode {
  if (saved) return saved;
  if (theme?.mode === 'light' || theme?.mode === 'dark') return theme.mode;
  return prefersDark ? 'dark' : 'light';
}

const HEX = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i;

/** The CSS variables a theme sets: the accent (and focus ring), lightened in dark mode. */
export function themeVariables(theme: Theme | null, mode: Mode): Record<string, string> {
  if (!theme || !HEX.test(theme.primary)) return {};
  const accent = mode === 'dark' ? `color-mix(in srgb, ${theme.primary} 45%, white)` : theme.primary;
  return { '--accent': accent, '--focus': accent };
}

export function applyTheme(theme: Theme | null, mode: Mode) {
  const root = document.documentElement;
  root.dataset.theme = mode;
  root.style.removeProperty('--accent');
  root.style.removeProperty('--focus');
  for (const [k, v] of Object.entries(themeVariables(theme, mode))) root.style.setProperty(k, v);
}
