import { expect, test } from '@playwright/test';
import { api, disk, setEditorText, shot, url, accessible } from './support';

test('edits and saves a page', async ({ page }) => {
  await page.goto(url('/edit/notes/epsilon.md'));
  await expect(page.locator('.cm-content')).toContainText('Edited in the browser');
  await setEditorText(page, '# Epsilon\n\nSaved from the browser. See [[Alpha]].\n');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('status')).toHaveText('Saved');
  expect(disk('notes/epsilon.md')).toBe('# Epsilon\n\nSaved from the browser. See [[Alpha]].\n');
  await shot(page, 'editor');
  await accessible(page);
});

test('[[ completes page names', async ({ page }) => {
  await page.goto(url('/edit/archive/old.md'));
  await expect(page.locator('.cm-content')).toContainText('archived');
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.insertText('\n[[gam');
  const option = page.locator('.cm-tooltip-autocomplete li', { hasText: 'gamma' });
  await expect(option).toBeVisible();
  await option.click();
  await expect(page.locator('.cm-content')).toContainText('[[gamma]]');
  // The cursor is after the link, also when `[[` was auto-closed while typing.
  await page.keyboard.type(' and [[bet');
  await page.locator('.cm-tooltip-autocomplete li', { hasText: 'beta' }).click();
  await page.keyboard.type('!');
  await expect(page.locator('.cm-content')).toContainText('[[gamma]] and [[beta]]!');
});

test('a save conflict shows both versions and saves the merge', async ({ page, request }) => {
  await page.goto(url('/edit/notes/alpha.md'));
  await expect(page.locator('.cm-content')).toContainText('First letter');
  // Someone else saves in between.
  const theirs = disk('notes/alpha.md').replace('First letter.', 'First letter (theirs).');
  const put = await request.put(api('/file?path=notes/alpha.md'), { data: theirs, headers: { 'X-Actor': 'bob' } });
  expect(put.ok()).toBeTruthy();
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.insertText('Mine.\n');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  const panel = page.getByRole('region', { name: 'Someone saved this page while you were editing' });
  await expect(panel).toBeVisible();
  await expect(panel.getByLabel('Their version (saved)')).toHaveValue(/First letter \(theirs\)/);
  await expect(panel.getByLabel('Your version')).toHaveValue(/Mine\./);
  await shot(page, 'conflict');
  await accessible(page);
  const merged = `${theirs}Mine.\n`;
  await panel.getByLabel('Merged result').fill(merged);
  await panel.getByRole('button', { name: 'Save merged version' }).click();
  await expect(page.getByRole('status')).toHaveText('Saved');
  expect(disk('notes/alpha.md')).toBe(merged);
});

test('creates a new page', async ({ page }) => {
  await page.goto(url('/new'));
  await page.getByLabel('Path of the new page').fill('notes/delta');
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.locator('.cm-content')).toContainText('# delta');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('status')).toHaveText('Saved');
  expect(disk('notes/delta.md')).toContain('# delta');
  // Live updates: the tree shows the new page.
  await expect(page.getByRole('treeitem', { name: 'delta' })).toBeVisible();
});
