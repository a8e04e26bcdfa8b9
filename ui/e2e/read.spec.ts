import { expect, test } from '@playwright/test';
import { accessible, shot, url } from './support';

test('opens a page: rendered links, properties, contents, backlinks, tree', async ({ page }) => {
  await page.goto(url('/page/notes/alpha.md'));
  await expect(page.getByRole('heading', { level: 1, name: 'Alpha' }).first()).toBeVisible();
  const article = page.locator('article.markdown');
  // Links resolved by the server, from this page.
  await expect(article.getByRole('link', { name: 'beta' })).toHaveAttribute('href', '/page/notes/beta.md');
  await expect(article.getByRole('link', { name: 'gamma, part one' })).toHaveAttribute('href', '/page/notes/gamma.md#Part%20one');
  await expect(article.locator('.unresolved', { hasText: 'Nowhere' })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Properties' })).toContainText('draft');
  await expect(page.getByRole('list', { name: 'Tags' })).toContainText('#greek');
  await expect(page.getByRole('navigation', { name: 'Table of contents' })).toContainText('Details');
  await expect(page.locator('.backlinks')).toContainText('Welcome');
  await expect(page.getByRole('treeitem', { name: 'alpha' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('navigation', { name: 'Breadcrumbs' })).toContainText('notes');
  await shot(page, 'tree-and-page');
  await accessible(page);

  // Following a link stays in the app.
  await article.getByRole('link', { name: 'beta' }).click();
  await expect(page).toHaveURL(/\/page\/notes\/beta\.md$/);
  await expect(page.locator('.backlinks')).toContainText('Alpha');
});

test('dark mode is accessible too', async ({ page }) => {
  await page.goto(url('/page/index.md'));
  await page.getByRole('button', { name: 'Switch to dark mode' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(page.locator('article.markdown')).toContainText('Start with');
  await shot(page, 'dark-mode');
  await accessible(page);
});

test('the tree is keyboard navigable', async ({ page }) => {
  await page.goto(url('/'));
  const first = page.getByRole('treeitem').first();
  await first.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/page\/revert-me\.md$/);
});

test('Ctrl+K searches with highlighted snippets', async ({ page }) => {
  await page.goto(url('/page/index.md'));
  await expect(page.locator('article.markdown')).toBeVisible();
  await page.keyboard.press('Control+k');
  const input = page.getByRole('combobox', { name: 'Search pages' });
  await input.fill('zebra');
  const hit = page.getByRole('dialog').getByRole('option').first();
  await expect(hit).toContainText('Beta');
  await expect(hit.locator('mark')).toHaveText(/zebra/i);
  await shot(page, 'search');
  await accessible(page);
  await input.press('Enter');
  await expect(page).toHaveURL(/\/page\/notes\/beta\.md$/);
});

test('phone width shows the page and the tree behind a menu', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto(url('/page/notes/beta.md'));
  await expect(page.locator('article.markdown')).toContainText('zebra');
  await expect(page.getByRole('tree')).toBeHidden();
  await page.getByRole('button', { name: 'Pages' }).click();
  await expect(page.getByRole('tree')).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Views (menu)' }).getByRole('link', { name: 'Board' })).toBeVisible();
  await shot(page, 'phone');
  await accessible(page);
});

test('the graph view draws the link graph', async ({ page }) => {
  await page.goto(url('/graph'));
  await expect(page.getByRole('status')).toContainText('pages');
  await expect(page.locator('.graph-canvas canvas').first()).toBeVisible();
  await shot(page, 'graph');
  await accessible(page);
});
