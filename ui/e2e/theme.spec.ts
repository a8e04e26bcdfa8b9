import { expect, test } from '@playwright/test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from './global-setup';
import { accessible, api, disk, shot, url } from './support';

const accent = (page: import('@playwright/test').Page) =>
  page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim());

test('the space theme is applied and set from the settings dialog', async ({ page, request }) => {
  const before = await (await request.get(api('/theme'))).json();
  try {
    await page.goto(url('/page/index.md'));
    await expect.poll(() => accent(page)).toBe(before.primary);
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByLabel('Accent colour').fill('#0a6b2e');
    await dialog.getByLabel('Default mode').selectOption('dark');
    await shot(page, 'settings');
    await accessible(page);
    await dialog.getByRole('button', { name: 'Save theme' }).click();
    await expect(dialog.getByRole('status')).toHaveText('Theme saved for every reader of this space.');
    expect(JSON.parse(disk('.quire/theme.json'))).toMatchObject({ primary: '#0a6b2e', mode: 'dark' });
    await dialog.getByRole('button', { name: 'Done' }).click();
    // The theme's mode applies to a reader who has not chosen one; the accent is lightened.
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await expect.poll(() => accent(page)).toContain('color-mix');

    // A reader's own choice wins and is remembered.
    await page.getByRole('button', { name: 'Switch to light mode' }).click();
    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
    await expect.poll(() => accent(page)).toBe('#0a6b2e');
    await expect(page.locator('article.markdown')).toBeVisible();
    await accessible(page);
  } finally {
    await request.put(api('/theme'), { data: before });
  }
});

test('a locked theme is said to be locked', async ({ page }) => {
  const locked = await startServer({ '.quire/config.toml': '[ui]\ntheme_locked = true\n', 'index.md': '# Welcome\n\nLocked theme.\n' });
  try {
    await page.goto(`${locked.url}/page/index.md`);
    await page.getByRole('button', { name: 'Settings' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByRole('button', { name: 'Save theme' }).click();
    await expect(dialog.getByRole('alert')).toContainText('The theme is locked');
    await expect(dialog.getByRole('button', { name: 'Save theme' })).toBeDisabled();
    expect(existsSync(join(locked.root, '.quire/theme.json'))).toBe(false);
  } finally {
    await locked.stop();
  }
});
